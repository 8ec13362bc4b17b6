"""Rooms over real WebSockets against a real ``lockup serve``: people at one table,
computers in the empty seats, spectators, chat, presence and takeover, restarts, abuse.

The browser side of rooms is tested in test_browser_rooms.py; here every client is a
script, so each frame can be checked: no frame ever holds a card of a hand other than
its viewer's (checked against the stored record), and every viewer's versions run on
with no gap.
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
from conftest import hidden_cards_seen, replay_actions

from lockup.engine import Game

Msg = dict[str, Any]
UNPACED = ("--bot-delay", "0", "--bot-jitter", "0")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("rooms") / "games.sqlite"
    with Server(db, *UNPACED) as s:
        yield s


class Person:
    """A browser of its own (its own cookie), as a script."""

    def __init__(self, server: Server, name: str) -> None:
        self.server = server
        self.name = name
        self.http = httpx.Client(base_url=server.url, timeout=20)
        self.http.get("/")
        self.frames: list[Msg] = []
        self.seat: int | None = None

    @property
    def cookie(self) -> str:
        return str(self.http.cookies["lockup_player"])

    def create(self, **options: Any) -> Msg:
        r = self.http.post("/api/rooms", json={"name": self.name, **options})
        assert r.status_code == 200, r.text
        data: Msg = r.json()
        self.seat = 0
        return data

    def join(self, room: str, invite: str | None, seat: int | None = None) -> httpx.Response:
        body: Msg = {"invite": invite, "name": self.name}
        if seat is not None:
            body["seat"] = seat
        r = self.http.post(f"/api/rooms/{room}/join", json=body)
        if r.status_code == 200:
            self.seat = r.json()["seat"]
        return r

    def connect(self) -> Any:
        return websockets.connect(
            self.server.ws_url,
            additional_headers={"Cookie": f"lockup_player={self.cookie}"},
            max_queue=None,
        )


def key_of(url: str) -> str:
    return url.rsplit("=", 1)[1]


async def recv(ws: Any, timeout: float = 15.0) -> Msg:
    msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return msg


def stored_game(db: Path, game_id: str) -> tuple[Game, list[list[set[str]]]]:
    """The stored game replayed, and each hand's four dealt hands (as card codes)."""
    con = sqlite3.connect(db)
    try:
        rules = json.loads(
            con.execute("SELECT rules FROM games WHERE id = ?", (game_id,)).fetchone()[0]
        )
        rows = con.execute(
            "SELECT kind, seat, data FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
    finally:
        con.close()
    return replay_actions(rules, rows)


def consecutive(frames: list[Msg]) -> None:
    """Versioned frames (event, skip) run on by one from the last state."""
    v = None
    for f in frames:
        if f["type"] == "state":
            v = f["version"]
        elif f["type"] in ("event", "skip"):
            if v is not None:
                assert f["version"] == v + 1, (f["version"], v)
            v = f["version"]


async def play_to_the_end(person: Person, ws: Any, chat: bool = False) -> list[Msg]:
    """Play the first legal card whenever it is this person's turn, until the game is
    over; every frame received."""
    frames: list[Msg] = []
    sent: int | None = None
    last = ""
    said = False
    while True:
        msg = await recv(ws, 60)
        frames.append(msg)
        if msg["type"] == "error" and msg["code"] == "rate-limited" and last:
            # Faster than any person (random bots answer at once): wait as told, again.
            await asyncio.sleep(msg["params"]["retry_after"])
            await ws.send(last)
            continue
        if msg["type"] == "error" and msg["code"] not in ("stale",):
            raise AssertionError(f"{person.name}: {msg}")
        view = msg.get("view")
        if view is None:
            if msg["type"] == "error":
                sent = None
            continue
        if view["phase"] == "over":
            return frames
        if chat and not said and msg["type"] == "event":
            said = True
            await ws.send(json.dumps({"type": "chat", "text": f"hello from {person.name}"}))
        if view["legal"] and sent != msg["version"]:
            sent = msg["version"]
            last = json.dumps({"type": "play", "card": view["legal"][0], "version": sent})
            await ws.send(last)


def test_a_room_of_four_people_and_a_spectator_plays_to_the_end(server: Server) -> None:
    host = Person(server, "Ann")
    room = host.create(target=10, levels="random")
    rid, invite, watch = room["room"], key_of(room["invite"]), key_of(room["watch"])
    guests = [Person(server, n) for n in ("Bo", "Cy", "Di")]
    for g in guests:
        assert g.join(rid, invite).status_code == 200
    assert sorted(p.seat for p in [host, *guests]) == [0, 1, 2, 3]
    people = [host, *guests]

    async def go() -> tuple[list[list[Msg]], list[Msg]]:
        sockets = [await p.connect().__aenter__() for p in people]
        spectator_http = httpx.Client(base_url=server.url)
        spectator_http.get("/")
        spec = await websockets.connect(
            server.ws_url,
            additional_headers={
                "Cookie": f"lockup_player={spectator_http.cookies['lockup_player']}"
            },
            max_queue=None,
        )
        try:
            for ws in sockets:
                await ws.send(json.dumps({"type": "hello", "room": rid, "since": 0}))
            await spec.send(json.dumps({"type": "hello", "room": rid, "watch": watch}))
            first = await recv(sockets[0])
            assert first["type"] == "room" and first["room"]["status"] == "open"
            assert first["room"]["invite"] == invite and first["room"]["host"] == 0
            await sockets[0].send(json.dumps({"type": "start"}))
            spec_frames: list[Msg] = []

            async def watch_all() -> None:
                while True:
                    msg = await recv(spec, 90)
                    spec_frames.append(msg)
                    if msg.get("view", {}) and msg["view"]["phase"] == "over":
                        return

            results = await asyncio.gather(
                *(
                    play_to_the_end(p, ws, chat=i == 1)
                    for i, (p, ws) in enumerate(zip(people, sockets, strict=True))
                ),
                watch_all(),
            )
            return list(results[:4]), spec_frames
        finally:
            for ws in [*sockets, spec]:
                await ws.close()

    frames, spec_frames = asyncio.run(go())
    game_id = next(
        f["room"]["game"] for f in frames[0] if f["type"] == "room" and f["room"]["game"]
    )
    game, deals = stored_game(server.db, game_id)
    assert game.is_over
    for person, fs in zip(people, frames, strict=True):
        assert hidden_cards_seen(fs, person.seat, deals) == set(), person.name
        consecutive(fs)
        names = next(f["players"] for f in fs if f["type"] == "state")
        assert names[person.seat] == person.name
        chats = [f["event"] for f in fs if f["type"] == "event" and f["event"]["kind"] == "chat"]
        assert chats and chats[0]["text"] == "hello from Bo"
    assert hidden_cards_seen(spec_frames, None, deals) == set()
    consecutive(spec_frames)
    assert any(f["type"] == "skip" for f in spec_frames)  # the chat, hidden
    assert not any(
        f.get("event", {}) and f["event"]["kind"] == "chat"
        for f in spec_frames
        if f["type"] == "event"
    )
    rooms_seen = [f["room"] for f in spec_frames if f["type"] == "room"]
    assert rooms_seen and all("invite" not in r for r in rooms_seen)
    assert max(r["watchers"] for r in rooms_seen) == 1
    # Every play is stored with who made it: here, people only.
    con = sqlite3.connect(server.db)
    actors = {
        a
        for (a,) in con.execute(
            "SELECT DISTINCT actor FROM actions WHERE game_id = ? AND kind = 'play'", (game_id,)
        )
    }
    con.close()
    assert actors == {"person"}


async def until(ws: Any, pred: Any, timeout: float = 30.0, into: list[Msg] | None = None) -> Msg:
    """Frames until one satisfies ``pred``; returns it (all go to ``into``)."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no frame matched in {timeout} s")
        msg = await recv(ws, left)
        if into is not None:
            into.append(msg)
        if pred(msg):
            return msg


def is_event(kind: str, **fields: Any) -> Any:
    def pred(m: Msg) -> bool:
        ev = m.get("event") if m["type"] == "event" else None
        return bool(ev) and ev["kind"] == kind and all(ev.get(k) == v for k, v in fields.items())

    return pred


def my_turn(m: Msg) -> bool:
    return bool(m.get("view") and m["view"]["legal"])


def two_people(server: Server, **options: Any) -> tuple[Person, Person, str, str]:
    host, guest = Person(server, "Host"), Person(server, "Guest")
    room = host.create(levels="random", **options)
    rid = room["room"]
    assert guest.join(rid, key_of(room["invite"]), seat=2).status_code == 200
    return host, guest, rid, key_of(room["watch"])


def test_a_person_who_leaves_is_replaced_after_the_grace_and_comes_back(server: Server) -> None:
    host, guest, rid, _ = two_people(server, target=10, grace=5)

    async def go() -> tuple[list[Msg], list[Msg]]:
        host_frames: list[Msg] = []
        async with host.connect() as hws:
            await hws.send(json.dumps({"type": "hello", "room": rid}))
            g = await guest.connect().__aenter__()
            await g.send(json.dumps({"type": "hello", "room": rid}))
            await until(g, lambda m: m["type"] == "room")
            await hws.send(json.dumps({"type": "start"}))

            # The host plays whenever it may, except while the guest is away after the
            # computer took its seat: then the host thinks until the guest is back, so the
            # game (three computers at full speed) cannot run to its end before that. The
            # host stops on the frame of the computer's card itself: the computers can play
            # a whole game between two looks of a loop that polls.
            host_may_play = asyncio.Event()
            host_may_play.set()

            async def host_plays() -> None:
                sent = None
                while True:
                    m = await recv(hws, 60)
                    host_frames.append(m)
                    if is_event("play", seat=2, by="computer")(m):
                        host_may_play.clear()
                    if my_turn(m) and sent != m["version"]:
                        sent = m["version"]
                        await host_may_play.wait()
                        await hws.send(
                            json.dumps(
                                {
                                    "type": "play",
                                    "card": m["view"]["legal"][0],
                                    "version": m["version"],
                                }
                            )
                        )

            playing = asyncio.create_task(host_plays())
            # The guest waits for its turn, then leaves without playing.
            turn = await until(g, my_turn)
            since = turn["version"]
            await g.close()
            left_at = time.monotonic()
            # A computer plays for the guest after the grace (5 s).
            while not any(
                is_event("play", seat=2)(f) and f["version"] > since for f in host_frames
            ):
                await asyncio.sleep(0.1)
                assert time.monotonic() - left_at < 20, "no computer played for the guest"
            took = time.monotonic() - left_at
            assert 4.5 <= took <= 15, took
            takeover = [
                f for f in host_frames if f["type"] == "event" and f["event"]["kind"] == "takeover"
            ]
            assert takeover and takeover[0]["event"]["seat"] == 2
            computer_card = next(
                f for f in host_frames if is_event("play", seat=2)(f) and f["version"] > since
            )
            assert computer_card["event"]["by"] == "computer"
            rooms = [f["room"] for f in host_frames if f["type"] == "room"]
            assert any(r["seats"][2]["away"] and not r["seats"][2]["connected"] for r in rooms)
            # The guest comes back: what it missed, then the seat back (reclaim).
            guest_frames: list[Msg] = []
            async with guest.connect() as g2:
                await g2.send(json.dumps({"type": "hello", "room": rid, "since": since}))
                back = await until(g2, is_event("reclaim", seat=2), into=guest_frames)
                host_may_play.set()
                if my_turn(back):
                    card = back["view"]["legal"][0]
                    await g2.send(
                        json.dumps({"type": "play", "card": card, "version": back["version"]})
                    )
                # The events after ``since``, or one fresh state when the game ran on past
                # what the server keeps, then events on by one.
                consecutive(
                    [
                        {"type": "state", "version": since},
                        *[f for f in guest_frames if f["type"] in ("state", "event", "skip")],
                    ]
                )
                # ... and plays its own cards again.
                sent = None
                while True:
                    m = await recv(g2, 30)
                    guest_frames.append(m)
                    if is_event("play", seat=2)(m):
                        assert "by" not in m["event"]
                        break
                    if my_turn(m) and sent != m["version"]:
                        sent = m["version"]
                        await g2.send(
                            json.dumps(
                                {
                                    "type": "play",
                                    "card": m["view"]["legal"][0],
                                    "version": m["version"],
                                }
                            )
                        )
            playing.cancel()
            return host_frames, guest_frames

    host_frames, guest_frames = asyncio.run(go())
    game_id = next(
        f["room"]["game"] for f in host_frames if f["type"] == "room" and f["room"]["game"]
    )
    # Nothing lost or played twice: every card the pages saw is in the stored game, in order.
    # The host's first state of the game may already hold the computers' first cards (they
    # can play before the page's state is sent): the host saw, as events, every card stored
    # after that state's version.
    con = sqlite3.connect(server.db)
    rows = con.execute(
        "SELECT seat, data, actor, version FROM actions WHERE game_id = ? AND kind = 'play' "
        "ORDER BY seq",
        (game_id,),
    ).fetchall()
    con.close()
    first = next(f["version"] for f in host_frames if f["type"] == "state")
    seen = [(f["event"]["seat"], f["event"]["card"]) for f in host_frames if is_event("play")(f)]
    after = [(s, c) for s, c, _, v in rows if v > first]
    assert seen and after[: len(seen)] == seen
    assert ("computer" in {a for s, _, a, _ in rows if s == 2}) and (
        "person" in {a for s, _, a, _ in rows if s == 2}
    )
    stored_game(server.db, game_id)  # replays


def test_the_turn_timer_plays_for_a_person_out_of_time(server: Server) -> None:
    host, guest, rid, _ = two_people(server, target=10, turn_timer=5)

    async def go() -> list[Msg]:
        frames: list[Msg] = []
        async with host.connect() as hws, guest.connect() as gws:
            await hws.send(json.dumps({"type": "hello", "room": rid}))
            await gws.send(json.dumps({"type": "hello", "room": rid}))
            await until(hws, lambda m: m["type"] == "room")
            await hws.send(json.dumps({"type": "start"}))
            # Whoever's turn comes first, nobody plays: the clock runs out.
            clock = await until(hws, lambda m: m["type"] == "clock", into=frames)
            assert clock["clock"]["limit"] == 5 and 0 < clock["clock"]["seconds"] <= 5
            seat = clock["clock"]["seat"]
            t0 = time.monotonic()
            ev = await until(hws, is_event("play", seat=seat), timeout=20, into=frames)
            assert 4 <= time.monotonic() - t0 <= 12
            assert ev["event"]["by"] == "computer"
            assert not any(
                f["type"] == "event" and f["event"]["kind"] == "takeover" for f in frames
            )
        return frames

    asyncio.run(go())


def test_a_room_comes_back_after_kill_9(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite"
    s = Server(db, *UNPACED).start()
    try:
        host, guest, rid, _ = two_people(s, target=10, grace=600)

        async def before() -> Msg:
            async with host.connect() as hws, guest.connect() as gws:
                await hws.send(json.dumps({"type": "hello", "room": rid}))
                await gws.send(json.dumps({"type": "hello", "room": rid}))
                await until(hws, lambda m: m["type"] == "room")
                await hws.send(json.dumps({"type": "start"}))
                last: Msg = {}
                played = 0
                while played < 6:
                    for ws in (hws, gws):
                        try:
                            m = await recv(ws, 0.3)
                        except TimeoutError:
                            continue
                        if m.get("view"):
                            last[id(ws)] = m
                        if my_turn(m):
                            await ws.send(
                                json.dumps(
                                    {
                                        "type": "play",
                                        "card": m["view"]["legal"][0],
                                        "version": m["version"],
                                    }
                                )
                            )
                            played += 1
                await asyncio.sleep(0.5)
                s.kill()
                return last

        asyncio.run(before())
    finally:
        s.stop()
    s2 = Server(db, *UNPACED).start()
    try:
        # Same room, same seats, same game; both play on.
        for p in (host, guest):
            p.server = s2
            p.http = httpx.Client(base_url=s2.url, cookies={"lockup_player": p.cookie}, timeout=20)
        r = host.http.get(f"/api/rooms/{rid}")
        assert r.status_code == 200 and r.json()["status"] == "playing" and r.json()["you"] == 0
        assert r.json()["seats"][2]["name"] == "Guest"

        async def after() -> None:
            async with host.connect() as hws, guest.connect() as gws:
                await hws.send(json.dumps({"type": "hello", "room": rid}))
                await gws.send(json.dumps({"type": "hello", "room": rid}))
                for ws, seat in ((hws, 0), (gws, 2)):
                    st = await until(ws, lambda m: m["type"] == "state")
                    assert st["view"]["seat"] == seat and len(st["view"]["hand"]) >= 1
                    if my_turn(st):
                        card = st["view"]["legal"][0]
                        await ws.send(
                            json.dumps({"type": "play", "card": card, "version": st["version"]})
                        )
                moved = 0
                while moved < 4:
                    for ws in (hws, gws):
                        try:
                            m = await recv(ws, 0.3)
                        except TimeoutError:
                            continue
                        if my_turn(m):
                            await ws.send(
                                json.dumps(
                                    {
                                        "type": "play",
                                        "card": m["view"]["legal"][0],
                                        "version": m["version"],
                                    }
                                )
                            )
                        if is_event("play")(m) and m["event"]["seat"] in (0, 2) and ws is hws:
                            moved += 1

        asyncio.run(after())
    finally:
        s2.stop()


def test_rooms_refuse_guesses_strangers_and_floods(server: Server) -> None:
    host, guest, rid, watch = two_people(server, target=10)
    stranger = Person(server, "Eve")
    # A guessed room, a wrong invite, a wrong watch key: the same plain 404.
    for r in (
        stranger.http.get("/api/rooms/nosuchroom"),
        stranger.http.get(f"/api/rooms/{rid}?invite=guess"),
        stranger.join("nosuchroom", "x"),
        stranger.join(rid, "guessed-invite"),
    ):
        assert r.status_code == 404 and r.json()["error"] == "no-room", r.text
    assert stranger.http.get(f"/api/rooms/{rid}?key={watch}").json()["you"] is None
    # A second tab of the same person: the same seat, not another.
    assert guest.join(rid, None).json()["seat"] == 2
    # Bad options.
    for bad in (
        {"grace": 1},
        {"turn_timer": 3},
        {"levels": ["hard"] * 3},
        {"name": "x" * 40},
        {"public": "yes"},
        {"size": 5},
    ):
        assert host.http.post("/api/rooms", json=bad).status_code == 400, bad

    async def go() -> None:
        async with stranger.connect() as sws:
            await sws.send(json.dumps({"type": "hello", "room": rid, "watch": "wrong"}))
            err = await until(sws, lambda m: m["type"] == "error")
            assert err["code"] == "no-room"
            await sws.send(
                json.dumps(
                    {
                        "type": "start",
                    }
                )
            )
            assert (await until(sws, lambda m: m["type"] == "error"))["code"] == "no-room"
        async with host.connect() as hws, guest.connect() as tab1, guest.connect() as tab2:
            for ws in (hws, tab1, tab2):
                await ws.send(json.dumps({"type": "hello", "room": rid}))
            await until(hws, lambda m: m["type"] == "room")
            await tab1.send(json.dumps({"type": "start"}))  # not the host
            assert (await until(tab1, lambda m: m["type"] == "error"))["code"] == "not-host"
            await hws.send(json.dumps({"type": "start"}))
            await until(tab2, lambda m: m["type"] == "state")
            # Chat: too long, a flood, markup kept as text.
            await tab1.send(json.dumps({"type": "chat", "text": "x" * 201}))
            assert (await until(tab1, lambda m: m["type"] == "error"))["code"] == "too-long"
            await tab1.send(json.dumps({"type": "chat", "text": "<b>hi</b>\x00\n there"}))
            said = await until(tab2, is_event("chat"))
            assert said["event"]["text"] == "<b>hi</b> there" and said["event"]["seat"] == 2
            codes = []
            for _ in range(12):
                await tab1.send(json.dumps({"type": "chat", "text": "spam"}))
            while len(codes) < 7:
                m = await recv(tab1)
                if m["type"] == "error":
                    codes.append(m["code"])
            assert set(codes) == {"rate-limited"}
            await tab1.send(json.dumps({"type": "react", "reaction": "<script>"}))
            await until(tab1, lambda m: m["type"] == "error" and m["code"] == "bad-message")
            # The host removes the guest: a computer takes the seat; the guest's token no
            # longer plays it.
            await hws.send(json.dumps({"type": "remove", "seat": 2}))
            ev = await until(hws, is_event("seat", seat=2))
            assert ev["event"]["by"] == "computer"
            st = await until(tab1, lambda m: m["type"] == "state")
            assert st["view"]["seat"] is None and st["view"]["hand"] == []
            await tab1.send(json.dumps({"type": "play", "card": "2C", "version": st["version"]}))
            err = await until(tab1, lambda m: m["type"] == "error")
            assert err["code"] == "not-seated"

    asyncio.run(go())
    assert guest.http.get(f"/api/rooms/{rid}").status_code == 404  # no seat, no key


def test_lobby_profile_and_rematch(server: Server) -> None:
    host = Person(server, "Lobby host")
    assert host.http.post("/api/profile", json={"name": "  Ásta  "}).json() == {"name": "Ásta"}
    assert host.http.post("/api/profile", json={"name": ""}).status_code == 400
    room = host.http.post(
        "/api/rooms", json={"public": True, "levels": "random", "target": 10}
    ).json()
    lobby = host.http.get("/api/rooms").json()["rooms"]
    mine = [r for r in lobby if r["room"] == room["room"]]
    assert mine and mine[0]["host"] == "Ásta" and mine[0]["seated"] == 1
    guest = Person(server, "Lobbyist")
    assert guest.join(room["room"], None).status_code == 200  # public: no invite needed

    async def game(first: bool) -> str:
        """Play a game at the table (the first, or a rematch); its id."""
        async with host.connect() as hws, guest.connect() as gws:
            await hws.send(json.dumps({"type": "hello", "room": room["room"]}))
            await gws.send(json.dumps({"type": "hello", "room": room["room"]}))
            await until(hws, lambda m: m["type"] == "room")
            if first:
                await hws.send(json.dumps({"type": "start"}))
            else:
                await hws.send(json.dumps({"type": "rematch"}))
                voted = await until(hws, lambda m: m["type"] == "room" and m["room"]["rematch"])
                assert voted["room"]["rematch"] == [0] and voted["room"]["status"] == "over"
                await gws.send(json.dumps({"type": "rematch"}))
            started = [
                await until(ws, lambda m: m["type"] == "room" and m["room"]["status"] == "playing")
                for ws in (hws, gws)
            ]
            await asyncio.gather(play_to_the_end(host, hws), play_to_the_end(guest, gws))
            return str(started[0]["room"]["game"])

    first = asyncio.run(game(True))
    assert room["room"] not in [r["room"] for r in host.http.get("/api/rooms").json()["rooms"]]
    second = asyncio.run(game(False))
    assert first != second  # a new game at the same table
