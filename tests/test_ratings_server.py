"""Ratings on a real ``lockup serve``: rooms' games played to the end over /ws by script
clients, then the leaderboard, a player's rating history and the stored changes, checked
against openskill fed the stored before-values and the game's points. An unrated room's
game and a solo game change nothing, and a restarted server rates nothing twice.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from attack_helpers import Server
from openskill.models import PlackettLuce
from test_rooms import Person, key_of, play_to_the_end, recv

from lockup.record import from_record

UNPACED = ("--bot-delay", "0", "--bot-jitter", "0")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("ratings") / "games.sqlite"
    with Server(db, *UNPACED) as s:
        yield s


def play_room(people: list[Person], **options: Any) -> str:
    """The first person makes a room (random computers, target 10, ``options``), the others
    join it, the host starts and every person plays to the end; the game's id."""
    host = people[0]
    room = host.create(target=10, levels="random", **options)
    for p in people[1:]:
        assert p.join(room["room"], key_of(room["invite"])).status_code == 200

    async def go() -> str:
        sockets = [await p.connect().__aenter__() for p in people]
        try:
            for ws in sockets:
                await ws.send(json.dumps({"type": "hello", "room": room["room"], "since": 0}))
            first = await recv(sockets[0])
            assert first["type"] == "room"
            await sockets[0].send(json.dumps({"type": "start"}))
            frames = await asyncio.gather(
                *(play_to_the_end(p, ws) for p, ws in zip(people, sockets, strict=True))
            )
        finally:
            for ws in sockets:
                await ws.close()
        rooms = [f["room"] for f in frames[0] if f["type"] == "room" and f["room"]["game"]]
        return str(rooms[-1]["game"])

    return asyncio.run(go())


def play_solo(person: Person) -> str:
    """A game of one person against computers, played to the end; its id."""
    r = person.http.post("/api/games", json={"target": 10, "level": "random"})
    assert r.status_code == 200, r.text
    game = str(r.json()["game"])

    async def go() -> None:
        async with person.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
            await play_to_the_end(person, ws)

    asyncio.run(go())
    return game


def rows(db: Any, sql: str, *args: Any) -> list[Any]:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def wait_rated(db: Any, game: str, timeout: float = 15.0) -> list[Any]:
    """The game's stored changes, once it is rated."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = rows(
            db,
            "SELECT seat, subject, kind, sat_out, mu_before, sigma_before, rating_before, "
            "mu_after, sigma_after, rating_after FROM rating_changes WHERE game_id = ? "
            "ORDER BY seat",
            game,
        )
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"game {game} was not rated in {timeout} s")


def test_rated_rooms_are_rated_and_others_are_not(server: Server) -> None:
    ann, bo = Person(server, "Ann"), Person(server, "Bo")
    # First the games that must change nothing: a room not rated, and a solo game.
    free = play_room([ann, bo])
    solo = play_solo(ann)
    # Then a rated room. Ratings run one at a time in the order games end, so once it is
    # rated the two before it were looked at too.
    rated = play_room([bo, ann], rated=True)
    changes = wait_rated(server.db, rated)
    assert rows(
        server.db, "SELECT COUNT(*) FROM rating_changes WHERE game_id IN (?, ?)", free, solo
    ) == [(0,)]

    # Seats: Bo hosts at South; Ann took the first free seat; computers elsewhere.
    seats = json.loads(rows(server.db, "SELECT seats FROM games WHERE id = ?", rated)[0][0])
    people = {s: d["player"] for s, d in enumerate(seats) if d["kind"] == "human"}
    assert sorted(people.values()) == sorted([ann.cookie, bo.cookie])
    for seat, subject, kind, sat_out, *_ in changes:
        if seat in people:
            assert (subject, kind, sat_out) == (people[seat], "person", 0)
        else:
            assert (subject, kind) == ("computer:random", "computer")

    # The stored after-values are openskill's answer to the stored before-values and the
    # game's final points (the stored record replayed by the engine).
    record = rows(server.db, "SELECT record FROM games WHERE id = ?", rated)[0][0]
    totals = from_record(record).totals
    model = PlackettLuce()
    teams = [[model.rating(mu=c[4], sigma=c[5])] for c in changes]
    ranks = [1.0 + sum(1 for q in totals if q > p) for p in totals]
    for c, team in zip(changes, model.rate(teams, ranks=ranks), strict=True):
        assert (c[7], c[8]) == pytest.approx((team[0].mu, team[0].sigma), abs=1e-9)
        assert c[9] == pytest.approx(team[0].ordinal(), abs=1e-9)
        assert c[6] == pytest.approx(0.0, abs=1e-9)  # everyone's first rated game

    # The leaderboard: both people by name, the random level, ranked by rating.
    board = ann.http.get("/api/leaderboard").json()["players"]
    by_name = {e["name"]: e for e in board}
    assert {"Ann", "Bo", "Random"} <= set(by_name)
    assert by_name["Ann"]["you"] and not by_name["Bo"]["you"]
    assert by_name["Random"]["kind"] == "computer" and by_name["Random"]["level"] == "random"
    assert by_name["Ann"]["games"] == by_name["Bo"]["games"] == by_name["Random"]["games"] == 1
    ann_seat = next(s for s, p in people.items() if p == ann.cookie)
    assert by_name["Ann"]["rating"] == pytest.approx(changes[ann_seat][9], abs=0.006)
    assert [e["rating"] for e in board] == sorted((e["rating"] for e in board), reverse=True)
    assert board[0]["rank"] == 1
    assert ann.cookie not in json.dumps(board) and bo.cookie not in json.dumps(board)
    stranger = httpx.get(f"{server.url}/api/leaderboard").json()["players"]
    assert not any(e["you"] for e in stranger)

    # Ann's rating history: the rated game only, before 0 and after her rating.
    mine = ann.http.get("/api/ratings/me").json()
    assert mine["games"] == 1 and mine["rank"] == by_name["Ann"]["rank"]
    assert [h["game"] for h in mine["history"]] == [rated]
    h = mine["history"][0]
    assert h["rated"] and not h["sat_out"] and h["seat"] == ann_seat
    assert h["before"] == 0.0 and h["after"] == mine["rating"] == by_name["Ann"]["rating"]
    assert h["change"] == pytest.approx(h["after"] - h["before"], abs=0.011)
    nobody = httpx.get(f"{server.url}/api/ratings/me").json()
    assert nobody == {
        "rating": None,
        "mu": None,
        "sigma": None,
        "games": 0,
        "rank": None,
        "history": [],
    }
    assert httpx.get(f"{server.url}/leaderboard").status_code == 200

    # A restarted server looks for unrated games at start: it rates none twice.
    before = rows(server.db, "SELECT * FROM rating_changes ORDER BY game_id, seat")
    ratings = rows(server.db, "SELECT subject, mu, sigma, games FROM ratings ORDER BY subject")
    server.stop()
    server.start()
    assert httpx.get(f"{server.url}/api/leaderboard").status_code == 200
    time.sleep(1.0)
    assert rows(server.db, "SELECT * FROM rating_changes ORDER BY game_id, seat") == before
    assert (
        rows(server.db, "SELECT subject, mu, sigma, games FROM ratings ORDER BY subject") == ratings
    )
