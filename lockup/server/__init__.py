"""The browser game's server: Starlette on uvicorn, games stored through SQLAlchemy.

- :mod:`lockup.server.config`: :class:`~lockup.server.config.ServerConfig`, every setting.
- :mod:`lockup.server.app`: :func:`create_app` builds the app from a config.
- :mod:`lockup.server.routes`: the HTTP routes (pages, games, rooms, history and review).
- :mod:`lockup.server.ws`: the game WebSocket, one connection per page, its limits.
- :mod:`lockup.server.protocol`: every frame of docs/web-protocol.md, typed, parsed or built.
- :mod:`lockup.server.session`: games as the server runs them, versioned per-seat events.
- :mod:`lockup.server.rooms`: rooms with friends.
- :mod:`lockup.server.reviews`: history, review, uploads, statistics.
- :mod:`lockup.server.store`: the database (SQLite by default, Alembic migrations), a record
  per game.
- :mod:`lockup.server.cluster`: several processes: leases and the Redis bus.
- :mod:`lockup.server.net`: transport limits on uvicorn, rate limits, host and origin
  checks, the player tokens.
- :mod:`lockup.server.pool`: bots and hints think in worker threads and processes.
- :mod:`lockup.server.cli`, :mod:`lockup.server.dbcli`: ``lockup serve``, ``lockup db``.
"""

from .app import create_app

__all__ = ["create_app"]
