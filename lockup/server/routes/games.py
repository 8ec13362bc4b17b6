"""Games over HTTP: the current game, a new one, its record, the options and refusals."""

from __future__ import annotations

import functools
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ...refusals import catalogue as refusal_catalogue
from ..cluster.leases import OwnedElsewhere
from ..protocol import OptionError, ProtocolError, loads, options_document, parse_options
from ..session import GameService, GameSession, available_levels
from ..ws.guards import Guards
from .common import _address, _error, _known, _player, _service, _set_cookie, _under_way


def _game_json(session: GameSession, seat: int) -> dict[str, Any]:
    return {"game": session.id, "seat": seat, "version": session.version, "level": session.level}


async def api_game(request: Request) -> Response:
    """``GET /api/game``: the player's current game, created at once if there is none."""
    token, new = await _player(request)
    guards: Guards = request.app.state.guards
    service = _service(request)
    if service.leases is not None and not new:
        # Several processes: a game this process does not play now is read from the
        # database, not taken: the process the page's WebSocket reaches plays it.
        game_id = await service.store.player_game(token)
        if game_id is not None and game_id not in service.sessions:
            stored = await _stored_game_json(service, game_id, token)
            if stored is not None:
                return JSONResponse(stored)
    try:
        session = await service.current(
            token, functools.partial(guards.new_game, token, _address(request)), keep=False
        )
    except ProtocolError as e:
        return _error(429, e)
    except OwnedElsewhere as e:  # another process took it just now
        stored = await _stored_game_json(service, e.key.removeprefix("game:"), token)
        if stored is None:
            raise
        return JSONResponse(stored)
    seat = session.seat_of(token)
    assert seat is not None
    response = JSONResponse(_game_json(session, seat))
    if new:
        _set_cookie(request, response, token)
    return response


async def _stored_game_json(
    service: GameService, game_id: str, token: str
) -> dict[str, Any] | None:
    """What ``GET /api/game`` says of a game, read from the database (None: no such game,
    or ``token`` has no seat in it)."""
    found = await service.store.load(game_id)
    if found is None:
        return None
    header, actions = found
    mine = next((i for i, x in enumerate(header.seats) if x.get("player") == token), None)
    if mine is None:
        return None
    version = max(actions[-1].version if actions else 0, header.events_version)
    level = next((x.get("level") for x in header.seats if x.get("kind") == "bot"), None)
    return {"game": header.id, "seat": mine, "version": version, "level": level}


async def api_new_game(request: Request) -> Response:
    """``POST /api/games``: a new game with the options of the JSON body."""
    service = _service(request)
    body = await request.body()
    try:
        data = loads(body) if body.strip() else {}
        rules, level = parse_options(data, available_levels(), service.default_level)
    except ProtocolError:
        return JSONResponse(
            {"error": "bad-request", "reason": "The body must be a JSON object of options."}, 400
        )
    except OptionError as e:
        return _error(400, e)
    token, new = await _player(request)
    try:
        await request.app.state.guards.new_game(token, _address(request))
    except ProtocolError as e:
        return _error(429, e)
    session = await service.new_game(token, rules, level, keep=False)
    response = JSONResponse(_game_json(session, 0))
    if new:
        _set_cookie(request, response, token)
    return response


async def api_options(request: Request) -> Response:
    """``GET /api/options``: the levels and rule options a new game may choose."""
    return JSONResponse(options_document(available_levels(), _service(request).default_level))


async def api_refusals(request: Request) -> Response:
    """``GET /api/refusals``: the refusal catalogue in English and French (lockup.refusals)."""
    return JSONResponse(refusal_catalogue())


async def api_record(request: Request) -> Response:
    """``GET /api/games/{id}/record``: a finished game's ``lockup-record/1`` file."""
    from ...record import dumps

    game_id = request.path_params["game_id"]
    token = await _known(request)
    service = _service(request)
    if not isinstance(game_id, str) or len(game_id) > 32:
        return JSONResponse({"error": "no-game", "reason": "There is no such game."}, 404)
    try:
        # A finished game's record is stored: any process reads it, whoever plays it.
        finished = await service.store.finished_record(game_id)
        session = None if finished is not None else await service.get(game_id)
    except OwnedElsewhere:  # under way on another process: not offered yet anyway
        finished, session = None, None
        if await service.store.finished_record(game_id) is None:
            return _under_way()
    if finished is not None:
        players, stored = finished
        if token is None or token not in players:
            return JSONResponse(
                {"error": "not-your-game", "reason": "Only a player of this game may fetch it."},
                403,
            )
        return Response(
            json.dumps(json.loads(stored), ensure_ascii=False, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="lockup-{game_id}.json"'},
        )
    if session is None:
        return JSONResponse({"error": "no-game", "reason": "There is no such game."}, 404)
    if session.seat_of(token) is None:
        return JSONResponse(
            {"error": "not-your-game", "reason": "Only a player of this game may fetch it."}, 403
        )
    async with session.lock:  # a stored state, not a change under way
        over = session.game.is_over
        text = dumps(session.game, session.names, indent=1) + "\n" if over else ""
    if not over:
        return _under_way()
    return Response(
        text,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="lockup-{session.id}.json"'},
    )
