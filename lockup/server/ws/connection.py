"""One WebSocket: its player, game and seat, and its frames to send (:class:`Connection`)."""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..net.limits import Limits, RateLimiter
from ..net.security import RAW_SEND
from ..net.wsframes import protocol_class
from ..protocol import (
    ProtocolError,
    error_of,
)
from ..rooms import Room
from ..session import GameSession

log = logging.getLogger("lockup.server")


MAX_QUEUED = 2000
"""A connection with this many unsent frames is too slow and is closed."""

_WRITER = protocol_class()


class Connection:
    """One WebSocket: its player, its game and seat, and the frames to send.

    Frames are written in order. Served by uvicorn's protocol with a direct way out
    (:class:`~lockup.server.net.wsframes.FrameWriter`), the frames queued in one turn of
    the event loop are written at its next turn in one write, with no task between; while
    the socket's buffer is full they wait here, and :meth:`run_sender` writes them once it
    drains. Otherwise (another server, a test client) :meth:`run_sender` sends them one by
    one as ASGI messages."""

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
        self._out: deque[str | bytes] = deque()
        """Frames not written yet, oldest first."""
        self._close_code: int | None = None
        self._closed = False
        self._flushing = False
        """Whether a write of :attr:`_out` is due at the loop's next turn."""
        self._wake: asyncio.Event | None = None
        """Set when :meth:`run_sender` has something to do."""
        self._told_rate = 0.0
        self.bus_id = ""
        """This connection's id on the bus (several processes, see :mod:`lockup.server.cluster.bus`)."""
        self.remote: tuple[str, str] | None = None
        """While another process owns this connection's game: that process and the game's
        lease key; its messages are forwarded there."""
        raw = getattr(ws, "scope", {}).get(RAW_SEND)
        writer = getattr(raw, "__self__", None)
        self._writer = writer if _WRITER is not None and isinstance(writer, _WRITER) else None

    def send(self, frame: str | bytes) -> None:
        """Queue a frame, JSON text or its UTF-8 bytes (a slow client with too many frames
        queued is disconnected)."""
        if self._closed:
            return
        out = self._out
        if len(out) >= MAX_QUEUED:
            log.warning("closing a connection that does not keep up")
            self.close(1008)
            return
        out.append(frame)
        if self._writer is not None:
            if not self._flushing:
                self._flushing = True
                asyncio.get_running_loop().call_soon(self._flush)
        elif self._wake is not None:
            self._wake.set()

    def _flush(self) -> None:
        """Write the queued frames at once, unless the socket's buffer is full (then
        :meth:`run_sender` writes them when it drains) or closed to them."""
        self._flushing = False
        writer = self._writer
        out = self._out
        if writer is None or not out:
            return
        if not writer.writable.is_set():
            if self._wake is not None:
                self._wake.set()
            return
        if writer.write_texts(out):
            out.clear()
        else:  # the socket is closing or closed: the ASGI messages say so
            self._writer = None
            if self._wake is not None:
                self._wake.set()

    def close(self, code: int) -> None:
        """Close the WebSocket after the frames already queued."""
        if not self._closed:
            self._closed = True
            self._close_code = code
            if self._wake is not None:
                self._wake.set()

    def set_session(self, session: GameSession) -> None:
        """The room moved this page to ``session`` (a new game at the table)."""
        self.session = session

    def error(self, e: ProtocolError) -> None:
        """Send an ``error`` frame for a refused message."""
        version = self.session.version if self.session is not None else None
        self.send(error_of(e, version))

    async def run_sender(self) -> None:
        """Send what :meth:`send` could not write at once, in order, then close the
        socket once :meth:`close` asked for it."""
        raw = getattr(self.ws, "scope", {}).get(RAW_SEND)
        wake = self._wake = asyncio.Event()
        out = self._out
        if out or self._close_code is not None:
            wake.set()
        try:
            while True:
                await wake.wait()
                wake.clear()
                writer = self._writer
                if writer is not None:
                    await writer.writable.wait()
                    if out and writer.write_texts(out):
                        out.clear()
                    elif out:
                        self._writer = None  # the socket is closing: the ASGI messages
                if self._writer is None:
                    while out:
                        item = out.popleft()
                        text = item if isinstance(item, str) else item.decode()
                        if raw is None:
                            await self.ws.send_text(text)
                        else:  # past the framework's layers (the socket is accepted by now)
                            await raw({"type": "websocket.send", "text": text})
                if self._close_code is not None and not out:
                    await self.ws.close(code=self._close_code)
                    return
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        finally:
            self._writer = None
