"""The game WebSocket ``/ws``: one :class:`Connection` per page.

Frames are parsed by :mod:`lockup.server.protocol`; a refused frame gets an ``error``
frame, the socket stays open and nothing changes. What one connection may ask is bounded:
messages per second, one hint at a time and hints per player (:class:`Limits`), frames
queued for a client that does not read them.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import weakref
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from .bus import Bus, Client, ProxyConnection
from .cluster import OwnedElsewhere
from .limits import Rate, RateLimiter, SharedRateLimiter
from .protocol import (
    CLOSE_RESTART,
    CLOSE_TRY_LATER,
    PONG,
    RELAY_DOWN,
    SPECTATOR,
    UNAVAILABLE,
    UNAVAILABLE_REASON,
    Chat,
    Hello,
    Hint,
    Ping,
    Play,
    ProtocolError,
    React,
    Rematch,
    Remove,
    Start,
    error_of,
    notice_frame,
    parse_client,
)
from .rooms import Room, RoomService, no_room
from .security import same_origin
from .session import GameService, GameSession
from .store import StoreError

log = logging.getLogger("lockup.server")

MAX_QUEUED = 2000
"""A connection with this many unsent frames is too slow and is closed."""


@dataclass
class Limits:
    """What one client may ask (see docs/server.md, "Limits")."""

    messages: Rate = field(default_factory=lambda: Rate(60, 1 / 6))
    """Messages per connection: 60 at once, then 6 a second."""
    hints: Rate = field(default_factory=lambda: Rate(6, 5.0))
    """Hints per player: 6 at once, then one every 5 seconds."""
    new_games_player: Rate = field(default_factory=lambda: Rate(10, 6.0))
    """New games per player: 10 at once, then one every 6 seconds."""
    new_games_address: Rate = field(default_factory=lambda: Rate(30, 2.0))
    """New games per client address: 30 at once, then one every 2 seconds."""
    chat: Rate = field(default_factory=lambda: Rate(5, 3.0))
    """Chat lines and reactions per player: 5 at once, then one every 3 seconds."""
    hellos_connection: Rate = field(default_factory=lambda: Rate(10, 2.0))
    """``hello`` per connection (a page says it on (re)connecting, and after a gap at most
    every 2 seconds): 10 at once, then one every 2 seconds. Off with ``messages`` off."""
    hellos_address: Rate = field(default_factory=lambda: Rate(120, 0.1))
    """``hello`` per client address (a household or an office behind one address): 120 at
    once, then 10 a second. Off with ``new_games_address`` off (a load test from one
    address)."""
    seats_player: Rate = field(default_factory=lambda: Rate(10, 6.0))
    """Seats taken or given up in rooms (``join``, ``leave``) per player: 10 at once, then
    one every 6 seconds."""
    seats_address: Rate = field(default_factory=lambda: Rate(30, 2.0))
    """The same per client address: 30 at once, then one every 2 seconds."""
    names_player: Rate = field(default_factory=lambda: Rate(5, 12.0))
    """Display names set (``POST /api/profile``) per player: 5 at once, then one every 12
    seconds."""
    names_address: Rate = field(default_factory=lambda: Rate(30, 2.0))
    """The same per client address: 30 at once, then one every 2 seconds."""
    public_rooms_player: int = 2
    """Public rooms one player may hold open at once (0: no cap)."""
    public_rooms_address: int = 3
    """Public rooms one client address may hold open at once (0: no cap)."""
    public_room_hold: float = 3600.0
    """How long (seconds) an open public room counts against its host and address after it
    was made or last changed (a room left open and forgotten stops counting)."""
    lobby_per_address: int = 2
    """The lobby shows at most this many rooms made from one address (the newest)."""
    lobby_size: int = 50
    """The lobby shows at most this many rooms."""
    spectators_room: int = 100
    """Spectators of one room at once (0: no cap)."""
    spectators_address: int = 16
    """Spectators from one client address at once, all rooms together (0: no cap)."""


class Guards:
    """The rate limiters of one server, shared by every connection and request; with
    ``redis`` (an asyncio Redis client), counted in Redis across the server processes
    (:class:`~lockup.server.limits.SharedRateLimiter`)."""

    def __init__(self, limits: Limits, redis: Any = None) -> None:
        self.limits = limits

        def limiter(rate: Rate, name: str) -> RateLimiter | SharedRateLimiter:
            if redis is None:
                return RateLimiter(rate)
            return SharedRateLimiter(rate, redis, name)

        self.hints = limiter(limits.hints, "hints")
        self.chat = limiter(limits.chat, "chat")
        self.new_games_player = limiter(limits.new_games_player, "games-player")
        self.new_games_address = limiter(limits.new_games_address, "games-address")
        # A load test from one address turns the limits per address off (and per
        # connection with the message rate): these follow them.
        per_address = not limits.new_games_address.unlimited
        off = Rate(0, 0.0)
        self.hellos_address = limiter(
            limits.hellos_address if per_address else off, "hellos-address"
        )
        self._hellos_connection = limits.hellos_connection if not limits.messages.unlimited else off
        self._hellos: weakref.WeakKeyDictionary[Connection, RateLimiter] = (
            weakref.WeakKeyDictionary()
        )
        self.seats_player = limiter(limits.seats_player, "seats-player")
        self.seats_address = limiter(limits.seats_address if per_address else off, "seats-address")
        self.names_player = limiter(limits.names_player, "names-player")
        self.names_address = limiter(limits.names_address if per_address else off, "names-address")
        self.public_rooms_address = limits.public_rooms_address if per_address else 0
        self._room_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._spectators: dict[str, weakref.WeakSet[Connection]] = {}
        """Spectator connections by ``room:<id>`` and ``address:<host>``."""

    def public_rooms(self, tag: str) -> asyncio.Lock:
        """Held while a public room of the address whose tag is ``tag`` is counted, made
        and tagged, so that requests at once from one address cannot pass its cap together
        (in this process)."""
        lock = self._room_locks.get(tag)
        if lock is None:
            lock = self._room_locks[tag] = asyncio.Lock()
        return lock

    async def hello(self, conn: Connection, address: str) -> float:
        """Spend one ``hello`` of ``conn`` from ``address``: 0.0 if allowed, else the
        seconds until it would be."""
        bucket = self._hellos.get(conn)
        if bucket is None:
            bucket = self._hellos[conn] = RateLimiter(self._hellos_connection, max_keys=1)
        return max(bucket.take(""), await _take(self.hellos_address, address))

    async def seat_change(self, player: str | None, address: str) -> None:
        """Spend one seat taken or given up (``join``, ``leave``); raises ``rate-limited``."""
        await self._spend_both(self.seats_player, self.seats_address, player, address, "seats")

    async def name_change(self, player: str, address: str) -> None:
        """Spend one display name set; raises ``rate-limited``."""
        await self._spend_both(
            self.names_player, self.names_address, player, address, "name changes"
        )

    async def _spend_both(
        self,
        by_player: RateLimiter | SharedRateLimiter,
        by_address: RateLimiter | SharedRateLimiter,
        player: str | None,
        address: str,
        what: str,
    ) -> None:
        wait = max(await _take(by_address, address), await _take(by_player, player or ""))
        if wait > 0:
            raise rate_limited(what, wait)

    def watch(self, conn: Connection, room_id: str, address: str) -> None:
        """Count ``conn`` a spectator of room ``room_id`` from ``address``; raises
        ``too-many-spectators`` while the room or the address has its cap of them."""
        limits = self.limits
        caps = (
            (f"room:{room_id}", limits.spectators_room, "This table has"),
            (f"address:{address}", limits.spectators_address, "Your address has"),
        )
        for key, cap, who in caps:
            live = self._live_spectators(key)
            if cap and conn not in live and len(live) >= cap:
                raise ProtocolError(
                    "too-many-spectators",
                    f"{who} as many spectators as the server allows ({cap}): try again later.",
                    params={"limit": cap},
                )
        for key, _, _ in caps:
            self._spectators.setdefault(key, weakref.WeakSet()).add(conn)

    def _live_spectators(self, key: str) -> weakref.WeakSet[Connection]:
        """The connections still watching under ``key`` (those gone, seated or elsewhere
        since are dropped)."""
        found = self._spectators.get(key)
        if found is None:
            return weakref.WeakSet()
        room_id = key.removeprefix("room:") if key.startswith("room:") else None
        for conn in list(found):
            room = conn.room
            members = getattr(room, "members", None)
            if (
                conn._closed
                or room is None
                or conn.seat != SPECTATOR
                or (room_id is not None and room.id != room_id)
                or (members is not None and conn not in members)
            ):
                found.discard(conn)
        if not found:
            del self._spectators[key]
        return found

    async def new_game(self, player: str, address: str) -> None:
        """Spend one new game of ``player`` at ``address``; raises ``rate-limited``."""
        wait = max(
            await _take(self.new_games_address, address),
            await _take(self.new_games_player, player),
        )
        if wait > 0:
            raise rate_limited("new games", wait)

    @staticmethod
    async def spend(limiter: RateLimiter | SharedRateLimiter, key: str | None, what: str) -> None:
        """Spend one request of ``key`` (a player) from ``limiter``; raises ``rate-limited``
        saying ``what`` there were too many of."""
        wait = await _take(limiter, key or "")
        if wait > 0:
            raise rate_limited(what, wait)


async def _take(limiter: RateLimiter | SharedRateLimiter, key: str) -> float:
    if isinstance(limiter, SharedRateLimiter):
        return await limiter.take(key)
    return limiter.take(key)


def rate_limited(what: str, wait: float) -> ProtocolError:
    """A ``rate-limited`` error saying when to try again."""
    seconds = max(1, round(wait + 0.5))
    return ProtocolError(
        "rate-limited",
        f"Too many {what}: try again in {seconds} s.",
        params={"retry_after": seconds},
    )


class Connection:
    """One WebSocket: its player, its game and seat, and a queue of frames to send."""

    def __init__(self, ws: WebSocket, player: str | None, limits: Limits) -> None:
        self.ws = ws
        self.player = player
        self.seat = -1
        self.session: GameSession | None = None
        self.room: Room | None = None
        self.hint_task: asyncio.Task[None] | None = None
        self.messages = RateLimiter(limits.messages, max_keys=1)
        self.refused = 0
        """Messages refused as malformed (logged once, counted at the end)."""
        self._queue: asyncio.Queue[str | int] = asyncio.Queue()
        self._closed = False
        self._told_rate = 0.0
        self.bus_id = ""
        """This connection's id on the bus (several processes, see :mod:`.bus`)."""
        self.remote: tuple[str, str] | None = None
        """While another process owns this connection's game: that process and the game's
        lease key; its messages are forwarded there."""

    def send(self, text: str) -> None:
        """Queue a frame (a slow client with too many queued frames is disconnected)."""
        if self._closed:
            return
        if self._queue.qsize() >= MAX_QUEUED:
            log.warning("closing a connection that does not keep up")
            self.close(1008)
            return
        self._queue.put_nowait(text)

    def close(self, code: int) -> None:
        """Close the WebSocket after the frames already queued."""
        if not self._closed:
            self._closed = True
            self._queue.put_nowait(code)

    def set_session(self, session: GameSession) -> None:
        """The room moved this page to ``session`` (a new game at the table)."""
        self.session = session

    def error(self, e: ProtocolError) -> None:
        """Send an ``error`` frame for a refused message."""
        version = self.session.version if self.session is not None else None
        self.send(error_of(e, version))

    async def run_sender(self) -> None:
        """Send queued frames in order until closed."""
        try:
            while True:
                item = await self._queue.get()
                if isinstance(item, int):
                    await self.ws.close(code=item)
                    return
                await self.ws.send_text(item)
        except (WebSocketDisconnect, RuntimeError, OSError):
            return


class _RemoteSocket:
    """What the message handlers read of a forwarded connection's WebSocket."""

    def __init__(self, app: Any, address: str) -> None:
        self.app = app
        self.client = _Address(address)


@dataclass
class _Address:
    host: str


class RemoteConnection(Connection):
    """A WebSocket of another process (a gateway) whose game this process owns: its
    messages come from the bus, its frames go back there (see :mod:`.bus`)."""

    def __init__(self, app: Any, bus: Bus, client: Client, limits: Limits) -> None:
        super().__init__(_RemoteSocket(app, client.address), client.player, limits)  # type: ignore[arg-type]
        self.proxy = ProxyConnection(bus, client)

    def send(self, text: str) -> None:
        self.proxy.send(text)

    def close(self, code: int) -> None:
        self._closed = True
        self.proxy.close(code)


class Remotes:
    """The forwarded connections this process answers, by gateway and connection id."""

    def __init__(self, app: Any, bus: Bus) -> None:
        self.app = app
        self.bus = bus
        self.conns: dict[tuple[str, str], RemoteConnection] = {}
        bus.on_message = self.message
        bus.on_gone = self.gone
        bus.on_health = self.health

    def health(self, ok: bool) -> None:
        """Redis stopped or started answering: the pages whose game another process plays
        are told their table is out of reach (``notice``), then that it is back."""
        frame = notice_frame(None if ok else RELAY_DOWN)
        for conn in list(self.bus.gateways.values()):
            conn.send(frame)

    async def message(self, client: Client, text: str) -> None:
        key = (client.gateway, client.conn)
        conn = self.conns.get(key)
        if conn is None:
            conn = self.conns[key] = RemoteConnection(
                self.app, self.bus, client, self.app.state.guards.limits
            )
        await _handle(conn, text)

    async def gone(self, client: Client) -> None:
        conn = self.conns.pop((client.gateway, client.conn), None)
        if conn is not None:
            _leave(conn)


def _leave(conn: Connection) -> None:
    """A connection ended: off its room or game, its hint stopped."""
    if conn.room is not None:
        _rooms(conn.ws).disconnect(conn.room, conn)
    elif conn.session is not None:
        conn.session.leave(conn)
    if conn.hint_task is not None:
        conn.hint_task.cancel()


async def _route(conn: Connection, bus: Bus, text: Any) -> bool:
    """Several processes: forward the message to the process that owns the connection's
    game (a ``hello`` looks the owner up); False when this process answers it."""
    try:
        msg = parse_client(text)
    except ProtocolError:
        msg = None
    if not isinstance(msg, Hello):
        if conn.remote is None:
            return False
        bus.forward(conn, conn.remote[0], text)
        return True
    key = await _lease_key(conn, msg)
    owner = None
    if key is not None:
        service = _service(conn.ws)
        leases = service.leases
        if leases is not None and key not in leases.held:
            holder = await service.store.lease_holder(key)
            if holder is not None and holder[0] != leases.owner:
                owner = holder[0]
    if conn.remote is not None and (owner is None or conn.remote[0] != owner):
        bus.gone(conn, conn.remote[0])
        bus.gateways.pop(conn.bus_id, None)
        conn.remote = None
    if owner is None or key is None:
        return False
    _leave(conn)
    conn.session = None
    conn.room = None
    conn.remote = (owner, key)
    bus.forward(conn, owner, text)
    if not bus.healthy:
        conn.send(notice_frame(RELAY_DOWN))
    return True


async def _lease_key(conn: Connection, msg: Hello) -> str | None:
    """The lease key of the room or game a ``hello`` is for (None: no game yet)."""
    if msg.room is not None:
        return f"room:{msg.room}" if isinstance(msg.room, str) else None
    if msg.game is not None:
        return f"game:{msg.game}" if isinstance(msg.game, str) else None
    if conn.player is None:
        return None
    game_id = await _service(conn.ws).store.player_game(conn.player)
    return None if game_id is None else f"game:{game_id}"


async def watch_owners(bus: Bus, service: GameService, every: float = 0.5) -> None:
    """Close the gateway connections whose game's owner lost its lease (the process died):
    their pages reconnect and find the game's new owner."""
    while True:
        await asyncio.sleep(every)
        by_key: dict[str, list[Connection]] = {}
        for conn in list(bus.gateways.values()):
            if conn.remote is not None:
                by_key.setdefault(conn.remote[1], []).append(conn)
        if not by_key:
            continue
        try:
            holders = await service.store.lease_holders(list(by_key))
        except Exception as e:  # the database is down: look again later
            log.warning("looking up the owners of %d games failed: %r", len(by_key), e)
            continue
        for key, conns in by_key.items():
            holder = holders.get(key)
            for conn in conns:
                if conn.remote is not None and (holder is None or holder[0] != conn.remote[0]):
                    bus.gateways.pop(conn.bus_id, None)
                    conn.remote = None
                    conn.close(1012)


def _service(ws: WebSocket) -> GameService:
    service: GameService = ws.app.state.service
    return service


async def ws_endpoint(ws: WebSocket) -> None:
    """``/ws``: the game protocol of docs/web-protocol.md."""
    origin = ws.headers.get("origin")
    if origin is not None and not same_origin(origin, ws.headers.get("host", "")):
        await ws.close(code=1008)  # before accept: the handshake is refused with 403
        return
    await ws.accept()
    player = await ws.app.state.players.known(ws.cookies.get("lockup_player"))
    conn = Connection(ws, player, ws.app.state.guards.limits)
    bus: Bus | None = getattr(ws.app.state, "bus", None)
    if bus is not None:
        conn.bus_id = bus.new_conn_id()
    sender = asyncio.create_task(conn.run_sender())
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text", message.get("bytes"))
            if bus is not None:
                try:
                    if await _route(conn, bus, text):
                        continue
                except (StoreError, SQLAlchemyError, OSError) as e:
                    # The owner could not be looked up (the database is down): the page is
                    # told, and reconnects with back-off.
                    _unavailable(conn, e, close=True)
                    continue
            await _handle(conn, text)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        if conn.refused > 1:
            log.warning("a connection sent %d malformed messages", conn.refused)
        if bus is not None and conn.remote is not None:
            bus.gone(conn, conn.remote[0])
            bus.gateways.pop(conn.bus_id, None)
        _leave(conn)
        conn.close(1000)
        if ws.application_state == WebSocketState.DISCONNECTED or sender.done():
            sender.cancel()
        else:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(sender, 2.0)


async def _handle(conn: Connection, text: Any) -> None:
    """Answer one client message; a refused one gets an ``error`` and changes nothing."""
    loop = asyncio.get_running_loop()
    wait = conn.messages.take("")
    if wait > 0:
        if loop.time() - conn._told_rate >= 1.0:  # say it at most once a second
            conn._told_rate = loop.time()
            conn.error(rate_limited("messages", wait))
        return
    try:
        msg = parse_client(text)
        if isinstance(msg, Ping):
            conn.send(PONG)
        elif isinstance(msg, Hello):
            await _hello(conn, msg)
        elif isinstance(msg, Play):
            await _joined(conn).play(conn.seat, msg.card, msg.version, conn.player)
        elif isinstance(msg, Hint):
            await _start_hint(conn, msg)
        else:
            await _room_message(conn, msg)
    except OwnedElsewhere:  # another process took the game just now: reconnect to it
        conn.close(CLOSE_RESTART)
    except (StoreError, SQLAlchemyError) as e:  # the database is down: said, nothing changed
        _unavailable(conn, e, close=conn.session is None)
    except ProtocolError as e:
        if e.code == "bad-message":
            conn.refused += 1
            if conn.refused == 1:
                log.warning("refused a malformed message: %s", e.reason)
        conn.error(e)
    except Exception as e:  # a bug: one line, the connection goes on
        log.error("a message failed: %r", e)
        conn.error(ProtocolError("server-error", "The server could not handle the message."))


def _unavailable(conn: Connection, cause: BaseException, *, close: bool) -> None:
    """Tell the page that saving is paused (the database cannot be reached); a page with
    no game yet is closed too, so that it reconnects with back-off."""
    log.warning("a page's request failed: the database is unavailable (%s)", _first_line(cause))
    conn.error(ProtocolError(UNAVAILABLE, UNAVAILABLE_REASON, params={"retry_after": 2}))
    if close:
        conn.close(CLOSE_TRY_LATER)


def _first_line(e: BaseException) -> str:
    text = str(getattr(e, "orig", None) or e).strip()
    return text.splitlines()[0][:200] if text else type(e).__name__


def _joined(conn: Connection) -> GameSession:
    """The game this connection plays a seat of (not one it watches)."""
    if conn.session is None:
        raise ProtocolError("no-game", 'Send {"type": "hello", "game": id} first.')
    if conn.seat == SPECTATOR:
        raise ProtocolError("not-seated", "Spectators watch the game; they do not play.")
    return conn.session


def _rooms(ws: WebSocket) -> RoomService:
    rooms: RoomService = ws.app.state.rooms
    return rooms


async def _hello(conn: Connection, msg: Hello) -> None:
    guards: Guards = conn.ws.app.state.guards
    address = conn.ws.client.host if conn.ws.client else ""
    wait = await guards.hello(conn, address)
    if wait > 0:  # a page says hello on (re)connecting: a script saying more is refused
        loop = asyncio.get_running_loop()
        if loop.time() - conn._told_rate >= 1.0:  # said at most once a second
            conn._told_rate = loop.time()
            raise rate_limited("hellos", wait)
        return
    if msg.room is not None:
        await _hello_room(conn, msg)
        return
    if conn.player is None:
        raise ProtocolError(
            "not-your-game", "No player cookie: open the page first to get one.", params={}
        )
    service = _service(conn.ws)
    player = conn.player
    for _ in range(3):
        if msg.game is None:
            session = await service.current(
                player, functools.partial(guards.new_game, player, address)
            )
        else:
            found = await service.get(msg.game)
            if found is None:
                raise ProtocolError("no-game", "There is no such game.", params={"game": msg.game})
            session = found
        seat = session.seat_of(player)
        if seat is None:
            raise ProtocolError("not-your-game", "You have no seat in this game.")
        async with session.lock:
            if session.closed:
                continue
            if conn.room is not None:
                _rooms(conn.ws).disconnect(conn.room, conn)
                conn.room = None
            if conn.session is not None:
                conn.session.leave(conn)
            conn.seat = seat
            conn.session = session
            session.join(conn, msg.since)
            return
    raise ProtocolError("server-error", "The game could not be loaded; try again.")


async def _hello_room(conn: Connection, msg: Hello) -> None:
    """Join a room's table: as its seated person, or as a spectator with its watch key."""
    rooms = _rooms(conn.ws)
    room = await rooms.get(msg.room)
    if room is None:
        raise no_room()
    if room.seat_of(conn.player) is None and not room.may_watch(msg.watch):
        raise no_room()
    if room.seat_of(conn.player) is None:  # a spectator: the room and the address have caps
        guards: Guards = conn.ws.app.state.guards
        guards.watch(conn, room.id, conn.ws.client.host if conn.ws.client else "")
    if conn.room is not None:
        rooms.disconnect(conn.room, conn)
    elif conn.session is not None:
        conn.session.leave(conn)
    conn.session = None
    conn.room = room
    rooms.connect(room, conn, msg.since)  # the room says what the page sees


def _in_room(conn: Connection) -> Room:
    if conn.room is None:
        raise ProtocolError("no-room", 'Send {"type": "hello", "room": id} first.')
    return conn.room


async def _room_message(conn: Connection, msg: Chat | React | Start | Rematch | Remove) -> None:
    room = _in_room(conn)
    rooms = _rooms(conn.ws)
    if isinstance(msg, Start):
        await rooms.start(room, conn.player)
    elif isinstance(msg, Rematch):
        await rooms.rematch(room, conn.player)
    elif isinstance(msg, Remove):
        await rooms.remove(room, conn.player, msg.seat)
    else:
        session = conn.session
        if session is None or conn.seat == SPECTATOR or session.seat_of(conn.player) != conn.seat:
            raise ProtocolError("not-seated", "Only the people at the table talk at it.")
        guards: Guards = conn.ws.app.state.guards
        await guards.spend(guards.chat, conn.player, "messages at the table")
        if isinstance(msg, Chat):
            kind, data = "chat", {"text": msg.text}
        else:
            kind, data = "react", {"reaction": msg.reaction}
        async with session.lock:
            if session.closed:
                raise ProtocolError("no-game", "The game was reloaded: send hello again.")
            await session.note(kind, conn.seat, data, players_only=kind == "chat")


async def _start_hint(conn: Connection, msg: Hint) -> None:
    session = _joined(conn)
    if conn.hint_task is not None and not conn.hint_task.done():
        raise ProtocolError("hint-busy", "A hint is already being worked out for you.")
    guards: Guards = conn.ws.app.state.guards
    await guards.spend(guards.hints, conn.player, "hints")
    conn.hint_task = asyncio.create_task(_hint(conn, session, msg.version))


async def _hint(conn: Connection, session: GameSession, version: int) -> None:
    try:
        conn.send(await session.hint(conn.seat, version, conn.player))
    except ProtocolError as e:
        conn.error(e)
    except asyncio.CancelledError:
        raise
    except Exception as e:
        log.error("hint failed: %r", e)
        conn.error(ProtocolError("hint-unavailable", "The hint could not be computed."))
