"""ASGI middleware of the transport limits: request bodies, and the forwarded client's
connections (see :mod:`lockup.server.net`)."""

from __future__ import annotations

import asyncio
import json
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware, _TrustedHosts

from .transport import AddressCounter

log = logging.getLogger("lockup.netguard")


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
