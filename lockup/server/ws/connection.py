"""One WebSocket: its player, game and seat, and its queue of frames (:class:`Connection`)."""

from __future__ import annotations

import asyncio
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..net.limits import Limits, RateLimiter
from ..net.security import RAW_SEND
from ..protocol import (
    ProtocolError,
    error_of,
)
from ..rooms import Room
from ..session import GameSession

log = logging.getLogger("lockup.server")


MAX_QUEUED = 2000
"""A connection with this many unsent frames is too slow and is closed."""


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
        """This connection's id on the bus (several processes, see :mod:`lockup.server.cluster.bus`)."""
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
        raw = getattr(self.ws, "scope", {}).get(RAW_SEND)
        queue = self._queue
        try:
            while True:
                item = queue.get_nowait() if queue.qsize() else await queue.get()
                if isinstance(item, int):
                    await self.ws.close(code=item)
                    return
                if raw is None:
                    await self.ws.send_text(item)
                else:  # past the framework's layers (the socket is accepted by now)
                    await raw({"type": "websocket.send", "text": item})
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
