"""Nobody holds a table up, against a real ``lockup serve`` on SQLite (quick tables are
rated and have a turn clock; ``--quick-turn-timer 5``, the shortest a table may have).

1. A squatter takes a quick-play seat, keeps the page open and never plays: the table
   plays on by the clock (the computer plays each card the squatter lets run out), and
   after :data:`~lockup.server.session.attendance.ABANDON_AFTER` timeouts the seat is the
   computer's for the rest of the game: an ``abandon`` event (why ``timeouts``), the
   squatter's page watches, the game goes on to its end, and quick play seats the
   squatter at a new table.
2. A person gone the whole grace at a rated table has abandoned the seat (why ``gone``):
   back, they watch; they never take the seat back.
3. A person who leaves a quick table's game under way (``POST /api/rooms/{id}/leave``) has
   abandoned it (why ``left``); quick play seats them at a new table. At an unrated
   friends' room leaving a game under way is still refused.

Every abandonment is stored (``game_events``) with the seat and the reason, never the
person's token; the game's participants keep the person, so the ratings rank them last.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import websockets
from attack_helpers import Server

from lockup.server.session.attendance import ABANDON_AFTER

Msg = dict[str, Any]
UNPACED = ("--bot-delay", "0", "--bot-jitter", "0")
TIMER = 5.0
"""The quick tables' turn timer in these tests (the shortest a table may have)."""


def person(server: Server) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=30)


def quick(http: httpx.Client, name: str | None = None) -> Msg:
    r = http.post("/api/quickplay", json={} if name is None else {"name": name})
    assert r.status_code == 200, r.text
    body: Msg = r.json()
    return body


def key_of(answer: Msg) -> str:
    return str(answer["invite"].rsplit("=", 1)[1])


def cookie_of(http: httpx.Client) -> str:
    return str(http.cookies["lockup_player"])


def connect(server: Server, http: httpx.Client) -> Any:
    return websockets.connect(
        server.ws_url,
        additional_headers={"Cookie": f"lockup_player={cookie_of(http)}"},
        max_queue=None,
    )


async def hello(ws: Any, room: str, watch: str | None = None, since: int = 0) -> None:
    msg: Msg = {"type": "hello", "room": room, "since": since}
    if watch is not None:
        msg["watch"] = watch
    await ws.send(json.dumps(msg))


async def recv(ws: Any, timeout: float = 15.0) -> Msg:
    msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return msg


async def until(ws: Any, done: Any, frames: list[Msg], timeout: float = 15.0) -> Msg:
    """Frames (kept in ``frames``) until one for which ``done(frame)`` holds, within
    ``timeout`` seconds in all."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no such frame in {timeout} s; the last: {frames[-3:]}")
        msg = await recv(ws, left)
        frames.append(msg)
        if done(msg):
            return msg


def is_event(kind: str) -> Any:
    return lambda m: m["type"] == "event" and m["event"]["kind"] == kind


def playing_state(m: Msg) -> bool:
    return m["type"] == "state" and m["view"]["seat"] is not None


def db_rows(server: Server, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(server.db)
    try:
        return list(con.execute(sql, args).fetchall())
    finally:
        con.close()


def check_stored(server: Server, game: str, seat: int, why: str, player: str) -> None:
    """The abandonment is stored at the seat with its reason (never the token); the game's
    seat is the computer's; its participants keep the person."""
    events = db_rows(
        server, "SELECT seat, data FROM game_events WHERE game_id = ? AND kind = 'abandon'", game
    )
    assert [(s, json.loads(d)) for s, d in events] == [(seat, {"why": why})], events
    assert player not in events[0][1]
    seats = json.loads(db_rows(server, "SELECT seats FROM games WHERE id = ?", game)[0][0])
    assert seats[seat]["kind"] == "bot" and "player" not in seats[seat], seats
    people = db_rows(server, "SELECT player_id, seat FROM participants WHERE game_id = ?", game)
    assert people == [(player, seat)], people


def game_of(server: Server, room: str) -> str:
    return str(db_rows(server, "SELECT game_id FROM rooms WHERE id = ?", room)[0][0])


def test_a_squatter_plays_on_by_the_clock_then_abandons(tmp_path: Path) -> None:
    flags = ("--quick-wait", "1", "--quick-turn-timer", str(TIMER), *UNPACED)
    with Server(tmp_path / "squat.sqlite", *flags) as server:
        sam = person(server)
        answer = quick(sam, "Sam")
        room, seat = answer["room"], answer["seat"]

        def my_clock(m: Msg) -> bool:
            return bool(m.get("clock")) and m["clock"]["seat"] == seat

        async def go() -> tuple[list[Msg], list[Msg], float, Msg]:
            before: list[Msg] = []
            after: list[Msg] = []
            async with connect(server, sam) as ws:
                await hello(ws, room)
                await until(ws, playing_state, before)
                started = time.monotonic()
                await until(ws, my_clock, before, timeout=TIMER + 10)
                # The page drops 2 s into the squatter's time, and comes back: the clock
                # goes on where it was (the time left, not the whole limit).
                await asyncio.sleep(2)
                last = max(m["version"] for m in before if m["type"] in ("state", "event"))
            async with connect(server, sam) as ws:
                await hello(ws, room, since=last)
                resumed = await until(ws, my_clock, before)
                await until(ws, is_event("abandon"), before, timeout=ABANDON_AFTER * TIMER + 15)
                took = time.monotonic() - started
                # The squatter's page now watches the game, which goes on to its end.
                await until(ws, is_event("over"), after, timeout=30)
            return before, after, took, resumed

        before, after, took, resumed = asyncio.run(go())
        assert 0 < resumed["clock"]["seconds"] <= TIMER - 1.5, resumed
        assert resumed["clock"]["limit"] == TIMER
        # Each turn of the squatter's: a clock (in a ``clock`` frame, or in the ``state``
        # when the page came on their turn).
        clocks = [m["clock"] for m in before if my_clock(m)]
        assert len(clocks) >= ABANDON_AFTER and all(c["limit"] == TIMER for c in clocks)
        mine = [m["event"] for m in before if is_event("play")(m) and m["event"]["seat"] == seat]
        assert [e.get("by") for e in mine] == ["computer"] * ABANDON_AFTER, mine
        assert took >= ABANDON_AFTER * TIMER - 1, took
        assert before[-1]["event"] == {"kind": "abandon", "seat": seat, "why": "timeouts"}
        # Then the page watches: a spectator's state, a room without its seat, no clock.
        state = next(m for m in after if m["type"] == "state")
        assert state["view"]["seat"] is None and state["seats"][seat]["kind"] == "bot"
        rooms = [m["room"] for m in after if m["type"] == "room"]
        assert rooms and rooms[-1]["you"] is None
        assert rooms[-1]["seats"][seat]["kind"] in ("computer", "empty")
        assert not [m for m in after if m["type"] == "clock"]
        check_stored(server, game_of(server, room), seat, "timeouts", cookie_of(sam))
        # Free to play elsewhere: quick play seats them at a new table.
        again = quick(sam)
        assert again["room"] != room, again


def test_gone_the_whole_grace_at_a_rated_table_is_for_good(tmp_path: Path) -> None:
    grace = 5.0
    flags = ("--quick-wait", "1", "--quick-grace", str(grace), "--quick-turn-timer", "60")
    with Server(tmp_path / "gone.sqlite", *flags, *UNPACED) as server:
        ann, fan = person(server), person(server)
        answer = quick(ann, "Ann")
        room, seat, key = answer["room"], answer["seat"], key_of(answer)

        async def go() -> tuple[list[Msg], float, list[Msg]]:
            seen: list[Msg] = []
            async with connect(server, ann) as mine:
                await hello(mine, room)
                await until(mine, playing_state, [])
                fan.get("/api/profile")  # a cookie of its own
                async with connect(server, fan) as watcher:
                    await hello(watcher, room, watch=key)
                    await until(watcher, lambda m: m["type"] == "state", seen)
                    await mine.close()
                    gone_at = time.monotonic()
                    await until(watcher, is_event("abandon"), seen, timeout=grace + 10)
                    waited = time.monotonic() - gone_at
                    # Ann is back: she watches, the seat stays the computer's.
                    back: list[Msg] = []
                    async with connect(server, ann) as again:
                        await hello(again, room, watch=key)
                        await until(again, lambda m: m["type"] == "state", back)
                        await again.send(json.dumps({"type": "play", "card": "2C", "version": 1}))
                        await until(again, lambda m: m["type"] == "error", back)
                        await asyncio.sleep(0.5)
                        while True:
                            try:
                                back.append(await recv(again, 0.3))
                            except TimeoutError:
                                break
            return seen, waited, back

        seen, waited, back = asyncio.run(go())
        assert seen[-1]["event"] == {"kind": "abandon", "seat": seat, "why": "gone"}
        assert waited >= grace - 1, waited
        # Counted down in the room frames, then no takeover that the person could undo.
        assert any(
            m["type"] == "room" and m["room"]["seats"][seat]["takeover_in"] is not None
            for m in seen
        )
        assert not [m for m in seen if is_event("takeover")(m)]
        state = next(m for m in back if m["type"] == "state")
        assert state["view"]["seat"] is None and state["seats"][seat]["kind"] == "bot"
        assert [m["room"]["you"] for m in back if m["type"] == "room"][-1] is None
        assert not [m for m in back if is_event("reclaim")(m)]
        assert next(m for m in back if m["type"] == "error")["code"] in (
            "not-seated",
            "not-your-turn",
        )
        snap = ann.get(f"/api/rooms/{room}", params={"invite": key}).json()
        assert snap["you"] is None and snap["seats"][seat]["kind"] in ("computer", "empty")
        check_stored(server, game_of(server, room), seat, "gone", cookie_of(ann))
        assert quick(ann)["room"] != room


def test_leaving_a_quick_table_s_game_abandons_it(tmp_path: Path) -> None:
    with Server(tmp_path / "leave.sqlite", "--quick-wait", "1", *UNPACED) as server:
        lea = person(server)
        answer = quick(lea, "Lea")
        room, seat = answer["room"], answer["seat"]

        async def go() -> tuple[Msg, list[Msg]]:
            seen: list[Msg] = []
            async with connect(server, lea) as ws:
                await hello(ws, room)
                await until(ws, playing_state, seen)
                r = await asyncio.to_thread(lea.post, f"/api/rooms/{room}/leave", json={})
                assert r.status_code == 200, r.text
                await until(ws, is_event("abandon"), seen)
                await until(ws, is_event("over"), seen, timeout=30)
                await until(
                    ws, lambda m: m["type"] == "room" and m["room"]["status"] == "closed", seen
                )
            return r.json(), seen

        body, seen = asyncio.run(go())
        assert body == {"room": room, "seat": None, "abandoned": True}
        assert [m["event"] for m in seen if is_event("abandon")(m)] == [
            {"kind": "abandon", "seat": seat, "why": "left"}
        ]
        # The room's frames say who left the game (its game-over window ranks them last):
        # nobody before the abandonment, the seat from it to the game's end.
        at = next(i for i, m in enumerate(seen) if is_event("abandon")(m))
        rooms = [(i, m["room"]) for i, m in enumerate(seen) if m["type"] == "room"]
        assert all(r["left"] == [] for i, r in rooms if i < at)
        after = [r for i, r in rooms if i > at and r["status"] != "closed"]
        assert after and all(r["left"] == [seat] for r in after), after
        # The game went on to its end with the computer in the seat (rated all the same:
        # the person is in its participants), and the table nobody is left at closed.
        game = game_of(server, room)
        assert db_rows(server, "SELECT winner IS NOT NULL FROM games WHERE id = ?", game) == [(1,)]
        check_stored(server, game, seat, "left", cookie_of(lea))
        snap = lea.get(f"/api/rooms/{room}", params={"invite": key_of(answer)})
        assert snap.status_code in (200, 404)
        assert snap.status_code == 404 or snap.json()["you"] is None
        again = quick(lea)
        assert again["room"] != room and again["seat"] == 0, again

        # An unrated friends' room: a game under way is not left (a computer plays for a
        # person who closes the page, until they are back).
        r = lea.post("/api/rooms", json={"levels": "random"})
        assert r.status_code == 200, r.text
        friends = r.json()["room"]

        async def start() -> None:
            async with connect(server, lea) as ws:
                await hello(ws, friends)
                await until(ws, lambda m: m["type"] == "room", [])
                await ws.send(json.dumps({"type": "start"}))
                await until(ws, playing_state, [])

        asyncio.run(start())
        r = lea.post(f"/api/rooms/{friends}/leave", json={})
        assert r.status_code == 409 and r.json()["error"] == "game-under-way", r.text
