"""Rooms over HTTP: made, listed in the lobby, joined and left (forwarded to the process
that owns the room), and the player's display name."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..cluster.bus import FORWARDED_SCOPE, Bus
from ..net.limits import Limits
from ..protocol import OptionError, ProtocolError
from ..rooms import check_name, no_room, parse_room_options
from ..session import available_levels
from ..ws.guards import Guards
from .common import (
    COOKIE,
    _address,
    _error,
    _json_body,
    _known,
    _player,
    _rooms,
    _service,
    _set_cookie,
)


def _room_url(request: Request, kind: str, room_id: str, key: str) -> str:
    base = str(request.base_url).rstrip("/")
    param = "invite" if kind == "room" else "key"
    return f"{base}/{kind}/{room_id}?{param}={key}"


async def api_new_room(request: Request) -> Response:
    """``POST /api/rooms``: a new room, the player its host at South."""
    try:
        options, name = parse_room_options(
            await _json_body(request), available_levels(), _service(request).default_level
        )
    except ProtocolError:
        return _error(400, OptionError("the body must be a JSON object of options"))
    except OptionError as e:
        return _error(400, e)
    token, new = await _player(request)
    guards: Guards = request.app.state.guards
    try:
        await guards.new_game(token, _address(request))
    except ProtocolError as e:
        return _error(429, e)
    store = _service(request).store
    tag = await store.address_tag(_address(request))
    browser = browser_of(request, token, new)  # where the host sat down from (ratings)
    if options.public:
        async with guards.public_rooms(tag):  # counted, made and tagged as one
            try:
                await _check_public_rooms(request, token, tag)
            except ProtocolError as e:
                return _error(429, e)
            room = await _rooms(request).create(token, options, name, tag=tag, browser=browser)
            await store.tag_room(room.id, tag)
    else:
        room = await _rooms(request).create(token, options, name, tag=tag, browser=browser)
    response = JSONResponse(
        {
            "room": room.id,
            "invite": _room_url(request, "room", room.id, room.invite),
            "watch": _room_url(request, "watch", room.id, room.watch),
        }
    )
    if new:
        _set_cookie(request, response, token)
    return response


async def _check_public_rooms(request: Request, token: str, tag: str) -> None:
    """Refuse (``too-many-rooms``) a public room to a player, or to the address whose tag
    (:meth:`Store.address_tag`) is ``tag``, that holds its cap of open public rooms
    already (docs/server.md, "Limits")."""
    guards: Guards = request.app.state.guards
    limits = guards.limits
    store = _service(request).store
    now = datetime.now(UTC)
    rooms = await store.open_public_rooms(
        token, tag, now - timedelta(seconds=limits.public_room_hold)
    )
    for cap, mine, who in (
        (limits.public_rooms_player, [t for host, _, t in rooms if host], "You have"),
        (guards.public_rooms_address, [t for _, by, t in rooms if by], "Your address has"),
    ):
        if cap and len(mine) >= cap:
            # The oldest of them stops counting first.
            free_at = sorted(mine)[len(mine) - cap] + timedelta(seconds=limits.public_room_hold)
            wait = max(1, round((free_at - now).total_seconds() + 0.5))
            raise ProtocolError(
                "too-many-rooms",
                f"{who} {len(mine)} public tables open already (at most {cap}): start one or"
                f" make this one private, or try again in {wait} s.",
                params={"retry_after": wait, "limit": cap},
            )


async def api_lobby(request: Request) -> Response:
    """``GET /api/rooms``: the public rooms with a free seat, newest first, a few of each
    address at most."""
    limits: Limits = request.app.state.guards.limits
    rooms = await _rooms(request).lobby(limits.lobby_size, limits.lobby_per_address)
    return JSONResponse({"rooms": rooms})


QUICK_JOIN = "quick-play"
"""The mark (see :data:`~lockup.server.cluster.bus.FORWARDED_SCOPE`) of quick play's own
join, forwarded to the process that has the quick table: the only join a quick table
takes from someone not seated there."""


def forwarded_mark(request: Request) -> str | None:
    """The mark of a request another process forwarded through the bus (never forwarded
    again), or None for a client's own: set in the ASGI scope, never by a header."""
    mark = request.scope.get(FORWARDED_SCOPE)
    return mark if isinstance(mark, str) else None


def browser_of(request: Request, token: str, new: bool) -> str:
    """The browser's own guest token (its ``lockup_player`` cookie; ``token`` when the
    request had none and was given one), kept beside a seat."""
    identity = getattr(request.state, "identity", None)  # set by _player (routes/common.py)
    if identity is not None:
        return str(identity.browser)
    cookie = request.cookies.get(COOKIE)
    return token if new or not cookie else cookie


async def room_owner(request: Request, room_id: str) -> str | None:
    """Several processes: the process that has room ``room_id`` when it is another one
    (None: this one has it, nobody does, or there is only one process)."""
    leases = _service(request).leases
    if request.app.state.bus is None or leases is None:
        return None
    key = f"room:{room_id}"
    if key in leases.held:
        return None
    holder = await _service(request).store.lease_holder(key)
    if holder is None or holder[0] == leases.owner:
        return None
    return str(holder[0])


async def _elsewhere(request: Request) -> Response | None:
    """Several processes: the answer of the process that has the room, when another
    process has it (None: this process answers)."""
    bus: Bus | None = request.app.state.bus
    if bus is None or forwarded_mark(request):
        return None
    owner = await room_owner(request, request.path_params["room_id"])
    if owner is None:
        return None
    headers = [(k, v) for k, v in request.headers.items() if k not in ("content-length",)]
    try:
        reply = await bus.call(
            owner,
            {
                "method": request.method,
                "path": request.url.path,
                "query": request.url.query,
                "headers": headers,
                "body": (await request.body()).decode("utf-8", "replace"),
                "client": _address(request),
            },
        )
    except TimeoutError:
        return _error(503, ProtocolError("server-error", "The room's server did not answer."))
    response = Response(reply["body"], status_code=int(reply["status"]))
    for k, v in reply["headers"]:
        if k.lower() != "content-length":
            response.headers.append(k, v)
    return response


async def api_room(request: Request) -> Response:
    """``GET /api/rooms/{id}``: a room, for its people, or with its invite or watch key."""
    forwarded = await _elsewhere(request)
    if forwarded is not None:
        return forwarded
    room = await _rooms(request).get(request.path_params["room_id"])
    token = await _known(request)
    key = request.query_params.get("invite") or request.query_params.get("key")
    if room is None or not (
        room.seat_of(token) is not None or room.may_join(key) or room.may_watch(key)
    ):
        return _error(404, no_room())
    return JSONResponse(room.snapshot(token))


async def api_join_room(request: Request) -> Response:
    """``POST /api/rooms/{id}/join``: take a seat, ``{"invite", "seat", "name"}``."""
    forwarded = await _elsewhere(request)
    if forwarded is not None:
        return forwarded
    rooms = _rooms(request)
    try:
        data = await _json_body(request)
        if not isinstance(data, dict) or set(data) - {"invite", "seat", "name"}:
            raise OptionError('the body is {"invite": ..., "seat": 0-3, "name": ...}')
        name = check_name(data["name"]) if data.get("name") is not None else None
    except ProtocolError:
        return _error(400, OptionError("the body must be a JSON object"))
    except OptionError as e:
        return _error(400, e)
    seat = data.get("seat")
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or seat not in range(4)
    ):
        return _error(400, ProtocolError("bad-message", '"seat" must be 0 to 3.'))
    token, new = await _player(request)
    try:
        await request.app.state.guards.seat_change(token, _address(request))
    except ProtocolError as e:
        return _error(429, e)
    room = await rooms.get(request.path_params["room_id"])
    if room is None:
        return _error(404, no_room())
    invite = data.get("invite")
    if (
        room.options.quick
        and room.seat_of(token) is None
        and forwarded_mark(request) != QUICK_JOIN
        and room.may_join(invite if isinstance(invite, str) else None)
    ):
        return _error(
            403,
            ProtocolError(
                "quick-only",
                "Seats at a quick-play table are given by quick play only: you may watch.",
                params={"watch": True},
            ),
        )
    tag = await rooms.store.address_tag(_address(request))
    try:
        seat = await rooms.join(
            room,
            token,
            invite if isinstance(invite, str) else None,
            seat,
            name,
            tag=tag,
            browser=browser_of(request, token, new),
        )
    except ProtocolError as e:
        status = {"no-room": 404, "bad-message": 400}.get(e.code, 409)
        return _error(status, e)
    starts_in = room.seating.starts_in(time.time())
    response = JSONResponse(
        {
            "room": room.id,
            "seat": seat,
            "starts_in": None if starts_in is None else round(starts_in, 2),
        }
    )
    if new:
        _set_cookie(request, response, token)
    return response


async def api_leave_room(request: Request) -> Response:
    """``POST /api/rooms/{id}/leave``: give up one's seat before the game starts or
    between games; at a rated table (a quick table, a rated room), leave the game under way
    too: the person has abandoned their seat (``"abandoned": true``, ranked last)."""
    forwarded = await _elsewhere(request)
    if forwarded is not None:
        return forwarded
    token = await _known(request)
    try:
        await request.app.state.guards.seat_change(token, _address(request))
    except ProtocolError as e:
        return _error(429, e)
    room = await _rooms(request).get(request.path_params["room_id"])
    if room is None or token is None or room.seat_of(token) is None:
        return _error(404, no_room())
    try:
        abandoned = await _rooms(request).leave(room, token)
    except ProtocolError as e:
        return _error(409, e)
    return JSONResponse({"room": room.id, "seat": None, "abandoned": abandoned})


async def api_profile(request: Request) -> Response:
    """``GET /api/profile``: the player's display name; ``POST``: set it ``{"name"}``."""
    token, new = await _player(request)
    rooms = _rooms(request)
    if request.method == "POST":
        try:
            data = await _json_body(request)
            if not isinstance(data, dict) or set(data) != {"name"}:
                raise OptionError('the body is {"name": ...}')
            name = check_name(data["name"])
        except ProtocolError:
            return _error(400, OptionError("the body must be a JSON object"))
        except OptionError as e:
            return _error(400, e)
        try:
            await request.app.state.guards.name_change(token, _address(request))
        except ProtocolError as e:
            return _error(429, e)
        await rooms.set_name(token, name)
    response = JSONResponse({"name": await rooms.name_of(token)})
    if new:
        _set_cookie(request, response, token)
    return response
