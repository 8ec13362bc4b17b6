"""Transport limits for ``lockup serve``: no single client can stall the server.

uvicorn reads what a client sends before the app sees it, so the limits that keep one
client from stalling the others live at that level (docs/server.md, "Limits"):

- **headers**: a request whose line and headers pass ``max_header_bytes`` is answered 431
  and closed as soon as that many bytes are buffered (the h11 parser, which bounds its
  buffer; httptools reads headers of any size), and so is one whose too long headers
  arrive whole in one read (h11 bounds only an incomplete request's buffer, so the
  protocol measures the header block itself);
- **header timeout**: a connection that has not sent a request's complete headers within
  ``header_timeout`` seconds of connecting (or of the first byte of a later request) is
  closed: silent connections and slow drips ("slowloris") alike;
- **connections per address**: at most ``max_connections_per_ip`` at once from one client
  address, a WebSocket counted for its whole life; one more is answered 429 and closed at
  once. Behind a proxy (``proxy_headers``), the forwarded client address counts, for the
  life of each request or WebSocket;
- **bodies**: :class:`BodyLimitMiddleware` answers 413 to a declared ``Content-Length``
  over ``max_body_bytes`` without reading the body, stops reading a chunked one once over
  it, and answers 408 to a body that takes over ``body_timeout`` seconds;
- uvicorn's own: ``limit_concurrency`` (503 past that many connections and tasks),
  ``timeout_keep_alive``, WebSocket pings.

:func:`serve` runs an app with them; :func:`add_arguments` and :func:`limits_from_args` are
the ``lockup serve`` flags.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import re
import resource
import socket
import sys
import time
from dataclasses import dataclass
from typing import Any

import h11
import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware, _TrustedHosts
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
    limit_concurrency: int = 2000
    """uvicorn's: past this many connections (WebSockets included) or tasks, HTTP gets 503."""
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


# ---------------------------------------------------------------------- counting


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


# ---------------------------------------------------------------------- the protocol


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


# ---------------------------------------------------------------------- ASGI middleware


async def _send_json(send: Send, status: int, error: str, reason: str) -> None:
    body = json.dumps({"error": error, "reason": reason}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


LARGER_BODIES = {"/api/uploads": 256 * 1024}
"""Paths whose bodies may be larger than ``--max-body-bytes``: an uploaded game record."""


class BodyLimitMiddleware:
    """Request bodies of at most ``max_body`` bytes, in at most ``body_timeout`` seconds.

    A ``Content-Length`` over the limit is answered 413 at once, before any of the body is
    read; a chunked body is read only up to the limit, then 413; a body slower than
    ``body_timeout`` (0: no limit) is answered 408. Each closes the connection. The app
    gets the whole body (it is small) in one message.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_body: int = 16384,
        body_timeout: float = 10.0,
        larger: dict[str, int] | None = None,
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.larger = larger or {}
        """Paths allowed a larger body than ``max_body`` (an uploaded record)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length: int | None = None
        chunked = False
        limit = self.larger.get(scope.get("path", ""), self.max_body)
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    length = limit + 1
            elif name == b"transfer-encoding":
                chunked = True
        if length is not None and length > limit:
            await self._too_large(send)
            return
        if not chunked and not length:
            await self.app(scope, receive, send)
            return
        body = bytearray()
        try:
            async with asyncio.timeout(self.body_timeout or None):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        return  # the client is gone
                    body += message.get("body", b"")
                    if len(body) > limit:
                        await self._too_large(send)
                        return
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _send_json(send, 408, "timeout", "The request's body came too slowly.")
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        await _send_json(
            send, 413, "too-large", f"The request's body is over {self.max_body} bytes."
        )


class ForwardedClientCap:
    """Behind a proxy: ``X-Forwarded-For`` from trusted proxies (uvicorn's
    ``ProxyHeadersMiddleware``), and the cap per address applied to the forwarded client
    for the life of each request or WebSocket (the proxy's own connections are not capped).
    A client over the cap gets 429, or its WebSocket handshake is refused."""

    def __init__(self, app: ASGIApp, counter: AddressCounter, forwarded_allow_ips: str) -> None:
        self.app = app
        self.counter = counter
        self.trusted = _TrustedHosts(forwarded_allow_ips)
        self.proxied = ProxyHeadersMiddleware(self._capped, forwarded_allow_ips)  # type: ignore[arg-type]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        peer = scope.get("client")
        if scope["type"] in ("http", "websocket") and peer and peer[0] in self.trusted:
            await self.proxied(scope, receive, send)  # type: ignore[arg-type]
        else:
            await self.app(scope, receive, send)

    async def _capped(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        host = client[0] if client else None
        if host is None or host in self.trusted:
            await self.app(scope, receive, send)  # no forwarded address
            return
        slot = self.counter.acquire(host)
        if slot is None:
            log.warning("refused a request from %s: over %d per address", host, self.counter.cap)
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1013})
            else:
                reason = f"Over {self.counter.cap} connections from one address."
                await _send_json(send, 429, "too-many-connections", reason)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            slot.release()


# ---------------------------------------------------------------------- running


def raise_nofile_limit() -> int:
    """Raise the soft limit on open files to the hard limit (each connection is a file);
    the soft limit after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if want > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def wrap_app(app: ASGIApp, limits: NetLimits, counter: AddressCounter) -> ASGIApp:
    """``app`` with the body limit, and behind a proxy the forwarded client's cap."""
    wrapped: ASGIApp = BodyLimitMiddleware(
        app, limits.max_body_bytes, limits.body_timeout, larger=LARGER_BODIES
    )
    if limits.proxy_headers:
        wrapped = ForwardedClientCap(wrapped, counter, limits.forwarded_allow_ips)
    return wrapped


def make_config(
    app: ASGIApp, host: str, port: int, limits: NetLimits | None = None, **uvicorn_kwargs: Any
) -> uvicorn.Config:
    """A ``uvicorn.Config`` serving ``app`` (wrapped by :func:`wrap_app`) with ``limits``;
    ``uvicorn_kwargs`` are passed on (``log_level``, ``ws_max_size``...)."""
    limits = limits or NetLimits()
    counter = AddressCounter(limits.max_connections_per_ip)
    options: dict[str, Any] = {
        "http": guarded_protocol(limits, counter),
        "h11_max_incomplete_event_size": limits.max_header_bytes,
        "limit_concurrency": limits.limit_concurrency or None,
        "timeout_keep_alive": limits.timeout_keep_alive,
        "ws_ping_interval": limits.ws_ping_interval or None,
        "ws_ping_timeout": limits.ws_ping_timeout or None,
        "backlog": limits.backlog,
        "proxy_headers": False,  # ForwardedClientCap does it, when asked
    }
    options.update(uvicorn_kwargs)
    return uvicorn.Config(wrap_app(app, limits, counter), host=host, port=port, **options)


class _ClientErrorLine(logging.Filter):
    """A client's fault that uvicorn logs with a traceback, logged as one line instead: a
    WebSocket text frame that is not UTF-8 (closed 1007) is the client's doing, not a
    server bug."""

    MESSAGES = {
        "Invalid UTF-8 sequence received from client.": (
            "a WebSocket text frame that is not UTF-8 was refused (closed 1007)"
        ),
    }

    def filter(self, record: logging.LogRecord) -> bool:
        line = self.MESSAGES.get(str(record.msg))
        if line is not None:
            record.msg, record.args = line, ()
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def one_line_client_errors() -> None:
    """Log the client faults of :class:`_ClientErrorLine` as one line (idempotent; uvicorn
    logs them on ``uvicorn.error``)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _ClientErrorLine) for f in logger.filters):
        logger.addFilter(_ClientErrorLine())


def serve(
    app: ASGIApp,
    host: str,
    port: int,
    limits: NetLimits | None = None,
    *,
    reuse_port: bool = False,
    **uvicorn_kwargs: Any,
) -> None:
    """Run ``app`` on uvicorn with ``limits`` until stopped, like ``uvicorn.run``: exits
    with status 3 if it could not start (a port in use). ``reuse_port``: bind with
    ``SO_REUSEPORT``, so several processes share the port (the kernel spreads the
    connections among them; ``lockup serve --workers N``)."""
    raise_nofile_limit()
    server = uvicorn.Server(make_config(app, host, port, limits, **uvicorn_kwargs))
    one_line_client_errors()
    sockets = None
    if reuse_port:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            sock.bind((host, port))
        except OSError as e:
            print(f"lockup serve: cannot listen on {host}:{port}: {e.strerror}", file=sys.stderr)
            raise SystemExit(STARTUP_FAILURE) from None
        sock.listen(2048)
        sock.set_inheritable(True)
        sockets = [sock]
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=sockets)
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)


# ---------------------------------------------------------------------- flags


def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {n}")
    return n


def _bytes(text: str) -> int:
    n = _count(text)
    if n < 1024:
        raise argparse.ArgumentTypeError(f"must be at least 1024, not {n}")
    return n


def _seconds(text: str) -> float:
    try:
        s = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= s <= 3600:
        raise argparse.ArgumentTypeError(f"must be 0 to 3600 seconds, not {text}")
    return s


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The transport limits' flags (docs/server.md, "Limits")."""
    d = NetLimits()
    g = parser.add_argument_group("limits per client (docs/server.md#limits)")
    g.add_argument(
        "--max-header-bytes",
        type=_bytes,
        default=d.max_header_bytes,
        metavar="N",
        help=f"request line and headers; more is answered 431 (default {d.max_header_bytes})",
    )
    g.add_argument(
        "--max-body-bytes",
        type=_bytes,
        default=d.max_body_bytes,
        metavar="N",
        help=f"request body; more is answered 413 (default {d.max_body_bytes})",
    )
    g.add_argument(
        "--header-timeout",
        type=_seconds,
        default=d.header_timeout,
        metavar="SECONDS",
        help="a connection with no complete request headers after this is closed "
        f"(default {d.header_timeout:g}; 0: never)",
    )
    g.add_argument(
        "--body-timeout",
        type=_seconds,
        default=d.body_timeout,
        metavar="SECONDS",
        help=f"a request body slower than this is answered 408 (default {d.body_timeout:g}; 0: never)",
    )
    g.add_argument(
        "--max-connections-per-ip",
        type=_count,
        default=d.max_connections_per_ip,
        metavar="N",
        help="connections at once from one address, WebSockets included; one more is "
        f"answered 429 and closed (default {d.max_connections_per_ip}; 0: no cap)",
    )
    g.add_argument(
        "--limit-concurrency",
        type=_count,
        default=d.limit_concurrency,
        metavar="N",
        help="past this many connections or tasks, HTTP requests get 503 "
        f"(default {d.limit_concurrency}; 0: no limit)",
    )
    g.add_argument(
        "--timeout-keep-alive",
        type=_count,
        default=d.timeout_keep_alive,
        metavar="SECONDS",
        help=f"an idle keep-alive connection is closed after this (default {d.timeout_keep_alive})",
    )
    g.add_argument(
        "--ws-ping-interval",
        type=_seconds,
        default=d.ws_ping_interval,
        metavar="SECONDS",
        help=f"seconds between WebSocket pings (default {d.ws_ping_interval:g}; 0: none)",
    )
    g.add_argument(
        "--ws-ping-timeout",
        type=_seconds,
        default=d.ws_ping_timeout,
        metavar="SECONDS",
        help="a WebSocket that does not answer a ping within this is closed "
        f"(default {d.ws_ping_timeout:g})",
    )
    g.add_argument(
        "--proxy-headers",
        action="store_true",
        help="behind a proxy: trust X-Forwarded-For from --forwarded-allow-ips, and cap "
        "connections per forwarded client address",
    )
    g.add_argument(
        "--forwarded-allow-ips",
        default=d.forwarded_allow_ips,
        metavar="IPS",
        help="the trusted proxies, comma-separated addresses or networks, or * "
        f"(default {d.forwarded_allow_ips}; used with --proxy-headers)",
    )


def limits_from_args(args: argparse.Namespace) -> NetLimits:
    """The :class:`NetLimits` of the flags :func:`add_arguments` added."""
    return NetLimits(
        max_header_bytes=args.max_header_bytes,
        max_body_bytes=args.max_body_bytes,
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        max_connections_per_ip=args.max_connections_per_ip,
        limit_concurrency=args.limit_concurrency,
        timeout_keep_alive=args.timeout_keep_alive,
        ws_ping_interval=args.ws_ping_interval,
        ws_ping_timeout=args.ws_ping_timeout,
        proxy_headers=args.proxy_headers,
        forwarded_allow_ips=args.forwarded_allow_ips,
    )
