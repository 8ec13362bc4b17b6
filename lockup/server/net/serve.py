"""Running an app on uvicorn with the transport limits, and the ``lockup serve`` flags that
set them."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import logging
import resource
import signal
import socket
import sys
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from .middleware import LARGER_BODIES, BodyLimitMiddleware, CapacityGuard, ForwardedClientCap
from .transport import STARTUP_FAILURE, AddressCounter, NetLimits, guarded_protocol
from .wsframes import protocol_class

log = logging.getLogger("lockup.netguard")

FILES_KEPT = 128
"""Open files the process keeps for other than its clients' connections: the database,
the pipes to its worker processes, logs."""


def raise_nofile_limit() -> int:
    """Raise the soft limit on open files to the hard limit (each connection is a file);
    the soft limit after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if want > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def fit_to_open_files(limits: NetLimits, files: int) -> NetLimits:
    """``limits`` with ``limit_concurrency`` lowered, if need be, to what ``files`` open
    files carry: :data:`FILES_KEPT` for the process itself, and two for each WebSocket or
    request counted (its own, and the short HTTP connections a page opens beside it,
    which are not counted). A connection past the open files would not be refused in
    words: the kernel would leave it unanswered. No limit (0) stays no limit."""
    most = max(1, (files - FILES_KEPT) // 2)
    if not limits.limit_concurrency or limits.limit_concurrency <= most:
        return limits
    log.warning(
        "the open files allowed (ulimit -n: %d) carry %d WebSockets and requests at once: "
        "--limit-concurrency is %d (raise the hard limit, e.g. LimitNOFILE in systemd, "
        "to carry more)",
        files,
        most,
        most,
    )
    return dataclasses.replace(limits, limit_concurrency=most)


def wrap_app(app: ASGIApp, limits: NetLimits, counter: AddressCounter) -> ASGIApp:
    """``app`` with the server's capacity (:class:`CapacityGuard`), the body limit, and
    behind a proxy the forwarded client's cap."""
    wrapped: ASGIApp = BodyLimitMiddleware(
        app, limits.max_body_bytes, limits.body_timeout, larger=LARGER_BODIES
    )
    if limits.proxy_headers:
        wrapped = ForwardedClientCap(wrapped, counter, limits.forwarded_allow_ips)
    return CapacityGuard(wrapped, limits.limit_concurrency)


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
        "limit_concurrency": None,  # CapacityGuard's, which says so in words
        "timeout_keep_alive": limits.timeout_keep_alive,
        "ws_ping_interval": limits.ws_ping_interval or None,
        "ws_ping_timeout": limits.ws_ping_timeout or None,
        "backlog": limits.backlog,
        "proxy_headers": False,  # ForwardedClientCap does it, when asked
    }
    ws = protocol_class()
    if ws is not None:  # a game's frames written straight to the socket (see wsframes)
        options["ws"] = ws
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
    connections among them; ``lockup serve --workers N``). The soft limit on open files
    is raised to the hard one, and ``limits.limit_concurrency`` lowered to what it
    carries (:func:`fit_to_open_files`)."""
    limits = fit_to_open_files(limits or NetLimits(), raise_nofile_limit())
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
    previous = signal.signal(signal.SIGTERM, _stop_requested)
    try:
        with contextlib.suppress(KeyboardInterrupt, StopRequested):
            server.run(sockets=sockets)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)


class StopRequested(Exception):
    """SIGTERM asked the server to stop (see :func:`serve`)."""


def _stop_requested(_signum: int, _frame: object) -> None:
    """SIGTERM outside uvicorn's own handling: stop through Python, not by the signal.

    Once its graceful shutdown is done (every game stored, the worker pools stopped),
    uvicorn sends the SIGTERM it caught to the process again, to the handler that was set
    before it started. With the system's default one the process dies at once: no exit
    handler runs, and the spawned worker pools' named semaphores still waiting for the
    collector are never unlinked ("resource_tracker: There appear to be 10 leaked
    semaphore objects", about one stop in five). This handler makes that last signal an
    exception :func:`serve` catches, so the process ends as after Ctrl-C: normally, with
    status 0.
    """
    raise StopRequested


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
        help="the server's capacity: WebSockets and API requests under way at once; past "
        "it a new one is told the server is full (503 server-full with Retry-After; a "
        "WebSocket an error frame, then closed 1013). Lowered to what the open files allow "
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
