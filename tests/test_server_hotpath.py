"""The game server's hot path: what each card costs it, made once and sent as it is.

- :class:`~lockup.server.views.Views` encodes each viewer's view as JSON text equal to
  :func:`~lockup.server.views.seat_view` (and the spectators'), in every state a game
  passes through, the public part once per move.
- :class:`~lockup.server.session.backlog.Backlog` answers a page that comes back as
  :class:`~lockup.server.session.history.History` does, holding the frames compressed.
- :class:`~lockup.server.net.wsframes.FrameWriter`: on a real uvicorn, a connection's
  frames (text and UTF-8 bytes, of each header size) reach the page as text messages, in
  order, then the close; a real ``lockup serve`` plays a game over it.
- :mod:`lockup.server.collector`: the app's lifespan sets the collector's thresholds (no
  automatic full pass) and puts them back when it stops.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import socket
import sys
import tracemalloc
import weakref
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import uvicorn
import websockets
from browser_helpers import Server
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from lockup.engine import Game, Rules
from lockup.server import collector
from lockup.server.app import create_app
from lockup.server.config import ServerConfig
from lockup.server.net.limits import Limits
from lockup.server.net.security import SecurityMiddleware
from lockup.server.net.serve import make_config
from lockup.server.net.transport import NetLimits
from lockup.server.net.wsframes import FrameWriter, frame_header
from lockup.server.protocol import SPECTATOR
from lockup.server.session.backlog import ATTENDED, Backlog
from lockup.server.session.history import History
from lockup.server.session.publisher import Publisher
from lockup.server.views import Views, move_events, seat_view
from lockup.server.ws.connection import Connection

# ---------------------------------------------------------------------- views


def _games(seeds: range) -> list[tuple[Game, Views]]:
    out = []
    variants = [
        Rules(),
        Rules("any-club", "upfront", 10),
        Rules("same-rank", "upfront", 15),
        Rules("any-club", "per-trick", 10),
    ]
    for seed in seeds:
        game = Game(variants[seed % len(variants)], dealer=seed % 4)
        out.append((game, Views(game)))
    return out


def _step(game: Game, rng: random.Random) -> list[Any]:
    """One move of ``game`` (a chance move, or a random legal card) and the events the
    server publishes for it."""
    tricks, summaries, over = len(game.tricks), len(game.summaries), game.is_over
    if game.phase.value in ("deal", "discard"):
        move = game.chance_move(rng)
        kind, seat, card = move.kind, move.seat, move.card
        if kind == "deal":
            tricks = 0
    else:
        kind, seat = "play", game.turn
        card = rng.choice(game.view(seat).legal_cards)
        game.play(card, seat)
    return move_events(
        game,
        kind,
        seat,
        card,
        by_computer=False,
        tricks_before=tricks,
        summaries_before=summaries,
        was_over=over,
    )


def test_views_json_is_each_viewers_view_in_every_state() -> None:
    """Every state of whole games of each rules' variant (deals, lockup discards, tricks,
    hands' ends, the end): each seat's JSON and the spectators' parse to exactly
    :func:`seat_view`'s (the parts :class:`Views` keeps encoded between moves included)."""
    rng = random.Random(41)
    states = 0
    for game, views in _games(range(16)):
        while True:
            made = views.of_all([0, 1, 2, 3, SPECTATOR])
            for viewer, text in made.items():
                assert json.loads(text) == seat_view(game, viewer), (viewer, states)
            states += 1
            if game.is_over:
                break
            _step(game, rng)
    assert states > 3000


# ---------------------------------------------------------------------- the backlog


def _frames(count: int, seed: int = 3) -> list[bytes]:
    """Event frames of a real game for seat 0, as the publisher makes them."""
    rng = random.Random(seed)
    game = Game(Rules(), dealer=0)
    views = Views(game)
    frames: list[bytes] = []
    while len(frames) < count:
        if game.is_over:
            game = Game(Rules(), dealer=0)
            views = Views(game)
        events = _step(game, rng)
        view = views.of(0, views.public())
        for ev in events:
            version = len(frames) + 1
            frames.append(
                b'{"version":%d,"event":%b,"view":%b}' % (version, orjson.dumps(ev), view)
            )
    return frames[:count]


@pytest.mark.parametrize("size", [1, 4, 16, 200])
def test_the_backlog_answers_as_the_history(size: int) -> None:
    """Whatever was added and whatever a page asks, the same answer as History's."""
    frames = _frames(300)
    rng = random.Random(size)
    backlog, history = Backlog(size), History(size)
    for version, frame in enumerate(frames, 1):
        backlog.add(version, frame)
        history.add(version, frame.decode())
        if rng.random() < 0.2 or version in (1, size, size + 1, 299, 300):
            for since in {0, 1, version - size - 1, version - size, version - 1, version, 9999}:
                got = backlog.since(since, version)
                want = history.since(since, version)
                if got is not None and want is None:  # it may keep up to a block more
                    assert len(got) <= size + backlog.block
                    assert got == [f for f in frames[since:version]]
                    continue
                assert (None if got is None else [f.decode() for f in got]) == want
        assert len(backlog) >= min(version, size)


@pytest.mark.parametrize("size", [4, 16, 200])
def test_a_watched_backlog_keeps_its_last_frames_as_they_are(size: int) -> None:
    """While a page of the viewer is subscribed, the backlog keeps its last frames as they
    are and compresses nothing; once the page has gone, it keeps what follows as before.
    Any answer is the frames the page missed, or None (a ``state``), never others."""
    frames = _frames(300)
    rng = random.Random(size)
    backlog = Backlog(size)
    recent = min(ATTENDED, size)
    attended, dropped = False, 0
    for version, frame in enumerate(frames, 1):
        if rng.random() < 0.05:
            attended = not attended
            if not attended:
                dropped = version - 1  # the last frame the page was sent
        blocks = len(backlog._blocks)
        backlog.add(version, frame, attended=attended)
        if attended:
            assert len(backlog._blocks) <= blocks  # nothing compressed
            assert len(backlog) <= recent + backlog.block
        for since in range(max(0, version - size - 20), version + 1):
            got = backlog.since(since, version)
            if got is not None:
                assert got == frames[since:version]
        if version > recent:
            assert backlog.since(version - recent, version) == frames[version - recent : version]
        if not attended and dropped > recent and version - (dropped - recent) <= size:
            # the page dropped with up to `recent` frames unread: it gets them all
            since = dropped - recent
            assert backlog.since(since, version) == frames[since:version]


def test_the_backlog_keeps_frames_in_a_fraction_of_their_size() -> None:
    """200 frames of a game: a fifth of their size or less; a frame with a newline
    between JSON tokens comes back equal as JSON."""
    frames = _frames(200)
    backlog = Backlog(200)
    for version, frame in enumerate(frames, 1):
        backlog.add(version, frame)
    kept = sum(len(p) for _, _, p in backlog._blocks) + sum(len(f) for f in backlog._open)
    assert kept * 5 < sum(len(f) for f in frames), kept
    assert backlog.since(1, 200) == frames[1:]
    backlog.add(201, b'{"a":\n1}')
    assert [json.loads(f) for f in backlog.since(199, 201) or []] == [
        json.loads(frames[199]),
        {"a": 1},
    ]


def test_a_seat_keeps_200_frames_of_a_game_in_under_80_kb() -> None:
    """A game's publisher for one person, every move of whole games published: what the
    seat keeps for a page that comes back (its last 200 frames, about 220 kB as text) holds
    under 80 kB with the game itself, and still gives them back."""
    rng = random.Random(9)
    game = Game(Rules(), dealer=0)
    pub = Publisher(Views(game).of_all, 0, [0], 200)
    tracemalloc.start()
    try:
        while not game.is_over:
            events = _step(game, rng)
            pub.publish(events)
            if pub.version >= 250:
                break
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert pub.version >= 250
    assert kept < 80_000, kept
    missed = pub.histories[0].since(pub.version - 150, pub.version)
    assert missed is not None and len(missed) == 150
    assert json.loads(missed[-1])["version"] == pub.version


# ---------------------------------------------------------------------- the frame writer


def test_frame_headers() -> None:
    assert frame_header(5) == b"\x81\x05"
    assert frame_header(126) == b"\x81\x7e\x00\x7e"
    assert frame_header(70000) == b"\x81\x7f" + (70000).to_bytes(8, "big")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SIZES = [2, 125, 126, 1000, 65535, 65536, 200_000]


async def _endpoint(ws: WebSocket) -> None:
    await ws.accept()
    conn = Connection(ws, None, Limits())
    sender = asyncio.create_task(conn.run_sender())
    conn.send(json.dumps({"fast": conn._writer is not None}))
    for i, size in enumerate(SIZES):
        text = json.dumps({"i": i, "pad": "é" * (size // 2)})
        conn.send(text if i % 2 else text.encode())
    await asyncio.sleep(0.05)
    conn.send(b'{"last":true}')
    conn.close(4000)
    await sender


async def _client(url: str) -> tuple[list[Any], int | None]:
    got: list[Any] = []
    async with websockets.connect(url, max_size=None) as ws:
        try:
            while True:
                msg = await asyncio.wait_for(ws.recv(), 10)
                assert isinstance(msg, str), "a text frame"
                got.append(json.loads(msg))
        except websockets.exceptions.ConnectionClosed as e:
            return got, e.rcvd.code if e.rcvd else None


def test_frames_written_straight_reach_the_page_as_text_in_order() -> None:
    app = SecurityMiddleware(Starlette(routes=[WebSocketRoute("/ws", _endpoint)]), None)
    port = _free_port()
    config = make_config(app, "127.0.0.1", port, NetLimits(), log_level="warning")
    server = uvicorn.Server(config)

    async def go() -> tuple[list[Any], int | None]:
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.02)
        try:
            return await _client(f"ws://127.0.0.1:{port}/ws")
        finally:
            server.should_exit = True
            await task

    assert config.ws is FrameWriter
    got, code = asyncio.run(go())
    assert got[0] == {"fast": True}
    assert [m["i"] for m in got[1:-1]] == list(range(len(SIZES)))
    assert [len(m["pad"]) for m in got[1:-1]] == [s // 2 for s in SIZES]
    assert got[-1] == {"last": True} and code == 4000


def _play(url: str) -> dict[str, Any]:
    """A whole game against random computers over a real server's WebSocket."""

    async def go() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=url, timeout=10) as http:
            r = await http.post("/api/games", json={"level": "random", "target": 10})
            game, cookie = r.json()["game"], http.cookies["lockup_player"]
        ws_url = url.replace("http", "ws", 1) + "/ws"
        versions: list[int] = []
        async with websockets.connect(
            ws_url, additional_headers={"Cookie": f"lockup_player={cookie}"}
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
            waiting = None
            stale = 0
            while True:
                raw = await asyncio.wait_for(ws.recv(), 20)
                assert isinstance(raw, str)
                msg = json.loads(raw)
                if msg["type"] == "error":  # a card on a version a trick's end moved past
                    # (or, a script being faster than a person, too many messages a second:
                    # it waits as the page does, then asks again)
                    assert msg["code"] in ("stale", "rate-limited"), msg
                    if msg["code"] == "rate-limited":
                        await asyncio.sleep(float(msg["params"]["retry_after"]))
                    stale += 1
                    waiting = None
                    await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
                    continue
                assert msg["type"] in ("state", "event"), msg
                if msg["type"] == "event":
                    versions.append(msg["version"])
                    ev = msg["event"]
                    if ev["kind"] == "play" and ev["seat"] == 0 and ev["card"] == waiting:
                        waiting = None
                view = msg["view"]
                if view["phase"] == "over":
                    return {"versions": versions, "winner": view["winner"], "stale": stale}
                if waiting is None and view["legal"]:
                    waiting = random.choice(view["legal"])
                    await ws.send(
                        json.dumps({"type": "play", "card": waiting, "version": msg["version"]})
                    )

    return asyncio.run(go())


def test_a_game_over_a_real_server(tmp_path: Path) -> None:
    srv = Server(tmp_path / "games.sqlite", None, "--bot-delay", "0", "--bot-jitter", "0")
    srv.start()
    try:
        seen = _play(srv.url)
    finally:
        srv.stop()
    versions = seen["versions"]
    if not seen["stale"]:  # (a state after a hello starts the versions again)
        assert versions == list(range(versions[0], versions[0] + len(versions)))
    assert seen["winner"] in (0, 1, 2, 3)


# ---------------------------------------------------------------------- the collector


def test_the_app_takes_the_collector_s_passes_and_gives_them_back(tmp_path: Path) -> None:
    """While the app runs Python makes young passes only (every :data:`collector.YOUNG`
    allocations), none of the older generations; the thresholds are as they were once it
    stops."""
    before = gc.get_threshold()
    config = ServerConfig(db=f"sqlite:///{tmp_path / 'g.sqlite'}", warm=False)
    app = create_app(config)

    async def go() -> tuple[int, int, int]:
        async with app.router.lifespan_context(app):
            return gc.get_threshold()

    young, middle, old = asyncio.run(go())
    assert (young, middle, old) == (collector.YOUNG, collector.NEVER, collector.NEVER)
    assert gc.get_threshold() == before


class _Cycle:
    """An object in a reference cycle with itself, which only the collector frees."""

    def __init__(self) -> None:
        self.me = self


def test_young_cycles_go_at_a_young_pass_and_older_ones_at_the_full_pass() -> None:
    """Settled, the collector frees a cycle made since its last young pass at the next
    (Python's own, after :data:`collector.YOUNG` allocations), and one that outlived a
    young pass only at a full pass (the server's, every half hour)."""
    before = gc.get_threshold()
    collector.settle()
    try:
        old = _Cycle()
        gone_old = weakref.ref(old)
        _ = [[] for _ in range(3 * collector.YOUNG)]  # young passes: `old` outlives them
        del old, _
        young = _Cycle()
        gone_young = weakref.ref(young)
        del young
        assert gone_young() is not None  # nothing frees a cycle at once
        _ = [[] for _ in range(3 * collector.YOUNG)]
        del _
        assert gone_young() is None  # a young pass did
        assert gone_old() is not None  # no pass of the older generations came
        gc.collect()  # the full pass
        assert gone_old() is None
    finally:
        collector.restore(before)
        gc.unfreeze()


def test_closed_connections_leave_no_cycle_of_the_servers_objects(tmp_path: Path) -> None:
    """A game over HTTP and a WebSocket, the page gone: the server's own objects of that
    connection (uvicorn's protocol, the frame writer, the slot of the cap per address,
    the ``websockets`` parser) are freed by reference counting, not left in a cycle for
    the collector's full pass. The players run in another process, so every cycle found
    here is the server's; asyncio's transports keep theirs (a bound method of their own)."""
    config = ServerConfig(
        db=f"sqlite:///{tmp_path / 'g.sqlite'}", warm=False, bot_delay=0.0, bot_jitter=0.0
    )
    app = create_app(config)
    port = _free_port()
    server = uvicorn.Server(make_config(app, "127.0.0.1", port, NetLimits(), log_level="warning"))
    bench = Path(__file__).resolve().parents[1] / "bench" / "server.py"

    async def go() -> Counter[str]:
        task = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.02)
        try:
            gc.collect()
            gc.set_debug(gc.DEBUG_SAVEALL)
            players = await asyncio.create_subprocess_exec(
                sys.executable, str(bench), "--url", f"http://127.0.0.1:{port}",
                "--games", "3", "--level", "random", "--target", "10",
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            )  # fmt: skip
            out, _ = await players.communicate()
            assert players.returncode == 0, out.decode()
            await asyncio.sleep(0.3)
            gc.collect()
            return Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            server.should_exit = True
            await task

    found = asyncio.run(go())
    ours = {k: n for k, n in found.items() if k.split(".")[0] in ("lockup", "uvicorn", "starlette")}
    assert ours == {}, ours
    assert found["websockets.server.ServerProtocol"] == 0
    assert found["asyncio.selector_events._SelectorSocketTransport"] >= 6  # 3 games' sockets
