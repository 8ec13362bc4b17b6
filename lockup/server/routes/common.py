"""What the HTTP routes share: the player cookie, the app's services, JSON errors."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..net.tokens import Players
from ..protocol import OptionError, ProtocolError, loads
from ..reviews import Reviews
from ..rooms import RoomService
from ..session import GameService

COOKIE = "lockup_player"
"""The cookie a player is known by."""


COOKIE_MAX_AGE = 400 * 24 * 3600


def _service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


async def _player(request: Request) -> tuple[str, bool]:
    players: Players = request.app.state.players
    return await players.identify(request.cookies.get(COOKIE))


def _set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=COOKIE_MAX_AGE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def _error(status: int, e: ProtocolError | OptionError) -> JSONResponse:
    if isinstance(e, OptionError):
        return JSONResponse({"error": "bad-option", "reason": str(e)}, status)
    headers = {}
    if "retry_after" in e.params:
        headers["Retry-After"] = str(e.params["retry_after"])
    return JSONResponse({"error": e.code, "reason": e.reason}, status, headers=headers)


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


async def _json_body(request: Request) -> Any:
    body = await request.body()
    return loads(body) if body.strip() else {}


def _under_way() -> JSONResponse:
    return JSONResponse(
        {
            "error": "game-under-way",
            "reason": "The record holds every card: it is offered once the game is over.",
        },
        403,
    )


def _unavailable() -> JSONResponse:
    """503: the database cannot be reached now (a page says saving is paused)."""
    return JSONResponse(
        {
            "error": "unavailable",
            "reason": "The server cannot reach its database just now: try again shortly.",
        },
        503,
        headers={"Retry-After": "5"},
    )


def _rooms(request: Request) -> RoomService:
    rooms: RoomService = request.app.state.rooms
    return rooms


def _reviews(request: Request) -> Reviews:
    reviews: Reviews = request.app.state.reviews
    return reviews


async def _known(request: Request) -> str | None:
    token: str | None = await request.app.state.players.known(request.cookies.get(COOKIE))
    return token
