"""Ratings: the model (lockup/ratings.py) against openskill's own numbers, and the
server's rating of stored games on a real database (SQLite file and PostgreSQL): rated
rooms only, the sat-out rule, rated once however often asked, the leaderboard, a player's
history, the look for games left unrated and the migration of an existing file.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
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
    SIGMA,
    Rating,
    computer_subject,
    level_of,
    ranks_of,
    rate_table,
    shown,
)
from lockup.record import dumps
from lockup.server.ratings import (
    Conflict,
    Plan,
    RatingService,
    read_plan,
    sat_out,
    seat_subjects,
    write_plan,
)
from lockup.server.store import ActionRow, GameRow, Store, alembic_config, head_revision
from lockup.server.store.schema import (
    games_table,
    players_table,
    rating_changes_table,
    ratings_table,
    rooms_table,
)

OS = PlackettLuce()
"""openskill itself, with its defaults, to check our numbers against."""


def os_rate(befores: list[tuple[float, float]], points: list[int]) -> list[tuple[float, float]]:
    """openskill's answer for four teams of one, ranked by points (equal points tie)."""
    teams = [[OS.rating(mu=mu, sigma=sigma)] for mu, sigma in befores]
    order = [1 + sum(1 for q in points if q > p) for p in points]
    return [(t[0].mu, t[0].sigma) for t in OS.rate(teams, ranks=order)]


# ---------------------------------------------------------------------- the model


def test_ranks_and_the_shown_number() -> None:
    assert ranks_of([20, 12, 12, 7]) == [1, 2, 2, 4]
    assert ranks_of([5, 21, 5, 5]) == [2, 1, 2, 2]
    assert Rating().shown == shown(MU, SIGMA) == pytest.approx(0.0)
    assert OS.rating().ordinal() == pytest.approx(shown(MU, SIGMA))
    r = OS.rating(mu=31.2, sigma=4.1)
    assert r.ordinal() == pytest.approx(shown(31.2, 4.1))
    assert computer_subject("expert") == "computer:expert"
    assert level_of("computer:expert") == "expert" and level_of("abc.def") is None


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


def test_the_sat_out_rule() -> None:
    assert not sat_out(0, 40) and not sat_out(20, 40) and sat_out(21, 40)
    seats = [
        {"kind": "human", "player": "p-ann", "level": "expert"},
        {"kind": "human", "player": "p-bo", "level": None},
        {"kind": "bot", "level": "normal"},
        {"kind": "bot", "level": "random"},
    ]
    subjects, kinds, out = seat_subjects(seats, {0: (10, 20), 1: (11, 20)}, "easy")
    assert subjects == ["p-ann", "computer:easy", "computer:normal", "computer:random"]
    assert kinds == ["person", "computer", "computer", "computer"]
    assert out == [False, True, False, False]


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


async def _store_game(
    store: Store,
    game_id: str,
    people: dict[int, str],
    *,
    seed: int,
    room: str | None = "room-" + "x",
    rated: bool = True,
    by_computer: Callable[[int, int], bool] = lambda seat, n: False,
    finished: bool = True,
    level: str = "normal",
) -> Game:
    """A game as the server stores it: ``people`` (seat: player token) and computers of
    ``level``, in room ``room`` (made with ``rated``) or none, finished or not."""
    game = _finished_game(seed)
    seats = [
        {"kind": "human", "player": people[s], "level": level}
        if s in people
        else {"kind": "bot", "level": level}
        for s in range(4)
    ]
    names = [f"N{s}" for s in range(4)]
    rows = _rows(game, lambda s, n: s not in people or by_computer(s, n))
    header = GameRow(game_id, game.rules.to_dict(), names, seats, None, room)
    ops = [Store.op_create_game(header, rows, list(people.values()))]
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
                    options=json.dumps({"rated": rated, "quick": False}),
                    seats="[]",
                    game_id=game_id,
                    status="over",
                    public=False,
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


def _check_against_openskill(store: Store, game_id: str, game: Game) -> None:
    """The stored after-values are openskill's answer to the stored before-values and the
    game's final points."""
    rows = _changes(store, game_id)
    assert [r.seat for r in rows] == [0, 1, 2, 3]
    expect = os_rate([(r.mu_before, r.sigma_before) for r in rows], list(game.totals))
    for r, (mu, sigma) in zip(rows, expect, strict=True):
        assert (r.mu_after, r.sigma_after) == pytest.approx((mu, sigma), abs=1e-9)
        assert r.rating_before == pytest.approx(r.mu_before - 3 * r.sigma_before)
        assert r.rating_after == pytest.approx(mu - 3 * sigma)


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
        game2 = await _store_game(store, "g2", {1: "p-ann"}, seed=4)
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
        await _store_game(store, "solo", {0: "p-ann"}, seed=5, room=None)
        await _store_game(
            store, "free", {0: "p-ann", 1: "p-bo"}, seed=6, room="r-free", rated=False
        )
        await _store_game(store, "going", {0: "p-ann"}, seed=7, room="r-rated", finished=False)
        away = await _store_game(
            store,
            "away",
            {0: "p-ann", 1: "p-bo"},
            seed=8,
            room="r-rated",
            by_computer=lambda seat, n: n % 4 != 0,  # 3 of 4 cards: both sat out
        )
        assert away.is_over
        assert await ratings.rate("solo") == "no-room"
        assert await ratings.rate("free") == "unrated"
        assert await ratings.rate("going") == "not-over"
        assert await ratings.rate("away") == "nobody"
        assert await ratings.rate("nothing") == "no-game"
        assert _ratings(store) == {}
        assert all(_changes(store, g) == [] for g in ("solo", "free", "going", "away"))

    _run(db_url, go)


def test_a_person_who_sat_out_counts_as_their_computer(db_url: str) -> None:
    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        # Bo: a computer played 3 of every 4 of his cards (more than half); Ann: exactly
        # half of hers, which is not more than half.
        game = await _store_game(
            store,
            "g",
            {0: "p-ann", 1: "p-bo"},
            seed=9,
            room="r",
            level="expert",
            by_computer=lambda seat, n: (seat == 1 and n % 4 != 0) or (seat == 0 and n % 2 == 0),
        )
        assert await ratings.rate("g") == "rated"
        _check_against_openskill(store, "g", game)
        rows = _changes(store, "g")
        assert [r.subject for r in rows] == ["p-ann", *["computer:expert"] * 3]
        assert [r.sat_out for r in rows] == [False, True, False, False]
        now = _ratings(store)
        assert "p-bo" not in now  # no change for him
        assert now["computer:expert"].games == 1
        assert now["computer:expert"].mu == pytest.approx(sum(r.mu_after for r in rows[1:]) / 3)
        bo = await ratings.mine("p-bo")
        assert bo["rating"] is None and bo["games"] == 0
        assert [(h["game"], h["rated"], h["sat_out"], h["change"]) for h in bo["history"]] == [
            ("g", False, True, None)
        ]
        ann = await ratings.mine("p-ann")
        assert ann["games"] == 1 and ann["history"][0]["rated"]
        assert ann["history"][0]["after"] == pytest.approx(round(rows[0].rating_after, 2))

    _run(db_url, go)


def test_a_stale_plan_is_refused_whole_and_the_service_reads_again(tmp_path: Path) -> None:
    async def go(store: Store) -> None:
        for i, who in enumerate(["p-ann", "p-bo", "p-cy"]):
            await _store_game(store, f"g{i}", {0: who}, seed=10 + i, room="r")
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
        assert rows[1].mu_before == level.mu and rows[1].sigma_before == level.sigma
        assert _ratings(store)["computer:normal"].games == 3

    _run(f"sqlite:///{tmp_path / 'r.sqlite'}", go)


def test_the_leaderboard_and_the_look_for_unrated_games(tmp_path: Path) -> None:
    async def go(store: Store) -> None:
        ratings = RatingService(store, "normal")
        for i, who in enumerate(["p-ann", "p-bo", "p-cy", "p-ann"]):
            await _store_game(store, f"g{i}", {0: who, 2: "p-di"}, seed=20 + i, room="r")
        await _store_game(store, "free", {0: "p-ann"}, seed=30, room="r-free", rated=False)

        def name(conn: Any) -> None:
            conn.execute(
                update(players_table).where(players_table.c.id == "p-ann").values(name="Ann")
            )

        await store.write(name)
        # No hook ran: the look finds the four rated games (and leaves the free one).
        assert sorted(await ratings.unrated()) == ["free", "g0", "g1", "g2", "g3"]
        assert await ratings.sweep() == 4
        assert await ratings.unrated() == ["free"]
        assert await ratings.sweep() == 0
        board = await ratings.leaderboard("p-bo")
        assert [e["rating"] for e in board] == sorted((e["rating"] for e in board), reverse=True)
        assert {e["kind"] for e in board} == {"person", "computer"}
        computers = [e for e in board if e["kind"] == "computer"]
        assert [(e["level"], e["name"], e["games"]) for e in computers] == [("normal", "Normal", 4)]
        people = {e["name"]: e for e in board if e["kind"] == "person"}
        assert people["Ann"]["games"] == 2 and not people["Ann"]["you"]
        assert [e["you"] for e in board].count(True) == 1
        assert all(set(e) >= {"rank", "name", "rating", "mu", "sigma", "games"} for e in board)
        assert all("p-" not in json.dumps(e) for e in board)  # never a token
        stored = _ratings(store)
        for e in board:
            subject = "computer:normal" if e["kind"] == "computer" else None
            if subject:
                assert e["rating"] == pytest.approx(stored[subject].rating, abs=0.01)
        ranks = [e["rank"] for e in board]
        assert ranks[0] == 1 and ranks == sorted(ranks)
        # Past the limit, the asking player's own row still comes, with their rank.
        top = await ratings.leaderboard("p-bo", limit=1)
        if top[0]["you"]:
            assert len(top) == 1
        else:
            assert len(top) == 2 and top[1]["you"] and top[1]["rank"] > 1
            assert top[1]["rank"] == next(e["rank"] for e in board if e["you"])
        ann = await ratings.mine("p-ann")
        assert [h["game"] for h in ann["history"]] == ["g0", "g3"]
        assert ann["history"][1]["before"] == ann["history"][0]["after"]
        assert ann["rating"] == ann["history"][-1]["after"]
        assert ann["rank"] == people["Ann"]["rank"]

    _run(f"sqlite:///{tmp_path / 'b.sqlite'}", go)


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
        await _store_game(store, "g-old", {0: "p-ann"}, seed=12, room="r")
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
