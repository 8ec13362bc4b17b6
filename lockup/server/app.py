"""The ASGI application (Starlette): pages, the JSON API and the game WebSocket.

The contract with the page is docs/web-protocol.md; the limits are docs/server.md's.
:func:`create_app` builds the app; ``lockup serve`` runs it on uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import logging
import re
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from ..refusals import catalogue as refusal_catalogue
from ..web import STATIC_DIR
from .bus import Bus, asgi_request
from .cluster import Leases, OwnedElsewhere
from .pool import BotPool
from .protocol import OptionError, ProtocolError, loads, options_document, parse_options
from .reviews import Reviews
from .rooms import RoomService, check_name, no_room, parse_room_options
from .security import SecurityMiddleware, allowed_hosts
from .session import GameService, GameSession, available_levels
from .store import Store, StoreError
from .tokens import Players, Tokens
from .websocket import Guards, Limits, Remotes, watch_owners, ws_endpoint

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


ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a room id in a page's address may be (the page's own check, js/room-core.js)."""


def _not_found_page() -> Response:
    """The site's own page for an address that leads nowhere (status 404)."""
    response = FileResponse(
        STATIC_DIR / "notfound.html", status_code=404, media_type="text/html; charset=utf-8"
    )
    response.headers["Cache-Control"] = "no-cache"
    return response


def _room_page() -> Any:
    """``/room/{id}`` and ``/watch/{id}``: the table's page, or the not-found page for an id
    that cannot be a room's (``/room/<script>`` deals no game of its own)."""
    table = _page("index.html")

    async def page(request: Request) -> Response:
        if not ROOM_ID.fullmatch(request.path_params["room_id"]):
            return _not_found_page()
        response: Response = await table(request)
        return response

    return page


async def _not_found(request: Request, exc: Exception) -> Response:
    """An address that leads nowhere: a person's browser gets the site's page; the API,
    the static files and other clients the short answer they had."""
    path = request.url.path
    accept = request.headers.get("accept", "")
    if (
        request.method in ("GET", "HEAD")
        and "text/html" in accept
        and not path.startswith(("/api/", "/static/", "/ws"))
    ):
        return _not_found_page()
    detail = getattr(exc, "detail", None) or "Not Found"
    return PlainTextResponse(str(detail), 404)


async def _database_down(request: Request, exc: Exception) -> Response:
    """The database cannot be reached (stopped, restarting): 503 with a reason and
    ``Retry-After``, one log line, never a traceback or a bare 500."""
    log.warning(
        "%s %s: the database is unavailable: %s",
        request.method,
        request.url.path,
        str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__,
    )
    return _unavailable()


def _game_json(session: GameSession, seat: int) -> dict[str, Any]:
    return {"game": session.id, "seat": seat, "version": session.version, "level": session.level}


def _address(request: Request) -> str:
    return request.client.host if request.client else ""


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
    from ..record import dumps

    game_id = request.path_params["game_id"]
    token = await request.app.state.players.known(request.cookies.get(COOKIE))
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


# ---------------------------------------------------------------------- rooms


def _rooms(request: Request) -> RoomService:
    rooms: RoomService = request.app.state.rooms
    return rooms


async def _json_body(request: Request) -> Any:
    body = await request.body()
    return loads(body) if body.strip() else {}


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
    if options.public:
        store = _service(request).store
        tag = await store.address_tag(_address(request))
        async with guards.public_rooms(tag):  # counted, made and tagged as one
            try:
                await _check_public_rooms(request, token, tag)
            except ProtocolError as e:
                return _error(429, e)
            room = await _rooms(request).create(token, options, name)
            await store.tag_room(room.id, tag)
    else:
        room = await _rooms(request).create(token, options, name)
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


FORWARDED = "x-lockup-forwarded"
"""The header of an HTTP request another process forwarded (never forwarded again)."""


async def _elsewhere(request: Request) -> Response | None:
    """Several processes: the answer of the process that has the room, when another
    process has it (None: this process answers)."""
    bus: Bus | None = request.app.state.bus
    leases = _service(request).leases
    if bus is None or leases is None or request.headers.get(FORWARDED):
        return None
    key = f"room:{request.path_params['room_id']}"
    if key in leases.held:
        return None
    holder = await _service(request).store.lease_holder(key)
    if holder is None or holder[0] == leases.owner:
        return None
    headers = [(k, v) for k, v in request.headers.items() if k not in ("content-length",)]
    try:
        reply = await bus.call(
            holder[0],
            {
                "method": request.method,
                "path": request.url.path,
                "query": request.url.query,
                "headers": [*headers, (FORWARDED, "1")],
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
    token = await request.app.state.players.known(request.cookies.get(COOKIE))
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
    try:
        seat = await rooms.join(
            room, token, invite if isinstance(invite, str) else None, seat, name
        )
    except ProtocolError as e:
        status = {"no-room": 404, "bad-message": 400}.get(e.code, 409)
        return _error(status, e)
    response = JSONResponse({"room": room.id, "seat": seat})
    if new:
        _set_cookie(request, response, token)
    return response


async def api_leave_room(request: Request) -> Response:
    """``POST /api/rooms/{id}/leave``: give up one's seat before the game starts."""
    forwarded = await _elsewhere(request)
    if forwarded is not None:
        return forwarded
    token = await request.app.state.players.known(request.cookies.get(COOKIE))
    try:
        await request.app.state.guards.seat_change(token, _address(request))
    except ProtocolError as e:
        return _error(429, e)
    room = await _rooms(request).get(request.path_params["room_id"])
    if room is None or token is None or room.seat_of(token) is None:
        return _error(404, no_room())
    try:
        await _rooms(request).leave(room, token)
    except ProtocolError as e:
        return _error(409, e)
    return JSONResponse({"room": room.id, "seat": None})


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


# ---------------------------------------------------------------------- review, history, stats


def _reviews(request: Request) -> Reviews:
    reviews: Reviews = request.app.state.reviews
    return reviews


async def _known(request: Request) -> str | None:
    token: str | None = await request.app.state.players.known(request.cookies.get(COOKIE))
    return token


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
    analysis_workers: int = 1,
    analysis_iterations: int | None = None,
    store: Store | None = None,
    redis: str | None = None,
) -> Starlette:
    """The Lockup server app storing games in ``db`` (an SQLAlchemy URL).

    ``level`` is the bots' level for a game that names none (default: ``normal``).
    ``move_slots``: how many games may make a bot's move at once; ``bot_delay`` and
    ``bot_jitter``: how long a bot's card is held (see :class:`GameService`); ``limits``:
    what one client may ask; ``host`` and ``extra_hosts``: the ``Host`` names answered
    (see :mod:`lockup.server.security`); ``warm``: start the bot workers and load the
    expert's search at start-up, in the background; ``analysis_workers`` and
    ``analysis_iterations``: the processes and the budget of reviews' analyses (see
    :class:`~lockup.server.reviews.Reviews`). ``store`` may be an already opened
    :class:`Store` for ``db``. ``redis``: a Redis URL, for one of several processes on
    one database (PostgreSQL): games are owned under leases and WebSockets of games
    another process owns are forwarded to it (see :mod:`lockup.server.bus`).
    """
    the_store = store or Store(db)
    pool = BotPool(processes=bot_processes, hint_processes=hint_processes)
    leases = Leases(the_store) if redis is not None else None
    bus = Bus(redis, leases.owner) if redis is not None and leases is not None else None
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
        leases=leases,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await the_store.start()
        tokens = Tokens(await the_store.secret())
        app.state.players = Players(tokens, lambda t: _known_player(the_store, t))
        await service.start()
        watcher = None
        if bus is not None:
            Remotes(app, bus)
            bus.on_http = functools.partial(asgi_request, app)
            await bus.start()
            watcher = asyncio.create_task(watch_owners(bus, service), name="lockup-owners")
        # What start-up made (modules, tables, the engine's constants) lives as long as the
        # server: kept out of the collector's full passes, which would otherwise scan it
        # again and again between cards (pauses that show as acknowledgement spikes).
        gc.collect()
        gc.freeze()
        warming = asyncio.create_task(_warm(pool)) if warm else None
        try:
            yield
        finally:
            if warming is not None:
                warming.cancel()
            if watcher is not None:
                watcher.cancel()
            if bus is not None:
                await bus.close()
            await service.close()
            app.state.reviews.close()
            pool.close()
            await the_store.close()

    routes: list[BaseRoute] = [
        Route("/", _page("index.html")),
        Route("/rules", _page("rules.html")),
        Route("/help", _page("help.html")),
        Route("/room/{room_id}", _room_page()),
        Route("/watch/{room_id}", _room_page()),
        Route("/lobby", _page("index.html")),
        Route("/review/{game_id}", _page("review.html")),
        Route("/history", _page("history.html")),
        Route("/stats", _page("stats.html")),
        Route("/healthz", healthz),
        Route("/api/options", api_options, methods=["GET"]),
        Route("/api/refusals", api_refusals, methods=["GET"]),
        Route("/api/game", api_game, methods=["GET"]),
        Route("/api/games", api_new_game, methods=["POST"]),
        Route("/api/games/{game_id}/record", api_record, methods=["GET"]),
        Route("/api/rooms", api_new_room, methods=["POST"]),
        Route("/api/rooms", api_lobby, methods=["GET"]),
        Route("/api/rooms/{room_id}", api_room, methods=["GET"]),
        Route("/api/rooms/{room_id}/join", api_join_room, methods=["POST"]),
        Route("/api/rooms/{room_id}/leave", api_leave_room, methods=["POST"]),
        Route("/api/profile", api_profile, methods=["GET", "POST"]),
        Route("/api/history", api_history, methods=["GET"]),
        Route("/api/stats", api_stats, methods=["GET"]),
        Route("/api/uploads", api_upload, methods=["POST"]),
        Route("/api/games/{game_id}/review", api_review, methods=["GET"]),
        Route("/api/games/{game_id}/analysis", api_analysis, methods=["GET", "POST"]),
        WebSocketRoute("/ws", ws_endpoint),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    hosts = allowed_hosts(host, extra_hosts)
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(SecurityMiddleware, hosts=hosts)],
        exception_handlers={
            404: _not_found,
            StoreError: _database_down,
            SQLAlchemyError: _database_down,
        },
    )
    app.state.service = service
    app.state.rooms = RoomService(service)
    app.state.reviews = Reviews(the_store, analysis_workers, analysis_iterations)
    app.state.store = the_store
    app.state.guards = Guards(limits or Limits(), bus.redis if bus is not None else None)
    app.state.bus = bus
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
