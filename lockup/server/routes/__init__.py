"""The HTTP routes of the app, by concern (the app itself: :func:`lockup.server.app.create_app`).

- :mod:`.common`: the player cookie, the app's services, JSON errors.
- :mod:`.pages`: the pages, error pages, ``/healthz``.
- :mod:`.games`: ``/api/game``, ``/api/games``, a game's record, options and refusals.
- :mod:`.rooms`: ``/api/rooms`` and ``/api/profile``.
- :mod:`.history`: history, review, analyses, uploads and statistics.
"""
