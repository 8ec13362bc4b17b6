"""Rooms' limits against a real ``lockup serve``: seats taken and given up, display names,
public rooms and the lobby, spectators, ``hello``.

Each test floods one limit from an address of its own (Linux routes all of 127.0.0.0/8 to
the loopback), and checks three things: the refusal (its status, its JSON reason, its
``Retry-After``), that nothing changed for the refused request, and that an innocent
person at another address with another cookie still gets through. The limits are those of
docs/server.md, "Limits" (:class:`lockup.server.net.limits.Limits`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Server

from lockup.server.net.limits import Limits

Msg = dict[str, Any]
LIMITS = Limits()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("room-limits") / "games.sqlite"
    with Server(db, "--bot-delay", "0", "--bot-jitter", "0") as s:
        yield s


def person(server: Server, address: str) -> httpx.Client:
    """A browser of its own (a new cookie) at ``address``."""
    transport = httpx.HTTPTransport(local_address=address)
    http = httpx.Client(base_url=server.url, transport=transport, timeout=30)
    http.get("/")
    return http


def new_room(http: httpx.Client, **options: Any) -> tuple[str, str, str]:
    """(id, invite key, watch key) of a new room of ``http``'s person."""
    r = http.post("/api/rooms", json={"levels": "random", **options})
    assert r.status_code == 200, r.text
    data = r.json()
    return data["room"], key_of(data["invite"]), key_of(data["watch"])


def key_of(url: str) -> str:
    return url.rsplit("=", 1)[1]


def assert_refused(r: httpx.Response, code: str, words: str) -> None:
    """A 429 with its JSON reason and a Retry-After of a second or more."""
    assert r.status_code == 429, (r.status_code, r.text)
    body = r.json()
    assert body["error"] == code and words in body["reason"], body
    assert int(r.headers["retry-after"]) >= 1


def you(http: httpx.Client, room: str, invite: str) -> int | None:
    """The seat ``http``'s person has in ``room`` (None: none)."""
    r = http.get(f"/api/rooms/{room}", params={"invite": invite})
    assert r.status_code == 200, r.text
    seat: int | None = r.json()["you"]
    return seat


def connect(server: Server, address: str, cookie: str | None = None) -> Any:
    headers = {"Cookie": f"lockup_player={cookie}"} if cookie else {}
    return websockets.connect(
        server.ws_url, additional_headers=headers, local_addr=(address, 0), max_queue=None
    )


async def recv(ws: Any, timeout: float = 10.0) -> Msg:
    msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return msg


async def first(ws: Any, types: tuple[str, ...], timeout: float = 10.0) -> Msg:
    """The first frame of one of ``types``."""
    while True:
        msg = await recv(ws, timeout)
        if msg["type"] in types:
            return msg


# ---------------------------------------------------------------------- seats


def test_joins_and_leaves_are_limited_per_person_and_per_address(server: Server) -> None:
    host = person(server, "127.0.0.1")
    room, invite, _ = new_room(host, name="Host")
    # One person joining and leaving as fast as it can (264 a second before).
    flood = person(server, "127.0.1.1")
    statuses: list[int] = []
    seated: int | None = None
    start = time.monotonic()
    for i in range(40):
        if i % 2 == 0:
            r = flood.post(f"/api/rooms/{room}/join", json={"invite": invite, "seat": 1})
        else:
            r = flood.post(f"/api/rooms/{room}/leave", json={})
        statuses.append(r.status_code)
        if r.status_code == 200:
            seated = r.json()["seat"]
        else:
            assert_refused(r, "rate-limited", "Too many seats")
            assert you(flood, room, invite) == seated  # nothing changed
    assert statuses[: LIMITS.seats_player.burst] == [200] * LIMITS.seats_player.burst
    most = LIMITS.seats_player.burst + (time.monotonic() - start) / LIMITS.seats_player.per + 1
    assert statuses.count(200) <= most and statuses.count(429) >= 20, statuses
    # New cookies from one address, each joining and leaving once: the address's limit.
    room2, invite2, _ = new_room(host)
    joins: list[int] = []
    start = time.monotonic()
    for _ in range(40):
        with contextlib.closing(person(server, "127.0.1.2")) as one:
            r = one.post(f"/api/rooms/{room2}/join", json={"invite": invite2})
            joins.append(r.status_code)
            if r.status_code == 200:
                # The leave takes a token too: when the join took the last one (on a slow
                # machine a token comes back between two joins), the person waits as told
                # and leaves, so the room never fills with people who meant to go.
                while (left := one.post(f"/api/rooms/{room2}/leave", json={})).status_code == 429:
                    time.sleep(int(left.headers["retry-after"]))
                assert left.status_code == 200, left.text
            else:
                assert_refused(r, "rate-limited", "Too many seats")
                assert you(one, room2, invite2) is None
    rate = LIMITS.seats_address  # a join and a leave each
    most = (rate.burst + (time.monotonic() - start) / rate.per) / 2 + 1
    assert rate.burst // 2 <= joins.count(200) <= most and joins.count(429) >= 10, joins
    # An innocent person elsewhere takes a seat at once, and gives it up.
    innocent = person(server, "127.0.1.3")
    r = innocent.post(f"/api/rooms/{room}/join", json={"invite": invite, "seat": 3})
    assert r.status_code == 200 and r.json()["seat"] == 3, r.text
    assert innocent.post(f"/api/rooms/{room}/leave", json={}).status_code == 200


def test_a_seat_that_is_not_a_whole_number_is_400_and_changes_nothing(server: Server) -> None:
    host = person(server, "127.0.2.1")
    room, invite, _ = new_room(host)
    guest = person(server, "127.0.2.2")
    log_before = server.log_text()
    for seat in (1.0, 1.5, True, "1", 4, -1, 1e308, [1], {"n": 1}):
        r = guest.post(f"/api/rooms/{room}/join", json={"invite": invite, "seat": seat})
        assert r.status_code == 400, (seat, r.status_code, r.text)
        assert r.json() == {"error": "bad-message", "reason": '"seat" must be 0 to 3.'}
        assert you(guest, room, invite) is None
    assert "Traceback" not in server.log_text()[len(log_before) :]
    r = guest.post(f"/api/rooms/{room}/join", json={"invite": invite, "seat": 1})
    assert r.status_code == 200 and r.json()["seat"] == 1


# ---------------------------------------------------------------------- names


def test_name_writes_are_limited_per_person_and_per_address(server: Server) -> None:
    flood = person(server, "127.0.3.1")
    statuses = []
    for i in range(20):  # 328 a second before
        r = flood.post("/api/profile", json={"name": f"Name {i}"})
        statuses.append(r.status_code)
        if r.status_code == 429:
            assert_refused(r, "rate-limited", "Too many name changes")
    assert statuses.count(200) == LIMITS.names_player.burst, statuses
    last = LIMITS.names_player.burst - 1
    assert flood.get("/api/profile").json() == {"name": f"Name {last}"}  # the last allowed
    assert flood.post("/api/profile", json={"name": ""}).status_code == 400  # checked first
    statuses = []
    start = time.monotonic()
    for i in range(40):
        with contextlib.closing(person(server, "127.0.3.2")) as one:
            r = one.post("/api/profile", json={"name": f"Other {i}"})
            statuses.append(r.status_code)
            if r.status_code == 429:
                assert_refused(r, "rate-limited", "Too many name changes")
                assert one.get("/api/profile").json() == {"name": None}
    rate = LIMITS.names_address
    most = rate.burst + (time.monotonic() - start) / rate.per + 1
    assert rate.burst <= statuses.count(200) <= most and statuses.count(429) >= 5, statuses
    innocent = person(server, "127.0.3.3")
    assert innocent.post("/api/profile", json={"name": "Ann"}).json() == {"name": "Ann"}


# ---------------------------------------------------------------------- public rooms, lobby


def lobby(server: Server) -> list[str]:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        return [r["room"] for r in http.get("/api/rooms").json()["rooms"]]


def rooms_in_db(db: Path) -> list[tuple[str, str | None, bool]]:
    con = sqlite3.connect(db)
    try:
        return [
            (i, tag, bool(public))
            for i, tag, public in con.execute("SELECT id, address_tag, public FROM rooms")
        ]
    finally:
        con.close()


def test_public_rooms_are_capped_per_person_and_address_and_the_lobby_shows_few_of_each(
    server: Server,
) -> None:
    address = "127.0.4.1"
    made: list[str] = []
    a = person(server, address)
    for _ in range(LIMITS.public_rooms_player):
        made.append(new_room(a, public=True)[0])
    before = rooms_in_db(server.db)
    r = a.post("/api/rooms", json={"public": True})
    assert_refused(r, "too-many-rooms", "public tables open already")
    assert int(r.headers["retry-after"]) > LIMITS.public_room_hold - 60
    b = person(server, address)  # another cookie, the same address
    for _ in range(LIMITS.public_rooms_address - LIMITS.public_rooms_player):
        made.append(new_room(b, public=True)[0])
    r = b.post("/api/rooms", json={"public": True})
    assert_refused(r, "too-many-rooms", "Your address has")
    assert len(rooms_in_db(server.db)) == len(before) + len(made) - LIMITS.public_rooms_player
    new_room(b)  # a private room is still made (not listed)
    # The rooms keep a keyed hash of the address, never the address.
    stored = {i: tag for i, tag, _ in rooms_in_db(server.db)}
    tags = {stored[i] for i in made}
    assert len(tags) == 1 and re.fullmatch(r"[0-9a-f]{32}", tags.pop() or "")
    for path in Path(server.db).parent.glob(Path(server.db).name + "*"):
        assert address.encode() not in path.read_bytes(), path
    # The lobby: the newest few of the address.
    listed = lobby(server)
    assert [i for i in listed if i in made] == made[::-1][: LIMITS.lobby_per_address]
    # Many addresses, each to its cap (40 addresses made 1,240 rooms before).
    for n in range(10):
        with contextlib.closing(person(server, f"127.0.5.{n + 1}")) as one:
            codes = [
                one.post("/api/rooms", json={"public": True, "levels": "random"}).status_code
                for _ in range(5)
            ]
            assert codes == [200] * 2 + [429] * 3, codes
    listed = lobby(server)
    assert len(listed) <= LIMITS.lobby_size
    # An innocent person elsewhere makes a public room: at the top of the lobby.
    innocent = person(server, "127.0.4.2")
    mine = new_room(innocent, public=True)[0]
    assert lobby(server)[0] == mine


def test_guests_from_many_addresses_cannot_push_an_account_s_room_out_of_the_lobby(
    server: Server,
) -> None:
    """An attacker with 25 addresses fills the lobby with guests' public rooms (two an
    address, the lobby's 50); a person with an account makes a room before and after:
    both stay listed, above every guest's."""
    ann = person(server, "127.0.7.1")
    signed = ann.post("/api/account/signup", json={"name": "Lobbyann", "password": "correct horse"})
    assert signed.status_code == 200, signed.text
    first = new_room(ann, public=True)[0]
    for n in range(25):
        with contextlib.closing(person(server, f"127.0.8.{n + 1}")) as one:
            for _ in range(LIMITS.lobby_per_address):
                new_room(one, public=True)
    listed = lobby(server)
    assert len(listed) == LIMITS.lobby_size and listed[0] == first
    second = new_room(ann, public=True)[0]
    listed = lobby(server)
    assert listed[:2] == [second, first]


# ---------------------------------------------------------------------- spectators, hello


def test_spectators_are_capped_per_address_and_per_room(server: Server) -> None:
    host = person(server, "127.0.6.1")
    room, _, watch = new_room(host)
    hello = json.dumps({"type": "hello", "room": room, "watch": watch, "since": 0})
    per_address, per_room = LIMITS.spectators_address, LIMITS.spectators_room

    async def go() -> None:
        sockets: list[Any] = []
        try:
            # One address: its cap, then refused.
            for _ in range(per_address):
                ws = await connect(server, "127.0.6.2").__aenter__()
                sockets.append(ws)
                await ws.send(hello)
                assert (await first(ws, ("room", "error")))["type"] == "room"
            extra = await connect(server, "127.0.6.2").__aenter__()
            sockets.append(extra)
            await extra.send(hello)
            err = await first(extra, ("room", "error"))
            assert err["type"] == "error" and err["code"] == "too-many-spectators", err
            assert err["params"] == {"limit": per_address}
            await extra.send('{"type": "ping"}')  # still open, and nothing more came
            assert (await recv(extra))["type"] == "pong"
            # Other addresses fill the room to its cap; one more is refused.
            n = per_address
            address = 3
            while n < per_room:
                for _ in range(min(per_address, per_room - n)):
                    ws = await connect(server, f"127.0.6.{address}").__aenter__()
                    sockets.append(ws)
                    await ws.send(hello)
                    n += 1
                address += 1
            for ws in sockets[per_address + 1 :]:
                assert (await first(ws, ("room", "error")))["type"] == "room"
            late = await connect(server, "127.0.6.200").__aenter__()
            sockets.append(late)
            await late.send(hello)
            err = await first(late, ("room", "error"))
            assert err["code"] == "too-many-spectators" and err["params"] == {"limit": per_room}
            # The seated host is no spectator: in at once, and sees the room at its cap.
            cookie = str(host.cookies["lockup_player"])
            async with connect(server, "127.0.6.1", cookie) as hws:
                await hws.send(json.dumps({"type": "hello", "room": room, "since": 0}))
                seen = await first(hws, ("room", "error"))
                assert seen["type"] == "room" and seen["room"]["you"] == 0
                assert seen["room"]["watchers"] <= per_room
            # A spectator gone makes room for another.
            await sockets[0].close()
            await asyncio.sleep(0.2)
            await late.send(hello)
            assert (await first(late, ("room", "error")))["type"] == "room"
        finally:
            for ws in sockets:
                await ws.close()

    asyncio.run(go())


def test_hello_is_limited_per_connection_and_per_address(server: Server) -> None:
    with contextlib.closing(person(server, "127.0.7.1")) as http:
        game = http.post("/api/games", json={"level": "random"}).json()["game"]
        cookie = str(http.cookies["lockup_player"])
    hello = json.dumps({"type": "hello", "game": game, "since": 0})
    burst = LIMITS.hellos_connection.burst

    async def go() -> None:
        # One connection: its burst answered, then refused (said once), and still open.
        async with connect(server, "127.0.7.1", cookie) as ws:
            for _ in range(burst + 20):
                await ws.send(hello)
            await ws.send('{"type": "ping"}')
            frames = []
            while (msg := await recv(ws))["type"] != "pong":
                frames.append(msg)
            states = [f for f in frames if f["type"] == "state"]
            errors = [f for f in frames if f["type"] == "error"]
            assert len(states) == burst, [f["type"] for f in frames]
            assert [e["code"] for e in errors] == ["rate-limited"], errors
            assert "Too many hellos" in errors[0]["reason"]
            assert errors[0]["params"]["retry_after"] >= 1
        # Many connections of one address: the address's burst, then refused.
        answered = 0
        many = LIMITS.hellos_address.burst // burst + 5  # more than the address's burst
        sockets = [await connect(server, "127.0.7.2").__aenter__() for _ in range(many)]
        try:
            for ws in sockets:
                for _ in range(burst):
                    await ws.send(hello)
                await ws.send('{"type": "ping"}')
            for ws in sockets:
                while (msg := await recv(ws))["type"] != "pong":
                    answered += msg["type"] == "error" and msg["code"] == "not-your-game"
        finally:
            for ws in sockets:
                await ws.close()
        assert LIMITS.hellos_address.burst <= answered <= LIMITS.hellos_address.burst + 5
        # An innocent page elsewhere says hello and gets its game.
        async with connect(server, "127.0.7.3", cookie) as ws:
            await ws.send(hello)
            assert (await first(ws, ("state", "error")))["type"] == "state"

    asyncio.run(go())
