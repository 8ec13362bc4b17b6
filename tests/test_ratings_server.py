"""Ratings on a real ``lockup serve``: rooms' games played to the end over /ws by script
clients, then the leaderboard, a player's rating history and the stored changes, checked
against openskill fed the stored before-values and the game's points. An unrated room's
game and a solo game change nothing, a guest at a rated table is left out and told so
(``GET /api/ratings/game/{id}``), and a restarted server rates nothing twice.
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
import websockets
from attack_helpers import Server
from openskill.models import PlackettLuce
from test_rooms import Person, key_of, play_to_the_end, recv

from lockup.record import from_record

UNPACED = ("--bot-delay", "0", "--bot-jitter", "0")
PROXIED = ("--proxy-headers", "--forwarded-allow-ips", "127.0.0.1")
"""The server trusts X-Forwarded-For from 127.0.0.1, so that each script person comes from
an address of their own (:func:`person_at`): a rated table refuses two people of one
address."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("ratings") / "games.sqlite"
    with Server(db, *UNPACED, *PROXIED) as s:
        yield s


class Member(Person):
    """A script person whose WebSocket sends every cookie of their browser (the session
    of a signed-in person too), from an address of their own (``address``: the server
    must run with :data:`PROXIED`)."""

    def __init__(self, server: Server, name: str, address: str) -> None:
        super().__init__(server, name)
        self.http.headers["X-Forwarded-For"] = address
        self.player = self.cookie
        """The player they play as: their browser's first guest token, which an account
        made from it keeps (the browser then gets a guest token of its own)."""

    def connect(self) -> Any:
        cookies = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        return websockets.connect(
            self.server.ws_url, additional_headers={"Cookie": cookies}, max_queue=None
        )


def person_at(server: Server, name: str, address: str) -> Member:
    """A script person (a browser of their own) coming from ``address``."""
    return Member(server, name, address)


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


def make_account(person: Person, name: str | None = None) -> None:
    """Sign ``person`` up (``POST /api/account/signup``, by ``name``, the person's by
    default): from now on their browser plays as the account (its session cookie)."""
    r = person.http.post(
        "/api/account/signup",
        json={"name": name or person.name, "password": "a long enough pass phrase"},
    )
    assert r.status_code == 200, r.text
    assert person.http.cookies.get("lockup_session")


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
    ann, bo = person_at(server, "Ann", "198.51.100.1"), person_at(server, "Bo", "198.51.100.2")
    make_account(ann)
    make_account(bo)
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
    assert sorted(people.values()) == sorted([ann.player, bo.player])
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

    # The leaderboard: the random level; Ann and Bo are provisional (one rated game) and
    # not listed yet.
    answer = ann.http.get("/api/leaderboard").json()
    board = answer["players"]
    assert answer["min_games"] >= 2
    assert [(e["name"], e["kind"], e["level"], e["games"]) for e in board] == [
        ("Random", "computer", "random", 1)
    ]
    assert not any(e["you"] for e in board)
    assert ann.player not in json.dumps(board) and bo.player not in json.dumps(board)

    # Ann's rating history: the rated game only, before 0 and after her rating, which is
    # provisional (no rank).
    ann_seat = next(s for s, p in people.items() if p == ann.player)
    mine = ann.http.get("/api/ratings/me").json()
    assert mine["games"] == 1 and mine["rank"] is None
    assert mine["provisional"] and not mine["guest"] and mine["min_games"] == answer["min_games"]
    assert mine["rating"] == pytest.approx(changes[ann_seat][9], abs=0.006)
    assert [h["game"] for h in mine["history"]] == [rated]
    h = mine["history"][0]
    assert h["rated"] and not h["sat_out"] and not h["abandoned"] and h["seat"] == ann_seat
    assert h["before"] == 0.0 and h["after"] == mine["rating"]
    assert h["change"] == pytest.approx(h["after"] - h["before"], abs=0.011)
    told = ann.http.get(f"/api/ratings/game/{rated}").json()
    assert told["rated"] and told["done"] and told["why"] is None and told["after"] == h["after"]
    assert ann.http.get(f"/api/ratings/game/{free}").json()["why"] == "unrated"
    assert ann.http.get(f"/api/ratings/game/{solo}").json()["why"] == "no-room"
    nobody = httpx.get(f"{server.url}/api/ratings/me").json()
    assert nobody == {
        "rating": None,
        "mu": None,
        "sigma": None,
        "games": 0,
        "rank": None,
        "provisional": True,
        "guest": True,
        "min_games": answer["min_games"],
        "history": [],
    }
    gone = httpx.get(f"{server.url}/api/ratings/game/{rated}")
    assert gone.status_code == 404 and gone.json()["error"] == "not-your-game"
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


def test_a_guest_at_a_rated_table_plays_unrated_and_is_told_so(server: Server) -> None:
    """Two accounts and a guest at a rated room: the accounts are rated, the guest's seat
    is left out, and ``GET /api/ratings/game/{id}`` tells the guest why."""
    cy, di = person_at(server, "Cy", "198.51.100.3"), person_at(server, "Di", "198.51.100.4")
    guest = person_at(server, "Gus", "198.51.100.5")
    make_account(cy)
    make_account(di)
    game = play_room([cy, guest, di], rated=True)
    changes = wait_rated(server.db, game)
    seats = json.loads(rows(server.db, "SELECT seats FROM games WHERE id = ?", game)[0][0])
    guest_seat = next(s for s, d in enumerate(seats) if d.get("player") == guest.player)
    assert guest_seat not in [c[0] for c in changes] and len(changes) == 3
    assert guest.player not in [c[1] for c in changes]

    r = guest.http.get(f"/api/ratings/game/{game}")
    assert r.status_code == 200
    told = r.json()
    assert (told["rated"], told["why"], told["done"], told["seat"]) == (
        False,
        "guest",
        False,
        guest_seat,
    )
    assert told["before"] is None and told["change"] is None
    mine = guest.http.get("/api/ratings/me").json()
    assert mine["guest"] and mine["rating"] is None and mine["history"] == []
    assert cy.http.get(f"/api/ratings/game/{game}").json()["done"]


def test_one_address_at_a_rated_table_rates_nobody(server: Server) -> None:
    """Two accounts from one address (four cookies of one person, say) at a rated room:
    nobody is rated, and each is told why."""
    one, two = person_at(server, "Eve", "198.51.100.9"), person_at(server, "Flo", "198.51.100.9")
    make_account(one)
    make_account(two)
    game = play_room([one, two], rated=True)
    for person in (one, two):
        told = person.http.get(f"/api/ratings/game/{game}").json()
        assert (told["rated"], told["why"]) == (False, "shared")
    time.sleep(0.5)  # the game's end was rated (or not) in the background by now
    assert rows(server.db, "SELECT COUNT(*) FROM rating_changes WHERE game_id = ?", game) == [(0,)]
