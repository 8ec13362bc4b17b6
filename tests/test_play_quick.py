"""``lockup play --quick``: the terminal at a table of people (issue 25), against a real
``lockup serve`` with a short ``--quick-wait`` and random computers.

Real ``lockup play`` processes on pseudo-terminals (tests/test_play_cli.py's
:class:`Terminal`): two people are seated together and see who is there and the
countdown, then the game; quitting before the start gives the seat up; a link where the
server's address belongs, or no terminal, is refused before anything is asked.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from browser_helpers import Server
from test_play_cli import LOCKUP, Terminal

pytestmark = pytest.mark.serial

WAIT = 6
"""The server's ``--quick-wait`` (quick play seats nobody in its last seconds)."""
COUNTDOWN = re.compile(r"Computers take the empty seats in (\d+) s")
CLOCK = re.compile(r"your turn · (\d+) s")
"""The status line's countdown of the person's turn clock."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("quick-tui") / "games.sqlite",
        None,
        "--bot-delay",
        "0",
        "--bot-jitter",
        "0",
        "--quick-wait",
        str(WAIT),
    )
    srv.start()
    yield srv
    srv.stop()


def plain(term: Terminal) -> str:
    """The terminal's output without its escape sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]", "", term.text())


class Page:
    """A person at a browser of their own, at an address of their own (quick play seats
    one person of an address at a table): ``POST /api/quickplay``, then the table's
    WebSocket held open (a seat counts once its page has connected) until :meth:`close`."""

    def __init__(self, server: Server, name: str, address: str) -> None:
        transport = httpx.HTTPTransport(local_address=address)
        with httpx.Client(base_url=server.url, transport=transport, timeout=20) as http:
            http.get("/")
            r = http.post("/api/quickplay", json={"name": name})
            assert r.status_code == 200, r.text
            self.room = r.json()["room"]
            cookie = http.cookies["lockup_player"]
        self.frames: list[dict[str, Any]] = []
        self._stop = threading.Event()
        headers = {"Cookie": f"lockup_player={cookie}", "Origin": server.url}
        ws_url = server.url.replace("http", "ws", 1) + "/ws"

        async def hold() -> None:
            async with websockets.connect(
                ws_url, additional_headers=headers, local_addr=(address, 0)
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "room": self.room, "since": 0}))
                while not self._stop.is_set():
                    try:
                        self.frames.append(json.loads(await asyncio.wait_for(ws.recv(), 0.2)))
                    except TimeoutError:
                        pass

        self._thread = threading.Thread(target=asyncio.run, args=(hold(),), daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)


def test_two_people_wait_together_then_play(server: Server, tmp_path: Path) -> None:
    """Ann (asked for her name) at her terminal and Bo at his browser, from another
    address, are seated at one table; Ann's terminal says who is there and counts down
    to the computers; then the game is on with both."""
    ann = Terminal(["play", "--quick", "--server", server.url, "--pace", "0"], tmp_path)
    bo: Page | None = None
    try:
        ann.until(lambda: "Your name at the table:" in ann.text(), timeout=30)
        os.write(ann.master, b"Ann\r")
        ann.until(lambda: "At the table: Ann (you)" in plain(ann), timeout=30)
        bo = Page(server, "Bo", "127.0.0.2")
        ann.until(lambda: "At the table: Ann (you), Bo" in plain(ann), timeout=10)
        counts = [int(n) for n in COUNTDOWN.findall(plain(ann))]
        assert counts and all(0 < n <= WAIT for n in counts), counts
        assert "play people at" in plain(ann)
        ann.until(lambda: "At the table as Ann" in plain(ann), timeout=WAIT + 20)
        # Both at the same game: Ann's table names Bo.
        ann.until(lambda: "Bo" in plain(ann).split("At the table as Ann", 1)[1], timeout=10)
        assert ann.quit() == 0
        rooms = [f["room"] for f in bo.frames if f.get("type") == "room"]
        assert rooms and rooms[-1]["status"] == "playing"
        assert [s["name"] for s in rooms[-1]["seats"] if s["kind"] == "person"] == ["Ann", "Bo"]
    finally:
        if bo is not None:
            bo.close()
        if ann.proc.poll() is None:
            ann.proc.kill()


def test_quitting_before_the_start_gives_the_seat_up(server: Server, tmp_path: Path) -> None:
    flo = Terminal(
        ["play", "--quick", "--server", server.url, "--name", "Flo", "--pace", "0"], tmp_path
    )
    try:
        flo.until(lambda: "At the table: Flo (you)" in plain(flo), timeout=30)
        assert flo.quit() == 0
    finally:
        if flo.proc.poll() is None:
            flo.proc.kill()
    # Flo's table, which only Flo sat at, closed before its start: nobody plays there.
    with sqlite3.connect(server.db) as db:
        rows = db.execute("SELECT status, seats, game_id FROM rooms").fetchall()
    closed = [(json.loads(seats), game) for status, seats, game in rows if status == "closed"]
    assert len(closed) == 1, rows
    assert all(s["player"] is None for s in closed[0][0]) and closed[0][1] is None
    # The next person finds no table held by Flo: a table of their own, the first seat.
    with httpx.Client(base_url=server.url, timeout=10) as dee:
        dee.get("/")
        r = dee.post("/api/quickplay", json={"name": "Dee"})
        assert r.status_code == 200, r.text
        room = dee.get(f"/api/rooms/{r.json()['room']}").json()
        assert [s["name"] for s in room["seats"] if s["kind"] == "person"] == ["Dee"]
        dee.post(f"/api/rooms/{r.json()['room']}/leave", json={})


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (
            ["--server", "http://127.0.0.1:1/room/R?invite=K"],
            2,
            "--quick takes the server's address",
        ),
        ([], 2, "needs a terminal"),
    ],
)
def test_quick_refusals_without_a_terminal(
    server: Server, tmp_path: Path, args: list[str], status: int, said: str
) -> None:
    if not args:
        args = ["--server", server.url]
    r = subprocess.run(
        [*LOCKUP, "play", "--quick", "--name", "Eve", *args],
        cwd=tmp_path,
        env={**os.environ, "LOCKUP_CONFIG_DIR": str(tmp_path / "config")},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == status, r.stderr
    assert said in r.stderr


def _seats_of(db: Path, player: str) -> list[tuple[str, int, str]]:
    """Every (room, seat, status) where ``player`` sits, in the server's database."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT id, seats, status FROM rooms").fetchall()
    return [
        (room, s["seat"] if "seat" in s else i, status)
        for room, seats, status in rows
        for i, s in enumerate(json.loads(seats))
        if s.get("player") == player
    ]


def test_q_then_the_same_command_returns_to_the_seat(server: Server, tmp_path: Path) -> None:
    """A guest terminal keeps its player between runs: ``lockup play --quick --name Cy``,
    ``q`` once the game is on, then the same command again is back at the same table and
    seat, one player at the server, not two. The turn clock counts down on the status
    line while Cy is to play."""
    config = tmp_path / "flo-config"
    args = ["play", "--quick", "--server", server.url, "--name", "Cy", "--pace", "0"]
    first = Terminal(args, tmp_path, config=config)
    try:
        first.until(lambda: "At the table as Cy" in plain(first), timeout=WAIT + 30)
        # Cy's turn comes: the status line counts Cy's 30 s down, second by second.
        first.until(lambda: len(set(CLOCK.findall(plain(first)))) >= 2, timeout=30)
        assert all(0 <= int(n) <= 30 for n in CLOCK.findall(plain(first)))
        assert first.quit() == 0
    finally:
        if first.proc.poll() is None:
            first.proc.kill()
    kept = config / "identity.json"
    assert kept.stat().st_mode & 0o777 == 0o600
    token = json.loads(kept.read_text())[server.url]["player"]
    seated = _seats_of(server.db, token)
    assert len(seated) == 1 and seated[0][2] == "playing", seated

    second = Terminal(args, tmp_path, config=config)
    try:
        second.until(lambda: "At the table as Cy" in plain(second), timeout=30)
        assert "At the table: Cy (you)" not in plain(second)  # no new table waiting
        assert second.quit() == 0
    finally:
        if second.proc.poll() is None:
            second.proc.kill()
    assert json.loads(kept.read_text())[server.url]["player"] == token
    assert _seats_of(server.db, token) == seated  # the same room, the same seat
    with sqlite3.connect(server.db) as conn:
        cys = conn.execute("SELECT id FROM players WHERE name = 'Cy'").fetchall()
    assert cys == [(token,)]  # one player at the server, not two


def test_a_config_folder_that_cannot_be_written_does_not_stop_play(
    server: Server, tmp_path: Path
) -> None:
    """The terminal cannot keep its player (its config folder is under a file): it plays
    all the same, and says once why the next run will be a new player."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    ivy = Terminal(
        ["play", "--quick", "--server", server.url, "--name", "Ivy", "--pace", "0"],
        tmp_path,
        config=blocker / "config",
    )
    try:
        # Seated and playing (the message line says first why the player is not kept).
        ivy.until(lambda: "trick 1/13" in plain(ivy), timeout=30)
        assert ivy.quit() == 0
    finally:
        if ivy.proc.poll() is None:
            ivy.proc.kill()
    out = plain(ivy)
    said = "lockup play: Your player is not kept for next time (cannot write"
    assert out.count(said) == 1, out[-1500:]
    assert blocker.read_text() == "not a folder"
