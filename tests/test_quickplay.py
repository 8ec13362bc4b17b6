"""Quick play (``POST /api/quickplay``) against a real ``lockup serve`` on SQLite.

People asking within the wait are seated at one quick table; a table alone gets computers
at its start time and its game starts (the room frame says playing, the game's state
arrives over /ws); the fourth person's page opening starts it at once; pressing twice
answers the same seat; leaving before the start frees the seat and the last leaver closes the table; the
countdown (``starts_in``) decreases and is null once playing; no name, bad bodies and the
limits are refused and change nothing; a quick table has no host powers; its start time
is stored, so a server started again on the database still starts it.

Each test has a server of its own (``--quick-wait 3``): the open table is the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Server

from lockup.server.net.limits import Limits

Msg = dict[str, Any]
WAIT = 3.0
LIMITS = Limits()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    flags = ("--quick-wait", str(WAIT), "--bot-delay", "0.02", "--bot-jitter", "0")
    with Server(tmp_path / "quick.sqlite", *flags) as s:
        yield s


ADDRESSES = (f"127.0.{40 + i // 250}.{i % 250 + 2}" for i in range(10_000))
"""Addresses of people of their own (one address holds one seat of a quick table)."""


def person(server: Server, address: str | None = None) -> httpx.Client:
    """A browser of its own (its own cookie once it has asked) at ``address`` (one of its
    own unless given)."""
    transport = httpx.HTTPTransport(local_address=address or next(ADDRESSES))
    return httpx.Client(base_url=server.url, transport=transport, timeout=30)


def quick(http: httpx.Client, name: str | None = "Ann") -> httpx.Response:
    return http.post("/api/quickplay", json={} if name is None else {"name": name})


def seated(r: httpx.Response) -> Msg:
    """The answer of a quick play that seated someone, checked."""
    assert r.status_code == 200, r.text
    body: Msg = r.json()
    assert set(body) == {"room", "seat", "invite", "starts_in"}, body
    assert body["invite"].endswith(f"/room/{body['room']}?invite={key_of(body)}")
    assert 0 <= body["seat"] <= 3 and 0 <= body["starts_in"] <= WAIT
    return body


def key_of(answer: Msg) -> str:
    return str(answer["invite"].rsplit("=", 1)[1])


def room_of(http: httpx.Client, answer: Msg) -> Msg:
    r = http.get(f"/api/rooms/{answer['room']}", params={"invite": key_of(answer)})
    assert r.status_code == 200, r.text
    room: Msg = r.json()
    return room


def rooms_in_db(server: Server) -> list[tuple[str, str, Msg]]:
    con = sqlite3.connect(server.db)
    try:
        return [
            (i, status, json.loads(options))
            for i, status, options in con.execute("SELECT id, status, options FROM rooms")
        ]
    finally:
        con.close()


def connect(server: Server, http: httpx.Client) -> Any:
    cookie = str(http.cookies["lockup_player"])
    return websockets.connect(
        server.ws_url, additional_headers={"Cookie": f"lockup_player={cookie}"}, max_queue=None
    )


async def frame(ws: Any, types: tuple[str, ...], timeout: float = 15.0) -> Msg:
    """The next frame of one of ``types``."""
    while True:
        msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if msg["type"] in types:
            return msg


# ---------------------------------------------------------------------- one table


def test_two_then_three_people_asking_at_once_sit_at_one_table(server: Server) -> None:
    people = [person(server) for _ in range(3)]
    first = seated(quick(people[0], "Ann"))
    second = seated(quick(people[1], "Bob"))
    assert second["room"] == first["room"] and second["seat"] != first["seat"]
    assert second["invite"] == first["invite"]
    room = room_of(people[0], first)
    assert [s["name"] for s in room["seats"]] == ["Ann", "Bob", None, None]
    assert room["status"] == "open" and room["host"] is None  # no host powers
    assert room["options"]["quick"] and room["options"]["rated"]
    assert not room["options"]["public"] and room["options"]["levels"] == ["random"] * 4
    with httpx.Client(base_url=server.url) as anyone:
        assert first["room"] not in [r["room"] for r in anyone.get("/api/rooms").json()["rooms"]]
    # The next table: three people at the same moment.
    time.sleep(WAIT + 0.5)  # the first table has started
    trio = [person(server) for _ in range(3)]
    with ThreadPoolExecutor(3) as pool:
        answers = [seated(r) for r in pool.map(quick, trio, ["Cy", "Di", "Ed"])]
    assert len({a["room"] for a in answers}) == 1 and answers[0]["room"] != first["room"]
    assert sorted(a["seat"] for a in answers) == [0, 1, 2]
    room = room_of(trio[0], answers[0])
    assert sorted(s["name"] for s in room["seats"] if s["name"]) == ["Cy", "Di", "Ed"]
    assert len(rooms_in_db(server)) == 2


def test_one_alone_gets_computers_and_the_game_starts_with_the_countdown(
    server: Server,
) -> None:
    http = person(server)
    answer = seated(quick(http, "Solo"))
    assert answer["seat"] == 0 and answer["starts_in"] > WAIT - 1
    countdown = [room_of(http, answer)["starts_in"]]
    time.sleep(0.6)
    countdown.append(room_of(http, answer)["starts_in"])
    assert WAIT >= countdown[0] > countdown[1] > 0, countdown

    async def go() -> tuple[Msg, Msg, Msg]:
        async with connect(server, http) as ws:
            await ws.send(json.dumps({"type": "hello", "room": answer["room"], "since": 0}))
            opened = await frame(ws, ("room",))
            while True:
                playing = await frame(ws, ("room",), timeout=WAIT + 10)
                if playing["room"]["status"] == "playing":
                    break
            state = await frame(ws, ("state",))
            return opened, playing, state

    opened, playing, state = asyncio.run(go())
    assert opened["room"]["status"] == "open" and opened["room"]["you"] == 0
    assert 0 < opened["room"]["starts_in"] <= countdown[1]
    assert playing["room"]["starts_in"] is None and playing["room"]["game"]
    kinds = [s["kind"] for s in playing["room"]["seats"]]
    assert kinds == ["person", "computer", "computer", "computer"], kinds
    assert state["view"]["seat"] == 0 and state["players"][0] == "Solo"
    after = room_of(http, answer)
    assert after["status"] == "playing" and after["starts_in"] is None
    # Asking again while the game goes on: the same table and seat.
    again = seated(quick(http, None))
    assert (again["room"], again["seat"], again["starts_in"]) == (answer["room"], 0, 0)


def test_the_fourth_persons_page_starts_the_game_at_once(server: Server) -> None:
    people = [person(server) for _ in range(4)]
    answers = [seated(quick(p, f"P{i}")) for i, p in enumerate(people)]
    assert len({a["room"] for a in answers}) == 1
    assert [a["seat"] for a in answers] == [0, 1, 2, 3]
    # Four seats given are not a full table until their pages have opened it: each is
    # pending, and the pages say so.
    assert answers[3]["starts_in"] > 0
    room = room_of(people[0], answers[0])
    assert room["status"] == "open"
    assert [(s["kind"], s["pending"], s["connected"]) for s in room["seats"]] == [
        ("person", True, False)
    ] * 4

    async def go() -> float:
        pages = [await connect(server, p) for p in people]
        try:
            for ws in pages[:3]:
                await ws.send(json.dumps({"type": "hello", "room": answers[0]["room"]}))
                await frame(ws, ("room",))
            await asyncio.sleep(0.2)
            room = room_of(people[0], answers[0])
            assert room["status"] == "open"
            assert [s["pending"] for s in room["seats"]] == [False, False, False, True]
            opened = time.monotonic()
            await pages[3].send(json.dumps({"type": "hello", "room": answers[0]["room"]}))
            while (await frame(pages[3], ("room",)))["room"]["status"] != "playing":
                pass
            return time.monotonic() - opened
        finally:
            for ws in pages:
                await ws.close()

    took = asyncio.run(go())
    assert took < WAIT / 2, took
    room = room_of(people[0], answers[0])
    assert room["status"] == "playing" and room["starts_in"] is None
    assert [s["kind"] for s in room["seats"]] == ["person"] * 4
    assert not any(s["pending"] for s in room["seats"])
    # The fifth person opens the next table.
    fifth = seated(quick(person(server), "Fifth"))
    assert fifth["room"] != answers[0]["room"] and fifth["seat"] == 0


def test_pressing_twice_answers_the_same_seat_and_changes_nothing(server: Server) -> None:
    ann, bob = person(server), person(server)
    first = seated(quick(ann, "Ann"))
    seated(quick(bob, "Bob"))
    before = room_of(ann, first)
    for name in (None, "Ann"):
        again = seated(quick(ann, name))
        assert (again["room"], again["seat"], again["invite"]) == (
            first["room"],
            first["seat"],
            first["invite"],
        )
        assert again["starts_in"] <= first["starts_in"]
    after = room_of(ann, first)
    assert after["seats"] == before["seats"] and len(rooms_in_db(server)) == 1

    # No host powers at a quick table: nobody starts it or removes anyone.
    async def go() -> list[Msg]:
        async with connect(server, ann) as ws:
            await ws.send(json.dumps({"type": "hello", "room": first["room"], "since": 0}))
            await frame(ws, ("room",))
            await ws.send(json.dumps({"type": "start"}))
            refused = [await frame(ws, ("error",))]
            await ws.send(json.dumps({"type": "remove", "seat": 1}))
            refused.append(await frame(ws, ("error",)))
            return refused

    refused = asyncio.run(go())
    assert [e["code"] for e in refused] == ["not-host", "not-host"], refused
    room = room_of(ann, first)
    # Nothing changed but what Ann's page opening the table changes: her seat counts.
    assert [s["pending"] for s in before["seats"]] == [True, True, False, False]
    assert [s["pending"] for s in room["seats"]] == [False, True, False, False]
    unpend = [{**s, "pending": False} for s in room["seats"]]
    assert room["status"] == "open" and unpend == [{**s, "pending": False} for s in before["seats"]]


def test_leaving_before_the_start_frees_the_seat_and_the_last_closes_the_table(
    server: Server,
) -> None:
    ann, bob = person(server), person(server)
    first = seated(quick(ann, "Ann"))
    second = seated(quick(bob, "Bob"))
    assert ann.post(f"/api/rooms/{first['room']}/leave", json={}).status_code == 200
    room = room_of(bob, second)
    assert [s["name"] for s in room["seats"]] == [None, "Bob", None, None]
    assert room["status"] == "open" and room["you"] == 1
    # Ann asks again: the seat she left is free, she takes the first one.
    back = seated(quick(ann, None))
    assert back["room"] == first["room"] and back["seat"] == 0
    for http, answer in ((ann, back), (bob, second)):
        r = http.post(f"/api/rooms/{answer['room']}/leave", json={})
        assert r.status_code == 200, r.text
    stored = {i: status for i, status, _ in rooms_in_db(server)}
    assert stored == {first["room"]: "closed"}
    # The table closed takes nobody more: the next person opens another one, which
    # starts on time.
    cy = person(server)
    third = seated(quick(cy, "Cy"))
    assert third["room"] != first["room"] and third["seat"] == 0

    async def cy_at_the_table() -> None:  # Cy's page opens the table: her seat counts
        async with connect(server, cy) as ws:
            await ws.send(json.dumps({"type": "hello", "room": third["room"], "since": 0}))
            await frame(ws, ("room",))
            await asyncio.sleep(WAIT + 1.0)

    asyncio.run(cy_at_the_table())
    assert room_of(cy, third)["status"] == "playing"
    assert {i: s for i, s, _ in rooms_in_db(server)}[first["room"]] == "closed"


# ---------------------------------------------------------------------- refused


def test_no_name_bad_bodies_and_the_limits_are_refused_and_change_nothing(
    server: Server,
) -> None:
    http = person(server)
    r = quick(http, None)
    assert r.status_code == 400 and r.json()["error"] == "name-needed", r.text
    assert r.json()["reason"]
    bad: list[tuple[Any, str]] = [
        ([1], "bad-message"),
        ("Ann", "bad-message"),
        ({"name": "Ann", "seat": 1}, "bad-message"),
        ({"room": "x"}, "bad-message"),
        ({"name": 7}, "bad-name"),
        ({"name": ""}, "bad-name"),
        ({"name": "   "}, "bad-name"),
        ({"name": "x" * 25}, "bad-name"),
    ]
    for body, code in bad:
        r = http.post("/api/quickplay", json=body)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"] == code and r.json()["reason"], (body, r.text)
    r = http.post(
        "/api/quickplay", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400 and r.json()["error"] == "bad-message", r.text
    assert rooms_in_db(server) == []
    assert http.get("/api/profile").json() == {"name": None}
    assert "Traceback" not in server.log_text()
    # A name once given is kept: no name is needed the next time.
    seated(quick(http, "Named"))
    assert http.get("/api/profile").json() == {"name": "Named"}
    assert seated(quick(http, None))["seat"] == 0

    # The limits: one person pressing again and again, then many from one address.
    one = person(server, "127.0.8.1")
    statuses = [quick(one, "Ann").status_code for _ in range(LIMITS.quick_player.burst + 5)]
    assert statuses[: LIMITS.quick_player.burst] == [200] * LIMITS.quick_player.burst
    assert statuses.count(429) >= 4, statuses
    r = quick(one, "Other name")
    assert r.status_code == 429 and r.json()["error"] == "rate-limited", r.text
    assert "quick-play" in r.json()["reason"] and int(r.headers["retry-after"]) >= 1
    assert one.get("/api/profile").json() == {"name": "Ann"}  # nothing changed
    # New cookies from one address: the address's limit.
    codes = []
    for i in range(LIMITS.quick_address.burst + 6):
        with contextlib.closing(person(server, "127.0.8.2")) as http:
            r = quick(http, f"N{i}")
            codes.append(r.status_code)
            if r.status_code == 429:
                assert int(r.headers["retry-after"]) >= 1 and r.json()["error"] == "rate-limited"
                assert http.get("/api/profile").json() == {"name": None}
    assert LIMITS.quick_address.burst <= codes.count(200) <= LIMITS.quick_address.burst + 2
    assert codes.count(429) >= 4, codes
    # Someone elsewhere is seated at once.
    innocent = person(server, "127.0.8.3")
    room = room_of(innocent, seated(quick(innocent, "Innocent")))
    assert room["you"] is not None and room["seats"][room["you"]]["name"] == "Innocent"


# ---------------------------------------------------------------------- taken over


def test_a_server_started_again_still_starts_the_table_on_time(tmp_path: Path) -> None:
    flags = ("--quick-wait", str(WAIT), "--bot-delay", "0.02", "--bot-jitter", "0")
    db = tmp_path / "again.sqlite"
    with Server(db, *flags) as first:
        http = person(first)
        answer = seated(quick(http, "Ann"))
        cookie = str(http.cookies["lockup_player"])

        async def opened() -> None:  # her seat counts once her page has opened the table
            async with connect(first, http) as ws:
                await ws.send(json.dumps({"type": "hello", "room": answer["room"]}))
                await frame(ws, ("room",))
                await asyncio.sleep(0.3)

        asyncio.run(opened())
        first.kill()
    stored = rooms_in_db(first)
    assert stored[0][1] == "open" and stored[0][2]["starts_at"] > time.time()
    with Server(db, *flags) as second:
        with httpx.Client(base_url=second.url, cookies={"lockup_player": cookie}) as again:
            room = room_of(again, answer)  # loaded: it starts at its time (or now, if past)
            assert room["status"] in ("open", "playing"), room
            deadline = time.monotonic() + WAIT + 10
            while room["status"] == "open" and time.monotonic() < deadline:
                time.sleep(0.2)
                room = room_of(again, answer)
            assert room["status"] == "playing" and room["starts_in"] is None
            assert [s["kind"] for s in room["seats"]][1:] == ["computer"] * 3


# ---------------------------------------------------------------------- the parts


def test_the_seating_of_a_quick_table_and_the_memory_queue() -> None:
    from lockup.server.protocol import ProtocolError
    from lockup.server.quick import MemoryQueue, Table
    from lockup.server.rooms import Seating, Sitter

    s = Seating("a", [Sitter("a", "A"), None, None, None], quick=True, starts_at=100.0)
    assert s.starts_in(90.0) == 10.0 and s.host_seat() is None
    assert not s.start_due(99.9) and s.start_due(100.0)
    for refused in (lambda: s.start("a"), lambda: s.remove("a", 1)):
        with pytest.raises(ProtocolError) as e:
            refused()
        assert e.value.code == "not-host"
    for p in "bcd":
        s.open_page(p, p)  # their pages are open: their seats count at once
    s.join("b", "B")
    s.join("c", "C")
    assert not s.start_quick(50.0) and s.status == "open"
    s.join("d", "D")  # the fourth: due at once
    assert s.start_quick(50.0) and s.status == "playing" and s.starts_in(50.0) is None
    lone = Seating("a", [Sitter("a", "A"), None, None, None], quick=True, starts_at=100.0)
    lone.leave("a")
    assert lone.status == "closed" and not lone.start_due(200.0)

    now = [0.0]
    queue = MemoryQueue(clock=lambda: now[0])
    mine, theirs = Table("r1", "k1", 20.0), Table("r2", "k2", 21.0)

    async def go() -> None:
        assert await queue.claim(mine) == mine
        assert await queue.claim(theirs) == mine  # the open table, not a second one
        await queue.drop("r2")  # not the open one: nothing
        assert await queue.peek() == mine
        now[0] = 20.0  # its start time: no longer open
        assert await queue.peek() is None and await queue.claim(theirs) == theirs
        await queue.drop("r2")
        assert await queue.peek() is None
        await queue.remember("p", "r2")
        assert await queue.seated("p") == "r2" and await queue.seated("q") is None
        # A seat freed (its page never came): forgotten, only if it is that table's.
        await queue.forget("p", "r1")
        assert await queue.seated("p") == "r2"
        await queue.forget("p", "r2")
        assert await queue.seated("p") is None

    asyncio.run(go())
