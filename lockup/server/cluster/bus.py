"""Several server processes behind one port: WebSockets on one process, games on another.

Any process takes any WebSocket. The process that owns a game (its lease, see
:mod:`lockup.server.cluster.leases`) runs its :class:`~lockup.server.session.GameSession` as on
one process. A WebSocket whose game another process owns is a *gateway* connection: the
process forwards the client's raw messages to the owner, and the owner answers through a
:class:`ProxyConnection` standing for that WebSocket, so per-seat filtering, versions,
resync and rate limits work exactly as on one process.

Transport: Redis Streams (redis-py's asyncio client). Each process reads one stream of its
own, ``lockup:p:<process id>``: messages of the WebSockets it owns games for (from
gateways), and frames for its gateway connections (from owners). Entries are appended in
order by one writer task per process (a pipeline per batch), kept while Redis restarts
(the writer retries; the reader goes on from the last id it read) and trimmed
(``MAXLEN ~``).

Failover: every second each process checks the leases of the games its gateway
connections are forwarded for; when the owner's lease ends (the process died) the
WebSocket is closed with 1012, the page reconnects and says ``hello`` with the version it
saw, and the game is found on its new owner (the first process to find no owner takes the
lease and loads the game from the database). The other way round, each process keeps a
heartbeat key (``lockup:alive:<process>``, :data:`ALIVE_TTL`); an owner ends the forwarded
connections of a gateway whose key is gone (the pages behind it are gone with it) and
deletes that gateway's stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError
from starlette.websockets import WebSocket

log = logging.getLogger("lockup.server")

MAXLEN = 20_000
"""Entries kept per stream (approximately)."""

BEAT_EVERY = 3.0
"""Seconds between two heartbeats of a process (its ``lockup:alive:<process>`` key)."""

ALIVE_TTL = 10.0
"""Seconds a heartbeat key lasts: a process silent that long is taken for dead."""

STREAMS_EVERY = 10
"""Every this many heartbeats a process looks for the streams of processes that are gone."""

FORWARDED_SCOPE = "lockup.forwarded"
"""The key an HTTP request another process forwarded through the bus (:meth:`Bus.call`)
has in its ASGI scope, set by :func:`asgi_request` and by nothing a client sends: its
value is the request's ``mark`` (``"forwarded"`` when none was given), so that a route
may tell such a request, and whose it is, from a client's own."""

CLOSE_WAIT = 2.0
"""Seconds :meth:`Bus.close` waits for each of its steps (its tasks to end, the clean
stop's delete, the connections to close) before it goes on without them."""


def stream_of(process: str) -> str:
    """The stream a process reads."""
    return f"lockup:p:{process}"


def alive_key(process: str) -> str:
    """The key a process's heartbeat keeps set."""
    return f"lockup:alive:{process}"


@dataclass
class Client:
    """Who a forwarded connection is: its gateway process, its id there, the player (known
    by the gateway's cookie check) and the client's address."""

    gateway: str
    conn: str
    player: str | None
    address: str


class Gateway(Protocol):
    """What the bus needs of a WebSocket whose game another process owns (the game
    WebSocket's :class:`~lockup.server.ws.connection.Connection`)."""

    ws: WebSocket
    player: str | None
    bus_id: str
    remote: tuple[str, str] | None
    """The owning process and the game's lease key while the game is played elsewhere."""

    def send(self, text: str) -> None:
        """Queue a frame for the client."""

    def close(self, code: int) -> None:
        """Close the WebSocket after the frames already queued."""


class ProxyConnection:
    """Stands for a gateway's WebSocket on the owner: frames go back through Redis."""

    def __init__(self, bus: Bus, client: Client) -> None:
        self.bus = bus
        self.client = client
        self.closed = False

    def send(self, text: str) -> None:
        if not self.closed:
            self.bus.post(self.client.gateway, {"t": "f", "c": self.client.conn, "d": text})

    def close(self, code: int) -> None:
        if not self.closed:
            self.closed = True
            self.bus.post(self.client.gateway, {"t": "x", "c": self.client.conn, "d": str(code)})


class Bus:
    """This process's end of the streams: posting entries, reading its own.

    ``on_message(client, text)`` runs a forwarded client message on this (owner) process,
    ``on_gone(client)`` ends a forwarded connection; :meth:`attach` registers a gateway
    connection that frames for it are delivered to.
    """

    def __init__(
        self,
        url: str,
        process: str,
        *,
        beat_every: float = BEAT_EVERY,
        alive_ttl: float = ALIVE_TTL,
    ) -> None:
        self.url = url
        self.process = process
        self.beat_every = beat_every
        self.alive_ttl = alive_ttl
        self._suspects: set[str] = set()
        self._stale: set[str] = set()
        self.redis: Redis = Redis.from_url(url, decode_responses=True)
        self.on_message: Callable[[Client, str], Awaitable[None]] | None = None
        self.on_gone: Callable[[Client], Awaitable[None]] | None = None
        self.on_http: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None
        """Answers an HTTP request forwarded by another process (see :meth:`call`)."""
        self._calls: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.gateways: dict[str, Gateway] = {}
        """This process's WebSockets forwarded to other processes, by connection id."""
        self._ids = itertools.count(1)
        self._out: asyncio.Queue[tuple[str, dict[str, str]]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._workers: dict[tuple[str, str], asyncio.Queue[str | None]] = {}
        self._answering: set[asyncio.Task[None]] = set()
        self.last_id = "0-0"
        self._closing = False
        self.errors = 0
        """Redis errors met (retried)."""
        self.healthy = True
        """Whether Redis answered this process's last read or write."""
        self.on_health: Callable[[bool], None] | None = None
        """Told when Redis stops answering (False) and when it answers again (True): the
        pages forwarded through this process are told that their table is out of reach."""

    def new_conn_id(self) -> str:
        return str(next(self._ids))

    async def start(self) -> None:
        # Only entries from now on: an earlier process of the same id cannot exist.
        self._tasks = [
            asyncio.create_task(self._writer(), name="lockup-bus-writer"),
            asyncio.create_task(self._reader(), name="lockup-bus-reader"),
            asyncio.create_task(self._heartbeat(), name="lockup-bus-heartbeat"),
        ]

    async def close(self) -> None:
        """Stop this process's tasks, delete its heartbeat key and stream (a clean stop:
        owners let go of its connections at once) and close the connections to Redis.

        Never waits more than :data:`CLOSE_WAIT` a step: a task whose cancellation the Redis
        client swallowed still ends (see :meth:`_stopping`), and a step that hangs is left
        behind with a warning.
        """
        self._closing = True
        for t in self._tasks:
            t.cancel()
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=CLOSE_WAIT)
            for t in pending:
                log.warning("bus %s: task %s did not stop in time", self.process, t.get_name())
        for t in self._tasks:
            if t.done() and not t.cancelled() and t.exception() is not None:
                log.warning(
                    "bus %s: task %s ended with %r", self.process, t.get_name(), t.exception()
                )
        with contextlib.suppress(RedisError, OSError, TimeoutError):  # a clean stop
            async with asyncio.timeout(CLOSE_WAIT):
                await self.redis.delete(alive_key(self.process), stream_of(self.process))
        try:
            async with asyncio.timeout(CLOSE_WAIT):
                await self.redis.aclose()
        except (RedisError, OSError, TimeoutError) as e:
            log.warning("bus %s: closing the Redis connections: %r", self.process, e)

    def _stopping(self) -> bool:
        """Whether the task running this should end rather than go on or retry: the bus
        is closing, or the task was cancelled. The loops ask this rather than count on the
        CancelledError alone: redis-py may turn a cancellation into a connection error
        while it cleans up, or retry the command and return, and a loop going round
        again would never end."""
        task = asyncio.current_task()
        return self._closing or (task is not None and task.cancelling() > 0)

    # ------------------------------------------------------------------ sending

    def post(self, process: str, fields: dict[str, str]) -> None:
        """Append an entry to ``process``'s stream (in order, in the background)."""
        self._out.put_nowait((process, fields))

    def forward(self, conn: Gateway, owner: str, text: str) -> None:
        """A gateway connection's message, to the owner of its game."""
        self.gateways[conn.bus_id] = conn
        address = conn.ws.client.host if conn.ws.client else ""
        self.post(
            owner,
            {
                "t": "m",
                "g": self.process,
                "c": conn.bus_id,
                "p": conn.player or "",
                "a": address,
                "d": text,
            },
        )

    def gone(self, conn: Gateway, owner: str) -> None:
        """A gateway connection closed (or moved to another game): tell its owner."""
        self.post(owner, {"t": "c", "g": self.process, "c": conn.bus_id})

    async def call(
        self, owner: str, request: dict[str, Any], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Have ``owner`` answer an HTTP request (method, path, query, headers, body, client,
        and optionally ``mark``: see :data:`FORWARDED_SCOPE`); its answer (status, headers,
        body). Raises :class:`TimeoutError` past ``timeout`` seconds."""
        call_id = f"h{next(self._ids)}"
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = fut
        self.post(owner, {"t": "h", "g": self.process, "c": call_id, "d": json.dumps(request)})
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self._calls.pop(call_id, None)

    async def _answer(self, gateway: str, call_id: str, request: dict[str, Any]) -> None:
        try:
            assert self.on_http is not None
            reply = await self.on_http(request)
        except Exception as e:
            log.error("a forwarded request failed: %r", e)
            reply = {"status": 500, "headers": [], "body": ""}
        self.post(gateway, {"t": "r", "c": call_id, "d": json.dumps(reply)})

    async def _writer(self) -> None:
        queue = self._out
        while not self._stopping():
            batch = [await queue.get()]
            while not queue.empty() and len(batch) < 500:
                batch.append(queue.get_nowait())
            delay = 0.05
            while True:
                try:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for process, fields in batch:
                            pipe.xadd(
                                stream_of(process),
                                fields,  # type: ignore[arg-type]
                                maxlen=MAXLEN,
                                approximate=True,
                            )
                        await pipe.execute()
                    self._health(True)
                    break
                except (RedisError, OSError) as e:  # Redis restarting: keep them, retry
                    if self._stopping():
                        return
                    self._health(False)
                    self.errors += 1
                    log.warning("redis: posting %d entries failed (%s); retrying", len(batch), e)
                    await asyncio.sleep(delay)
                    delay = min(1.0, delay * 2)

    # ------------------------------------------------------------------ heartbeats

    def _health(self, ok: bool) -> None:
        if ok != self.healthy:
            self.healthy = ok
            log.warning("redis: %s", "answering again" if ok else "not answering")
            if self.on_health is not None:
                self.on_health(ok)

    async def _heartbeat(self) -> None:
        """Keep this process's alive key set, and let go of the forwarded connections of
        gateway processes that died (see :meth:`sweep`)."""
        beats = 0
        while not self._stopping():
            try:
                await self.redis.set(
                    alive_key(self.process), "1", px=max(1, int(self.alive_ttl * 1000))
                )
                await self.sweep()
                beats += 1
                if beats % STREAMS_EVERY == 0:
                    await self.sweep_streams()
            except (RedisError, OSError) as e:  # Redis restarting: the next beat
                if self._stopping():
                    return
                log.warning("redis: heartbeat failed (%s)", e)
            await asyncio.sleep(self.beat_every)

    async def sweep(self) -> list[str]:
        """End the forwarded connections of gateways whose alive key is gone at two sweeps
        in a row (one miss may be a Redis restart that lost the keys: they are set again
        within a beat), and delete those gateways' streams; the gateways found dead."""
        gateways = sorted({g for g, _ in self._workers})
        if not gateways:
            self._suspects.clear()
            return []
        found = await self.redis.mget([alive_key(g) for g in gateways])
        missing = {g for g, v in zip(gateways, found, strict=True) if v is None}
        dead = sorted(missing & self._suspects)
        self._suspects = missing - set(dead)
        for gateway in dead:
            log.warning("process %s stopped beating: its forwarded connections end", gateway)
            for key, queue in list(self._workers.items()):
                if key[0] == gateway:
                    queue.put_nowait(None)
            await self.redis.delete(stream_of(gateway))
        return dead

    async def sweep_streams(self) -> list[str]:
        """Delete the streams of processes that are gone (no alive key at two looks in a
        row, :data:`STREAMS_EVERY` beats apart): a process killed with no clean stop
        leaves its stream behind, and no gateway of it may be left to notice. Returns
        the streams deleted."""
        streams = [k async for k in self.redis.scan_iter(match=stream_of("*"), count=500)]
        others = {k: k.removeprefix(stream_of("")) for k in streams if k != stream_of(self.process)}
        if not others:
            self._stale.clear()
            return []
        alive = await self.redis.mget([alive_key(p) for p in others.values()])
        gone = {k for (k, _), v in zip(others.items(), alive, strict=True) if v is None}
        dead = sorted(gone & self._stale)
        self._stale = gone - set(dead)
        if dead:
            log.warning("deleting the streams of stopped processes: %s", ", ".join(dead))
            await self.redis.delete(*dead)
        return dead

    # ------------------------------------------------------------------ reading

    async def _reader(self) -> None:
        stream = stream_of(self.process)
        delay = 0.05
        while not self._stopping():
            try:
                got: Any = await self.redis.xread({stream: self.last_id}, count=500, block=1000)
                delay = 0.05
                self._health(True)
            except (RedisError, OSError) as e:
                if self._stopping():
                    return
                self._health(False)
                self.errors += 1
                log.warning("redis: reading %s failed (%s); retrying", stream, e)
                await asyncio.sleep(delay)
                delay = min(1.0, delay * 2)
                continue
            for _, entries in got or []:
                for entry_id, fields in entries:
                    self.last_id = entry_id
                    self._dispatch(fields)

    def _dispatch(self, f: dict[str, str]) -> None:
        kind = f.get("t")
        if kind == "h":
            task = asyncio.create_task(self._answer(f["g"], f["c"], json.loads(f["d"])))
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)
        elif kind == "r":
            fut = self._calls.get(f["c"])
            if fut is not None and not fut.done():
                fut.set_result(json.loads(f["d"]))
        elif kind == "f" or kind == "x":
            conn = self.gateways.get(f["c"])
            if conn is None:
                return
            if kind == "f":
                conn.send(f["d"])
            else:
                self.gateways.pop(f["c"], None)
                conn.close(int(f["d"]))
        elif kind == "m" or kind == "c":
            key = (f["g"], f["c"])
            queue = self._workers.get(key)
            if queue is None:
                if kind == "c":
                    return
                queue = self._workers[key] = asyncio.Queue()
                client = Client(f["g"], f["c"], f.get("p") or None, f.get("a", ""))
                task = asyncio.create_task(self._work(key, client, queue))
                self._answering.add(task)
                task.add_done_callback(self._answering.discard)
            queue.put_nowait(f["d"] if kind == "m" else None)

    async def _work(
        self, key: tuple[str, str], client: Client, queue: asyncio.Queue[str | None]
    ) -> None:
        """Run one forwarded connection's messages in order, then its end."""
        try:
            while True:
                text = await queue.get()
                if text is None:
                    break
                if self.on_message is not None:
                    try:
                        await self.on_message(client, text)
                    except Exception as e:  # a bug: logged, the connection goes on
                        log.error("a forwarded message failed: %r", e)
        finally:
            self._workers.pop(key, None)
            if self.on_gone is not None:
                await self.on_gone(client)


async def asgi_request(app: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Run a forwarded HTTP request (see :meth:`Bus.call`) through this process's app,
    marked in its scope (:data:`FORWARDED_SCOPE`)."""
    path = str(request["path"])
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request["method"],
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": str(request.get("query", "")).encode(),
        "root_path": "",
        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in request["headers"]],
        "client": (request.get("client", ""), 0),
        "server": ("127.0.0.1", 0),
        FORWARDED_SCOPE: str(request.get("mark") or "forwarded"),
    }
    body = str(request.get("body", "")).encode()
    given = False
    out: dict[str, Any] = {"status": 500, "headers": [], "body": ""}
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # no disconnect: the caller waits for the answer
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
            out["headers"] = [
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", [])
            ]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    out["body"] = b"".join(chunks).decode("utf-8", "replace")
    return out
