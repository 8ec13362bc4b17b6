"""Quick play across two ``lockup serve`` processes on one real PostgreSQL and one real
Redis (tests/services.py): people asking at different processes, even at the same
moment, are seated at one table (the queue is in Redis; the process that has the table
seats them, the other forwards the join); pressing twice at the other process answers the
same seat; the table starts on time at the process that has it, and a page on the other
process sees the game.

Skipped, saying why, only when the PostgreSQL or Redis binaries are absent.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Server
from services import Postgres, Redis, postgres, redis

pytestmark = pytest.mark.serial  # two servers, a database and Redis: run alone

Msg = dict[str, Any]
WAIT = 5.0


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres() as p:
        yield p


@pytest.fixture(scope="module")
def bus() -> Iterator[Redis]:
    with redis() as r:
        yield r


@pytest.fixture
def two(tmp_path: Path, pg: Postgres, bus: Redis) -> Iterator[list[Server]]:
    url = pg.new_database()
    flags = ("--quick-wait", str(WAIT), "--bot-delay", "0.02", "--bot-jitter", "0")
    out: list[Server] = []
    try:
        for i in range(2):
            s = Server(tmp_path / f"p{i}" / "log", *flags, "--redis", bus.url, url=url)
            out.append(s)
            s.start(timeout=60)
        yield out
    finally:
        for s in out:
            s.stop()


def quick(server: Server, name: str, cookie: str | None = None) -> tuple[Msg, str]:
    """Quick play at ``server``: the answer and the person's cookie."""
    cookies = {"lockup_player": cookie} if cookie else None
    with httpx.Client(base_url=server.url, cookies=cookies, timeout=30) as http:
        r = http.post("/api/quickplay", json={"name": name})
        assert r.status_code == 200, r.text
        return r.json(), cookie or str(r.cookies["lockup_player"])


def room(server: Server, cookie: str, room_id: str) -> Msg:
    with httpx.Client(base_url=server.url, cookies={"lockup_player": cookie}) as http:
        r = http.get(f"/api/rooms/{room_id}")
        assert r.status_code == 200, r.text
        out: Msg = r.json()
        return out


def test_people_asking_at_two_processes_sit_at_one_table(two: list[Server]) -> None:
    a, b = two
    # Two people at the same moment, one at each process: one table.
    with ThreadPoolExecutor(2) as pool:
        (ann, ann_cookie), (bob, bob_cookie) = pool.map(quick, [a, b], ["Ann", "Bob"])
    assert ann["room"] == bob["room"] and {ann["seat"], bob["seat"]} == {0, 1}
    assert ann["invite"].rsplit("=", 1)[1] == bob["invite"].rsplit("=", 1)[1]
    table = ann["room"]
    # A third at either process: the same table; pressing twice at the other process
    # answers the same seat.
    cy, cy_cookie = quick(b, "Cy")
    assert cy["room"] == table and cy["seat"] == 2
    again, _ = quick(a, "Cy", cy_cookie)
    assert (again["room"], again["seat"]) == (table, 2)
    for server, cookie in ((a, ann_cookie), (b, bob_cookie)):
        seen = room(server, cookie, table)
        assert sorted(s["name"] for s in seen["seats"] if s["name"]) == ["Ann", "Bob", "Cy"]
        assert seen["status"] == "open" and 0 < seen["starts_in"] <= WAIT
        assert seen["options"]["quick"] and seen["host"] is None

    # Bob's page, on the process other than the table's, sees the game start on time
    # with a computer in the empty seat.
    async def watch() -> tuple[Msg, Msg]:
        async with websockets.connect(
            b.ws_url, additional_headers={"Cookie": f"lockup_player={bob_cookie}"}
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "room": table, "since": 0}))
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), WAIT + 15))
                if msg["type"] == "room" and msg["room"]["status"] == "playing":
                    playing = msg
                    break
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 15))
                if msg["type"] == "state":
                    return playing, msg

    playing, state = asyncio.run(watch())
    assert [s["kind"] for s in playing["room"]["seats"]] == ["person"] * 3 + ["computer"]
    assert playing["room"]["starts_in"] is None
    assert state["view"]["seat"] == bob["seat"]
    # The table started takes nobody more: the next person, at either process, opens
    # another; four people across the two processes fill it and it starts at once.
    answers = [quick(s, f"P{i}") for i, s in enumerate([a, b, b, a])]
    rooms = {ans["room"] for ans, _ in answers}
    assert len(rooms) == 1 and table not in rooms, rooms
    assert sorted(ans["seat"] for ans, _ in answers) == [0, 1, 2, 3]
    deadline = time.monotonic() + 5
    seen = room(a, answers[0][1], answers[0][0]["room"])
    while seen["status"] != "playing" and time.monotonic() < deadline:
        time.sleep(0.1)
        seen = room(a, answers[0][1], answers[0][0]["room"])
    assert seen["status"] == "playing" and seen["starts_in"] is None
    for s in two:
        assert "Traceback" not in s.log_text(), s.log_text()[-3000:]
