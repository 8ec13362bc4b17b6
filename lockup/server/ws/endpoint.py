"""The endpoint ``/ws``: a page's messages handled, or forwarded to the process that owns its
game."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from ..accounts import resolve
from ..cluster.bus import Bus, Gateway
from ..cluster.leases import OwnedElsewhere
from ..net.security import RAW_SEND, same_origin
from ..protocol import (
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
    notice_frame,
    parse_client,
)
from ..rooms import Room, RoomService, no_room
from ..session import GameService, GameSession
from ..store import StoreError
from .connection import Connection
from .guards import Guards, rate_limited

log = logging.getLogger("lockup.server")


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
        by_key: dict[str, list[Gateway]] = {}
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
    try:
        identity = await resolve(ws.app.state.players, ws.app.state.accounts, ws.cookies)
    except (StoreError, SQLAlchemyError) as e:  # the database is down: come back later
        log.warning("a connection's player could not be looked up: %r", e)
        await ws.close(code=CLOSE_TRY_LATER)
        return
    conn = Connection(ws, identity.known, ws.app.state.guards.limits)
    if identity.signed is not None:  # closed when the session ends: the page comes back
        ws.app.state.accounts.watch(identity.signed, conn)
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
        # The server's send refers to its protocol, which holds this scope: let the
        # connection's objects go by reference counting, not the collector's full pass.
        ws.scope.pop(RAW_SEND, None)


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
