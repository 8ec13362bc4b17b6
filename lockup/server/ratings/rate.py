"""Rating one finished game: who counts at each seat, the model's answer, stored once.

Everything is read from the database (the game's seats, people and record, its room's
options, the accounts, who abandoned), so any process may rate any game, and rating again
is harmless: the changes' key (game, seat) lets one transaction in, the others find it
rated.

Who is rated (:func:`lineup`, pure; docs/ratings.md says why):

- only accounts: a person counts when their player is an account's, made before the game
  began; a guest's seat is left out (neither rated nor ranked);
- nobody holds two seats: when two people of the table share an address or a browser, the
  whole game is unrated (``shared``);
- at least two accounts: a game with fewer is unrated (``few-accounts``);
- at a quick-play table only the first game is rated; its rematches are friendly games
  (``rematch``);
- a person who abandoned the game (an ``abandon`` event at their seat) is rated as
  themselves and ranked last, whatever their points.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection

from ...ratings import Rating, TableResult, computer_subject, rate_table, shown
from ...record import from_record
from ..store.rows import _now
from ..store.schema import (
    accounts_table,
    game_events_table,
    games_table,
    participants_table,
    rating_changes_table,
    ratings_table,
    rooms_table,
)

PERSON = "person"
COMPUTER = "computer"
ABANDON = "abandon"
"""The kind of the game event stored when a person abandons their seat."""

GUEST = "guest"
"""Why a seat's person is not rated: they played as a guest (no account)."""
SHARED = "shared"
"""Why a game is not rated: two of its people sat down from one address or browser."""
FEW_ACCOUNTS = "few-accounts"
"""Why a game is not rated: fewer than two accounts played it."""
REMATCH = "rematch"
"""Why a game is not rated: a rematch at a quick-play table (a friendly game)."""
MIN_ACCOUNTS = 2
"""The fewest distinct accounts at a table for its game to be rated."""


class Conflict(RuntimeError):
    """A subject's rating changed (or was made) since it was read: read again."""


@dataclass(frozen=True)
class Sat:
    """A person who sat at a seat of a game (a ``participants`` row): their player, where
    they sat down from (``tag``: the keyed hash of their address, ``browser``: their
    browser's token; None: not known, which never matches), and whether the player is an
    account's (``account``)."""

    seat: int
    player: str
    tag: str | None = None
    browser: str | None = None
    account: bool = False


@dataclass(frozen=True)
class Lineup:
    """Who counts at each seat of a rated room's game.

    ``subjects[s]``: the subject rated at seat ``s`` (an account's player, or
    ``computer:<level>``), None where the seat is left out (a guest); ``kinds[s]``:
    ``person``, ``computer`` or None; ``last[s]``: the seat's person abandoned the game and
    ranks last; ``why[s]``: why the seat's person is not rated (None: rated, or no person);
    ``unrated``: why the whole game is not rated (None: it is).
    """

    subjects: list[str | None]
    kinds: list[str | None]
    last: list[bool]
    why: list[str | None]
    unrated: str | None


def shared_seats(people: Sequence[Sat]) -> set[int]:
    """The seats whose person shares an address tag or a browser with another person of
    the table (None never matches)."""
    out: set[int] = set()
    for i, a in enumerate(people):
        for b in people[i + 1 :]:
            if a.player == b.player:
                continue
            same_tag = a.tag is not None and a.tag == b.tag
            same_browser = a.browser is not None and a.browser == b.browser
            if same_tag or same_browser:
                out |= {a.seat, b.seat}
    return out


def lineup(
    seats: Sequence[dict[str, Any]],
    people: Sequence[Sat],
    abandoned: Collection[int],
    default_level: str,
    *,
    rematch: bool = False,
) -> Lineup:
    """Who counts at each seat of a game of a rated room (pure; see the module's rules).

    ``seats``: the game's seats as stored (``kind``, ``level``; a seat a computer took for
    good is stored as the computer's); ``people``: who sat where (the ``participants``
    rows; they say who a seat's person was even after a computer took it); ``abandoned``:
    the seats with an ``abandon`` event; ``rematch``: the game is a rematch at a quick-play
    table.
    """
    by_seat = {p.seat: p for p in people}
    subjects: list[str | None] = []
    kinds: list[str | None] = []
    last: list[bool] = []
    why: list[str | None] = []
    for s, seat in enumerate(seats):
        person = by_seat.get(s)
        if person is None:
            subjects.append(computer_subject(str(seat.get("level") or default_level)))
            kinds.append(COMPUTER)
            last.append(False)
            why.append(None)
        elif person.account:
            subjects.append(person.player)
            kinds.append(PERSON)
            last.append(s in abandoned)
            why.append(None)
        else:
            subjects.append(None)
            kinds.append(None)
            last.append(False)
            why.append(GUEST)
    accounts = {p.player for p in people if p.account}
    unrated = None
    if rematch:
        unrated = REMATCH
    elif shared_seats(people):
        unrated = SHARED
    elif len(accounts) < MIN_ACCOUNTS:
        unrated = FEW_ACCOUNTS
    if unrated is not None:
        why = [w if w is not None or s not in by_seat else unrated for s, w in enumerate(why)]
    return Lineup(subjects, kinds, last, why, unrated)


@dataclass(frozen=True)
class Plan:
    """A game to rate: each seat's kind (None: left out) and whether its person ranks last
    for abandoning, the ratings before (None: the subject has no row yet) and the model's
    result (one change per rated seat)."""

    game_id: str
    kinds: list[str | None]
    last: list[bool]
    before: dict[str, Rating | None]
    result: TableResult


@dataclass(frozen=True)
class Facts:
    """What :func:`read_facts` found of a game: its seats as stored, its record (None: not
    over), its room's options (None: no room), who sat where, the seats abandoned and
    whether it is a rematch at a quick-play table."""

    seats: list[dict[str, Any]]
    record: str | None
    options: dict[str, Any] | None
    people: list[Sat]
    abandoned: frozenset[int]
    rematch: bool

    @property
    def table(self) -> str | None:
        """Why its table is not rated at all (``no-room``: a game of one person against
        computers; ``unrated``: its room's options say so), or None."""
        if self.options is None:
            return "no-room"
        if not self.options.get("rated", False):
            return "unrated"
        return None

    def lineup(self, default_level: str) -> Lineup:
        """Who counts at each seat (:func:`lineup`)."""
        return lineup(self.seats, self.people, self.abandoned, default_level, rematch=self.rematch)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def read_facts(conn: Connection, game_id: str) -> Facts | None:
    """Read what decides who is rated at ``game_id`` (None: no such game). A player counts
    as an account's only when the account was made before the game began: a guest who
    signs up later was told the game was unrated, and it stays so."""
    g = games_table.c
    row = conn.execute(
        select(g.seats, g.record, g.room_id, g.created_at).where(g.id == game_id)
    ).first()
    if row is None:
        return None
    options = None
    rematch = False
    if row.room_id is not None:
        text = conn.execute(
            select(rooms_table.c.options).where(rooms_table.c.id == row.room_id)
        ).scalar_one_or_none()
        options = None if text is None else dict(json.loads(text))
        if options is not None and options.get("quick", False):
            first = conn.execute(
                select(g.id).where(g.room_id == row.room_id).order_by(g.created_at, g.id).limit(1)
            ).scalar_one()
            rematch = first != game_id
    p, a = participants_table.c, accounts_table.c
    sat = conn.execute(
        select(p.seat, p.player_id, p.address_tag, p.browser).where(
            p.game_id == game_id, p.uploaded.is_(False)
        )
    ).all()
    seats: list[dict[str, Any]] = json.loads(row.seats)
    found = [(int(x.seat), str(x.player_id), x.address_tag, x.browser) for x in sat]
    known = {x[0] for x in found}
    found += [  # a person's seat the participants miss (never so for a game made here)
        (s, str(d["player"]), d.get("tag"), d.get("browser"))
        for s, d in enumerate(seats)
        if s not in known and d.get("kind") == "human" and d.get("player")
    ]
    began = _aware(row.created_at)
    accounts = {
        x.player_id
        for x in conn.execute(
            select(a.player_id, a.created_at).where(a.player_id.in_([x[1] for x in found]))
        )
        if _aware(x.created_at) <= began
    }
    people = [Sat(s, player, tag, browser, player in accounts) for s, player, tag, browser in found]
    e = game_events_table.c
    abandoned = frozenset(
        int(s)
        for s in conn.execute(
            select(e.seat).where(e.game_id == game_id, e.kind == ABANDON, e.seat.is_not(None))
        ).scalars()
    )
    return Facts(seats, row.record, options, people, abandoned, rematch)


def read_plan(conn: Connection, game_id: str, default_level: str) -> Plan | str:
    """What rating ``game_id`` would do, or why it is not rated: ``rated-already``,
    ``no-game``, ``not-over``, ``no-room`` (a game of one person against computers),
    ``unrated`` (its room's options say so), ``rematch`` (a quick-play table's rematch),
    ``shared`` (two of its people share an address or a browser) or ``few-accounts``
    (fewer than two accounts played it)."""
    done = conn.execute(
        select(func.count())
        .select_from(rating_changes_table)
        .where(rating_changes_table.c.game_id == game_id)
    ).scalar_one()
    if done:
        return "rated-already"
    facts = read_facts(conn, game_id)
    if facts is None:
        return "no-game"
    if facts.record is None:
        return "not-over"
    if facts.table is not None:
        return facts.table
    game = from_record(facts.record)
    if not game.is_over:  # pragma: no cover - a stored record is a finished game's
        return "not-over"
    seen = facts.lineup(default_level)
    if seen.unrated is not None:
        return seen.unrated
    subjects = {s for s in seen.subjects if s is not None}
    r = ratings_table.c
    stored = {
        x.subject: Rating(x.mu, x.sigma, x.games)
        for x in conn.execute(
            select(r.subject, r.mu, r.sigma, r.games).where(r.subject.in_(subjects))
        )
    }
    before: dict[str, Rating | None] = {s: stored.get(s) for s in subjects}
    last = {s for s, x in enumerate(seen.last) if x}
    result = rate_table(seen.subjects, list(game.totals), stored, last)
    return Plan(game_id, seen.kinds, seen.last, before, result)


def write_plan(conn: Connection, plan: Plan) -> None:
    """Store a plan in the caller's transaction: the changes first (a second rating of the
    game fails on their key), then each subject's rating, updated only if it is still the
    one the plan read (else :class:`Conflict`; a new subject made meanwhile fails on its
    key). Either way nothing of the plan stays. A change's ``sat_out`` says that the
    seat's person abandoned the game (ranked last)."""
    now = _now()
    conn.execute(
        rating_changes_table.insert(),
        [
            {
                "game_id": plan.game_id,
                "seat": c.seat,
                "subject": c.subject,
                "kind": plan.kinds[c.seat],
                "sat_out": plan.last[c.seat],
                "mu_before": c.before.mu,
                "sigma_before": c.before.sigma,
                "rating_before": c.before.shown,
                "mu_after": c.after.mu,
                "sigma_after": c.after.sigma,
                "rating_after": c.after.shown,
                "created_at": now,
            }
            for c in plan.result.seats
        ],
    )
    r = ratings_table.c
    kind_of = {c.subject: plan.kinds[c.seat] for c in plan.result.seats}
    for subject, new in plan.result.subjects.items():
        values = {
            "mu": new.mu,
            "sigma": new.sigma,
            "rating": shown(new.mu, new.sigma),
            "games": new.games,
            "updated": now,
        }
        old = plan.before[subject]
        if old is None:
            conn.execute(
                ratings_table.insert().values(subject=subject, kind=kind_of[subject], **values)
            )
            continue
        done = conn.execute(
            update(ratings_table).where(r.subject == subject, r.games == old.games).values(**values)
        ).rowcount
        if done != 1:
            raise Conflict(f"the rating of {kind_of[subject]} {subject[:12]} changed meanwhile")
