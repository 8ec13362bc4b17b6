"""Ratings over HTTP: the leaderboard and the player's own rating history
(docs/ratings.md)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..protocol.wire import Leaderboard, MyRating
from ..ratings import RatingService
from .common import _known


def _ratings(request: Request) -> RatingService:
    ratings: RatingService = request.app.state.ratings
    return ratings


async def api_leaderboard(request: Request) -> Response:
    """``GET /api/leaderboard``: the best rated people and every rated computer level,
    by the shown rating; the asking player's row is marked ``you``."""
    me = await _known(request)
    body: Leaderboard = {"players": await _ratings(request).leaderboard(me)}
    return JSONResponse(body)


async def api_my_ratings(request: Request) -> Response:
    """``GET /api/ratings/me``: the player's rating now and each rated game's change."""
    me = await _known(request)
    if me is None:
        empty: MyRating = {
            "rating": None,
            "mu": None,
            "sigma": None,
            "games": 0,
            "rank": None,
            "history": [],
        }
        return JSONResponse(empty)
    return JSONResponse(await _ratings(request).mine(me))
