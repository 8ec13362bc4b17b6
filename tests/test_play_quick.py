"""``lockup play --quick``: the terminal at a table of people (issue 25), against a real
``lockup serve`` with a short ``--quick-wait`` and random computers.

Real ``lockup play`` processes on pseudo-terminals (tests/test_play_cli.py's
:class:`Terminal`): two people are seated together and see who is there and the
countdown, then the game; quitting before the start gives the seat up; a link where the
server's address belongs, or no terminal, is refused before anything is asked.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from browser_helpers import Server
from test_play_cli import LOCKUP, Terminal

pytestmark = pytest.mark.serial

WAIT = 3
"""The server's ``--quick-wait``."""
COUNTDOWN = re.compile(r"Computers take the empty seats in (\d+) s")


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


def test_two_people_wait_together_then_play(server: Server, tmp_path: Path) -> None:
    """Ann (--name) and Bo (asked for his name) are seated at one table; each terminal
    says who is there and counts down to the computers; then the game is on."""
    ann = Terminal(
        ["play", "--quick", "--server", server.url, "--name", "Ann", "--pace", "0"], tmp_path
    )
    bo = Terminal(["play", "--quick", "--server", server.url, "--pace", "0"], tmp_path)
    try:
        ann.until(lambda: "At the table: Ann (you)" in plain(ann), timeout=30)
        bo.until(lambda: "Your name at the table:" in bo.text(), timeout=30)
        os.write(bo.master, b"Bo\r")
        bo.until(lambda: "At the table: Ann, Bo (you)" in plain(bo), timeout=30)
        ann.until(lambda: "At the table: Ann (you), Bo" in plain(ann), timeout=10)
        counts = [int(n) for n in COUNTDOWN.findall(plain(ann))]
        assert counts and all(0 < n <= WAIT for n in counts), counts
        assert "play people at" in plain(ann)
        for term, name in ((ann, "Ann"), (bo, "Bo")):
            term.until(lambda t=term, n=name: f"At the table as {n}" in plain(t), timeout=WAIT + 20)
        # Both at the same game: each names the other at the table.
        ann.until(lambda: "Bo" in plain(ann).split("At the table as Ann", 1)[1], timeout=10)
        assert ann.quit() == 0
        assert bo.quit() == 0
    finally:
        for t in (ann, bo):
            if t.proc.poll() is None:
                t.proc.kill()


def test_quitting_before_the_start_gives_the_seat_up(server: Server, tmp_path: Path) -> None:
    cy = Terminal(
        ["play", "--quick", "--server", server.url, "--name", "Cy", "--pace", "0"], tmp_path
    )
    try:
        cy.until(lambda: "At the table: Cy (you)" in plain(cy), timeout=30)
        assert cy.quit() == 0
    finally:
        if cy.proc.poll() is None:
            cy.proc.kill()
    # Cy's table, which only Cy sat at, closed before its start: nobody plays there.
    with sqlite3.connect(server.db) as db:
        rows = db.execute("SELECT status, seats, game_id FROM rooms").fetchall()
    closed = [(json.loads(seats), game) for status, seats, game in rows if status == "closed"]
    assert len(closed) == 1, rows
    assert all(s["player"] is None for s in closed[0][0]) and closed[0][1] is None
    # The next person finds no table held by Cy: a table of their own, the first seat.
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
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == status, r.stderr
    assert said in r.stderr
