"""The ASGI application (Starlette): pages, the JSON API and the game WebSocket.

The contract with the page is docs/web-protocol.md; the limits are docs/server.md's.
:func:`create_app` builds the app; ``lockup serve`` runs it on uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from ..web import STATIC_DIR
from .pool import BotPool
from .protocol import OptionError, ProtocolError, loads, options_document, parse_options
from .security import SecurityMiddleware, allowed_hosts
from .session import GameService, GameSession, available_levels
from .store import Store
from .tokens import Players, Tokens
from .websocket import Guards, Limits, ws_endpoint

log = logging.getLogger("lockup.server")

COOKIE = "lockup_player"
"""The cookie a player is known by."""
COOKIE_MAX_AGE = 400 * 24 * 3600


def default_level() -> str:
    """``normal`` if the bots provide it, else ``random``."""
    return "normal" if "normal" in available_levels() else "random"


# ---------------------------------------------------------------------- HTTP


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


def _page(name: str) -> Any:
    async def page(request: Request) -> Response:
        response = FileResponse(STATIC_DIR / name, media_type="text/html; charset=utf-8")
        response.headers["Cache-Control"] = "no-cache"
        token, new = await _player(request)
        if new:
            _set_cookie(request, response, token)
        return response

    return page


def _game_json(session: GameSession, seat: int) -> dict[str, Any]:
    return {"game": session.id, "seat": seat, "version": session.version, "level": session.level}


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


async def api_game(request: Request) -> Response:
    """``GET /api/game``: the player's current game, created at once if there is none."""
    token, new = await _player(request)
    guards: Guards = request.app.state.guards
    try:
        session = await _service(request).current(
            token, lambda: guards.new_game(token, _address(request))
        )
    except ProtocolError as e:
        return _error(429, e)
    seat = session.seat_of(token)
    assert seat is not None
    response = JSONResponse(_game_json(session, seat))
    if new:
        _set_cookie(request, response, token)
    return response


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
        request.app.state.guards.new_game(token, _address(request))
    except ProtocolError as e:
        return _error(429, e)
    session = await service.new_game(token, rules, level)
    response = JSONResponse(_game_json(session, 0))
    if new:
        _set_cookie(request, response, token)
    return response


async def api_options(request: Request) -> Response:
    """``GET /api/options``: the levels and rule options a new game may choose."""
    return JSONResponse(options_document(available_levels(), _service(request).default_level))


async def api_record(request: Request) -> Response:
    """``GET /api/games/{id}/record``: a finished game's ``lockup-record/1`` file."""
    from ..record import dumps

    game_id = request.path_params["game_id"]
    session = await _service(request).get(game_id)
    if session is None:
        return JSONResponse({"error": "no-game", "reason": "There is no such game."}, 404)
    token = await request.app.state.players.known(request.cookies.get(COOKIE))
    if session.seat_of(token) is None:
        return JSONResponse(
            {"error": "not-your-game", "reason": "Only a player of this game may fetch it."}, 403
        )
    async with session.lock:  # a stored state, not a change under way
        over = session.game.is_over
        text = dumps(session.game, session.names, indent=1) + "\n" if over else ""
    if not over:
        return JSONResponse(
            {
                "error": "game-under-way",
                "reason": "The record holds every card: it is offered once the game is over.",
            },
            403,
        )
    return Response(
        text,
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="lockup-{session.id}.json"'},
    )


async def healthz(request: Request) -> Response:
    """``GET /healthz``: ``ok``."""
    return PlainTextResponse("ok")


# ---------------------------------------------------------------------- the app


def create_app(
    db: str = "sqlite:///lockup.sqlite",
    *,
    level: str | None = None,
    bot_processes: int | None = None,
    hint_processes: int = 1,
    hint_time: float | None = None,
    idle_s: float = 120.0,
    move_slots: int = 4,
    bot_delay: float = 0.35,
    bot_jitter: float = 0.25,
    purge_unplayed_after: float = 3600.0,
    purge_abandoned_after: float = 30 * 86400.0,
    limits: Limits | None = None,
    host: str = "127.0.0.1",
    extra_hosts: Iterable[str] = (),
    warm: bool = True,
    store: Store | None = None,
) -> Starlette:
    """The Lockup server app storing games in ``db`` (an SQLAlchemy URL).

    ``level`` is the bots' level for a game that names none (default: ``normal``).
    ``move_slots``: how many games may make a bot's move at once; ``bot_delay`` and
    ``bot_jitter``: how long a bot's card is held (see :class:`GameService`); ``limits``:
    what one client may ask; ``host`` and ``extra_hosts``: the ``Host`` names answered
    (see :mod:`lockup.server.security`); ``warm``: start the bot workers and load the
    expert's search at start-up, in the background. ``store`` may be an already opened
    :class:`Store` for ``db``.
    """
    the_store = store or Store(db)
    pool = BotPool(processes=bot_processes, hint_processes=hint_processes)
    service = GameService(
        the_store,
        pool,
        default_level=level or default_level(),
        hint_time=hint_time,
        idle_s=idle_s,
        bot_slots=move_slots,
        bot_delay=bot_delay,
        bot_jitter=bot_jitter,
        purge_unplayed_after=purge_unplayed_after,
        purge_abandoned_after=purge_abandoned_after,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await the_store.start()
        tokens = Tokens(await the_store.secret())
        app.state.players = Players(tokens, lambda t: _known_player(the_store, t))
        await service.start()
        warming = asyncio.create_task(_warm(pool)) if warm else None
        try:
            yield
        finally:
            if warming is not None:
                warming.cancel()
            await service.close()
            pool.close()
            await the_store.close()

    routes: list[BaseRoute] = [
        Route("/", _page("index.html")),
        Route("/rules", _page("rules.html")),
        Route("/help", _page("help.html")),
        Route("/healthz", healthz),
        Route("/api/options", api_options, methods=["GET"]),
        Route("/api/game", api_game, methods=["GET"]),
        Route("/api/games", api_new_game, methods=["POST"]),
        Route("/api/games/{game_id}/record", api_record, methods=["GET"]),
        WebSocketRoute("/ws", ws_endpoint),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    hosts = allowed_hosts(host, extra_hosts)
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(SecurityMiddleware, hosts=hosts)],
    )
    app.state.service = service
    app.state.store = the_store
    app.state.guards = Guards(limits or Limits())
    return app


async def _known_player(store: Store, token: str) -> bool:
    return await store.player_game(token) is not None


async def _warm(pool: BotPool) -> None:
    try:
        await pool.warm_up()
    except asyncio.CancelledError:
        raise
    except Exception as e:  # the first expert move warms it instead
        log.warning("warming the bot workers failed: %r", e)
