"""Ratings over HTTP: the leaderboard, the player's own rating history and what one game
does to their rating (docs/ratings.md)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ...ratings import PROVISIONAL_GAMES
from ..protocol.wire import Leaderboard, MyRating
from ..ratings import RatingService
from .common import _known


def _ratings(request: Request) -> RatingService:
    ratings: RatingService = request.app.state.ratings
    return ratings


async def api_leaderboard(request: Request) -> Response:
    """``GET /api/leaderboard``: accounts past their provisional games and every rated
    computer level, by the shown rating; the asking player's row is marked ``you``."""
    me = await _known(request)
    body: Leaderboard = {
        "players": await _ratings(request).leaderboard(me),
        "min_games": PROVISIONAL_GAMES,
    }
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
            "provisional": True,
            "guest": True,
            "min_games": PROVISIONAL_GAMES,
            "history": [],
        }
        return JSONResponse(empty)
    return JSONResponse(await _ratings(request).mine(me))


async def api_game_rating(request: Request) -> Response:
    """``GET /api/ratings/game/{game}``: what the game does to the asking player's rating
    (rated, or why not: ``guest`` for a guest); 404 ``not-your-game`` when they did not
    sit at it."""
    me = await _known(request)
    game_id = str(request.path_params["game"])
    found = None if me is None else await _ratings(request).of_game(game_id, me)
    if found is None:
        return JSONResponse(
            {"error": "not-your-game", "reason": "You have no seat in this game."}, 404
        )
    return JSONResponse(found)
