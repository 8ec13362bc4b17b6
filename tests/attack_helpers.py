"""A real ``lockup serve`` to attack, and an innocent player measured beside the attacker.

:class:`Server` runs ``python -m lockup serve`` in a subprocess on a free port of 127.0.0.1
with its standard error in a file (:meth:`Server.log_text`). :class:`Innocent` plays a game
on it from its own thread and event loop, so that an attacker running in the test's thread
cannot starve it, and :meth:`Innocent.stop` returns a :class:`Report` of what it lived
through: each card's acknowledgement, the bots' moves, ``/healthz`` answers.

Attack traffic goes to 127.0.0.0/8 only (Linux routes all of it to the loopback).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import websockets

Msg = dict[str, Any]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def raise_nofile_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if want > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``; 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


# ---------------------------------------------------------------------- the server


class Server:
    """``lockup serve`` in a subprocess on a free port of 127.0.0.1.

    ``Server(db, *extra)``: ``db`` is the SQLite file, ``extra`` more ``lockup serve``
    arguments (a later ``--level`` wins over the default ``random``). Standard error goes to
    a file next to ``db``: :meth:`log_text`. Use :meth:`start` and :meth:`stop`, or
    ``with Server(db) as s:``.
    """

    def __init__(self, db: Path, *extra: str, url: str | None = None) -> None:
        self.db = Path(db)
        self.db_url = url or f"sqlite:///{self.db}"
        """The database (``url``: another than the SQLite file ``db``, whose folder then
        only holds the log)."""
        self.extra = extra
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path: Path | None = None

    def start(self, timeout: float = 30.0) -> Server:
        self.port = free_port()
        cmd = [sys.executable, "-m", "lockup", "serve", "--host", "127.0.0.1"]
        cmd += ["--port", str(self.port), "--db", self.db_url, "--level", "random"]
        cmd += ["--log-level", "warning", *self.extra]
        self.db.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(
            prefix=f"serve-{self.db.stem}-", suffix=".log", dir=self.db.parent
        )
        self.log_path = Path(name)
        with open(fd, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_text()}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).text == "ok":
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not start: {self.log_text()}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def log_text(self) -> str:
        """What the server wrote on standard error so far."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def rss_kb(self) -> int:
        """The server process's resident memory (VmRSS), in KiB."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def __enter__(self) -> Server:
        return self.start() if self.proc is None else self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


# ---------------------------------------------------------------------- the innocent


@dataclass
class Report:
    """What an :class:`Innocent` lived through (times in seconds)."""

    acks: list[float] = field(default_factory=list)
    """Each of its cards: from sending ``play`` to the event of that card."""
    bot_moves: int = 0
    """Cards played by the other seats."""
    bot_times: list[float] = field(default_factory=list)
    """When each of them arrived, in seconds since measuring began."""
    max_bot_gap: float = 0.0
    """The longest wait for the next event while it was a bot's turn."""
    health: list[float] = field(default_factory=list)
    """Latency of each ``/healthz`` that answered ``ok``."""
    health_failures: list[str] = field(default_factory=list)
    """Each ``/healthz`` that failed or took over 2 s, and why."""
    ws_opens: list[float] = field(default_factory=list)
    """Time to open each WebSocket and get the first frame."""
    ws_failures: list[str] = field(default_factory=list)
    """Each WebSocket that could not be opened or that dropped, and why."""
    errors: list[str] = field(default_factory=list)
    """``error`` frames and failed HTTP calls."""
    games: int = 0
    """Games started (the first included)."""
    seconds: float = 0.0
    """How long it was measured."""

    @property
    def ack_p99(self) -> float:
        return percentile(self.acks, 99)

    @property
    def ack_p50(self) -> float:
        return percentile(self.acks, 50)

    @property
    def health_p99(self) -> float:
        return percentile(self.health, 99)

    def summary(self) -> str:
        return (
            f"{len(self.acks)} acks p50 {self.ack_p50 * 1000:.0f} ms p99 {self.ack_p99 * 1000:.0f} ms"
            f" max {max(self.acks, default=0) * 1000:.0f} ms; {self.bot_moves} bot moves, longest"
            f" gap {self.max_bot_gap:.2f} s; /healthz {len(self.health)} ok p99"
            f" {self.health_p99 * 1000:.0f} ms, {len(self.health_failures)} failed;"
            f" {len(self.ws_opens)} WebSockets opened, {len(self.ws_failures)} failed or dropped;"
            f" {self.games} games, {len(self.errors)} errors, over {self.seconds:.1f} s"
        )

    def assert_unharmed(
        self,
        ack_p99: float = 0.25,
        max_bot_gap: float = 2.0,
        min_bot_moves: int = 3,
        min_acks: int = 3,
        health_p99: float = 1.0,
        max_health_failures: int = 0,
        max_ws_failures: int = 0,
    ) -> None:
        """Fail with a clear message if the innocent player was harmed."""
        problems = []
        if len(self.acks) < min_acks:
            problems.append(f"only {len(self.acks)} of its cards were acknowledged (< {min_acks})")
        if self.ack_p99 > ack_p99:
            slow = sorted(self.acks)[-5:]
            problems.append(
                f"ack p99 {self.ack_p99 * 1000:.0f} ms > {ack_p99 * 1000:.0f} ms"
                f" (slowest: {', '.join(f'{a * 1000:.0f}' for a in slow)} ms)"
            )
        if self.bot_moves < min_bot_moves:
            problems.append(f"bots moved {self.bot_moves} times (< {min_bot_moves})")
        if self.max_bot_gap > max_bot_gap:
            problems.append(f"bots stalled {self.max_bot_gap:.2f} s (> {max_bot_gap:.2f} s)")
        if len(self.health_failures) > max_health_failures:
            problems.append(
                f"/healthz failed {len(self.health_failures)} times: {self.health_failures[:3]}"
            )
        if not self.health:
            problems.append("/healthz never answered")
        elif self.health_p99 > health_p99:
            problems.append(
                f"/healthz p99 {self.health_p99 * 1000:.0f} ms > {health_p99 * 1000:.0f} ms"
            )
        if len(self.ws_failures) > max_ws_failures:
            problems.append(f"WebSocket failures: {self.ws_failures[:3]}")
        if problems:
            raise AssertionError(
                "the innocent player was harmed: " + "; ".join(problems) + "\n" + self.summary()
            )


class Innocent:
    """An innocent player, playing and probing beside an attacker, in its own thread.

    It gets its cookie (``GET /api/game``), starts a game (``POST /api/games`` with
    ``level`` and ``target``), opens the WebSocket and plays its first legal card after
    ``think`` seconds whenever it may, starting a new game when one ends and reconnecting
    with ``since`` when the socket drops. Beside that it polls ``GET /healthz`` every
    ``health_every`` seconds on a new connection each time (2 s timeout); with
    ``reopen_every`` it also closes its WebSocket and opens a new one that often.

    ``start()`` returns once the player is warm (it has had a card acknowledged or seen a
    bot move; statistics restart then); ``stop()`` returns the :class:`Report`.
    """

    def __init__(
        self,
        url: str,
        level: str = "expert",
        target: int = 10,
        think: float = 0.05,
        health_every: float = 0.25,
        reopen_every: float | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.ws_url = "ws" + self.url[len("http") :] + "/ws"
        self.level = level
        self.target = target
        self.think = think
        self.health_every = health_every
        self.reopen_every = reopen_every
        self.report = Report()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._warm = threading.Event()
        self._failure: BaseException | None = None
        self._started_at = 0.0
        # game state
        self.cookie = ""
        self.game = ""
        self.version = 0
        self.view: Msg | None = None
        self._pending: tuple[str, float] | None = None
        self._last_event_at = 0.0
        self._waiting_on_bot = False
        self._play_task: asyncio.Task[None] | None = None

    # -------------------------------------------------------------- control

    def start(self, warm_timeout: float = 30.0) -> Innocent:
        self._thread = threading.Thread(target=self._run, name="innocent", daemon=True)
        self._thread.start()
        if not self._warm.wait(warm_timeout):
            failure = self._failure
            self.stop()
            raise AssertionError(
                f"the innocent player did not get going in {warm_timeout} s: {failure!r}; "
                + self.report.summary()
            )
        return self

    def stop(self, timeout: float = 30.0, min_acks: int = 3, patience: float = 10.0) -> Report:
        """Stop playing and return the report; an attack over before the player had
        ``min_acks`` cards acknowledged (a fast server ends a flood in seconds) leaves it
        playing up to ``patience`` seconds more, so that the report has its figures."""
        deadline = time.monotonic() + patience
        while (
            len(self.report.acks) < min_acks
            and time.monotonic() < deadline
            and self._thread is not None
            and self._thread.is_alive()
        ):
            time.sleep(0.1)
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(timeout)
            assert not self._thread.is_alive(), "the innocent player did not stop"
        if self._failure is not None and not isinstance(self._failure, asyncio.CancelledError):
            self.report.errors.append(f"crashed: {self._failure!r}")
        return self.report

    def __enter__(self) -> Innocent:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as e:  # reported by stop()
            self._failure = e
        finally:
            self._warm.set()
            loop.close()

    def _became_warm(self) -> None:
        if not self._warm.is_set():
            games = self.report.games
            self.report = Report(games=games)
            self._started_at = time.monotonic()
            self._warm.set()

    # -------------------------------------------------------------- tasks

    def _stopping(self) -> bool:
        """stop() was called: the loops end (besides being cancelled)."""
        return self._stop is not None and self._stop.is_set()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        self._started_at = time.monotonic()
        async with httpx.AsyncClient(base_url=self.url, timeout=10) as http:
            r = await http.get("/api/game")
            r.raise_for_status()
            self.cookie = str(http.cookies["lockup_player"])
            await self._new_game(http)
            tasks = [
                asyncio.create_task(self._health()),
                asyncio.create_task(self._play(http)),
            ]
            stop = asyncio.create_task(self._stop.wait())
            done, _ = await asyncio.wait([stop, *tasks], return_when=asyncio.FIRST_COMPLETED)
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await t
            stop.cancel()
            for t in done:
                if t is not stop and t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]
        self.report.seconds = time.monotonic() - self._started_at

    async def _new_game(self, http: httpx.AsyncClient) -> None:
        r = await http.post(
            "/api/games",
            content=json.dumps({"level": self.level, "target": self.target}),
            headers={"Content-Type": "application/json", "Origin": self.url},
        )
        if r.status_code != 200:
            raise RuntimeError(f"POST /api/games answered {r.status_code}: {r.text[:200]}")
        self.game = r.json()["game"]
        self.version = 0
        self.view = None
        self._pending = None
        self.report.games += 1

    async def _health(self) -> None:
        limits = httpx.Limits(max_keepalive_connections=0)
        async with httpx.AsyncClient(base_url=self.url, timeout=2.0, limits=limits) as client:
            while not self._stopping():
                t0 = time.monotonic()
                try:
                    r = await client.get("/healthz")
                    took = time.monotonic() - t0
                    if r.status_code == 200 and r.text == "ok":
                        self.report.health.append(took)
                    else:
                        self.report.health_failures.append(f"{r.status_code} {r.text[:60]!r}")
                except httpx.HTTPError as e:
                    took = time.monotonic() - t0
                    self.report.health_failures.append(f"{type(e).__name__} after {took:.2f} s")
                await asyncio.sleep(max(0.0, self.health_every - (time.monotonic() - t0)))

    async def _play(self, http: httpx.AsyncClient) -> None:
        headers = {"Cookie": f"lockup_player={self.cookie}"}
        while not self._stopping():
            t0 = time.monotonic()
            try:
                async with websockets.connect(
                    self.ws_url,
                    additional_headers=headers,
                    origin=self.url,  # type: ignore[arg-type]
                    open_timeout=5,
                    close_timeout=2,  # stop() does not wait on a closing handshake long
                    max_size=2**22,
                ) as ws:
                    hello = {"type": "hello", "game": self.game, "since": self.version}
                    await ws.send(json.dumps(hello))
                    await ws.send('{"type": "ping"}')  # an answer even if no event is new
                    first = True
                    if self._mine():
                        self._schedule(ws)  # a play lost with the last socket
                    reopen_at = None if self.reopen_every is None else t0 + self.reopen_every
                    while not self._stopping():
                        timeout = (
                            5.0 if reopen_at is None else max(0.0, reopen_at - time.monotonic())
                        )
                        try:
                            # asyncio.timeout, not wait_for: on Python 3.11 wait_for can
                            # swallow the task's cancellation when recv() ends at that moment.
                            async with asyncio.timeout(timeout):
                                raw = await ws.recv()
                        except TimeoutError:
                            if reopen_at is not None and time.monotonic() >= reopen_at:
                                break  # close and open a new one
                            continue
                        if first:
                            self.report.ws_opens.append(time.monotonic() - t0)
                            first = False
                        if await self._frame(json.loads(raw), ws, http):
                            break  # a new game: hello again on a fresh socket
            except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as e:
                self.report.ws_failures.append(f"{type(e).__name__}: {e}"[:200])
                await asyncio.sleep(0.2)
            finally:
                if self._play_task is not None:
                    self._play_task.cancel()
                    self._play_task = None
                self._pending = None

    async def _frame(self, msg: Msg, ws: Any, http: httpx.AsyncClient) -> bool:
        """Handle one frame; True to reconnect (a new game was started)."""
        now = time.monotonic()
        kind = msg.get("type")
        if kind == "error":
            self.report.errors.append(f"{msg.get('code')}: {msg.get('reason')}")
            if self._pending is not None:
                self._pending = None
                self._schedule(ws)
            return False
        if kind not in ("state", "event"):
            return False
        if kind == "state" or msg["version"] > self.version:
            self.version = msg["version"]
        view = msg.get("view")
        if view is not None:
            self.view = view
        if kind == "event":
            event = msg["event"]
            if self._waiting_on_bot and self._last_event_at:
                self.report.max_bot_gap = max(self.report.max_bot_gap, now - self._last_event_at)
            if event.get("kind") == "play":
                if view is not None and event["seat"] == view["seat"]:
                    if self._pending is not None and self._pending[0] == event["card"]:
                        self.report.acks.append(now - self._pending[1])
                        self._pending = None
                        self._became_warm()
                else:
                    self._became_warm()
                    self.report.bot_moves += 1
                    self.report.bot_times.append(now - self._started_at)
        self._last_event_at = now
        if view is None:
            return False
        mine = self._mine()
        self._waiting_on_bot = view["phase"] in ("play", "discard", "deal") and not mine
        if view["phase"] == "over":
            self._waiting_on_bot = False
            for _ in range(10):
                try:
                    await self._new_game(http)
                    return True
                except (httpx.HTTPError, RuntimeError) as e:
                    self.report.errors.append(f"new game: {e!r}"[:200])
                    await asyncio.sleep(0.5)
            raise RuntimeError("could not start a new game")
        if mine and self._pending is None:
            self._schedule(ws)
        return False

    def _mine(self) -> bool:
        """The view says it is this player's turn to play."""
        v = self.view
        return (
            v is not None and v["phase"] == "play" and v["turn"] == v["seat"] and bool(v["legal"])
        )

    def _schedule(self, ws: Any) -> None:
        if self._play_task is not None and not self._play_task.done():
            return
        self._play_task = asyncio.create_task(self._send_play(ws))

    async def _send_play(self, ws: Any) -> None:
        await asyncio.sleep(self.think)
        view = self.view
        if view is None or not self._mine() or self._pending is not None:
            return
        card = view["legal"][0]
        self._pending = (card, time.monotonic())
        with contextlib.suppress(websockets.exceptions.WebSocketException):
            await ws.send(json.dumps({"type": "play", "card": card, "version": self.version}))
