"""The connection level of uvicorn's h11 protocol, guarded: header sizes and timeouts,
connections per client address (see :mod:`lockup.server.net`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("lockup.netguard")


STARTUP_FAILURE = 3
"""uvicorn's exit status when the server could not start (a port in use)."""


@dataclass(frozen=True)
class NetLimits:
    """What one client may cost the server (0 for a count or a timeout: no limit)."""

    max_header_bytes: int = 8192
    """Request line and headers, in bytes; more is answered 431 and closed."""
    max_body_bytes: int = 16384
    """A request body, in bytes; more is answered 413 and closed."""
    header_timeout: float = 10.0
    """Seconds to send a request's complete headers; then the connection is closed."""
    body_timeout: float = 10.0
    """Seconds to send a request's body once its headers are in; then 408 and closed."""
    max_connections_per_ip: int = 64
    """Connections at once from one client address; one more is answered 429 and closed."""
    limit_concurrency: int = 5000
    """The server's capacity: WebSockets and API requests under way at once; past it a new
    one is refused as ``server-full`` (:class:`~.middleware.CapacityGuard`)."""
    timeout_keep_alive: int = 5
    """Seconds an idle keep-alive HTTP connection stays open."""
    ws_ping_interval: float = 20.0
    """Seconds between the server's WebSocket pings."""
    ws_ping_timeout: float = 20.0
    """Seconds to answer a ping before the WebSocket is closed."""
    backlog: int = 2048
    """Connections the kernel queues before the server accepts them."""
    proxy_headers: bool = False
    """Trust ``X-Forwarded-For`` from ``forwarded_allow_ips`` (running behind nginx)."""
    forwarded_allow_ips: str = "127.0.0.1"
    """The proxies trusted for ``X-Forwarded-For``: addresses or networks, comma-separated, or ``*``."""


class Slot:
    """One connection (or proxied request) counted against its client address."""

    __slots__ = ("_counter", "host")

    def __init__(self, counter: AddressCounter, host: str) -> None:
        self._counter: AddressCounter | None = counter
        self.host = host

    def release(self) -> None:
        """Stop counting it (once; later calls do nothing)."""
        counter, self._counter = self._counter, None
        if counter is not None:
            counter._release(self.host)


class AddressCounter:
    """How many connections each client address holds, at most ``cap`` (0: no cap)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.counts: dict[str, int] = {}

    def acquire(self, host: str) -> Slot | None:
        """A slot for ``host``, or None if it holds ``cap`` already."""
        n = self.counts.get(host, 0)
        if self.cap and n >= self.cap:
            return None
        self.counts[host] = n + 1
        return Slot(self, host)

    def _release(self, host: str) -> None:
        n = self.counts.get(host, 0) - 1
        if n > 0:
            self.counts[host] = n
        else:
            self.counts.pop(host, None)


class Notices:
    """Warnings about refused clients, at most one line per kind every ``every`` seconds."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self._pending: dict[str, tuple[int, list[str]]] = {}
        self._last: dict[str, float] = {}

    def note(self, kind: str, host: str | None, what: str) -> None:
        count, hosts = self._pending.get(kind, (0, []))
        if host is not None and host not in hosts and len(hosts) < 3:
            hosts.append(host)
        self._pending[kind] = (count + 1, hosts)
        now = time.monotonic()
        last = self._last.get(kind)
        if last is None or now - last >= self.every:
            self._flush(kind, what)
        elif count == 0:
            with contextlib.suppress(RuntimeError):
                loop = asyncio.get_running_loop()
                loop.call_later(self.every - (now - last), self._flush, kind, what)

    def _flush(self, kind: str, what: str) -> None:
        count, hosts = self._pending.pop(kind, (0, []))
        self._last[kind] = time.monotonic()
        if count:
            log.warning("%d %s (%s; from %s)", count, what, kind, ", ".join(hosts) or "unknown")


def _raw_response(status: int, reason: str, error: str, text: str) -> bytes:
    body = json.dumps({"error": error, "reason": text}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


_HEAD_END = re.compile(rb"\r?\n\r?\n")
"""The end of a request's line and headers (h11 also takes bare line feeds)."""


class _H11Connection(h11.Connection):
    """h11's connection, remembering the last error its parser raised (for a 431)."""

    last_error: h11.RemoteProtocolError | None = None

    def next_event(self) -> Any:
        try:
            return super().next_event()
        except h11.RemoteProtocolError as e:
            self.last_error = e
            raise


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the header limits, the header timeout and the cap per
    address. :func:`guarded_protocol` makes a subclass bound to one server's limits."""

    limits: NetLimits = NetLimits()
    counter: AddressCounter = AddressCounter(NetLimits.max_connections_per_ip)
    trusted: _TrustedHosts | None = None
    """The trusted proxies (proxy mode): not capped here, their clients are, per request."""
    notices: Notices = Notices()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _H11Connection(h11.SERVER, max(self.limits.max_header_bytes, 256))
        self._header_timer: asyncio.TimerHandle | None = None
        self._slot: Slot | None = None
        self._got_bytes = False

    @property
    def _host(self) -> str | None:
        return self.client[0] if self.client else None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self._host
        if host is not None and not (self.trusted is not None and host in self.trusted):
            self._slot = self.counter.acquire(host)
            if self._slot is None:
                cap = self.counter.cap
                self.notices.note(
                    "max-connections-per-ip", host, f"connections refused: over {cap} per address"
                )
                transport.write(
                    _raw_response(
                        429,
                        "Too Many Requests",
                        "too-many-connections",
                        f"Over {cap} connections from one address.",
                    )
                )
                transport.close()
                return
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        if self._slot is not None:
            self._slot.release()
            self._slot = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.transport.is_closing():
            return  # refused or timed out: read no more
        if self._header_timer is None and self.conn.their_state is h11.IDLE:
            self._arm_header_timer()  # the first byte of a later request on this connection
        self._got_bytes = True
        if self.conn.their_state is h11.IDLE and self._headers_too_long(data):
            self._refuse_long_headers()
            return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._cancel_header_timer()  # the headers are in

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._cancel_header_timer()
        super().handle_websocket_upgrade(event)
        protocol = self.transport.get_protocol()
        slot, self._slot = self._slot, None
        if slot is not None and protocol is not self:
            release_when_lost(protocol, slot)
        elif slot is not None:
            slot.release()

    def send_400_response(self, msg: str) -> None:
        error = self.conn.last_error if isinstance(self.conn, _H11Connection) else None
        if error is None or error.error_status_hint != 431:
            super().send_400_response(msg)
            return
        self._refuse_long_headers()

    def _headers_too_long(self, data: bytes) -> bool:
        """Whether the request line and headers, as far as they have come with ``data``,
        pass ``max_header_bytes`` (also when they end inside ``data``)."""
        limit = max(self.limits.max_header_bytes, 256)
        buffered = self.conn.trailing_data[0]
        if len(buffered) + len(data) <= limit:
            return False
        head = bytes(buffered) + data[: limit + 4]
        end = _HEAD_END.search(head)
        return end is None or end.start() > limit

    def _refuse_long_headers(self) -> None:
        """Answer 431 and close: the request's headers are over the limit."""
        self._cancel_header_timer()
        limit = self.limits.max_header_bytes
        self.notices.note(
            "max-header-bytes", self._host, f"requests refused: headers over {limit} bytes"
        )
        self.transport.write(
            _raw_response(
                431,
                "Request Header Fields Too Large",
                "too-large",
                f"The request's headers are over {limit} bytes.",
            )
        )
        self.transport.close()

    def _arm_header_timer(self) -> None:
        self._cancel_header_timer()
        self._got_bytes = False
        if self.limits.header_timeout > 0:
            self._header_timer = self.loop.call_later(
                self.limits.header_timeout, self._header_timed_out
            )

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timed_out(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        timeout = self.limits.header_timeout
        self.notices.note(
            "header-timeout",
            self._host,
            f"connections closed: no complete headers in {timeout:g} s",
        )
        if self._got_bytes:  # a browser's idle preconnection gets no 408, a slow request does
            self.transport.write(
                _raw_response(
                    408, "Request Timeout", "timeout", "The request's headers came too slowly."
                )
            )
        self.transport.close()


def release_when_lost(protocol: asyncio.BaseProtocol, slot: Slot) -> None:
    """Release ``slot`` when ``protocol`` (the WebSocket the connection became) loses its
    connection: the cap per address counts a WebSocket for its whole life."""
    lost = protocol.connection_lost

    def connection_lost(exc: Exception | None) -> None:
        try:
            lost(exc)
        finally:
            slot.release()
            # this function refers to the protocol: not a cycle the collector must find
            vars(protocol).pop("connection_lost", None)

    setattr(protocol, "connection_lost", connection_lost)  # noqa: B010 (an instance's method)


def guarded_protocol(
    limits: NetLimits, counter: AddressCounter | None = None
) -> type[GuardedH11Protocol]:
    """A :class:`GuardedH11Protocol` subclass for one server: its limits, its count of
    connections per address (``counter``, shared with :class:`ForwardedClientCap`)."""

    class LockupH11Protocol(GuardedH11Protocol):
        pass

    LockupH11Protocol.limits = limits
    LockupH11Protocol.counter = counter or AddressCounter(limits.max_connections_per_ip)
    LockupH11Protocol.trusted = (
        _TrustedHosts(limits.forwarded_allow_ips) if limits.proxy_headers else None
    )
    LockupH11Protocol.notices = Notices()
    return LockupH11Protocol
