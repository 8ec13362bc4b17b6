"""A server at its capacity says so in words; a port in use is refused before anything.

A real ``lockup serve`` with ``--limit-concurrency 1``: while one WebSocket is open, an
API request is answered 503 ``{"error": "server-full", ...}`` with ``Retry-After`` (not
uvicorn's bare "Service Unavailable"), a new WebSocket gets an ``error`` frame of that
code and is closed with 1013 and the reason ``server-full``, while ``/healthz``, the page
and its files are still served; once the socket closes, new games are made again.

``lockup serve`` on a port something listens on stops with a plain line and status 3,
before it prints its address and before it makes the database.

The help and the docs name the same bot levels.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from browser_helpers import Server

from lockup.server.net.serve import FILES_KEPT, fit_to_open_files
from lockup.server.net.transport import NetLimits

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def full_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose capacity is one WebSocket or API request at once."""
    srv = Server(
        tmp_path_factory.mktemp("capacity") / "games.sqlite",
        None,
        "--limit-concurrency",
        "1",
        "--new-games-per-address",
        "0",
    )
    srv.start()
    yield srv
    srv.stop()


def new_game(url: str) -> httpx.Response:
    return httpx.post(f"{url}/api/games", json={"level": "random"}, timeout=10)


async def _at_capacity(url: str) -> dict[str, object]:
    ws_url = url.replace("http", "ws", 1) + "/ws"
    seen: dict[str, object] = {}
    async with websockets.connect(ws_url) as holder:  # the one slot
        await asyncio.sleep(0.2)
        async with httpx.AsyncClient(base_url=url, timeout=10) as http:
            r = await http.post("/api/games", json={"level": "random"})
            seen["status"] = r.status_code
            seen["retry_after"] = r.headers.get("retry-after")
            seen["type"] = r.headers.get("content-type")
            seen["body"] = r.json()
            seen["healthz"] = (await http.get("/healthz")).text
            seen["page"] = (await http.get("/")).status_code
            seen["static"] = (await http.get("/static/i18n/fr.json")).status_code
        async with websockets.connect(ws_url) as refused:
            seen["frame"] = json.loads(await asyncio.wait_for(refused.recv(), 5))
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                await asyncio.wait_for(refused.recv(), 5)
            seen["close"] = (closed.value.rcvd.code, closed.value.rcvd.reason)  # type: ignore[union-attr]
        await holder.send('{"type":"ping"}')  # the socket under way is untouched
        seen["pong"] = json.loads(await asyncio.wait_for(holder.recv(), 5))["type"]
    return seen


def test_past_capacity_the_answer_says_the_server_is_full(full_server: Server) -> None:
    assert new_game(full_server.url).status_code == 200  # below capacity: served
    seen = asyncio.run(_at_capacity(full_server.url))
    assert seen["status"] == 503
    assert seen["type"] == "application/json"
    assert seen["retry_after"] == "60"
    body = seen["body"]
    assert isinstance(body, dict) and body["error"] == "server-full"
    assert "full" in body["reason"] and "minute" in body["reason"]
    assert seen["healthz"] == "ok" and seen["page"] == 200 and seen["static"] == 200
    frame = seen["frame"]
    assert isinstance(frame, dict)
    assert frame["type"] == "error" and frame["code"] == "server-full"
    assert frame["params"] == {"retry_after": 60}
    assert seen["close"] == (1013, "server-full")
    assert seen["pong"] == "pong"
    for _ in range(50):  # the slot is given back once the socket is gone
        if new_game(full_server.url).status_code == 200:
            break
        asyncio.run(asyncio.sleep(0.1))
    else:
        pytest.fail("no new game once the server had room again")
    log = full_server.log.read_text(errors="replace")
    assert "refused: the server is full (1 at once)" in log


def test_the_limit_fits_the_open_files() -> None:
    limits = NetLimits(limit_concurrency=5000)
    assert fit_to_open_files(limits, 1_048_576) is limits
    fitted = fit_to_open_files(limits, 1024)
    assert fitted.limit_concurrency == (1024 - FILES_KEPT) // 2
    assert fit_to_open_files(NetLimits(limit_concurrency=0), 1024).limit_concurrency == 0


def test_a_port_in_use_is_refused_before_anything(tmp_path: Path) -> None:
    db = tmp_path / "x.sqlite"
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "lockup",
                "serve",
                "--port",
                str(port),
                "--db",
                f"sqlite:///{db}",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 3
    assert f"lockup serve: port {port} on 127.0.0.1 is in use" in done.stderr
    assert "Lockup: http" not in done.stderr
    assert "Traceback" not in done.stderr
    assert not db.exists() and not list(tmp_path.iterdir())


def _help(*args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "lockup", *args, "--help"], capture_output=True, text=True
    )
    return " ".join(out.stdout.split())


def test_help_and_docs_name_the_same_levels_and_workers() -> None:
    from lockup.bots import LEVELS

    serve = _help("serve")
    docs = (ROOT / "docs" / "server.md").read_text(encoding="utf-8")
    level_row = next(line for line in docs.splitlines() if line.startswith("| `--level`"))
    level_help = serve.split("--level LEVEL the bots'", 1)[1].split("--bot-processes N", 1)[0]
    for level in LEVELS:
        assert level in level_help, level
        assert f"`{level}`" in level_row, level
    bot_help = serve.split("--bot-processes N worker", 1)[1].split("--move-slots N", 1)[0]
    bot_row = next(line for line in docs.splitlines() if line.startswith("| `--bot-processes"))
    for words in ("expert", "master", "--hint-processes"):
        assert words in bot_help and words in bot_row, words
    analyse = _help("analyse")
    analysis_doc = (ROOT / "docs" / "analysis.md").read_text(encoding="utf-8")
    row = next(line for line in analysis_doc.splitlines() if line.startswith("| `--workers"))
    for words in ("the CPUs", "one per 8 decisions"):
        assert words in analyse and words in row
    assert re.search(r"1: in this process", analyse) and "1: in this process" in row
