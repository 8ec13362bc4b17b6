"""History, review, uploads and statistics over HTTP (see :mod:`lockup.server.reviews`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..protocol import OptionError, ProtocolError, loads
from .common import _address, _error, _known, _player, _reviews, _set_cookie


async def api_history(request: Request) -> Response:
    """``GET /api/history``: every game the player took part in, newest first."""
    token = await _known(request)
    games = [] if token is None else await _reviews(request).history(token)
    return JSONResponse({"games": games})


async def api_review(request: Request) -> Response:
    """``GET /api/games/{id}/review``: the game's finished hands, tricks, summaries and
    the analysis of the player's cards."""
    try:
        data = await _reviews(request).review(request.path_params["game_id"], await _known(request))
    except ProtocolError as e:
        return _error(403, e)
    return JSONResponse(data)


async def api_analysis(request: Request) -> Response:
    """``GET /api/games/{id}/analysis``: where the analysis is; ``POST``: start it."""
    reviews = _reviews(request)
    game_id = request.path_params["game_id"]
    token = await _known(request)
    try:
        if request.method == "POST":
            return JSONResponse(await reviews.start_analysis(game_id, token))
        review = await reviews.review(game_id, token)
    except ProtocolError as e:
        status = {"no-hand-yet": 409, "analysis-busy": 503}.get(e.code, 403)
        return _error(status, e)
    return JSONResponse(review["analysis"])


async def api_upload(request: Request) -> Response:
    """``POST /api/uploads?seat=S``: a ``lockup-record/1`` to review (body: the record)."""
    seat_text = request.query_params.get("seat", "0")
    if seat_text not in ("0", "1", "2", "3"):
        return _error(400, OptionError("seat must be 0 to 3"))
    try:
        data = loads(await request.body())
    except ProtocolError:
        return _error(400, ProtocolError("bad-record", "The file is not JSON."))
    token, new = await _player(request)
    try:
        await request.app.state.guards.new_game(token, _address(request))
        game_id = await _reviews(request).upload(token, data, int(seat_text))
    except ProtocolError as e:
        return _error(429 if e.code == "rate-limited" else 400, e)
    response = JSONResponse({"game": game_id})
    if new:
        _set_cookie(request, response, token)
    return response


async def api_stats(request: Request) -> Response:
    """``GET /api/stats``: the player's statistics."""
    token = await _known(request)
    if token is None:
        return JSONResponse(
            {
                "games": 0,
                "left_out": 0,
                "by_level": {},
                "by_rules": {},
                "per_hand": {},
                "accuracy": None,
                "series": [],
            }
        )
    return JSONResponse(await _reviews(request).stats(token))
