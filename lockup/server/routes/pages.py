"""The pages (the web client's HTML), the error pages and answers, ``/healthz``."""

from __future__ import annotations

import logging
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response

from ...web import STATIC_DIR
from .common import _identity, _set_cookie, _set_session_cookie, _unavailable

log = logging.getLogger("lockup.server")


def _page(name: str) -> Any:
    async def page(request: Request) -> Response:
        response = FileResponse(STATIC_DIR / name, media_type="text/html; charset=utf-8")
        response.headers["Cache-Control"] = "no-cache"
        identity = await _identity(request)
        if identity.new_browser:
            _set_cookie(request, response, identity.browser)
        if identity.stale_session:
            _set_session_cookie(request, response, None)
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


async def healthz(request: Request) -> Response:
    """``GET /healthz``: ``ok``."""
    return PlainTextResponse("ok")
