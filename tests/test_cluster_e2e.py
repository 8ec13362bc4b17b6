"""Several ``lockup serve`` processes on one real PostgreSQL and one real Redis
(tests/services.py starts both on private ports): a person's WebSocket on one process, the
game owned by another, every frame checked for hidden cards against the stored deals;
``kill -9`` of the owner mid-trick, a Redis restart and a PostgreSQL outage mid-game.

Skipped, saying why, only when the PostgreSQL or Redis binaries are absent (``make test``
installs them).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Server
from conftest import hidden_cards_seen, replay_actions
from services import Postgres, Redis
from sqlalchemy import create_engine, text

from lockup.engine import Game

pytestmark = pytest.mark.serial  # timing measured: run alone (make pytest)

Msg = dict[str, Any]
UNPACED = (
    *("--bot-delay", "0", "--bot-jitter", "0", "--bot-processes", "1"),
    # The scripted player answers at once and the bots are unpaced, so a game runs at
    # machine speed: past a person's 60 messages then 6 a second on one connection (once
    # the compiled engine is built), whose rate-limited refusal it would wait on forever.
    *("--messages-per-connection", "0"),
)


@contextlib.contextmanager
def servers(
    tmp_path: Path, pg: Postgres, redis: Redis, n: int
) -> Iterator[tuple[str, list[Server]]]:
    """``n`` server processes on a new database of ``pg`` and on ``redis``: (its URL, the
    servers), all stopped at the end."""
    url = pg.new_database()
    out: list[Server] = []
    try:
        for i in range(n):
            s = Server(tmp_path / f"p{i}" / "log", *UNPACED, "--redis", redis.url, url=url)
            out.append(s)
            s.start(timeout=60)
        yield url, out
    finally:
        for s in out:
            s.stop()


def stored(url: str, game_id: str) -> tuple[Game, list[list[set[str]]], list[tuple[Any, ...]]]:
    """The stored game replayed, each hand's dealt hands, and the action rows."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            rules = conn.execute(
                text("SELECT rules FROM games WHERE id = :g"), {"g": game_id}
            ).scalar_one()
            rows = [
                tuple(r)
                for r in conn.execute(
                    text(
                        "SELECT seq, kind, seat, data, version FROM actions "
                        "WHERE game_id = :g ORDER BY seq"
                    ),
                    {"g": game_id},
                )
            ]
    finally:
        engine.dispose()
    game, deals = replay_actions(json.loads(rules), [r[1:4] for r in rows])
    assert [r[0] for r in rows] == list(range(len(rows)))  # no gap, no double
    return game, deals, rows


class Player:
    """One person's page, as a script: reconnects (with ``since``) whenever its socket is
    closed, to the next process of the list."""

    def __init__(self, first: Server) -> None:
        self.http = httpx.Client(base_url=first.url, timeout=30)
        r = self.http.get("/api/game")
        assert r.status_code == 200, r.text
        self.game = r.json()["game"]
        self.seat = r.json()["seat"]
        self.cookie = str(self.http.cookies["lockup_player"])
        self.frames: list[Msg] = []
        self.version = 0
        self.acked: list[tuple[int, str]] = []
        """(version, card) of each of this person's cards the server acknowledged."""
        self.refused: list[Msg] = []
        self.reconnects: list[float] = []
        self.replaying = False
        """Whether :meth:`play` is acting again on the last frame seen before a reconnect."""

    async def connect(self, server: Server) -> Any:
        ws = await websockets.connect(
            server.ws_url,
            additional_headers={"Cookie": f"lockup_player={self.cookie}"},
            max_queue=None,
        )
        await ws.send(json.dumps({"type": "hello", "game": self.game, "since": self.version}))
        return ws

    def claim(self, server: Server) -> None:
        """Have ``server`` own the game: a socket there says hello, sees the game, leaves
        (a made game is played where its page's socket lands; the next socket, on
        another process, is then forwarded to this one)."""

        async def run() -> None:
            ws = await self.connect(server)
            while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "state":
                pass
            await ws.close()

        asyncio.run(run())

    async def play(
        self,
        order: list[Server],
        hook: Any = None,
        stop: Any = None,
    ) -> None:
        """Play the first legal card at each turn to the end (or until ``stop(frame)``);
        ``hook(frame, ws)`` may act before each move."""
        i = 0
        ws = await self.connect(order[i])
        sent: int | None = None
        last: Msg | None = None
        replay: Msg | None = None
        while True:
            try:
                self.replaying = replay is not None
                if replay is not None:  # up to date after a reconnect: act on what it saw
                    msg, replay = replay, None
                else:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    self.frames.append(msg)
            except websockets.ConnectionClosed:
                closed_at = time.monotonic()
                i = (i + 1) % len(order)
                while True:
                    try:
                        ws = await self.connect(order[i])
                        break
                    except OSError:
                        i = (i + 1) % len(order)
                        await asyncio.sleep(0.2)
                self.reconnects.append(closed_at)
                sent = None
                replay = last
                continue
            if "version" in msg and msg["type"] in ("state", "event", "skip"):
                self.version = msg["version"]
            if msg["type"] == "error":
                if msg["code"] != "stale":
                    self.refused.append(msg)
                sent = None
                continue
            ev = msg.get("event")
            if msg["type"] == "event" and ev and ev.get("kind") == "play":
                if ev["seat"] == self.seat:
                    self.acked.append((msg["version"], ev["card"]))
            view = msg.get("view")
            if view is None:
                continue
            last = msg
            if view["phase"] == "over" or (stop is not None and stop(msg)):
                await ws.close()
                return
            if hook is not None and await hook(msg, ws):
                sent = None
                continue
            if view["legal"] and view["turn"] == self.seat and sent != msg["version"]:
                sent = msg["version"]
                await ws.send(
                    json.dumps(
                        {"type": "play", "card": view["legal"][0], "version": msg["version"]}
                    )
                )


def check(url: str, p: Player) -> tuple[Game, list[tuple[Any, ...]]]:
    game, deals, rows = stored(url, p.game)
    assert not hidden_cards_seen(p.frames, p.seat, deals)
    versions = [r[4] for r in rows]  # each action's last event's version
    for version, card in p.acked:  # every acknowledged card is stored, as that action
        row = rows[bisect.bisect_left(versions, version)]
        assert (row[1], row[2], row[3]) == ("play", p.seat, card), (version, card, row)
    plays = [r for r in rows if r[1] == "play" and r[2] == p.seat]
    assert len(plays) == len({v for v, _ in p.acked})  # none lost, none doubled
    return game, rows


def test_three_processes_a_whole_game_and_kill_9_of_its_owner(
    tmp_path: Path, stack: tuple[Postgres, Redis]
) -> None:
    pg, redis = stack
    with servers(tmp_path, pg, redis, 3) as (url, [a, b, c]):
        p = Player(a)
        p.claim(a)  # a owns the game
        state: dict[str, Any] = {"killed": None, "next": None}

        async def hook(msg: Msg, ws: Any) -> bool:
            view = msg["view"]
            trick = view["trick"]
            if (
                state["killed"] is None
                and len(p.acked) >= 3
                and view["turn"] == p.seat
                and view["legal"]
                and trick
            ):
                a.kill()  # mid-trick: a card or more on the table
                state["killed"] = time.monotonic()
            elif state["killed"] is not None and state["next"] is None and p.reconnects:
                state["next"] = time.monotonic()
            return False

        asyncio.run(p.play([b, c], hook))  # the page is on b, the game on a
        assert state["killed"] is not None, "the game ended before the owner was killed"
        assert state["next"] is not None and state["next"] - state["killed"] < 5.0
        assert not p.refused, p.refused
        game, rows = check(url, p)
        assert game.is_over
        # After the kill, b or c owns it (a higher fence), and went on from the database.
        engine = create_engine(url)
        with engine.connect() as conn:
            fence = conn.execute(
                text("SELECT fence FROM leases WHERE id = :k"), {"k": f"game:{p.game}"}
            ).scalar_one()
        engine.dispose()
        assert fence >= 2


def holder(url: str, game_id: str) -> str | None:
    """The process (its pid) whose lease on the game runs now, or None."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                text("SELECT owner, expires_at > now() FROM leases WHERE id = :k"),
                {"k": f"game:{game_id}"},
            ).first()
    finally:
        engine.dispose()
    return row[0].split(":")[1] if row is not None and row[1] else None


def test_a_new_game_is_played_where_its_socket_lands(
    tmp_path: Path, stack: tuple[Postgres, Redis]
) -> None:
    pg, redis = stack
    with servers(tmp_path, pg, redis, 2) as (url, [a, b]):
        p = Player(a)  # a answers GET /api/game: it makes the game, stores it, gives it back
        assert holder(url, p.game) is None
        asyncio.run(p.play([b], stop=lambda msg: len(p.acked) >= 2))
        assert holder(url, p.game) == str(b.pid)  # the socket's process took it
        # a answers GET /api/game again from the database, and does not take the game.
        r = p.http.get("/api/game")
        assert r.status_code == 200
        assert r.json()["game"] == p.game and r.json()["version"] >= p.acked[-1][0]
        assert holder(url, p.game) == str(b.pid)
        # A game made by POST /api/games on b is played by a when its socket lands on a.
        new = p.http.post(b.url + "/api/games", json={}).json()["game"]
        assert new != p.game and holder(url, new) is None
        p.game, p.version, p.acked = new, 0, []
        asyncio.run(p.play([a], stop=lambda msg: len(p.acked) >= 1))
        assert holder(url, new) == str(a.pid)
        assert not p.refused, p.refused


def test_a_redis_restart_mid_game_loses_nothing(
    tmp_path: Path, stack: tuple[Postgres, Redis]
) -> None:
    pg, redis = stack
    with servers(tmp_path, pg, redis, 2) as (url, [a, b]):
        p = Player(a)
        p.claim(a)  # a owns the game, the page plays it through b: over Redis
        restarted = {"done": False}

        async def hook(msg: Msg, ws: Any) -> bool:
            if not restarted["done"] and len(p.acked) >= 2:
                restarted["done"] = True
                await asyncio.to_thread(redis.stop)
                await asyncio.sleep(0.5)
                await asyncio.to_thread(redis.start)
            return False

        asyncio.run(p.play([b, a], hook))
        assert restarted["done"]
        assert not p.refused, p.refused
        game, _ = check(url, p)
        assert game.is_over


def test_postgresql_down_refuses_moves_and_never_acknowledges_them(
    tmp_path: Path, stack: tuple[Postgres, Redis]
) -> None:
    pg, redis = stack
    with servers(tmp_path, pg, redis, 2) as (url, [a, b]):
        p = Player(a)
        p.claim(a)
        phase = {"down": False, "up": False}

        async def hook(msg: Msg, ws: Any) -> bool:
            view = msg["view"]
            # Mid-trick only: one action publishes several frames (a trick's last card,
            # then its "trick" event, a version later), and the frame of a trick's last
            # card already shows its winner's turn. Stopping PostgreSQL there would leave
            # that already-saved "trick" frame on its way, to be taken for a saved move.
            mid_trick = bool(view["trick"])
            # Live frames only: after a reconnect the last frame seen is acted on again,
            # and the game may have moved past it (the card sent from it stored, with the
            # computers' replies), so a card from it is refused as stale, not unavailable.
            live = not p.replaying
            if not phase["down"] and len(p.acked) >= 2 and view["legal"] and mid_trick and live:
                phase["down"] = True
                await asyncio.to_thread(pg.stop)
                acked = len(p.acked)
                v = msg["version"]
                await ws.send(json.dumps({"type": "play", "card": view["legal"][0], "version": v}))
                while True:  # the card is refused, saying so, and not acknowledged
                    reply: Msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    p.frames.append(reply)
                    if reply["type"] == "error":
                        if reply["code"] == "stale" and reply["params"]["version"] < v:
                            # the late refusal of a card sent before (the player answers
                            # every frame showing its turn: a trick's last card and the
                            # "trick" event after it both do)
                            continue
                        assert reply["code"] == "unavailable", reply
                        assert "Saving is paused" in reply["reason"], reply
                        break
                    assert reply["type"] not in ("event",), reply
                assert len(p.acked) == acked
                await asyncio.to_thread(pg.start)
                phase["up"] = True
                return True
            return False

        try:
            asyncio.run(p.play([b, a], hook))
        finally:  # up again even when this test fails, for the module's other tests
            if not pg.running:
                pg.start()
        assert phase["up"]
        game, _ = check(url, p)
        assert game.is_over


def test_a_room_of_four_people_on_three_processes_plays_to_the_end(
    tmp_path: Path, stack: tuple[Postgres, Redis]
) -> None:
    from test_rooms import Person, consecutive, hidden_cards_seen, key_of, play_to_the_end

    pg, redis = stack
    with servers(tmp_path, pg, redis, 3) as (url, procs):
        host = Person(procs[0], "Ann")  # the room is made on the first: it has it
        room = host.create(target=10, levels="random")
        rid, invite = room["room"], key_of(room["invite"])
        guests = [Person(procs[i], n) for i, n in ((1, "Bo"), (2, "Cy"), (1, "Di"))]
        for g in guests:  # joined through the other processes (forwarded to the first)
            r = g.join(rid, invite)
            assert r.status_code == 200, r.text
        people = [host, *guests]
        assert sorted(p.seat for p in people if p.seat is not None) == [0, 1, 2, 3]
        assert guests[0].http.get(f"/api/rooms/{rid}").json()["seats"][0]["name"] == "Ann"

        async def go() -> list[list[Msg]]:
            sockets = [await p.connect().__aenter__() for p in people]
            try:
                for ws in sockets:
                    await ws.send(json.dumps({"type": "hello", "room": rid, "since": 0}))
                first = json.loads(await asyncio.wait_for(sockets[0].recv(), 15))
                assert first["type"] == "room"
                await asyncio.sleep(0.5)  # every page in the room before the start
                await sockets[0].send(json.dumps({"type": "start"}))
                return list(
                    await asyncio.gather(
                        *(
                            play_to_the_end(p, ws, chat=i == 1)
                            for i, (p, ws) in enumerate(zip(people, sockets, strict=True))
                        )
                    )
                )
            finally:
                for ws in sockets:
                    await ws.close()

        frames = asyncio.run(go())
        game_id = next(
            f["room"]["game"] for f in frames[0] if f["type"] == "room" and f["room"]["game"]
        )
        game, deals, _ = stored(url, game_id)
        assert game.is_over
        for person, fs in zip(people, frames, strict=True):
            assert hidden_cards_seen(fs, person.seat, deals) == set(), person.name
            consecutive(fs)
            chats = [
                f["event"] for f in fs if f["type"] == "event" and f["event"]["kind"] == "chat"
            ]
            assert chats and chats[0]["text"] == "hello from Bo"


def test_workers_share_one_port_and_a_dead_worker_is_replaced(
    tmp_path: Path, stack: tuple[Postgres, Redis]
) -> None:
    pg, redis = stack
    url = pg.new_database()
    server = Server(
        tmp_path / "w" / "log", *UNPACED, "--redis", redis.url, "--workers", "2", url=url
    )
    server.start(timeout=90)
    try:
        children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        assert len(children) == 2
        players = [Player(server) for _ in range(6)]  # each on whichever worker answers

        async def first_states() -> list[Msg]:
            out = []
            for p in players:
                ws = await p.connect(server)
                out.append(json.loads(await asyncio.wait_for(ws.recv(), 30)))
                await ws.close()
            return out

        assert all(m["type"] == "state" for m in asyncio.run(first_states()))
        os.kill(int(children[0]), signal.SIGKILL)
        deadline = time.monotonic() + 30
        while True:  # the supervisor starts another
            now = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
            if len(now) == 2 and children[0] not in now:
                break
            assert time.monotonic() < deadline, now
            time.sleep(0.2)
        p = players[0]
        asyncio.run(p.play([server]))  # its game to the end, wherever it is owned now
        game, _ = check(url, p)
        assert game.is_over
    finally:
        server.stop()


def test_rate_limits_hold_across_processes(tmp_path: Path, stack: tuple[Postgres, Redis]) -> None:
    pg, redis = stack
    url = pg.new_database()
    limit = ("--new-games-per-player", "2/600")
    a, b = (
        Server(tmp_path / f"r{i}" / "log", *UNPACED, *limit, "--redis", redis.url, url=url)
        for i in range(2)
    )
    a.start(timeout=60)
    b.start(timeout=60)
    try:
        http = httpx.Client(base_url=a.url, timeout=30)
        assert http.post("/api/games", json={}).status_code == 200
        cookie = {"lockup_player": http.cookies["lockup_player"]}
        other = httpx.Client(base_url=b.url, timeout=30, cookies=cookie)
        assert other.post("/api/games", json={}).status_code == 200
        third = http.post("/api/games", json={})  # a third new game, on either: refused
        assert third.status_code == 429 and third.json()["error"] == "rate-limited"
        assert other.post("/api/games", json={}).status_code == 429
    finally:
        a.stop()
        b.stop()
