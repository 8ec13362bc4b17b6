"""A polite stop (SIGTERM, what systemd, Docker and the ``--workers`` supervisor send)
ends ``lockup serve`` the way Ctrl-C does: through Python's own exit, with status 0, its
worker pools' named semaphores unlinked ("resource_tracker: ... leaked semaphore objects"
never printed) and the database file's lock given back.

Before, uvicorn re-sent the SIGTERM it had handled to the system's default handler once its
shutdown was done, so the process died of the signal (status -15) without its exit
handlers, and the pools' semaphores the collector had not reached yet leaked: about one
stop in five printed the warning.
"""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest
from browser_helpers import Server

pytestmark = pytest.mark.serial


def test_sigterm_ends_the_server_normally_and_leaks_nothing(tmp_path: Path) -> None:
    db = tmp_path / "stop.sqlite"
    games: list[tuple[str, str]] = []  # (game, its player's cookie)
    for _ in range(3):
        server = Server(db).start()
        assert server.proc is not None
        with httpx.Client(base_url=server.url, timeout=30) as http:
            # an expert game: a bot worker process (of a spawned pool) thinks its cards
            r = http.post("/api/games", json={"level": "expert"})
            assert r.status_code == 200, r.text
            games.append((r.json()["game"], http.cookies["lockup_player"]))
            assert http.get("/healthz").text == "ok"
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(30) == 0
        log = server.log.read_text()
        assert "leaked" not in log and "Traceback" not in log, log[-2000:]
    # Each start found the file free again, and the games of the earlier runs are stored.
    server = Server(db).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            for game, cookie in games:
                r = http.get(f"/api/games/{game}/record", cookies={"lockup_player": cookie})
                # stored and still under way: its record is offered once it is over
                assert r.json()["error"] == "game-under-way", r.text
    finally:
        server.stop()
