"""Ratings: the model (lockup/ratings.py) against openskill's own numbers, who counts at a
table (:func:`lockup.server.ratings.lineup`: accounts only, nobody twice, two accounts at
least, no quick-table rematch, abandoning ranks last), and the server's rating of stored
games on a real database (SQLite file and PostgreSQL) through the real
:class:`RatingService`: the farming and dodging runs measured against the server before
these rules, rated once however often asked, the leaderboard's provisional rule, a
player's history, what one game did to a player, the look for games left unrated and the
migration of an existing file.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from conftest import run_store, step
from openskill.models import PlackettLuce
from sqlalchemy import create_engine, insert, inspect, select, update
from sqlalchemy.exc import IntegrityError

from lockup.cards import card_str
from lockup.engine import Game, Rules
from lockup.ratings import (
    MU,
    PROVISIONAL_GAMES,
    SIGMA,
    Rating,
    computer_subject,
    level_of,
    provisional,
    ranks_of,
    rate_table,
    shown,
)
from lockup.record import dumps
from lockup.server.ratings import (
    FEW_ACCOUNTS,
    GUEST,
    REMATCH,
    SHARED,
    Conflict,
    Plan,
    RatingService,
    Sat,
    lineup,
    read_plan,
    shared_seats,
    write_plan,
)
from lockup.server.store import ActionRow, GameRow, Store, alembic_config, head_revision
from lockup.server.store.schema import (
    accounts_table,
    game_events_table,
    games_table,
    players_table,
    rating_changes_table,
    ratings_table,
    rooms_table,
)

OS = PlackettLuce()
"""openskill itself, with its defaults, to check our numbers against."""


def os_rate(
    befores: list[tuple[float, float]], points: list[int], last: Collection[int] = ()
) -> list[tuple[float, float]]:
    """openskill's answer for teams of one, ranked by points (equal points tie), the seats
    in ``last`` after all others (tied among themselves)."""
    teams = [[OS.rating(mu=mu, sigma=sigma)] for mu, sigma in befores]
    others = [p for s, p in enumerate(points) if s not in last]
    order = [
        len(others) + 1 if s in last else 1 + sum(1 for q in others if q > p)
        for s, p in enumerate(points)
    ]
    return [(t[0].mu, t[0].sigma) for t in OS.rate(teams, ranks=order)]


# ---------------------------------------------------------------------- the model


def test_ranks_and_the_shown_number() -> None:
    assert ranks_of([20, 12, 12, 7]) == [1, 2, 2, 4]
    assert ranks_of([5, 21, 5, 5]) == [2, 1, 2, 2]
    # Seats ranked last whatever their points, tied among themselves.
    assert ranks_of([20, 12, 12, 7], last={0}) == [4, 1, 1, 3]
    assert ranks_of([20, 12, 12, 7], last={0, 3}) == [3, 1, 1, 3]
    assert ranks_of([20, 12, 12, 7], last={0, 1, 2, 3}) == [1, 1, 1, 1]
    assert Rating().shown == shown(MU, SIGMA) == pytest.approx(0.0)
    assert OS.rating().ordinal() == pytest.approx(shown(MU, SIGMA))
    r = OS.rating(mu=31.2, sigma=4.1)
    assert r.ordinal() == pytest.approx(shown(31.2, 4.1))
    assert computer_subject("expert") == "computer:expert"
    assert level_of("computer:expert") == "expert" and level_of("abc.def") is None
    assert provisional(PROVISIONAL_GAMES - 1) and not provisional(PROVISIONAL_GAMES)


def test_a_table_of_four_is_openskills_answer() -> None:
    ratings = {"a": Rating(30.0, 5.0, 3), "b": Rating(22.0, 7.0, 1), "d": Rating(25.0, 2.0, 40)}
    points = [12, 20, 12, 3]  # a tie for second
    res = rate_table(["a", "b", "c", "d"], points, ratings)
    expect = os_rate([(30.0, 5.0), (22.0, 7.0), (MU, SIGMA), (25.0, 2.0)], points)
    for change, (mu, sigma) in zip(res.seats, expect, strict=True):
        assert (change.after.mu, change.after.sigma) == pytest.approx((mu, sigma), abs=1e-12)
    assert res.subjects["b"].mu > 22.0  # the winner gains
    assert res.subjects["d"].mu < 25.0  # the last loses
    assert res.subjects["c"].games == 1 and res.subjects["a"].games == 4
    assert res.seats[2].before == Rating()


def test_one_subject_at_several_seats_gets_the_mean_of_its_seats() -> None:
    prior = Rating(24.0, 6.0, 10)
    points = [15, 4, 9, 9]
    res = rate_table(
        ["ann", "computer:normal", "computer:normal", "computer:normal"],
        points,
        {"computer:normal": prior},
    )
    expect = os_rate([(MU, SIGMA), (24.0, 6.0), (24.0, 6.0), (24.0, 6.0)], points)
    assert [c.before for c in res.seats[1:]] == [prior] * 3  # each seat from the same prior
    for change, (mu, sigma) in zip(res.seats, expect, strict=True):
        assert (change.after.mu, change.after.sigma) == pytest.approx((mu, sigma), abs=1e-12)
    level = res.subjects["computer:normal"]
    assert level.mu == pytest.approx(sum(m for m, _ in expect[1:]) / 3)
    assert level.sigma == pytest.approx(sum(s for _, s in expect[1:]) / 3)
    assert level.games == 11  # one game, not three
    with pytest.raises(ValueError):
        rate_table(["a"], [3], {})
    with pytest.raises(ValueError):
        rate_table(["a", "b"], [3, 4, 5], {})


def test_seats_left_out_and_seats_ranked_last() -> None:
    ratings = {"ann": Rating(27.0, 5.0, 4)}
    points = [25, 3, 14, 9]
    # Seat 1 left out (a guest); seat 0 abandoned: last of the three, its 25 points or not.
    res = rate_table(["ann", None, "bo", "computer:easy"], points, ratings, last={0})
    assert [c.seat for c in res.seats] == [0, 2, 3]
    expect = os_rate([(27.0, 5.0), (MU, SIGMA), (MU, SIGMA)], [25, 14, 9], last={0})
    for change, (mu, sigma) in zip(res.seats, expect, strict=True):
        assert (change.after.mu, change.after.sigma) == pytest.approx((mu, sigma), abs=1e-12)
    assert res.subjects["ann"].mu < 27.0  # the most points, and still a loss
    assert set(res.subjects) == {"ann", "bo", "computer:easy"}
    with pytest.raises(ValueError):
        rate_table(["ann", None, None, None], points, {})  # one seat is no table


# ---------------------------------------------------------------------- who counts

BOTS = [{"kind": "bot", "level": "normal"}] * 4


def _seats(people: Collection[int]) -> list[dict[str, Any]]:
    return [
        {"kind": "human", "player": f"p{s}", "level": "easy"} if s in people else BOTS[s]
        for s in range(4)
    ]


def test_only_accounts_are_rated_guests_are_left_out() -> None:
    people = [
        Sat(0, "ann", "t-ann", "b-ann", account=True),
        Sat(1, "guest", "t-guest", "b-guest", account=False),
        Sat(3, "bo", "t-bo", "b-bo", account=True),
    ]
    seen = lineup(_seats({0, 1, 3}), people, (), "easy")
    assert seen.unrated is None
    assert seen.subjects == ["ann", None, "computer:normal", "bo"]
    assert seen.kinds == ["person", None, "computer", "person"]
    assert seen.why == [None, GUEST, None, None]
    assert seen.last == [False] * 4
    # A computer seat stored without a level plays at the server's default level.
    seen = lineup([*_seats({0, 1, 3})[:2], {"kind": "bot"}, {}], people, (), "easy")
    assert seen.subjects[2] == "computer:easy"


def test_nobody_holds_two_seats_of_a_rated_table() -> None:
    ann = Sat(0, "ann", "t-1", "b-ann", account=True)
    bo = Sat(1, "bo", "t-2", "b-bo", account=True)
    assert lineup(_seats({0, 1}), [ann, bo], (), "easy").unrated is None
    # One address (its keyed hash), or one browser: the whole game is unrated, for all.
    for other in (Sat(1, "bo", "t-1", "b-bo", True), Sat(1, "bo", "t-2", "b-ann", True)):
        assert shared_seats([ann, other]) == {0, 1}
        seen = lineup(_seats({0, 1}), [ann, other], (), "easy")
        assert seen.unrated == SHARED and seen.why[:2] == [SHARED, SHARED]
    # A guest sharing an account's address spoils the table too: the guest may throw.
    cy = Sat(2, "cy", "t-3", "b-cy", account=True)
    guest = Sat(3, "g", "t-3", "b-g", account=False)
    seen = lineup(_seats({0, 1, 2, 3}), [ann, bo, cy, guest], (), "easy")
    assert seen.unrated == SHARED and seen.why == [SHARED, SHARED, SHARED, GUEST]
    # Unknown (None) never matches.
    blank = [Sat(s, f"p{s}", None, None, True) for s in range(4)]
    assert shared_seats(blank) == set()
    assert lineup(_seats(range(4)), blank, (), "easy").unrated is None
    # Four cookies at one address: nobody is rated, accounts or not.
    for account in (True, False):
        four = [Sat(s, f"c{s}", "t-home", f"b{s}", account) for s in range(4)]
        seen = lineup(_seats(range(4)), four, (), "easy")
        assert seen.unrated is not None


def test_a_rated_game_needs_two_accounts() -> None:
    ann = Sat(0, "ann", "t-0", "b-0", account=True)
    guests = [Sat(s, f"g{s}", f"t-{s}", f"b-{s}", account=False) for s in (1, 2, 3)]
    # An account against three computers, against guests, or guests alone.
    assert lineup(_seats({0}), [ann], (), "easy").unrated == FEW_ACCOUNTS
    seen = lineup(_seats(range(4)), [ann, *guests], (), "easy")
    assert seen.unrated == FEW_ACCOUNTS and seen.why == [FEW_ACCOUNTS, GUEST, GUEST, GUEST]
    assert lineup(_seats({1, 2, 3}), guests, (), "easy").unrated == FEW_ACCOUNTS
    assert lineup(_seats(()), [], (), "easy").unrated == FEW_ACCOUNTS


def test_a_quick_tables_rematch_is_not_rated() -> None:
    people = [Sat(0, "ann", "t-1", "b-1", True), Sat(2, "bo", "t-2", "b-2", True)]
    assert lineup(_seats({0, 2}), people, (), "easy").unrated is None
    seen = lineup(_seats({0, 2}), people, (), "easy", rematch=True)
    assert seen.unrated == REMATCH and seen.why == [REMATCH, None, REMATCH, None]


def test_abandoning_ranks_last_and_sitting_out_escapes_nothing() -> None:
    people = [Sat(s, f"p{s}", f"t-{s}", f"b-{s}", account=s != 3) for s in range(4)]
    # A seat a computer took for good is stored as the computer's: the person is still
    # found (participants), rated as themselves, and ranks last for abandoning.
    seats = [{"kind": "bot", "level": "easy"}, *_seats({1, 2, 3})[1:]]
    seen = lineup(seats, people, {0, 2, 3}, "easy")
    assert seen.unrated is None
    assert seen.subjects == ["p0", "p1", "p2", None]
    assert seen.last == [True, False, True, False]  # the guest is left out all the same
    res = rate_table(seen.subjects, [30, 2, 12, 5], {}, {s for s, x in enumerate(seen.last) if x})
    after = {c.seat: c.after.mu for c in res.seats}
    assert after[1] > MU > after[0] == pytest.approx(after[2])  # two abandoners tie last


# ---------------------------------------------------------------------- stored games


def _run(url: str, fn: Callable[[Store], Awaitable[Any]]) -> Any:
    return run_store(url, fn)


def _finished_game(seed: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(rng, Rules(target=10))
    while not game.is_over:
        step(game, rng)
    return game


def _rows(game: Game, by_computer: Callable[[int, int], bool]) -> list[ActionRow]:
    """The game's actions as stored, a play's actor ``computer`` where ``by_computer(seat,
    n)`` says so (``n``: the seat's card number)."""
    assert game.log is not None
    rows: list[ActionRow] = []
    count = [0, 0, 0, 0]
    for hand in game.log:
        deal = json.dumps([[card_str(c) for c in cs] for cs in hand.deal])
        rows.append(ActionRow(len(rows), "deal", hand.dealer, deal, len(rows) + 1))
        for kind, seat, card in hand.events:
            actor = None
            if kind == "play":
                actor = "computer" if by_computer(seat, count[seat]) else "person"
                count[seat] += 1
            rows.append(ActionRow(len(rows), kind, seat, card_str(card), len(rows) + 1, actor))
    return rows


def _name(player: str) -> str:
    return player.removeprefix("p-").capitalize()


def _accounts_op(players: Collection[str]) -> Callable[[Any], None]:
    """Make an account for each of ``players`` that has none (as sign-up does: the
    account plays as the player, by name)."""

    def op(conn: Any) -> None:
        a = accounts_table.c
        for player in players:
            if conn.execute(select(a.id).where(a.player_id == player)).first():
                continue
            conn.execute(
                insert(accounts_table).values(
                    id="a-" + player,
                    name=_name(player),
                    name_key=_name(player).casefold(),
                    password_hash="$argon2id$unused",
                    player_id=player,
                    created_at=datetime.now(UTC),
                )
            )

    return op


async def _store_game(
    store: Store,
    game_id: str,
    people: dict[int, str],
    *,
    seed: int,
    room: str | None = "room-" + "x",
    rated: bool = True,
    quick: bool = False,
    by_computer: Callable[[int, int], bool] = lambda seat, n: False,
    finished: bool = True,
    level: str = "normal",
    accounts: Collection[str] | None = None,
    where: dict[int, tuple[str | None, str | None]] | None = None,
    abandon: Collection[int] = (),
) -> Game:
    """A game as the server stores it: ``people`` (seat: player token) and computers of
    ``level``, in room ``room`` (made with ``rated`` and ``quick``) or none, finished or
    not. ``accounts``: the players with an account, made before the game (default: every
    person); ``where``: each person's address tag and browser (default: their own);
    ``abandon``: seats with an ``abandon`` event."""
    game = _finished_game(seed)
    where = where or {}
    seats: list[dict[str, Any]] = []
    for s in range(4):
        if s not in people:
            seats.append({"kind": "bot", "level": level})
            continue
        tag, browser = where.get(s, ("t-" + people[s], "b-" + people[s]))
        seat: dict[str, Any] = {"kind": "human", "player": people[s], "level": level}
        if tag is not None:
            seat["tag"] = tag
        if browser is not None:
            seat["browser"] = browser
        seats.append(seat)
    names = [f"N{s}" for s in range(4)]
    rows = _rows(game, lambda s, n: s not in people or by_computer(s, n))
    header = GameRow(game_id, game.rules.to_dict(), names, seats, None, room)
    ops: list[Any] = [
        _accounts_op(people.values() if accounts is None else accounts),
        Store.op_create_game(header, rows, list(people.values())),
    ]
    for n, s in enumerate(sorted(abandon)):
        why = json.dumps({"why": "left"})
        ops.append(Store.op_event(game_id, len(rows) + 1 + n, "abandon", s, why))
    if finished:
        assert game.winner is not None
        ops.append(Store.op_finish(game_id, game.winner, dumps(game, names)))
    if room is not None:
        now = datetime.now(UTC)

        def make_room(conn: Any) -> None:
            if conn.execute(select(rooms_table.c.id).where(rooms_table.c.id == room)).first():
                return
            conn.execute(
                insert(rooms_table).values(
                    id=room,
                    invite="i",
                    watch="w",
                    host=next(iter(people.values()), "nobody"),
                    options=json.dumps({"rated": rated, "quick": quick}),
                    seats="[]",
                    game_id=game_id,
                    status="over",
                    public=quick,
                    created_at=now,
                    updated_at=now,
                )
            )

        ops.insert(0, make_room)
    await store.write(*ops)
    return game


def _changes(store: Store, game_id: str) -> list[Any]:
    assert store.engine is not None
    with store.engine.connect() as conn:
        c = rating_changes_table.c
        return list(
            conn.execute(
                select(rating_changes_table).where(c.game_id == game_id).order_by(c.seat)
            ).all()
        )


def _ratings(store: Store) -> dict[str, Any]:
    assert store.engine is not None
    with store.engine.connect() as conn:
        return {r.subject: r for r in conn.execute(select(ratings_table)).all()}


def _people_rated(store: Store) -> dict[str, Any]:
    return {s: r for s, r in _ratings(store).items() if r.kind == "person"}


def _check_against_openskill(
    store: Store, game_id: str, game: Game, last: Collection[int] = ()
) -> None:
    """The stored after-values are openskill's answer to the stored before-values and the
    game's final points (the seats stored only; ``last``: the seats ranked last)."""
    rows = _changes(store, game_id)
    points = [game.totals[r.seat] for r in rows]
    ranked_last = {i for i, r in enumerate(rows) if r.seat in last}
    expect = os_rate([(r.mu_before, r.sigma_before) for r in rows], points, ranked_last)
    for r, (mu, sigma) in zip(rows, expect, strict=True):
        assert (r.mu_after, r.sigma_after) == pytest.approx((mu, sigma), abs=1e-9)
        assert r.rating_before == pytest.approx(r.mu_before - 3 * r.sigma_before)
        assert r.rating_after == pytest.approx(mu - 3 * sigma)


def _best(game: Game) -> int:
    """The seat with the most points (where a farmer sits: the others threw to them)."""
    return max(range(4), key=lambda s: game.totals[s])


def test_a_rated_room_game_is_rated_once_as_openskill_says(db_url: str) -> None:
    async def go(store: Store) -> None:
        game = await _store_game(store, "g1", {0: "p-ann", 2: "p-bo"}, seed=3)
        one, two = RatingService(store, "normal"), RatingService(store, "normal")
        # Asked five times at once by two "processes", and once more after: rated once.
        answers = await asyncio.gather(*(s.rate("g1") for s in (one, two, one, two, one)))
        assert sorted(answers) == ["rated"] + ["rated-already"] * 4
        assert await two.rate("g1") == "rated-already"
        _check_against_openskill(store, "g1", game)
        rows = _changes(store, "g1")
        assert [r.subject for r in rows] == ["p-ann", "computer:normal", "p-bo", "computer:normal"]
        assert [r.kind for r in rows] == ["person", "computer", "person", "computer"]
        assert [r.sat_out for r in rows] == [False] * 4
        assert rows[0].mu_before == MU and rows[0].sigma_before == SIGMA
        now = _ratings(store)
        assert set(now) == {"p-ann", "p-bo", "computer:normal"}
        assert now["p-ann"].mu == pytest.approx(rows[0].mu_after) and now["p-ann"].games == 1
        # The level's rating is the mean of its two seats' answers; one game counted.
        assert now["computer:normal"].mu == pytest.approx((rows[1].mu_after + rows[3].mu_after) / 2)
        assert now["computer:normal"].sigma == pytest.approx(
            (rows[1].sigma_after + rows[3].sigma_after) / 2
        )
        assert now["computer:normal"].games == 1
        assert now["p-bo"].rating == pytest.approx(shown(now["p-bo"].mu, now["p-bo"].sigma))

        # A second game starts from the first one's ratings.
        game2 = await _store_game(store, "g2", {1: "p-ann", 3: "p-cy"}, seed=4, room="r2")
        assert await one.rate("g2") == "rated"
        _check_against_openskill(store, "g2", game2)
        second = _changes(store, "g2")
        assert second[1].mu_before == pytest.approx(now["p-ann"].mu)
        assert second[0].mu_before == pytest.approx(now["computer:normal"].mu)
        assert _ratings(store)["p-ann"].games == 2
        assert _ratings(store)["computer:normal"].games == 2

    _run(db_url, go)


def test_games_that_are_not_rated(db_url: str) -> None:
    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        two = {0: "p-ann", 1: "p-bo"}
        await _store_game(store, "solo", {0: "p-ann"}, seed=5, room=None)
        await _store_game(store, "free", two, seed=6, room="r-free", rated=False)
        await _store_game(store, "going", two, seed=7, room="r-rated", finished=False)
        guests = {0: "p-gus", 1: "p-gil"}
        await _store_game(store, "guests", guests, seed=8, room="r-rated", accounts=())
        one = {0: "p-ann", 1: "p-gus"}
        await _store_game(store, "one", one, seed=9, room="r-rated", accounts=["p-ann"])
        assert await ratings.rate("solo") == "no-room"
        assert await ratings.rate("free") == "unrated"
        assert await ratings.rate("going") == "not-over"
        assert await ratings.rate("guests") == FEW_ACCOUNTS
        assert await ratings.rate("one") == FEW_ACCOUNTS
        assert await ratings.rate("nothing") == "no-game"
        assert _ratings(store) == {}
        assert all(_changes(store, g) == [] for g in ("solo", "free", "going", "guests", "one"))

    _run(db_url, go)


def test_a_guest_at_a_rated_table_is_left_out_and_told_so(tmp_path: Path) -> None:
    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        people = {0: "p-ann", 1: "p-guest", 2: "p-bo"}
        game = await _store_game(store, "g", people, seed=11, accounts=["p-ann", "p-bo"])
        # While under way it already says who it will rate.
        await _store_game(
            store, "later", people, seed=12, room="r2", finished=False, accounts=["p-ann"]
        )
        assert await ratings.rate("g") == "rated"
        rows = _changes(store, "g")
        assert [r.seat for r in rows] == [0, 2, 3]  # the guest's seat is left out
        _check_against_openskill(store, "g", game)
        assert "p-guest" not in _ratings(store)

        guest = await ratings.of_game("g", "p-guest")
        assert guest is not None
        assert (guest["rated"], guest["why"], guest["done"], guest["seat"]) == (
            False,
            GUEST,
            False,
            1,
        )
        assert guest["before"] is guest["after"] is guest["change"] is None
        ann = await ratings.of_game("g", "p-ann")
        assert ann is not None and ann["rated"] and ann["done"] and ann["why"] is None
        assert ann["after"] == pytest.approx(round(rows[0].rating_after, 2))
        assert ann["change"] == pytest.approx(
            round(rows[0].rating_after - rows[0].rating_before, 2), abs=0.011
        )
        assert ann["provisional"] and not ann["last"]
        assert await ratings.of_game("g", "p-nobody") is None
        assert await ratings.of_game("no-such-game", "p-ann") is None
        later = await ratings.of_game("later", "p-ann")
        assert later is not None and later["rated"] and not later["done"]
        mine = await ratings.mine("p-guest")
        assert mine["guest"] and mine["rating"] is None and mine["history"] == []
        assert not (await ratings.mine("p-ann"))["guest"]

        # A guest who makes an account after the game began: it stays unrated for them.
        await _store_game(
            store, "g3", {0: "p-ann", 1: "p-guest"}, seed=13, room="r3", accounts=["p-ann"]
        )
        await store.write(_accounts_op(["p-guest"]))
        assert await ratings.rate("g3") == FEW_ACCOUNTS
        told = await ratings.of_game("g3", "p-guest")
        assert told is not None and told["why"] == GUEST

    _run(f"sqlite:///{tmp_path / 'guest.sqlite'}", go)


# ---------------------------------------------------------------------- the farming runs


def test_farming_one_address_four_cookies_five_quick_tables(tmp_path: Path) -> None:
    """Measured before these rules: one address with four cookies fills five quick tables
    and throws them to one cookie: its rating went 0 to 13.6. Now nobody gets rated,
    whether the cookies are guests or accounts."""

    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        cookies = [f"p-c{i}" for i in range(4)]
        for as_accounts in (False, True):
            for t in range(5):
                seed = 40 + t
                farmer = _best(_finished_game(seed))
                people = {s: cookies[(s - farmer) % 4] for s in range(4)}  # c0 wins
                game_id = f"q{int(as_accounts)}{t}"
                await _store_game(
                    store,
                    game_id,
                    people,
                    seed=seed,
                    room=f"quick-{game_id}",
                    quick=True,
                    accounts=cookies if as_accounts else (),
                    where={s: ("t-home", "b-" + p) for s, p in people.items()},
                )
                assert await ratings.rate(game_id) == SHARED
        assert _ratings(store) == {}
        assert await ratings.leaderboard(None) == []
        assert (await ratings.mine("p-c0"))["rating"] is None

    _run(f"sqlite:///{tmp_path / 'farm1.sqlite'}", go)


def test_farming_rematches_at_one_quick_table(tmp_path: Path) -> None:
    """Measured: three rematches at one quick table were all rated. Now only the table's
    first game is (two honest accounts at two addresses)."""

    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        people = {0: "p-ann", 2: "p-bo"}
        for n in range(4):
            await _store_game(store, f"m{n}", people, seed=50 + n, room="quick-1", quick=True)
        assert await ratings.rate("m0") == "rated"
        assert [await ratings.rate(f"m{n}") for n in (1, 2, 3)] == [REMATCH] * 3
        assert _ratings(store)["p-ann"].games == 1 and _ratings(store)["p-bo"].games == 1
        # A room's rematches (not quick play) are rated as its first game.
        for n in range(3):
            await _store_game(store, f"room{n}", people, seed=60 + n, room="friends")
            assert await ratings.rate(f"room{n}") == "rated"
        assert _ratings(store)["p-ann"].games == 4
        told = await ratings.of_game("m2", "p-bo")
        assert told is not None and (told["rated"], told["why"]) == (False, REMATCH)

    _run(f"sqlite:///{tmp_path / 'farm2.sqlite'}", go)


def test_farming_a_rated_friends_room_of_three_throwing_cookies(tmp_path: Path) -> None:
    """Measured: a rated room of three cookies (and a computer) throwing to one: 12 wins
    in 54 s, rating 26.2, rank 1. Now none of the 12 is rated: as guests (no account, and
    one address), as accounts at one address, or in one browser."""

    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        cookies = ["p-farmer", "p-thrower1", "p-thrower2"]
        runs: list[tuple[Collection[str], str | None, bool]] = [
            ((), "t-home", False),  # guests at one address
            (cookies, "t-home", False),  # accounts at one address
            (cookies, None, True),  # accounts, addresses unknown, one browser
        ]
        for r, (accounts, tag, one_browser) in enumerate(runs):
            for n in range(12):
                seed = 70 + n
                farmer = _best(_finished_game(seed))
                seats = [farmer, (farmer + 1) % 4, (farmer + 2) % 4]
                people = dict(zip(seats, cookies, strict=True))
                game_id = f"f{r}-{n}"
                await _store_game(
                    store,
                    game_id,
                    people,
                    seed=seed,
                    room=f"friends-{r}",
                    level="random",
                    accounts=accounts,
                    where={
                        s: (tag, "b-one" if one_browser else "b-" + p) for s, p in people.items()
                    },
                )
                assert await ratings.rate(game_id) == SHARED
        assert _ratings(store) == {}
        assert await ratings.leaderboard("p-farmer") == []

    _run(f"sqlite:///{tmp_path / 'farm3.sqlite'}", go)


def test_farming_twenty_games_against_three_random_computers(tmp_path: Path) -> None:
    """Measured: 20 games of a rated room against three Random computers: rating 25.3,
    rank 2. Now a game needs two accounts: nothing is rated."""

    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        for n in range(20):
            await _store_game(
                store, f"r{n}", {0: "p-farmer"}, seed=80 + n, room="alone", level="random"
            )
            assert await ratings.rate(f"r{n}") == FEW_ACCOUNTS
        assert _ratings(store) == {}
        assert await ratings.sweep() == 0

    _run(f"sqlite:///{tmp_path / 'farm4.sqlite'}", go)


# ---------------------------------------------------------------------- dodging a loss


@pytest.mark.parametrize("cards", [0, 5, 10, 20])
def test_leaving_ranks_last_whatever_the_points(db_url: str, cards: int) -> None:
    """Measured: a person behind who left before playing half of their cards was never
    rated (leaving at 0, 5, 10 and 20 own cards). Now they abandoned the game: rated as
    themselves and ranked last, even where the computer that played on for them won."""

    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        for leaver, seed in (("behind", 90), ("ahead", 91)):
            game = _finished_game(seed)
            order = sorted(range(4), key=lambda s: game.totals[s])
            seat = order[0] if leaver == "behind" else order[-1]
            other = order[1] if leaver == "behind" else order[0]
            people = {seat: "p-dodger", other: "p-bo"}
            game_id = f"{leaver}-{cards}"
            await _store_game(
                store,
                game_id,
                people,
                seed=seed,
                room=f"r-{leaver}",
                by_computer=lambda s, n, seat=seat: s == seat and n >= cards,
                abandon={seat},
            )
            assert await ratings.rate(game_id) == "rated"
            rows = {r.seat: r for r in _changes(store, game_id)}
            assert rows[seat].subject == "p-dodger" and rows[seat].sat_out
            _check_against_openskill(store, game_id, game, last={seat})
            assert rows[seat].mu_after < rows[seat].mu_before  # last: a loss
            told = await ratings.of_game(game_id, "p-dodger")
            assert told is not None and told["rated"] and told["last"] and told["done"]
        history = (await ratings.mine("p-dodger"))["history"]
        assert [(h["rated"], h["abandoned"], h["sat_out"]) for h in history] == [
            (True, True, False)
        ] * 2

    _run(db_url, go)


def test_a_computer_playing_for_a_person_escapes_nothing(tmp_path: Path) -> None:
    """A computer played 3 of every 4 of Bo's cards (away, out of time) but he did not
    abandon: he is rated as himself by his points, no longer as the computer."""

    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        game = await _store_game(
            store,
            "g",
            {0: "p-ann", 1: "p-bo"},
            seed=9,
            room="r",
            level="expert",
            by_computer=lambda seat, n: seat == 1 and n % 4 != 0,
        )
        assert await ratings.rate("g") == "rated"
        _check_against_openskill(store, "g", game)
        rows = _changes(store, "g")
        assert [r.subject for r in rows] == ["p-ann", "p-bo", "computer:expert", "computer:expert"]
        assert [r.sat_out for r in rows] == [False] * 4
        assert _ratings(store)["p-bo"].games == 1

    _run(f"sqlite:///{tmp_path / 'away.sqlite'}", go)


# ---------------------------------------------------------------------- consistency


def test_a_stale_plan_is_refused_whole_and_the_service_reads_again(tmp_path: Path) -> None:
    async def go(store: Store) -> None:
        for i, who in enumerate(["p-ann", "p-bo", "p-cy"]):
            await _store_game(store, f"g{i}", {0: who, 1: "p-di" + str(i)}, seed=10 + i, room="r")
        ratings = RatingService(store, "normal")
        assert await ratings.rate("g0") == "rated"
        stale = await store.read(lambda conn: read_plan(conn, "g2", "normal"))
        new_subject = await store.read(lambda conn: read_plan(conn, "g1", "normal"))
        assert isinstance(stale, Plan) and isinstance(new_subject, Plan)
        assert await ratings.rate("g1") == "rated"  # moves computer:normal on, makes p-bo
        level = _ratings(store)["computer:normal"]
        assert level.games == 2
        assert store.engine is not None
        with pytest.raises(Conflict), store.engine.begin() as conn:
            write_plan(conn, stale)  # computer:normal is no longer what it read
        assert _changes(store, "g2") == []  # nothing of it stayed
        with pytest.raises(IntegrityError), store.engine.begin() as conn:
            write_plan(conn, new_subject)  # g1 is rated already (its changes' key)
        assert _ratings(store)["computer:normal"].games == 2
        assert await ratings.rate("g2") == "rated"  # read again, from the new ratings
        rows = _changes(store, "g2")
        assert rows[2].mu_before == level.mu and rows[2].sigma_before == level.sigma
        assert _ratings(store)["computer:normal"].games == 3

    _run(f"sqlite:///{tmp_path / 'r.sqlite'}", go)


def test_the_leaderboard_and_the_look_for_unrated_games(db_url: str) -> None:
    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        pairs = [("p-ann", "p-di"), ("p-bo", "p-di"), ("p-cy", "p-di"), ("p-ann", "p-bo")]
        games = PROVISIONAL_GAMES
        for i in range(games):
            a, b = pairs[i % 4]
            await _store_game(store, f"g{i:02}", {0: a, 2: b}, seed=20 + i, room="r")
        await _store_game(
            store, "free", {0: "p-ann", 1: "p-bo"}, seed=7, room="r-free", rated=False
        )
        await _store_game(store, "alone", {0: "p-ann"}, seed=8, room="r")

        def name(conn: Any) -> None:  # a guest display name is never shown: the account's is
            conn.execute(
                update(players_table).where(players_table.c.id == "p-ann").values(name="Þóra")
            )

        await store.write(name)
        # No hook ran: the look finds the rated games (and leaves the free one; the game of
        # one account is never looked at).
        found = await ratings.unrated()
        assert sorted(found) == sorted(["free", *(f"g{i:02}" for i in range(games))])
        assert await ratings.sweep() == games
        assert await ratings.unrated() == ["free"]
        assert await ratings.sweep() == 0
        # Nobody has ten rated games yet: all provisional, and off the board.
        counts = {s: r.games for s, r in _people_rated(store).items()}
        assert counts == {"p-di": 8, "p-ann": 5, "p-bo": 5, "p-cy": 2}
        board = await ratings.leaderboard("p-bo")
        people = [e for e in board if e["kind"] == "person"]
        assert people == []
        computers = [e for e in board if e["kind"] == "computer"]
        assert [(e["level"], e["name"], e["games"]) for e in computers] == [
            ("normal", "Normal", games)
        ]
        ann = await ratings.mine("p-ann")
        assert ann["provisional"] and ann["rank"] is None and ann["rating"] is not None
        assert ann["min_games"] == PROVISIONAL_GAMES and not ann["guest"]
        assert [h["game"] for h in ann["history"]] == ["g00", "g03", "g04", "g07", "g08"]
        assert ann["history"][1]["before"] == ann["history"][0]["after"]
        assert ann["rating"] == ann["history"][-1]["after"]

        # Ann and Di play on together: Di reaches ten rated games first, then Ann; each is
        # listed from their tenth.
        n = 100
        while _people_rated(store)["p-ann"].games < PROVISIONAL_GAMES:
            await _store_game(store, f"h{n}", {1: "p-ann", 3: "p-di"}, seed=n, room="r")
            assert await ratings.rate(f"h{n}") == "rated"
            n += 1
            counts = {s: r.games for s, r in _people_rated(store).items()}
            listed = {e["name"] for e in await ratings.leaderboard(None) if e["kind"] == "person"}
            assert listed == {_name(s) for s, g in counts.items() if g >= PROVISIONAL_GAMES}
        board = await ratings.leaderboard("p-di")
        people_by = {e["name"]: e for e in board if e["kind"] == "person"}
        assert set(people_by) == {"Ann", "Di"}  # accounts' names, never "Þóra"
        assert people_by["Di"]["you"] and not people_by["Ann"]["you"]
        assert [e["you"] for e in board].count(True) == 1
        assert [e["rating"] for e in board] == sorted((e["rating"] for e in board), reverse=True)
        assert all(set(e) >= {"rank", "name", "rating", "mu", "sigma", "games"} for e in board)
        assert all("p-" not in json.dumps(e) for e in board)  # never a token
        ranks = [e["rank"] for e in board]
        assert ranks[0] == 1 and ranks == sorted(ranks)
        di = await ratings.mine("p-di")
        assert not di["provisional"] and di["rank"] == people_by["Di"]["rank"]
        # Past the limit, the asking player's own row still comes, with their rank.
        top = await ratings.leaderboard("p-di", limit=1)
        if top[0]["you"]:
            assert len(top) == 1
        else:
            assert len(top) == 2 and top[1]["you"] and top[1]["rank"] == people_by["Di"]["rank"]
        # A provisional player asking sees no row of theirs.
        assert not any(e["you"] for e in await ratings.leaderboard("p-bo"))
        assert (await ratings.mine("p-bo"))["rank"] is None

    _run(db_url, go)


def test_the_look_goes_through_every_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Games the look finds and leaves unrated (rematches, unrated rooms) never hide the
    ones after them: it goes on a batch at a time."""
    import lockup.server.ratings.service as service

    monkeypatch.setattr(service, "SWEEP_BATCH", 2)

    async def go(store: Store) -> None:
        people = {0: "p-ann", 2: "p-bo"}
        for n in range(3):  # a quick table and its two rematches, then a free room
            await _store_game(store, f"a{n}", people, seed=n, room="quick", quick=True)
        await _store_game(store, "b", people, seed=5, room="free", rated=False)
        for n in range(3):
            await _store_game(store, f"c{n}", people, seed=10 + n, room="friends")
        ratings = RatingService(store, "normal")
        assert len(await ratings.unrated()) == 2
        assert await ratings.sweep() == 4  # a0, c0, c1, c2
        assert sorted(await ratings.unrated()) == ["a1", "a2"]

    _run(f"sqlite:///{tmp_path / 'batches.sqlite'}", go)


def test_a_rating_made_before_accounts_is_not_listed(tmp_path: Path) -> None:
    """A guest's rating row from before only accounts were rated (a name of their
    choosing, many games) is never on the leaderboard."""

    async def go(store: Store) -> None:
        now = datetime.now(UTC)

        def old(conn: Any) -> None:
            conn.execute(insert(players_table).values(id="p-old", created_at=now, name="Expert"))
            conn.execute(
                insert(ratings_table).values(
                    subject="p-old",
                    kind="person",
                    mu=40.0,
                    sigma=1.0,
                    rating=37.0,
                    games=50,
                    updated=now,
                )
            )

        await store.write(old)
        ratings = RatingService(store, "normal")
        assert await ratings.leaderboard("p-old") == []
        mine = await ratings.mine("p-old")
        assert mine["guest"] and mine["rank"] is None

    _run(f"sqlite:///{tmp_path / 'old.sqlite'}", go)


def test_an_existing_database_file_upgrades_to_ratings(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    url = f"sqlite:///{path}"
    engine = create_engine(url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0006")
    engine.dispose()
    engine = create_engine(url)
    assert "ratings" not in inspect(engine).get_table_names()
    engine.dispose()

    async def before(store: Store) -> None:
        assert store.schema_upgrade == ("0006", head_revision())
        await _store_game(store, "g-old", {0: "p-ann", 1: "p-bo"}, seed=12, room="r")
        assert await RatingService(store, "normal").rate("g-old") == "rated"

    # The file at 0006 is upgraded by the store that opens it, then down and up again.
    _run(url, before)
    engine = create_engine(url)
    tables = set(inspect(engine).get_table_names())
    assert {"ratings", "rating_changes"} <= tables
    with engine.begin() as conn:
        assert conn.execute(select(games_table.c.id)).scalars().all() == ["g-old"]
        command.downgrade(alembic_config(conn), "0006")
    assert "ratings" not in inspect(engine).get_table_names()
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "head")
    assert {"ratings", "rating_changes"} <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_abandon_events_are_read_from_the_game(tmp_path: Path) -> None:
    """The plan reads abandonment from the game's stored events (kind ``abandon``), and so
    does a game loaded again (a restarted server's room still ranks the seat last)."""

    async def go(store: Store) -> None:
        await _store_game(store, "g", {0: "p-ann", 1: "p-bo"}, seed=14, room="r", abandon={1})
        assert store.engine is not None
        with store.engine.connect() as conn:
            kinds = conn.execute(select(game_events_table.c.kind)).scalars().all()
            plan = read_plan(conn, "g", "normal")
        assert kinds == ["abandon"]
        assert isinstance(plan, Plan) and plan.last == [False, True, False, False]
        loaded = await store.load("g")
        assert loaded is not None and loaded[0].abandoned == (1,)
        await _store_game(store, "h", {0: "p-ann", 1: "p-bo"}, seed=15, room="r")
        other = await store.load("h")
        assert other is not None and other[0].abandoned == ()

    _run(f"sqlite:///{tmp_path / 'events.sqlite'}", go)
