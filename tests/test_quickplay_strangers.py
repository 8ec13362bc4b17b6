"""Quick play among strangers, against a real ``lockup serve`` on SQLite: no phantom
seats, no hijacked seats, one seat an address.

- A flood of quick-play requests from people who never open their table (distinct
  addresses and cookies) leaves no phantom at a real person's table: their game starts at
  its start time, the phantoms' seats are computers', labelled computers on the page and
  in the records, and nobody waits out a no-show's grace.
- A quick table's link seats nobody: a join with its invite is refused (``quick-only``,
  whatever headers the client sends); the link returns the seated person to their seat
  and lets anyone else watch.
- One address with several cookies holds one seat of a quick table: the others get
  tables of their own; a household still plays together at a friends' room.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Server

from lockup.server.rooms.seating import PENDING_WAIT

Msg = dict[str, Any]
WAIT = 3.0
PHANTOMS = 11
"""No-shows before the real person: tables of 4, 4 and 3, so the real person is the
fourth of a table of three no-shows."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    flags = ("--quick-wait", str(WAIT), "--bot-delay", "0.02", "--bot-jitter", "0")
    with Server(tmp_path / "strangers.sqlite", *flags) as s:
        yield s


def person(server: Server, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, transport=transport, timeout=30)


def quick(http: httpx.Client, name: str) -> Msg:
    r = http.post("/api/quickplay", json={"name": name})
    assert r.status_code == 200, r.text
    answer: Msg = r.json()
    return answer


def key_of(answer: Msg) -> str:
    return str(answer["invite"].rsplit("=", 1)[1])


def cookie_of(http: httpx.Client) -> str:
    return str(http.cookies["lockup_player"])


def ws_of(server: Server, cookie: str | None) -> Any:
    headers = {"Cookie": f"lockup_player={cookie}"} if cookie else {}
    return websockets.connect(server.ws_url, additional_headers=headers, max_queue=None)


async def frame(ws: Any, types: tuple[str, ...], timeout: float = 15.0) -> Msg:
    while True:
        msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if msg["type"] in types:
            return msg


def query(server: Server, sql: str, *args: Any) -> list[Any]:
    con = sqlite3.connect(server.db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


# ---------------------------------------------------------------------- phantoms


def test_no_shows_leave_no_phantoms_at_a_real_persons_table(server: Server) -> None:
    phantoms = [person(server, f"127.0.31.{i + 2}") for i in range(PHANTOMS)]
    answers = [quick(p, f"Ghost{i}") for i, p in enumerate(phantoms)]
    tables = {a["room"] for a in answers}
    assert len(tables) == 3, tables
    real = person(server, "127.0.32.2")
    asked = time.monotonic()
    mine = quick(real, "Real")
    assert mine["room"] == answers[-1]["room"] and mine["seat"] == 3, mine
    # Four seats given, three of them to people who never came: not a full table.
    assert mine["starts_in"] > 0

    async def play() -> tuple[Msg, Msg, Msg, float, float]:
        async with ws_of(server, cookie_of(real)) as ws:
            await ws.send(json.dumps({"type": "hello", "room": mine["room"], "since": 0}))
            opened = await frame(ws, ("room",))
            while True:
                playing = await frame(ws, ("room",), timeout=WAIT + 10)
                if playing["room"]["status"] == "playing":
                    started = time.monotonic() - asked
                    break
            state = await frame(ws, ("state",))
            # The first card of the game comes without waiting on anybody's grace: the
            # computers play theirs, or it is the real person's turn.
            view = state["view"]
            while not view.get("legal"):  # not the real person's move: a computer's
                msg = await frame(ws, ("event", "state"), timeout=5)
                view = msg["view"]
                if msg["type"] == "event":
                    break
            return opened, playing, state, started, time.monotonic() - asked

    opened, playing, state, started, first_card = asyncio.run(play())
    assert opened["room"]["status"] == "open"
    assert started <= WAIT + 1.0, started
    assert first_card < WAIT + 3.0, first_card
    kinds = [s["kind"] for s in playing["room"]["seats"]]
    assert kinds == ["computer"] * 3 + ["person"], kinds
    assert state["view"]["seat"] == 3 and state["players"][3] == "Real"
    assert not any(n.startswith("Ghost") for n in state["players"]), state["players"]
    # The records: the game has one person, the real one, and three computers.
    game = playing["room"]["game"]
    (seats,) = query(server, "SELECT seats FROM games WHERE id = ?", game)[0]
    assert [s["kind"] for s in json.loads(seats)] == ["bot"] * 3 + ["human"]
    people = query(server, "SELECT player_id, seat FROM participants WHERE game_id = ?", game)
    assert people == [(cookie_of(real), 3)]
    # The other no-show tables never start: nobody came, they close.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        rooms = dict(query(server, "SELECT id, status FROM rooms"))
        if all(rooms[t] == "closed" for t in tables - {mine["room"]}):
            break
        time.sleep(0.2)
    assert {rooms[t] for t in tables - {mine["room"]}} == {"closed"}, rooms
    # A no-show asking again is not sent back to the seat they lost: a seat of a table
    # still taking people (a new one).
    again = quick(phantoms[0], "Ghost0")
    assert again["room"] not in tables and again["seat"] == 0
    assert "Traceback" not in server.log_text()


def test_a_no_show_seat_is_freed_within_the_pending_wait(tmp_path: Path) -> None:
    wait = PENDING_WAIT + 10  # the start is far: the pending wait frees the seat first
    flags = ("--quick-wait", str(wait), "--bot-delay", "0.02", "--bot-jitter", "0")
    with Server(tmp_path / "pending.sqlite", *flags) as server:
        ghost, real = person(server, "127.0.33.2"), person(server, "127.0.33.3")
        first = quick(ghost, "Ghost")
        given = time.monotonic()
        mine = quick(real, "Real")
        assert mine["room"] == first["room"] and mine["seat"] == 1

        async def watch() -> list[Msg]:
            seen = []
            async with ws_of(server, cookie_of(real)) as ws:
                await ws.send(json.dumps({"type": "hello", "room": mine["room"], "since": 0}))
                while time.monotonic() - given < PENDING_WAIT + 2:
                    try:
                        seen.append(await frame(ws, ("room",), timeout=0.5))
                    except TimeoutError:
                        pass
                    if seen and seen[-1]["room"]["seats"][0]["kind"] == "empty":
                        break
            return seen

        seen = asyncio.run(watch())
        freed = time.monotonic() - given
        last = seen[-1]["room"]
        assert seen[0]["room"]["seats"][0]["name"] == "Ghost"
        assert last["seats"][0]["kind"] == "empty" and last["status"] == "open", last
        assert PENDING_WAIT - 1 <= freed <= PENDING_WAIT + 2, freed
        assert last["seats"][1]["name"] == "Real"  # the real person keeps theirs


# ---------------------------------------------------------------------- hijack


def test_a_quick_tables_link_seats_nobody_and_lets_others_watch(server: Server) -> None:
    ann = person(server, "127.0.34.2")
    answer = quick(ann, "Ann")
    room, invite = answer["room"], key_of(answer)

    async def hold_and_watch() -> tuple[Msg, Msg]:
        async with ws_of(server, cookie_of(ann)) as mine:
            await mine.send(json.dumps({"type": "hello", "room": room, "since": 0}))
            assert (await frame(mine, ("room",)))["room"]["you"] == 0
            # Someone holding the link: no seat, whatever they send.
            with httpx.Client(base_url=server.url) as mallory:
                mallory.get("/api/profile")  # a browser of their own
                for headers in ({}, {"x-lockup-forwarded": "1"}):
                    for seat in (None, 3):
                        body: Msg = {"invite": invite, "name": "Mallory"}
                        if seat is not None:
                            body["seat"] = seat
                        r = mallory.post(f"/api/rooms/{room}/join", json=body, headers=headers)
                        assert r.status_code == 403, r.text
                        assert r.json()["error"] == "quick-only" and r.json()["reason"]
                # The link lets them see the table and watch it.
                seen = mallory.get(f"/api/rooms/{room}", params={"invite": invite}).json()
                assert seen["you"] is None and "invite" not in seen
                cookie = str(mallory.cookies["lockup_player"])
            async with ws_of(server, cookie) as theirs:
                hello = {"type": "hello", "room": room, "watch": invite, "since": 0}
                await theirs.send(json.dumps(hello))
                watched = await frame(theirs, ("room",))
                held = await frame(mine, ("room",))
                while held["room"]["watchers"] == 0:  # the presence frame comes soon
                    held = await frame(mine, ("room",), timeout=5)
                return watched, held

    watched, held = asyncio.run(hold_and_watch())
    assert watched["room"]["you"] is None
    assert [s["name"] for s in watched["room"]["seats"]] == ["Ann", None, None, None]
    assert held["room"]["watchers"] == 1 and held["room"]["you"] == 0
    # The link returns Ann to her seat (a second tab, another day).
    with httpx.Client(base_url=server.url, cookies={"lockup_player": cookie_of(ann)}) as again:
        back = again.get(f"/api/rooms/{room}", params={"invite": invite}).json()
        assert back["you"] == 0 and back["invite"] == invite
        r = again.post(f"/api/rooms/{room}/join", json={"invite": invite})
        assert r.status_code == 200 and r.json()["seat"] == 0, r.text
    seats = json.loads(query(server, "SELECT seats FROM rooms WHERE id = ?", room)[0][0])
    assert [s["name"] for s in seats] == ["Ann", None, None, None]


# ---------------------------------------------------------------------- one address


def test_one_address_with_many_cookies_holds_one_seat_of_a_quick_table(server: Server) -> None:
    home = [person(server, "127.0.35.2") for _ in range(4)]
    answers = [quick(p, f"Home{i}") for i, p in enumerate(home)]
    assert len({a["room"] for a in answers}) == 4, answers  # a table each
    assert all(a["seat"] == 0 for a in answers)
    # A stranger is sent to the open table, the first one's.
    stranger = quick(person(server, "127.0.35.3"), "Stranger")
    assert stranger["room"] == answers[0]["room"] and stranger["seat"] == 1
    # One browser (one cookie) at two addresses holds one seat too.
    roaming = person(server, "127.0.35.4")
    first = quick(roaming, "Roamer")
    with httpx.Client(
        base_url=server.url,
        cookies={"lockup_player": cookie_of(roaming)},
        transport=httpx.HTTPTransport(local_address="127.0.35.5"),
    ) as elsewhere:
        r = elsewhere.post("/api/quickplay", json={"name": "Roamer"})
        assert r.status_code == 200 and r.json()["room"] == first["room"]  # the same seat
    tags: dict[str, list[str | None]] = {}
    for room_id, seats in query(server, "SELECT id, seats FROM rooms"):
        tags[room_id] = [s.get("tag") for s in json.loads(seats) if s.get("player")]
        browsers = [s.get("browser") for s in json.loads(seats) if s.get("player")]
        assert all(tags[room_id]) and all(browsers), seats
        assert len(set(tags[room_id])) == len(tags[room_id]), seats
        assert len(set(browsers)) == len(browsers), seats
    # Each seat keeps where its person sat down from: the browser's cookie.
    seats = json.loads(
        query(server, "SELECT seats FROM rooms WHERE id = ?", answers[0]["room"])[0][0]
    )
    assert seats[0]["browser"] == cookie_of(home[0])
    # A household plays together at a friends' room.
    host, guest = home[0], home[1]
    made = host.post("/api/rooms", json={"name": "Host"})
    assert made.status_code == 200, made.text
    room = made.json()
    key = room["invite"].rsplit("=", 1)[1]
    r = guest.post(f"/api/rooms/{room['room']}/join", json={"invite": key, "name": "Guest"})
    assert r.status_code == 200 and r.json()["seat"] == 1, r.text
