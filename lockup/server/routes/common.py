"""What the HTTP routes share: who the request is (its cookies), the app's services, JSON
errors."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..accounts import PLAYER_COOKIE, SESSION_COOKIE, Accounts, Identity, resolve
from ..net.tokens import Players
from ..protocol import OptionError, ProtocolError, loads
from ..reviews import Reviews
from ..rooms import RoomService
from ..session import GameService

COOKIE = PLAYER_COOKIE
"""The cookie a browser's guest token is kept in (``lockup_player``)."""


COOKIE_MAX_AGE = 400 * 24 * 3600


def _service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def _accounts(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


async def _identity(request: Request) -> Identity:
    """Who the request is (:func:`lockup.server.accounts.resolve`), worked out once per
    request: the account's player when its ``lockup_session`` is valid, else the guest of
    its ``lockup_player`` (a new one when it has none, or one that is an account's)."""
    found: Identity | None = getattr(request.state, "identity", None)
    if found is None:
        players: Players = request.app.state.players
        found = await resolve(players, _accounts(request), request.cookies)
        request.state.identity = found
    return found


async def _player(request: Request) -> tuple[str, bool]:
    """The request's player, and whether the browser's guest cookie must be set (with
    :func:`_set_cookie`)."""
    identity = await _identity(request)
    return identity.player, identity.new_browser


def _set_cookie(request: Request, response: Response, token: str) -> None:
    """Set the browser's guest cookie: ``token`` as :func:`_player` gave it (the player)
    stands for the browser's own guest token, which differs when signed in."""
    identity: Identity | None = getattr(request.state, "identity", None)
    if identity is not None and token == identity.player:
        token = identity.browser
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
    """The request's player if it came with one (a valid guest cookie or session), else
    None."""
    return (await _identity(request)).known


def _set_session_cookie(request: Request, response: Response, token: str | None) -> None:
    """Set the ``lockup_session`` cookie to ``token`` (None: delete it)."""
    secure = request.url.scheme == "https"
    if token is None:
        response.delete_cookie(
            SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=secure
        )
        return
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=COOKIE_MAX_AGE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure,
    )
