"""The ASGI application (Starlette): pages, the JSON API and the game WebSocket.

The contract with the page is docs/web-protocol.md. :func:`create_app` builds the app;
``lockup serve`` runs it on uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from .pool import BotPool
from .session import (
    GameService,
    GameSession,
    OptionError,
    ProtocolError,
    available_levels,
    error_frame,
    new_token,
    parse_options,
    to_json,
    valid_token,
)
from .store import Store

log = logging.getLogger("lockup.server")

COOKIE = "lockup_player"
"""The cookie a player is known by."""
COOKIE_MAX_AGE = 400 * 24 * 3600
STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"
"""The front end's files (package data)."""
MAX_MESSAGE = 4096
"""The longest client message the WebSocket accepts, in characters."""
MAX_QUEUED = 2000
"""A connection with this many unsent frames is too slow and is closed."""

_PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Lockup</title></head>
<body><h1>Lockup</h1><p>The {what} page is not installed yet
(lockup/web/static/{name}). The game server is running: see <code>/api/game</code>.</p>
</body></html>
"""


def default_level() -> str:
    """``normal`` if the bots provide it, else ``random``."""
    return "normal" if "normal" in available_levels() else "random"


# ---------------------------------------------------------------------- HTTP


def _player(request: Request) -> tuple[str, bool]:
    """The request's player token, and whether it is new (the cookie must be set)."""
    token = request.cookies.get(COOKIE)
    if token is not None and valid_token(token):
        return token, False
    return new_token(), True


def _set_cookie(response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE, token, max_age=COOKIE_MAX_AGE, path="/", httponly=True, samesite="lax"
    )


def _page(name: str, what: str) -> Any:
    async def page(request: Request) -> Response:
        path = STATIC_DIR / name
        response: Response
        if path.is_file():
            response = FileResponse(path, media_type="text/html; charset=utf-8")
        else:
            response = HTMLResponse(_PLACEHOLDER.format(what=what, name=name))
        response.headers["Cache-Control"] = "no-cache"
        token, new = _player(request)
        if new:
            _set_cookie(response, token)
        return response

    return page


def _service(request: Request | WebSocket) -> GameService:
    service: GameService = request.app.state.service
    return service


def _game_json(session: GameSession, seat: int) -> dict[str, Any]:
    return {"game": session.id, "seat": seat, "version": session.version}


async def api_game(request: Request) -> Response:
    """``GET /api/game``: the player's current game, created at once if there is none."""
    token, new = _player(request)
    session = await _service(request).current(token)
    seat = session.seat_of(token)
    assert seat is not None
    response = JSONResponse(_game_json(session, seat))
    if new:
        _set_cookie(response, token)
    return response


async def api_new_game(request: Request) -> Response:
    """``POST /api/games``: a new game with the options of the JSON body."""
    service = _service(request)
    body = await request.body()
    try:
        data = json.loads(body) if body.strip() else {}
    except (ValueError, UnicodeDecodeError):
        return JSONResponse(
            {"error": "bad-request", "reason": "The body must be a JSON object of options."}, 400
        )
    try:
        rules, level = parse_options(data, service.default_level)
    except OptionError as e:
        return JSONResponse({"error": "bad-option", "reason": str(e)}, 400)
    token, new = _player(request)
    session = await service.new_game(token, rules, level)
    response = JSONResponse(_game_json(session, 0))
    if new:
        _set_cookie(response, token)
    return response


async def api_record(request: Request) -> Response:
    """``GET /api/games/{id}/record``: a finished game's ``lockup-record/1`` file."""
    from ..record import dumps

    game_id = request.path_params["game_id"]
    session = await _service(request).get(game_id)
    if session is None:
        return JSONResponse({"error": "no-game", "reason": "There is no such game."}, 404)
    token = request.cookies.get(COOKIE)
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


class _Static(StaticFiles):
    """The front end's files; a 404 (not an error) while they are not installed."""

    async def check_config(self) -> None:
        """Accept a missing directory: every path is then not found."""
        if self.directory is not None and Path(self.directory).is_dir():
            await super().check_config()


# ---------------------------------------------------------------------- WebSocket


class Connection:
    """One WebSocket: its player, its game and seat, and a queue of frames to send."""

    def __init__(self, ws: WebSocket, player: str | None) -> None:
        self.ws = ws
        self.player = player
        self.seat = -1
        self.session: GameSession | None = None
        self._queue: asyncio.Queue[str | int] = asyncio.Queue()
        self._closed = False

    def send(self, text: str) -> None:
        """Queue a frame (a slow client with too many queued frames is disconnected)."""
        if self._closed:
            return
        if self._queue.qsize() >= MAX_QUEUED:
            log.warning("closing a connection that does not keep up")
            self.close(1008)
            return
        self._queue.put_nowait(text)

    def close(self, code: int) -> None:
        """Close the WebSocket after the frames already queued."""
        if not self._closed:
            self._closed = True
            self._queue.put_nowait(code)

    def error(self, e: ProtocolError) -> None:
        """Send an ``error`` frame for a refused message."""
        version = self.session.version if self.session is not None else None
        self.send(error_frame(e.code, e.reason, version, e.rule, e.params))

    async def run_sender(self) -> None:
        """Send queued frames in order until closed."""
        try:
            while True:
                item = await self._queue.get()
                if isinstance(item, int):
                    await self.ws.close(code=item)
                    return
                await self.ws.send_text(item)
        except (WebSocketDisconnect, RuntimeError, OSError):
            return


def _origin_ok(ws: WebSocket) -> bool:
    """Refuse pages of another site (the cookie would let them play for the player)."""
    origin = ws.headers.get("origin")
    if not origin:
        return True
    host = ws.headers.get("host", "")
    return urlsplit(origin).netloc.lower() == host.lower()


async def ws_endpoint(ws: WebSocket) -> None:
    """``/ws``: the game protocol of docs/web-protocol.md."""
    if not _origin_ok(ws):
        await ws.close(code=1008)
        return
    await ws.accept()
    token = ws.cookies.get(COOKIE)
    conn = Connection(ws, token if token is not None and valid_token(token) else None)
    sender = asyncio.create_task(conn.run_sender())
    tasks: set[asyncio.Task[None]] = set()
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                conn.error(ProtocolError("bad-message", "Messages are JSON text frames."))
                continue
            await _handle(conn, text, tasks)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        if conn.session is not None:
            conn.session.leave(conn)
        for t in tasks:
            t.cancel()
        conn.close(1000)
        if ws.application_state == WebSocketState.DISCONNECTED or sender.done():
            sender.cancel()
        else:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(sender, 2.0)


async def _handle(conn: Connection, text: str, tasks: set[asyncio.Task[None]]) -> None:
    """Answer one client message; a refused one gets an ``error`` and changes nothing."""
    try:
        if len(text) > MAX_MESSAGE:
            raise ProtocolError("bad-message", "The message is too long.")
        try:
            msg = json.loads(text)
        except ValueError:
            raise ProtocolError("bad-message", "The message is not JSON.") from None
        if not isinstance(msg, dict):
            raise ProtocolError("bad-message", 'A message is a JSON object with a "type".')
        kind = msg.get("type")
        if kind == "ping":
            conn.send('{"type":"pong"}')
        elif kind == "hello":
            await _hello(conn, msg)
        elif kind == "play":
            session = _joined(conn)
            await session.play(conn.seat, msg.get("card"), msg.get("version"))
        elif kind == "hint":
            session = _joined(conn)
            task = asyncio.create_task(_hint(conn, session, msg.get("version")))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        else:
            raise ProtocolError(
                "bad-message",
                f"Unknown message type {str(kind)[:20]!r}: hello, play, hint or ping.",
            )
    except ProtocolError as e:
        conn.error(e)
    except Exception:
        log.exception("a message failed")
        conn.error(ProtocolError("server-error", "The server could not handle the message."))


def _joined(conn: Connection) -> GameSession:
    if conn.session is None:
        raise ProtocolError("no-game", 'Send {"type": "hello", "game": id} first.')
    return conn.session


async def _hello(conn: Connection, msg: dict[str, Any]) -> None:
    since = msg.get("since", 0)
    if since is None:
        since = 0
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        raise ProtocolError("bad-message", '"since" must be the last version the page has, or 0.')
    game_id = msg.get("game")
    if game_id is not None and not isinstance(game_id, str):
        raise ProtocolError("bad-message", '"game" must be a game id as /api/game gives it.')
    if conn.player is None:
        raise ProtocolError(
            "not-your-game", "No player cookie: open the page first to get one.", params={}
        )
    service = _service(conn.ws)
    for _ in range(3):
        if game_id is None:
            session = await service.current(conn.player)
        else:
            found = await service.get(game_id)
            if found is None:
                raise ProtocolError("no-game", "There is no such game.", params={"game": game_id})
            session = found
        seat = session.seat_of(conn.player)
        if seat is None:
            raise ProtocolError("not-your-game", "You have no seat in this game.")
        async with session.lock:
            if session.closed:
                continue
            if conn.session is not None:
                conn.session.leave(conn)
            conn.seat = seat
            conn.session = session
            session.join(conn, since)
            return
    raise ProtocolError("server-error", "The game could not be loaded; try again.")


async def _hint(conn: Connection, session: GameSession, version: Any) -> None:
    try:
        conn.send(to_json(await session.hint(conn.seat, version)))
    except ProtocolError as e:
        conn.error(e)
    except asyncio.CancelledError:
        raise
    except Exception as e:
        log.error("hint failed: %r", e)
        conn.error(ProtocolError("hint-unavailable", "The hint could not be computed."))


# ---------------------------------------------------------------------- the app


def create_app(
    db: str = "sqlite:///lockup.sqlite",
    *,
    level: str | None = None,
    bot_processes: int | None = None,
    hint_time: float | None = None,
    idle_s: float = 120.0,
    move_slots: int = 4,
    store: Store | None = None,
) -> Starlette:
    """The Lockup server app storing games in ``db`` (an SQLAlchemy URL).

    ``level`` is the bots' level for a game that names none (default: ``normal``, or
    ``random`` until the bots provide ``normal``). ``move_slots``: how many games may make
    a bot's move at once (see :class:`GameService`). ``store`` may be an already opened
    :class:`Store` for ``db``.
    """
    the_store = store or Store(db)
    pool = BotPool(processes=bot_processes)
    service = GameService(
        the_store,
        pool,
        default_level=level or default_level(),
        hint_time=hint_time,
        idle_s=idle_s,
        bot_slots=move_slots,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await the_store.start()
        await service.start()
        try:
            yield
        finally:
            await service.close()
            pool.close()
            await the_store.close()

    routes: list[BaseRoute] = [
        Route("/", _page("index.html", "table")),
        Route("/rules", _page("rules.html", "rules")),
        Route("/help", _page("help.html", "help")),
        Route("/healthz", healthz),
        Route("/api/game", api_game, methods=["GET"]),
        Route("/api/games", api_new_game, methods=["POST"]),
        Route("/api/games/{game_id}/record", api_record, methods=["GET"]),
        WebSocketRoute("/ws", ws_endpoint),
        Mount("/static", app=_Static(directory=STATIC_DIR, check_dir=False), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.service = service
    app.state.store = the_store
    return app
