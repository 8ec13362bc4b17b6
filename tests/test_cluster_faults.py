"""Faults that no player notices, or that each player is told of (issue 21).

Three ``lockup serve`` processes on one real PostgreSQL and one real Redis. A room of two
people plays across processes (the host's page on the room's process, the guest's on
another), a solo game is played through a process that does not own it, and an innocent
player plays on the third process, measured. Pages behave as the page does
(lockup/web/static/js/connection.js): they reconnect with back-off, which starts again
only once their game has arrived, say ``hello`` with the version they have, and play
their first legal card at each turn.

The faults, one after the other: a rolling restart of the games' process (SIGTERM: both
pages of the room come back to one process at once), ``kill -9`` of the games' new
process, Redis stopped for 5 s, PostgreSQL stopped for 5 s. After each, every page must
have been told (a close that says why, ``unavailable``, a ``notice``) and must have its
game back; HTTP answers during the faults are never 500; at the end no acknowledged card
is lost or doubled, no page saw a hidden card, and each finished game's record downloads
from every process.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Innocent, Server
from conftest import hidden_cards_seen
from services import Postgres, Redis
from test_cluster_e2e import holder, servers, stored

pytestmark = pytest.mark.serial  # timing measured: run alone (make pytest)

Msg = dict[str, Any]
THINK = 0.25
"""Seconds a page's person takes over a card: the games outlast the faults."""
BACKOFF = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
PAUSED_MAX = 2.0
"""The page's back-off (connection.js), without its jitter."""


class Page:
    """One page, as the browser runs it (see the module): every frame, every fault it was
    told of and when, every time its game arrived."""

    def __init__(self, name: str, cookie: str, hello: Msg, order: list[Server]) -> None:
        self.name = name
        self.cookie = cookie
        self.hello = hello
        self.order = order
        self.frames: list[Msg] = []
        self.version = 0
        self.seat: int | None = None
        self.acked: list[tuple[int, str]] = []
        self.told: list[tuple[float, str]] = []
        self.arrived: list[float] = []
        self.refused: list[Msg] = []
        self.attempts: list[int] = []
        self.game: str | None = None
        self.last: Msg | None = None
        self.over = False
        self.paused = False
        self.moved = False
        self.reload = False
        self.prefer: Server | None = None
        self.connects: list[tuple[float, int]] = []
        """When the page's socket opened, and on which process (its port)."""
        self.on: Server | None = None
        """The process the page's socket is on (the last it reached)."""

    def told_after(self, t: float) -> list[tuple[float, str]]:
        return [x for x in self.told if x[0] >= t]

    def arrived_after(self, t: float) -> float | None:
        return next((x for x in self.arrived if x >= t), None)

    async def run(self, stop: asyncio.Event) -> None:
        attempt = 0
        i = 0
        while not stop.is_set() and not self.over:
            # A balancer in front: the next process that is up, in turn.
            alive = [s for s in self.order if s.alive()] or self.order
            server = alive[i % len(alive)]
            if self.prefer is not None and self.prefer.alive():
                server, self.prefer = self.prefer, None
            try:
                ws = await websockets.connect(
                    server.ws_url,
                    additional_headers={"Cookie": f"lockup_player={self.cookie}"},
                    max_queue=None,
                    open_timeout=3,
                )
            except (OSError, TimeoutError, websockets.InvalidStatus):
                self.moved = False
                await self._back_off(attempt)
                attempt += 1
                i += 1
                continue
            self.attempts.append(attempt)
            self.on = server
            self.connects.append((round(time.monotonic(), 2), server.port))
            try:
                await ws.send(json.dumps({**self.hello, "since": self.version}))
                if await self._play(ws, stop):
                    attempt = 0
            except websockets.ConnectionClosed as e:
                code = e.rcvd.code if e.rcvd is not None else 1006
                self.paused = code == 1013
                self.moved = code == 1012
                self.told.append(
                    (time.monotonic(), {1012: "restart", 1013: "paused"}.get(code, "lost"))
                )
            finally:
                await ws.close()
            if stop.is_set() or self.over:
                return
            await self._back_off(attempt)
            attempt += 1
            i += 1

    async def _back_off(self, attempt: int) -> None:
        wait = BACKOFF[min(attempt, len(BACKOFF) - 1)]
        if self.moved:  # the game moved: back at once (connection.js)
            wait = BACKOFF[0]
        await asyncio.sleep(min(wait, PAUSED_MAX) if self.paused else wait)

    def move(self, to: Server) -> None:
        """The person reloads, and the balancer sends the new socket to ``to``."""
        self.prefer = to
        self.reload = True

    async def _play(self, ws: Any, stop: asyncio.Event) -> bool:
        """Frames until the socket closes (raises) or ``stop``; True once the game came."""
        came = False
        sent: int | None = None
        while not stop.is_set():
            if self.reload:
                self.reload = False
                return came
            try:
                msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
            except TimeoutError:
                continue
            self.frames.append(msg)
            now = time.monotonic()
            kind = msg["type"]
            if kind == "notice":
                self.told.append((now, "relay" if msg["notice"] else "relay-cleared"))
                continue
            if kind == "error":
                if msg["code"] == "unavailable":
                    self.told.append((now, "paused"))
                elif msg["code"] not in ("stale", "not-your-turn"):
                    self.refused.append(msg)
                sent = None
                continue
            if kind in ("state", "event", "room", "synced"):
                if not came:
                    self.arrived.append(now)
                came = True
                self.paused = False
            if kind == "synced" and self.last is not None:
                msg = self.last  # up to date: act on what the page shows
            if kind == "room":
                self.game = msg["room"]["game"] or self.game
                continue
            if kind in ("state", "event", "skip") and "version" in msg:
                self.version = msg["version"]
            ev = msg.get("event")
            view = msg.get("view")
            if view is None:
                continue
            self.last = msg
            self.seat = view["seat"]
            if kind == "event" and ev and ev.get("kind") == "play" and ev["seat"] == self.seat:
                self.acked.append((msg["version"], ev["card"]))
            if view["phase"] == "over":
                self.over = True
                return came
            if view["legal"] and view["turn"] == self.seat and sent != msg["version"]:
                sent = msg["version"]
                await asyncio.sleep(THINK)  # a person takes a moment (the games last)
                await ws.send(
                    json.dumps({"type": "play", "card": view["legal"][0], "version": sent})
                )
        return came


def no_500(answers: list[tuple[str, int]]) -> None:
    bad = [a for a in answers if a[1] >= 500 and a[1] != 503]
    assert not bad, bad


def test_faults_no_player_is_left_without_their_game_or_a_word(
    tmp_path: Path, stack: tuple[Postgres, Redis]
) -> None:
    pg, redis = stack
    with servers(tmp_path, pg, redis, 3) as (url, procs):
        a, b, c = procs
        by_pid = {str(s.pid): s for s in procs}
        # The room: the host makes it on a; the guest's page lands on b.
        host = httpx.Client(base_url=a.url, timeout=30)
        room = host.post("/api/rooms", json={"levels": "random", "target": 30, "name": "Ann"})
        assert room.status_code == 200, room.text
        rid, invite = room.json()["room"], room.json()["invite"].rsplit("=", 1)[1]
        guest = httpx.Client(base_url=a.url, timeout=30)
        assert guest.post(f"/api/rooms/{rid}/join", json={"invite": invite}).status_code == 200
        # The solo game: made on a and owned by a, its page on b.
        solo = httpx.Client(base_url=a.url, timeout=30)
        game = solo.get("/api/game").json()["game"]
        pages = [
            Page("host", host.cookies["lockup_player"], {"type": "hello", "room": rid}, [a, b]),
            Page("guest", guest.cookies["lockup_player"], {"type": "hello", "room": rid}, [b, a]),
            Page("solo", solo.cookies["lockup_player"], {"type": "hello", "game": game}, [b, a]),
        ]
        # The innocent plays on c, which no page of the others reaches and no fault stops.
        innocent = Innocent(c.url, level="random", think=0.05)
        http: list[tuple[str, int]] = []
        report: dict[str, Any] = {}

        async def probe(what: str, call: Callable[[], Any]) -> None:
            try:
                r = await asyncio.to_thread(call)
                http.append((what, r.status_code))
            except httpx.HTTPError:
                http.append((what, 0))

        async def until_all_play(since: float, timeout: float = 30) -> None:
            """Every page has its game and a card of its acknowledged after ``since``."""
            deadline = time.monotonic() + timeout
            counts = {p.name: len(p.acked) for p in pages}
            while time.monotonic() < deadline:
                if all(len(p.acked) > counts[p.name] or p.over for p in pages):
                    return
                await asyncio.sleep(0.05)
            stuck = [p for p in pages if len(p.acked) <= counts[p.name] and not p.over]
            print("ports", {s.port: s.pid for s in procs}, "now", round(time.monotonic(), 2))
            raise AssertionError(
                "pages left without their game: "
                + "; ".join(
                    f"{p.name} told {p.told[-4:]} connects {p.connects[-4:]} last {p.frames[-1:]}"
                    for p in stuck
                )
            )

        def owner_of_room() -> Server | None:
            pid = holder(url, pages[0].game or "")
            return None if pid is None else by_pid[pid]

        async def go() -> None:
            stop = asyncio.Event()
            runs = [asyncio.create_task(p.run(stop)) for p in pages]
            try:
                await until_all_play(time.monotonic())
                for fault in ("sigterm", "kill9", "redis", "postgres"):
                    if fault == "redis":
                        # Two pages reload and land on the process that does not play
                        # their game: forwarded over Redis, which then stops.
                        for p in pages[1:]:
                            mine = by_pid.get(holder(url, p.game or "") or "")
                            p.move(next(s for s in procs[:2] if s is not mine and s.alive()))
                        await until_all_play(time.monotonic())
                    owner = owner_of_room()
                    if owner is None and fault in ("sigterm", "kill9"):
                        await until_all_play(time.monotonic())  # a page brings it back
                        owner = owner_of_room()
                        assert owner is not None, "nobody plays the room's game"
                    before = {
                        p.name: (by_pid.get(holder(url, p.game or "") or ""), p.on) for p in pages
                    }
                    at = time.monotonic()
                    if fault == "sigterm":
                        assert owner is not None
                        await asyncio.to_thread(owner.stop)
                    elif fault == "kill9":
                        assert owner is not None
                        await asyncio.to_thread(owner.kill)
                    elif fault == "redis":
                        await asyncio.to_thread(redis.stop)
                    else:
                        await asyncio.to_thread(pg.stop)
                    if fault in ("redis", "postgres"):
                        await asyncio.sleep(1.5)
                        await probe(
                            f"{fault}: POST /api/games",
                            lambda: solo.post(c.url + "/api/games", json={}),
                        )
                        await probe(
                            f"{fault}: GET /api/game", lambda: solo.get(c.url + "/api/game")
                        )
                        await asyncio.sleep(3.5)
                        await asyncio.to_thread(redis.start if fault == "redis" else pg.start)
                    ended = time.monotonic()
                    await until_all_play(ended, 40)
                    report[fault] = {
                        p.name: {
                            "told": [(round(t - at, 2), w) for t, w in p.told_after(at)],
                            "back": round((p.arrived_after(at) or 0) - at, 2),
                            "back_after_end": round((p.arrived_after(at) or 0) - ended, 2),
                            "sockets": sum(1 for t, _ in p.connects if at <= t <= ended),
                            # what the page should feel: its game's process stopped; its
                            # game played by another process than its socket's (Redis)
                            "owner_hit": before[p.name][0] is owner,
                            "forwarded": before[p.name][0] is not before[p.name][1],
                        }
                        for p in pages
                    }
                    if owner is not None and fault in ("sigterm", "kill9"):
                        # The process comes back, as a new one.
                        i = procs.index(owner)
                        fresh = Server(owner.db, *owner.extra, url=owner.db_url)
                        await asyncio.to_thread(fresh.start, 60)
                        procs[i] = fresh
                        by_pid[str(fresh.pid)] = fresh
                        for p in pages:
                            p.order = [fresh if s is owner else s for s in p.order]
            finally:
                stop.set()
                await asyncio.gather(*runs)

        async def start_room() -> None:
            async with websockets.connect(
                a.ws_url,
                additional_headers={"Cookie": f"lockup_player={host.cookies['lockup_player']}"},
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "room": rid}))
                await ws.send(json.dumps({"type": "start"}))
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                    if msg["type"] == "room" and msg["room"]["status"] == "playing":
                        pages[0].game = pages[1].game = msg["room"]["game"]
                        return

        innocent.start()
        try:
            asyncio.run(start_room())
            # The solo game is owned by a: a socket there says hello first.
            asyncio.run(_claim(a, solo.cookies["lockup_player"], game))
            pages[2].game = game
            asyncio.run(go())
        finally:
            quiet = innocent.stop()
        print(json.dumps(report, indent=1))
        print("innocent:", quiet.summary())
        no_500(http)
        assert any(code == 503 for what, code in http if what.startswith("postgres: POST")), http
        for fault, seen in report.items():
            for name, got in seen.items():
                first = got["told"][0][0] if got["told"] else None
                said = [w for _, w in got["told"]]
                if fault in ("sigterm", "kill9") and got["owner_hit"]:
                    # Its game's process stopped: told at once, the game back within 3 s.
                    assert first is not None and first <= 1.0, f"{fault}: {name}: {got}"
                    assert 0 < got["back"] <= 3.0, f"{fault}: {name}: {got}"
                elif fault == "redis" and got["forwarded"]:
                    # Its game is played by another process, out of reach: said, then cleared.
                    assert first is not None and first <= 1.0, f"redis: {name}: {got}"
                    assert "relay" in said and "relay-cleared" in said, f"redis: {name}: {got}"
                elif fault == "postgres":
                    # Saving is paused: said at once; the game back soon after the restart.
                    assert first is not None and first <= 1.0, f"postgres: {name}: {got}"
                    assert "paused" in said, f"postgres: {name}: {got}"
                    assert 0 < got["back_after_end"] <= 4.0, f"postgres: {name}: {got}"
                    # and no storm: the page backs off (about 1 socket a second at most)
                    assert got["sockets"] <= 8, f"postgres: {name}: {got}"
            assert any(x["forwarded"] for x in seen.values()) or fault != "redis"
        for p in pages:
            assert not p.refused, (p.name, p.refused[:3])
            # nothing lost or doubled, no hidden card
            rows_game = p.game
            assert rows_game is not None
            _, deals, rows = stored(url, rows_game)
            assert not hidden_cards_seen(p.frames, p.seat, deals), p.name
            mine = [(r[4], r[3]) for r in rows if r[1] == "play" and r[2] == p.seat]
            stored_versions = {v for v, _ in mine}
            for version, card in p.acked:
                assert any(v >= version for v in stored_versions), (p.name, version, card)
            assert len({v for v, _ in p.acked}) <= len(mine)


async def _claim(server: Server, cookie: str, game: str) -> None:
    async with websockets.connect(
        server.ws_url, additional_headers={"Cookie": f"lockup_player={cookie}"}
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
        while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "state":
            pass


def test_a_finished_games_record_downloads_from_every_process(
    tmp_path: Path, stack: tuple[Postgres, Redis]
) -> None:
    """The record of a finished game comes from any process, the one that still holds the
    game in memory or not (it is read from PostgreSQL); a game under way held by another
    process is refused with a reason, never a 500; a process stops with no traceback."""
    from test_cluster_e2e import Player

    pg, redis = stack
    with servers(tmp_path, pg, redis, 2) as (url, [a, b]):
        p = Player(a)
        p.claim(a)
        under_way = Player(a)
        under_way.claim(a)  # a plays it; b does not
        asyncio.run(p.play([a]))
        cookies = {"lockup_player": p.cookie}
        answers = [
            httpx.get(f"{s.url}/api/games/{p.game}/record", cookies=cookies, timeout=30)
            for s in (a, b, b, a)
        ]
        assert [r.status_code for r in answers] == [200] * 4, [r.text for r in answers]
        assert len({r.text for r in answers}) == 1
        record = answers[0].json()
        assert record["format"].startswith("lockup-record/") and record["hands"]
        stranger = httpx.get(f"{b.url}/api/games/{p.game}/record", timeout=30)
        assert stranger.status_code == 403 and stranger.json()["error"] == "not-your-game"
        busy = httpx.get(
            f"{b.url}/api/games/{under_way.game}/record",
            cookies={"lockup_player": under_way.cookie},
            timeout=30,
        )
        assert busy.status_code == 403 and busy.json()["error"] == "game-under-way", busy.text
        a.stop()
        assert "Traceback" not in a.log_text() + b.log_text()
