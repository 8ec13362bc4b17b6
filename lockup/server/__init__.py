"""The browser game's server: Starlette on uvicorn, games stored through SQLAlchemy.

- :mod:`lockup.server.app`: pages and the JSON API; :func:`create_app` builds the app.
- :mod:`lockup.server.websocket`: the game WebSocket, one connection per page, its limits.
- :mod:`lockup.server.protocol`: every frame of docs/web-protocol.md, parsed or built.
- :mod:`lockup.server.history`: a seat's recent frames, for pages that reconnect.
- :mod:`lockup.server.session`: games as the server runs them, versioned per-seat events.
- :mod:`lockup.server.limits`: rate limits and move slots with priorities.
- :mod:`lockup.server.security`: host, origin and content-type checks, security headers.
- :mod:`lockup.server.tokens`: the player tokens the server signs.
- :mod:`lockup.server.store`: the database (SQLite by default, Alembic migrations), a record
  per game.
- :mod:`lockup.server.pool`: bots and hints think in worker threads and processes.
- :mod:`lockup.server.netguard`: transport limits on uvicorn (headers, bodies, timeouts,
  connections per address).
- :mod:`lockup.server.cli`, :mod:`lockup.server.dbcli`: ``lockup serve``, ``lockup db``.
"""

from .app import create_app

__all__ = ["create_app"]
