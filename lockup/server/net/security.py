"""Browser-facing guards, as one pure ASGI middleware in front of every route.

- **Host.** A request whose ``Host`` is not one the server answers to is refused (400):
  DNS rebinding cannot turn a victim's browser into a client of a server on their machine.
  The loopback names are always allowed; others through ``--allowed-host`` (``*``: any).
- **Forgery (CSRF).** A request that changes state (any method but GET, HEAD, OPTIONS)
  must not come from a page of another origin (403), and must carry a JSON body type
  (415), which no cross-site form or ``text/plain`` fetch can send without the preflight
  the server never grants. WebSockets from another origin are refused by the handler.
- **Headers.** Every HTTP response says: Content-Security-Policy (own files only, no
  framing), ``X-Frame-Options: DENY``, ``X-Content-Type-Options: nosniff``,
  ``Referrer-Policy: same-origin``; and over HTTPS, ``Strict-Transport-Security``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("lockup.server")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; media-src 'self' data: blob:; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
"""The page's Content-Security-Policy: its own files only, never framed."""

SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
"""Headers every HTTP response carries."""

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
"""Host names always allowed."""

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def host_name(host: str) -> str:
    """The name part of a ``Host`` header value, lower case: ``[::1]:80`` -> ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[1:end] if end > 0 else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def allowed_hosts(bind_host: str, extra: Iterable[str] = ()) -> frozenset[str] | None:
    """The host names to answer: loopback, the bound address (unless a wildcard), and
    ``extra``; None (any host) if ``extra`` holds ``*``."""
    names = set(LOOPBACK_HOSTS)
    for h in extra:
        if h.strip() == "*":
            return None
        names.add(host_name(h))
    if bind_host not in ("", "0.0.0.0", "::"):
        names.add(host_name(bind_host))
    return frozenset(names)


def same_origin(origin: str, host: str) -> bool:
    """Whether ``origin`` (a header value) is the origin of the site at ``host``."""
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return str(v.decode("latin-1"))
    return None


RAW_SEND = "lockup.send"
"""Scope key of a WebSocket's send as the server gave it, before the framework's layers:
a game's frames go straight to it once the socket is accepted (each layer costs a coroutine
call per frame, and a table sends several frames a card)."""


class SecurityMiddleware:
    """Host check, forgery check and security headers for ``app`` (see the module)."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host") or ""
        if self.hosts is not None and host_name(host) not in self.hosts:
            log.warning("refused a request for unknown host %r", host[:60])
            await self._refuse(scope, receive, send, 400, "unknown-host", "Unknown host.")
            return
        if kind == "http" and scope["method"] not in SAFE_METHODS:
            origin = _header(scope, b"origin")
            if origin is not None and not same_origin(origin, host):
                await self._refuse(
                    scope,
                    receive,
                    send,
                    403,
                    "cross-origin",
                    "Requests from other sites are refused.",
                )
                return
            ctype = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
            if ctype != "application/json":
                await self._refuse(
                    scope,
                    receive,
                    send,
                    415,
                    "bad-content-type",
                    "The body must be JSON, sent as Content-Type: application/json.",
                )
                return
        if kind == "websocket":
            scope[RAW_SEND] = send  # the server's own send, for frames (see RAW_SEND)
            await self.app(scope, receive, send)
            return
        https = scope.get("scheme") == "https"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.extend(SECURITY_HEADERS)
                if https:
                    headers.append((b"strict-transport-security", b"max-age=31536000"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    @staticmethod
    async def _refuse(
        scope: Scope, receive: Receive, send: Send, status: int, code: str, reason: str
    ) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": code, "reason": reason}).encode()
        headers: list[tuple[bytes, bytes]] = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *SECURITY_HEADERS,
        ]
        start: dict[str, Any] = {"type": "http.response.start", "status": status}
        start["headers"] = headers
        await send(start)
        await send({"type": "http.response.body", "body": body})
