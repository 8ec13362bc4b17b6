"""WebSockets of other processes whose games this process owns: their messages come from
the bus, their frames go back there."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cluster.bus import Bus, Client, ProxyConnection
from ..net.limits import Limits
from ..protocol import (
    RELAY_DOWN,
    notice_frame,
)
from .connection import Connection
from .endpoint import _handle, _leave


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
    messages come from the bus, its frames go back there (see :mod:`lockup.server.cluster.bus`)."""

    def __init__(self, app: Any, bus: Bus, client: Client, limits: Limits) -> None:
        super().__init__(_RemoteSocket(app, client.address), client.player, limits)  # type: ignore[arg-type]
        self.proxy = ProxyConnection(bus, client)

    def send(self, frame: str | bytes) -> None:
        """Send a frame back through the bus (as text)."""
        self.proxy.send(frame if isinstance(frame, str) else frame.decode())

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
