"""Rating one finished game: who counts at each seat, the model's answer, stored once.

Everything is read from the database (the game's seats and record, its room's options,
who played each card), so any process may rate any game, and rating again is harmless:
the changes' key (game, seat) lets one transaction in, the others find it rated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.engine import Connection

from ...ratings import Rating, TableResult, computer_subject, rate_table, shown
from ...record import from_record
from ..store.rows import _now
from ..store.schema import (
    actions_table,
    games_table,
    rating_changes_table,
    ratings_table,
    rooms_table,
)

PERSON = "person"
COMPUTER = "computer"


class Conflict(RuntimeError):
    """A subject's rating changed (or was made) since it was read: read again."""


def sat_out(by_computer: int, cards: int) -> bool:
    """Whether a person mostly sat out: a computer played more than half of their seat's
    ``cards`` for them."""
    return 2 * by_computer > cards


@dataclass(frozen=True)
class Plan:
    """A game to rate: each seat's subject and kind, who sat out, the ratings before
    (None: the subject has no row yet) and the model's result."""

    game_id: str
    kinds: list[str]
    sat_out: list[bool]
    before: dict[str, Rating | None]
    result: TableResult


def seat_subjects(
    seats: list[dict[str, Any]], plays: dict[int, tuple[int, int]], default_level: str
) -> tuple[list[str], list[str], list[bool]]:
    """Each seat's subject, kind and whether a person sat out. ``seats`` as stored
    (``kind``, ``player``, ``level``); ``plays[s]``: (cards a computer played for the seat,
    cards of the seat). A person who sat out counts as the level that played for them."""
    subjects, kinds, out = [], [], []
    for s, seat in enumerate(seats):
        level = seat.get("level") or default_level
        by_computer, cards = plays.get(s, (0, 0))
        person = seat.get("kind") == "human" and bool(seat.get("player"))
        away = person and sat_out(by_computer, cards)
        if person and not away:
            subjects.append(str(seat["player"]))
            kinds.append(PERSON)
        else:
            subjects.append(computer_subject(str(level)))
            kinds.append(COMPUTER)
        out.append(away)
    return subjects, kinds, out


def read_plan(conn: Connection, game_id: str, default_level: str) -> Plan | str:
    """What rating ``game_id`` would do, or why it is not rated: ``rated-already``,
    ``no-game``, ``not-over``, ``no-room`` (a game of one person against computers),
    ``unrated`` (its room's options say so) or ``nobody`` (no person counts: all sat out)."""
    done = conn.execute(
        select(func.count())
        .select_from(rating_changes_table)
        .where(rating_changes_table.c.game_id == game_id)
    ).scalar_one()
    if done:
        return "rated-already"
    g = games_table.c
    row = conn.execute(select(g.seats, g.record, g.room_id).where(g.id == game_id)).first()
    if row is None:
        return "no-game"
    if row.record is None:
        return "not-over"
    if row.room_id is None:
        return "no-room"
    options = conn.execute(
        select(rooms_table.c.options).where(rooms_table.c.id == row.room_id)
    ).scalar_one_or_none()
    if options is None or not json.loads(options).get("rated", False):
        return "unrated"
    game = from_record(row.record)
    if not game.is_over:  # pragma: no cover - a stored record is a finished game's
        return "not-over"
    a = actions_table.c
    plays: dict[int, tuple[int, int]] = {}
    for seat, actor, n in conn.execute(
        select(a.seat, a.actor, func.count())
        .where(a.game_id == game_id, a.kind == "play")
        .group_by(a.seat, a.actor)
    ):
        by_computer, cards = plays.get(int(seat), (0, 0))
        plays[int(seat)] = (by_computer + (n if actor == "computer" else 0), cards + n)
    subjects, kinds, out = seat_subjects(json.loads(row.seats), plays, default_level)
    if PERSON not in kinds:
        return "nobody"
    r = ratings_table.c
    stored = {
        x.subject: Rating(x.mu, x.sigma, x.games)
        for x in conn.execute(
            select(r.subject, r.mu, r.sigma, r.games).where(r.subject.in_(set(subjects)))
        )
    }
    before: dict[str, Rating | None] = {s: stored.get(s) for s in subjects}
    result = rate_table(subjects, list(game.totals), stored)
    return Plan(game_id, kinds, out, before, result)


def write_plan(conn: Connection, plan: Plan) -> None:
    """Store a plan in the caller's transaction: the changes first (a second rating of the
    game fails on their key), then each subject's rating, updated only if it is still the
    one the plan read (else :class:`Conflict`; a new subject made meanwhile fails on its
    key). Either way nothing of the plan stays."""
    now = _now()
    conn.execute(
        rating_changes_table.insert(),
        [
            {
                "game_id": plan.game_id,
                "seat": c.seat,
                "subject": c.subject,
                "kind": plan.kinds[c.seat],
                "sat_out": plan.sat_out[c.seat],
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
