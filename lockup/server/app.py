"""The ASGI application (Starlette): pages, the JSON API and the game WebSocket.

The contract with the page is docs/web-protocol.md; the limits are docs/server.md's.
:func:`create_app` builds the app from a :class:`~lockup.server.config.ServerConfig`;
``lockup serve`` runs it on uvicorn. The routes are in :mod:`lockup.server.routes`, the
WebSocket in :mod:`lockup.server.ws`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator

from argon2 import PasswordHasher
from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from ..web import STATIC_DIR
from . import collector
from .accounts import Accounts, Passwords
from .cluster.bus import Bus, asgi_request
from .cluster.leases import Leases
from .config import ServerConfig
from .net.security import SecurityMiddleware, allowed_hosts
from .net.tokens import Players, Tokens
from .pool import BotPool
from .quick import MemoryQueue, QuickPlay, RedisQueue
from .ratings import RatingService
from .reviews import Reviews
from .rooms import RoomService
from .routes.accounts import (
    api_account,
    api_end_others,
    api_login,
    api_logout,
    api_password,
    api_sessions,
    api_signup,
)
from .routes.games import api_game, api_new_game, api_options, api_record, api_refusals
from .routes.history import api_analysis, api_history, api_review, api_stats, api_upload
from .routes.pages import _database_down, _not_found, _page, _room_page, healthz
from .routes.quick import api_quickplay
from .routes.ratings import api_game_rating, api_leaderboard, api_my_ratings
from .routes.rooms import (
    api_join_room,
    api_leave_room,
    api_lobby,
    api_new_room,
    api_profile,
    api_room,
)
from .session import GameService
from .store import Store, StoreError
from .ws.endpoint import watch_owners, ws_endpoint
from .ws.guards import Guards
from .ws.remote import Remotes

log = logging.getLogger("lockup.server")


def create_app(config: ServerConfig | None = None, *, store: Store | None = None) -> Starlette:
    """The Lockup server app as ``config`` says (see :class:`~lockup.server.config.ServerConfig`;
    default: every setting's default).

    ``store`` may be an already opened :class:`Store` for ``config.db``. With
    ``config.redis``, the app is one of several processes on one database (PostgreSQL):
    games are owned under leases and WebSockets of games another process owns are forwarded
    to it (see :mod:`lockup.server.cluster`).
    """
    config = config or ServerConfig()
    the_store = store or Store(config.db)
    pool = BotPool(processes=config.bot_processes, hint_processes=config.hint_processes)
    leases = Leases(the_store) if config.redis is not None else None
    bus = (
        Bus(config.redis, leases.owner) if config.redis is not None and leases is not None else None
    )
    service = GameService(the_store, pool, config, leases=leases)
    ratings = RatingService(the_store, service.default_level)
    service.on_finish = ratings.finished

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await the_store.start()
        tokens = Tokens(await the_store.secret())
        app.state.players = Players(tokens, lambda t: _known_player(the_store, t))
        await service.start()
        await ratings.start()
        watcher = None
        if bus is not None:
            Remotes(app, bus)
            bus.on_http = functools.partial(asgi_request, app)
            await bus.start()
            watcher = asyncio.create_task(watch_owners(bus, service), name="lockup-owners")
        # What start-up made lives as long as the server: frozen, out of the collector's
        # passes; the full passes are the server's own, a few minutes apart (collector.py).
        thresholds = collector.settle()
        full_passes = asyncio.create_task(collector.full_passes(), name="lockup-gc")
        try:
            yield
        finally:
            full_passes.cancel()
            collector.restore(thresholds)
            if watcher is not None:
                watcher.cancel()
            if bus is not None:
                await bus.close()
            await service.close()
            await ratings.close()
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
        Route("/leaderboard", _page("leaderboard.html")),
        Route("/account", _page("account.html")),
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
        Route("/api/quickplay", api_quickplay, methods=["POST"]),
        Route("/api/profile", api_profile, methods=["GET", "POST"]),
        Route("/api/history", api_history, methods=["GET"]),
        Route("/api/stats", api_stats, methods=["GET"]),
        Route("/api/leaderboard", api_leaderboard, methods=["GET"]),
        Route("/api/ratings/me", api_my_ratings, methods=["GET"]),
        Route("/api/account", api_account, methods=["GET"]),
        Route("/api/account/signup", api_signup, methods=["POST"]),
        Route("/api/account/login", api_login, methods=["POST"]),
        Route("/api/account/logout", api_logout, methods=["POST"]),
        Route("/api/account/password", api_password, methods=["POST"]),
        Route("/api/account/sessions", api_sessions, methods=["GET"]),
        Route("/api/account/sessions/end-others", api_end_others, methods=["POST"]),
        Route("/api/ratings/game/{game}", api_game_rating, methods=["GET"]),
        Route("/api/uploads", api_upload, methods=["POST"]),
        Route("/api/games/{game_id}/review", api_review, methods=["GET"]),
        Route("/api/games/{game_id}/analysis", api_analysis, methods=["GET", "POST"]),
        WebSocketRoute("/ws", ws_endpoint),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]
    hosts = allowed_hosts(config.host, config.extra_hosts)
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
    app.state.quick = QuickPlay(
        app.state.rooms,
        RedisQueue(bus.redis) if bus is not None else MemoryQueue(),
        config.quick_wait,
        service.default_level,
        config.quick_grace,
        config.quick_turn_timer,
    )
    app.state.ratings = ratings
    app.state.accounts = Accounts(
        the_store,
        Passwords(
            PasswordHasher(
                time_cost=config.password_time_cost, memory_cost=config.password_memory_kib
            )
        ),
    )
    app.state.reviews = Reviews(the_store, config.analysis_workers, config.analysis_iterations)
    app.state.store = the_store
    app.state.guards = Guards(config.limits, bus.redis if bus is not None else None)
    app.state.bus = bus
    return app


async def _known_player(store: Store, token: str) -> bool:
    return await store.player_game(token) is not None
