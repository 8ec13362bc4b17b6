"""Accounts over HTTP (``/api/account``): sign up, sign in and out, the password, the
sessions (docs/web-protocol.md, "Accounts").

A browser keeps its session in the ``lockup_session`` cookie; the terminal gets the same
token in the answer's body and sends it back as that cookie. Every refusal is JSON
``{"error", "reason"}``; a body that is not what a route takes changes nothing (400).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..accounts import (
    AccountError,
    AccountRow,
    BadName,
    BadPassword,
    Identity,
    Signed,
    check_password,
    clean_name,
    name_key,
)
from ..protocol import ProtocolError, loads
from ..ws.guards import Guards
from .common import (
    _accounts,
    _address,
    _error,
    _identity,
    _set_cookie,
    _set_session_cookie,
)

MAX_BODY = 4096
"""The longest body an account route reads, in bytes."""


def _refuse(e: AccountError) -> JSONResponse:
    body = {"error": e.code, "reason": e.reason}
    if e.why is not None:
        body["why"] = e.why
    return JSONResponse(body, e.status)


def _bad(reason: str) -> JSONResponse:
    return JSONResponse({"error": "bad-message", "reason": reason}, 400)


def _signed_out() -> JSONResponse:
    return JSONResponse(
        {
            "error": "signed-out",
            "reason": "You play as a guest, and guests play unrated: sign up (or sign in) to"
            " be rated and to find your games on any browser.",
        },
        401,
    )


async def _body(request: Request, keys: tuple[str, ...]) -> dict[str, Any] | JSONResponse:
    """The JSON object of ``keys`` (each text), or the 400 that says what is wrong."""
    shape = "{" + ", ".join(f'"{k}": "..."' for k in keys) + "}"
    body = await request.body()
    if len(body) > MAX_BODY:
        return _bad(f"The body is too long: it is {shape}.")
    try:
        data = loads(body) if body.strip() else None
    except ProtocolError:
        return _bad(f"The body is not JSON: it is {shape}.")
    if not isinstance(data, dict) or set(data) != set(keys):
        return _bad(f"The body is {shape}.")
    for k in keys:
        if not isinstance(data[k], str):
            return _bad(f'"{k}" must be text.')
    return data


async def _limited(request: Request, key: str) -> JSONResponse | None:
    """Spend one sign-in attempt at the name whose key is ``key``: None, or the 429."""
    guards: Guards = request.app.state.guards
    try:
        await guards.login(key, _address(request))
    except ProtocolError as e:
        return _error(429, e)
    return None


def _agent(request: Request) -> str | None:
    return request.headers.get("user-agent")


def _signed_in(
    request: Request, identity: Identity, account: AccountRow, token: str, browser: str
) -> Response:
    """200 ``{"name", "session"}``, the session cookie set, and the guest cookie set to
    ``browser`` when it changes."""
    response = JSONResponse({"name": account.name, "session": token})
    _set_session_cookie(request, response, token)
    if identity.new_browser or browser != identity.browser:
        _set_cookie(request, response, browser)
    return response


async def api_signup(request: Request) -> Response:
    """``POST /api/account/signup`` ``{"name", "password"}``: a new account that plays as
    this browser's guest (what it played is the account's), signed in; the browser gets a
    new guest token of its own."""
    data = await _body(request, ("name", "password"))
    if isinstance(data, Response):
        return data
    identity = await _identity(request)
    if identity.signed is not None:
        return _refuse(
            AccountError("signed-in", "You are signed in: sign out to make another account.", 409)
        )
    accounts = _accounts(request)
    guards: Guards = request.app.state.guards
    # Checked before the address's count is spent: a typo costs nothing.
    try:
        clean_name(data["name"])
    except BadName as e:
        return _refuse(AccountError("bad-name", str(e), 400, e.code))
    try:
        check_password(data["password"])
    except BadPassword as e:
        return _refuse(AccountError("bad-password", str(e), 400, e.code))
    try:
        await guards.signup(_address(request))
    except ProtocolError as e:
        return _error(429, e)
    try:
        account, token = await accounts.signup(
            data["name"], data["password"], identity.browser, _agent(request)
        )
    except AccountError as e:
        return _refuse(e)
    fresh = request.app.state.players.tokens.mint()
    return _signed_in(request, identity, account, token, fresh)


async def api_login(request: Request) -> Response:
    """``POST /api/account/login`` ``{"name", "password"}``: a new session; a wrong name
    or password is one answer, 401 ``bad-login``."""
    data = await _body(request, ("name", "password"))
    if isinstance(data, Response):
        return data
    limited = await _limited(request, name_key(data["name"][:200]))
    if limited is not None:
        return limited
    identity = await _identity(request)
    accounts = _accounts(request)
    try:
        account, token = await accounts.login(data["name"], data["password"], _agent(request))
    except AccountError as e:
        return _refuse(e)
    if identity.signed is not None:  # signed in as someone else before: that session ends
        await accounts.logout(identity.signed)
    return _signed_in(request, identity, account, token, identity.browser)


async def api_logout(request: Request) -> Response:
    """``POST /api/account/logout``: end this session; the browser plays as its own guest
    again."""
    identity = await _identity(request)
    if identity.signed is not None:
        await _accounts(request).logout(identity.signed)
    response = JSONResponse({"name": None})
    _set_session_cookie(request, response, None)
    if identity.new_browser:
        _set_cookie(request, response, identity.browser)
    return response


async def _signed(request: Request) -> Signed | Response:
    """The request's session, or the 401 ``signed-out`` (the stale cookie cleared)."""
    identity = await _identity(request)
    if identity.signed is None:
        response = _signed_out()
        if identity.stale_session:
            _set_session_cookie(request, response, None)
        return response
    return identity.signed


def _guest(request: Request, stale: bool) -> JSONResponse:
    """``GET /api/account``'s answer for a guest: ``{"name": null}`` and why it matters (a
    page asks on every load, so a guest is an answer, not an error)."""
    response = JSONResponse(
        {
            "name": None,
            "guest": True,
            "reason": "You play as a guest, and guests play unrated: sign up (or sign in) to"
            " be rated and to find your games on any browser.",
        }
    )
    if stale:
        _set_session_cookie(request, response, None)
    return response


async def api_account(request: Request) -> Response:
    """``GET /api/account``: the signed-in account (name, when it was made, its
    sessions and rated games), or ``{"name": null, "guest": true}`` for a guest (a stale
    session cookie cleared)."""
    identity = await _identity(request)
    signed = identity.signed
    if signed is None:
        return _guest(request, identity.stale_session)
    accounts = _accounts(request)
    account = await accounts.account(signed)
    if account is None:
        return _guest(request, True)
    mine = await request.app.state.ratings.mine(account.player_id)
    return JSONResponse(
        {
            "name": account.name,
            "created_at": account.created_at.isoformat(),
            "password_changed_at": (
                account.password_changed_at.isoformat()
                if account.password_changed_at is not None
                else None
            ),
            "sessions": await accounts.rows.count_sessions(account.id),
            "rating": mine.get("rating"),
            "rated_games": mine.get("games", 0),
        }
    )


async def api_password(request: Request) -> Response:
    """``POST /api/account/password`` ``{"old", "new"}``: a new password; every other
    session of the account ends."""
    signed = await _signed(request)
    if isinstance(signed, Response):
        return signed
    data = await _body(request, ("old", "new"))
    if isinstance(data, Response):
        return data
    limited = await _limited(request, name_key(signed.name))
    if limited is not None:
        return limited
    try:
        ended = await _accounts(request).change_password(signed, data["old"], data["new"])
    except AccountError as e:
        return _refuse(e)
    return JSONResponse({"name": signed.name, "ended": ended})


async def api_sessions(request: Request) -> Response:
    """``GET /api/account/sessions``: the account's signed-in browsers and terminals."""
    signed = await _signed(request)
    if isinstance(signed, Response):
        return signed
    rows = await _accounts(request).sessions(signed)
    return JSONResponse(
        {
            "sessions": [
                {
                    "id": s.id,
                    "agent": s.agent,
                    "created_at": s.created_at.isoformat(),
                    "last_seen": s.last_seen.isoformat(),
                    "current": s.id == signed.session_id,
                }
                for s in rows
            ]
        }
    )


async def api_end_others(request: Request) -> Response:
    """``POST /api/account/sessions/end-others``: sign out every other browser and
    terminal of the account."""
    signed = await _signed(request)
    if isinstance(signed, Response):
        return signed
    ended = await _accounts(request).end_others(signed)
    return JSONResponse({"ended": ended})
