"""ASGI middleware of the transport limits: the server's capacity, request bodies, and the
forwarded client's connections (see :mod:`lockup.server.net`)."""

from __future__ import annotations

import asyncio
import json
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware, _TrustedHosts

from .transport import AddressCounter, Notices

log = logging.getLogger("lockup.netguard")


async def _send_json(
    send: Send,
    status: int,
    error: str,
    reason: str,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    body = json.dumps({"error": error, "reason": reason}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


SERVER_FULL = "server-full"
"""The code of the refusal past the server's capacity (``lockup.refusals``)."""

FULL_REASON = "The server is full: try again in a minute."
"""Its words (the page says it in the reader's language)."""

FULL_RETRY_AFTER = 60
"""Seconds after which a refused client may try again (``Retry-After``)."""

CLOSE_TRY_LATER = 1013
"""The WebSocket close code of a refused socket ("try again later"), with the reason
:data:`SERVER_FULL`."""


class CapacityGuard:
    """At most ``limit`` WebSockets and API requests under way at once (0: no limit).

    Past it, an API request is answered ``503`` ``{"error": "server-full", "reason": ...}``
    with ``Retry-After``, and a WebSocket is accepted, sent one ``error`` frame of that
    code (``params.retry_after``) and closed with 1013 and the reason ``server-full``, so
    that the page can say why in words. A socket or request already under way is never
    touched. Pages, static files and ``/healthz`` (every path outside ``/api/``) are always
    served and not counted: they end at once, and the page must load to say, in its
    reader's language, that the server is full.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.busy = 0
        """WebSockets open and API requests under way now."""
        self.peak = 0
        """The most at once so far."""
        self.refused = 0
        """Requests and WebSockets refused so far."""
        self.notices = Notices()

    @staticmethod
    def counted(scope: Scope) -> bool:
        """Whether a request or WebSocket counts against the capacity: every WebSocket,
        and the HTTP requests under ``/api/``."""
        if scope["type"] == "websocket":
            return True
        path: str = scope.get("path", "")
        return path.startswith("/api/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.limit or scope["type"] not in ("http", "websocket") or not self.counted(scope):
            await self.app(scope, receive, send)
            return
        if self.busy >= self.limit:
            self.refused += 1
            await self._refuse(scope, receive, send)
            return
        self.busy += 1
        self.peak = max(self.peak, self.busy)
        try:
            await self.app(scope, receive, send)
        finally:
            self.busy -= 1

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        self.notices.note(
            "limit-concurrency",
            client[0] if client else None,
            f"requests and WebSockets refused: the server is full ({self.limit} at once)",
        )
        if scope["type"] == "http":
            retry = [(b"retry-after", str(FULL_RETRY_AFTER).encode())]
            await _send_json(send, 503, "server-full", FULL_REASON, retry)
            return
        message = await receive()
        if message["type"] != "websocket.connect":
            return  # the client went away first
        frame = {
            "type": "error",
            "code": SERVER_FULL,
            "rule": None,
            "reason": FULL_REASON,
            "params": {"retry_after": FULL_RETRY_AFTER},
            "version": None,
        }
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": json.dumps(frame)})
        await send({"type": "websocket.close", "code": CLOSE_TRY_LATER, "reason": SERVER_FULL})


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
