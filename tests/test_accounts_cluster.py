"""Accounts across two ``lockup serve`` processes on one real PostgreSQL and one real Redis
(tests/services.py): an account made at one process signs in at the other; a signed-in
person's join, asked at the process that does not have the room, is forwarded with their
cookies and seats the account at the process that has it; a session ended at one process
stops working at the other within the cache's time.

Skipped, saying why, only when the PostgreSQL or Redis binaries are absent.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from attack_helpers import Server
from services import Postgres, Redis, postgres, redis

from lockup.server.accounts.service import SESSION_TTL

pytestmark = pytest.mark.serial  # two servers, a database and Redis: run alone

CHEAP = ("--password-time-cost", "1", "--password-memory", "1024")


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Server]]:
    with postgres() as pg, redis() as bus:
        yield from _processes(tmp_path_factory.mktemp("accounts-cluster"), pg, bus)


def _processes(tmp: Path, pg: Postgres, bus: Redis) -> Iterator[list[Server]]:
    url = pg.new_database()
    out: list[Server] = []
    try:
        for i in range(2):
            s = Server(tmp / f"p{i}" / "log", *CHEAP, "--redis", bus.url, url=url)
            out.append(s)
            s.start(timeout=60)
        yield out
    finally:
        for s in out:
            s.stop()


def client(server: Server) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=30)


def play_a_card(server: Server, http: httpx.Client, game: str) -> None:
    """Play the first legal card of ``game`` on our turn, at ``server``: a game taken part
    in, which the history lists (a game dealt and never played is not)."""

    async def go() -> None:
        cookies = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
        async with websockets.connect(server.ws_url, additional_headers={"Cookie": cookies}) as ws:
            await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                view, event = msg.get("view") or {}, msg.get("event") or {}
                if event.get("kind") == "play" and event.get("seat") == view.get("seat"):
                    return
                if view.get("legal"):
                    card = view["legal"][0]
                    await ws.send(
                        json.dumps({"type": "play", "card": card, "version": msg["version"]})
                    )

    asyncio.run(go())


def test_an_account_is_the_same_player_at_every_process(two: list[Server]) -> None:
    a, b = two
    home = client(a)
    game = home.get("/api/game").json()["game"]
    play_a_card(a, home, game)
    r = home.post("/api/account/signup", json={"name": "Dóra", "password": "correct horse"})
    assert r.status_code == 200, r.text

    # Another browser signs in at the other process: the same player there.
    away = client(b)
    assert (
        away.post(
            "/api/account/login", json={"name": "DÓRA", "password": "correct horse"}
        ).status_code
        == 200
    )
    assert away.get("/api/account").json()["name"] == "Dóra"
    assert [g["game"] for g in away.get("/api/history").json()["games"]] == [game]

    # A room at the first process; the account joins it asking the second, which
    # forwards the join with the browser's cookies: the seat is the account's.
    host = client(a)
    made = host.post("/api/rooms", json={"name": "Host"}).json()
    invite = made["invite"].split("invite=")[1]
    joined = away.post(f"/api/rooms/{made['room']}/join", json={"invite": invite, "seat": 2})
    assert joined.status_code == 200, joined.text
    for process in (a, b):  # the account, from any browser, at any process: seat 2
        for who in (home, away):
            c = client(process)
            c.cookies.update(who.cookies)
            assert c.get(f"/api/rooms/{made['room']}").json()["you"] == 2

    # Ending the other sessions at the second process: the first process stops taking
    # the first browser's session within the cache's time.
    assert away.post("/api/account/sessions/end-others", json={}).json() == {"ended": 1}
    deadline = time.monotonic() + SESSION_TTL + 5
    while home.get("/api/account").json()["name"] is not None:
        assert time.monotonic() < deadline, "the ended session still works at the other process"
        time.sleep(0.5)
    assert home.get("/api/account").json()["guest"] is True
