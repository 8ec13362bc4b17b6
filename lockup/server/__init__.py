"""The browser game's server: Starlette on uvicorn, games stored through SQLAlchemy.

- :mod:`lockup.server.app`: pages, the JSON API and the game WebSocket
  (docs/web-protocol.md); :func:`create_app` builds it.
- :mod:`lockup.server.session`: games as the server runs them, versioned per-seat events.
- :mod:`lockup.server.store`: the database (SQLite by default), a record per game.
- :mod:`lockup.server.pool`: bots think in worker threads and processes.
- :mod:`lockup.server.cli`: ``lockup serve``.
"""

from .app import create_app

__all__ = ["create_app"]
