"""Quick play over HTTP (``POST /api/quickplay``): a seat at the open quick table, asked at
any process; the process that has the table seats the person (quick play's own forwarded
join, the only join a quick table takes, marked as such in its scope: see
:data:`~lockup.server.routes.rooms.QUICK_JOIN`)."""

from __future__ import annotations

import json
from typing import Any

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..cluster.bus import Bus, alive_key
from ..protocol import OptionError, ProtocolError
from ..quick import QuickPlay
from ..rooms import check_name
from ..ws.guards import Guards
from .common import (
    COOKIE,
    _address,
    _error,
    _json_body,
    _player,
    _rooms,
    _set_cookie,
)
from .rooms import QUICK_JOIN, _room_url, browser_of, room_owner


class _Elsewhere:
    """The rooms of other processes, reached for one request's person (see
    :class:`~lockup.server.quick.Elsewhere`)."""

    def __init__(self, request: Request, player: str, browser: str) -> None:
        self.request = request
        self.player = player
        self.browser = browser

    async def owner(self, room_id: str) -> str | None:
        return await room_owner(self.request, room_id)

    async def alive(self, owner: str) -> bool:
        bus: Bus = self.request.app.state.bus
        return bool(await bus.redis.exists(alive_key(owner)))

    async def ask(
        self,
        owner: str,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        timeout: float,
    ) -> tuple[int, dict[str, Any]]:
        bus: Bus = self.request.app.state.bus
        drop = ("content-length", "cookie", "content-type")
        headers = [(k, v) for k, v in self.request.headers.items() if k.lower() not in drop]
        # The browser's cookie (a new person's, minted here) and the request's others.
        cookies = {**self.request.cookies, COOKIE: self.browser}
        headers += [
            ("cookie", "; ".join(f"{k}={v}" for k, v in cookies.items())),
            ("content-type", "application/json"),
        ]
        reply = await bus.call(
            owner,
            {
                "method": method,
                "path": path,
                "query": "",
                "headers": headers,
                "body": json.dumps(body) if body is not None else "",
                "client": _address(self.request),
                "mark": QUICK_JOIN,
            },
            timeout=timeout,
        )
        status = int(reply["status"])
        try:
            answer = json.loads(reply["body"])
        except ValueError:
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        for k, v in reply["headers"]:
            if k.lower() == "retry-after":
                answer["retry_after"] = v
        return status, answer

    async def spend_seat(self) -> None:
        guards: Guards = self.request.app.state.guards
        await guards.seat_change(self.player, _address(self.request))


def _queue_unavailable() -> JSONResponse:
    """503: quick play's queue (Redis, shared by the server's processes) cannot be reached
    now; the database may well be up, and games under way go on."""
    return JSONResponse(
        {
            "error": "unavailable",
            "reason": "Quick play cannot reach its queue of tables (Redis) just now: try again"
            " shortly, or play with friends or against computers meanwhile.",
        },
        503,
        headers={"Retry-After": "5"},
    )


async def api_quickplay(request: Request) -> Response:
    """``POST /api/quickplay``: a seat at a quick table, ``{}`` or ``{"name": ...}``;
    answers ``{"room", "seat", "invite", "starts_in"}``."""
    try:
        data = await _json_body(request)
    except ProtocolError:
        data = None
    if not isinstance(data, dict) or set(data) - {"name"}:
        return _error(400, ProtocolError("bad-message", 'The body is {} or {"name": ...}.'))
    name = None
    if data.get("name") is not None:
        try:
            name = check_name(data["name"])
        except OptionError as e:
            return _error(400, ProtocolError("bad-name", str(e)))
    token, new = await _player(request)
    guards: Guards = request.app.state.guards
    address = _address(request)
    try:
        await guards.quick(token, address)
    except ProtocolError as e:
        return _error(429, e)
    rooms = _rooms(request)
    stored = await rooms.name_of(token)
    if name is None and not stored:
        return _error(
            400, ProtocolError("name-needed", "Choose the name the other players will see.")
        )
    if name is not None and name != stored:
        await rooms.set_name(token, name)
    quick: QuickPlay = request.app.state.quick
    browser = browser_of(request, token, new)
    try:
        tag = await rooms.store.address_tag(address)
        seated = await quick.play(
            token, _Elsewhere(request, token, browser), tag=tag, browser=browser
        )
    except ProtocolError as e:
        status = int(e.params.pop("status", 0)) or (429 if "retry_after" in e.params else 503)
        return _error(status, e)
    except (RedisError, OSError):  # the queue (Redis) cannot be reached
        return _queue_unavailable()
    response = JSONResponse(
        {
            "room": seated.room,
            "seat": seated.seat,
            "invite": _room_url(request, "room", seated.room, seated.invite),
            "starts_in": round(seated.starts_in, 2),
        }
    )
    if new:
        _set_cookie(request, response, token)
    return response
