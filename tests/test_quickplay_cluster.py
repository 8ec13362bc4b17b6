"""Quick play across several ``lockup serve`` processes on one real PostgreSQL and one
real Redis (tests/services.py).

- People asking at different processes, even at the same moment, are seated at one table
  (the queue is in Redis; the process that has the table seats them, the other forwards
  the join); pressing twice at the other process answers the same seat; the table starts
  on time at the process that has it, and a page on the other process sees the game.
- ``starts_in`` after a join forwarded to the table's process is the table's own.
- Quick play never waits on a dead process: the process that has the open table is
  killed (``kill -9``); a request at another process at once, and another 3 s later, is
  answered within a second and seated at a table whose game starts, while an innocent
  player on a third process plays on unharmed.
- Redis down: quick play says its queue (Redis) is out of reach, not the database; the
  queue in Redis forgets a person's freed seat.

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
from attack_helpers import Innocent, Server
from services import Postgres, Redis, postgres, redis

pytestmark = pytest.mark.serial  # several servers, a database and Redis: run alone

Msg = dict[str, Any]
WAIT = 8.0
ADDRESSES = (f"127.0.{50 + i // 250}.{i % 250 + 2}" for i in range(10_000))
"""Addresses of people of their own (one address holds one seat of a quick table)."""


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres() as p:
        yield p


@pytest.fixture(scope="module")
def bus() -> Iterator[Redis]:
    with redis() as r:
        yield r


def processes(tmp_path: Path, pg: Postgres, bus: Redis, n: int, wait: float) -> list[Server]:
    url = pg.new_database()
    flags = ("--quick-wait", str(wait), "--bot-delay", "0.02", "--bot-jitter", "0")
    out: list[Server] = []
    try:
        for i in range(n):
            s = Server(tmp_path / f"p{i}" / "log", *flags, "--redis", bus.url, url=url)
            out.append(s)
            s.start(timeout=60)
    except BaseException:
        for s in out:
            s.stop()
        raise
    return out


@pytest.fixture
def two(tmp_path: Path, pg: Postgres, bus: Redis) -> Iterator[list[Server]]:
    out = processes(tmp_path, pg, bus, 2, WAIT)
    try:
        yield out
    finally:
        for s in out:
            s.stop()


def quick(server: Server, name: str, cookie: str | None = None) -> tuple[Msg, str]:
    """Quick play at ``server`` from an address of the person's own: the answer (with
    ``took``, the request's seconds from sending to the answer) and the person's
    cookie."""
    cookies = {"lockup_player": cookie} if cookie else None
    transport = httpx.HTTPTransport(local_address=next(ADDRESSES))
    with httpx.Client(
        base_url=server.url, cookies=cookies, timeout=30, transport=transport
    ) as http:
        r = http.post("/api/quickplay", json={"name": name})
        assert r.status_code == 200, r.text
        answer: Msg = r.json()
        answer["took"] = r.elapsed.total_seconds()
        return answer, cookie or str(r.cookies["lockup_player"])


def room(server: Server, cookie: str, room_id: str) -> Msg:
    with httpx.Client(base_url=server.url, cookies={"lockup_player": cookie}) as http:
        r = http.get(f"/api/rooms/{room_id}")
        assert r.status_code == 200, r.text
        out: Msg = r.json()
        return out


async def page(server: Server, cookie: str, room_id: str) -> Any:
    """A person's page of quick table ``room_id`` on ``server``, opened (its first room
    frame read): their seat counts from now on."""
    ws = await websockets.connect(
        server.ws_url, additional_headers={"Cookie": f"lockup_player={cookie}"}, max_queue=None
    )
    await ws.send(json.dumps({"type": "hello", "room": room_id, "since": 0}))
    first = await frame(ws, ("room", "error"))
    assert first["type"] == "room", first
    return ws


async def frame(ws: Any, types: tuple[str, ...], timeout: float = 15.0) -> Msg:
    while True:
        msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if msg["type"] in types:
            return msg


async def playing(ws: Any, timeout: float) -> tuple[Msg, Msg]:
    """The room frame that says the game is on, then the game's state."""
    deadline = time.monotonic() + timeout
    while True:
        msg = await frame(ws, ("room",), timeout=max(0.1, deadline - time.monotonic()))
        if msg["room"]["status"] == "playing":
            break
    return msg, await frame(ws, ("state",))


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

    # Their pages open the table, Bob's and Cy's on the process other than the table's;
    # Bob's sees the game start on time with a computer in the empty seat.
    async def watch() -> tuple[Msg, Msg]:
        pages = [await page(a, ann_cookie, table), await page(b, cy_cookie, table)]
        bobs = await page(b, bob_cookie, table)
        try:
            return await playing(bobs, WAIT + 15)
        finally:
            for ws in [*pages, bobs]:
                await ws.close()

    started, state = asyncio.run(watch())
    assert [s["kind"] for s in started["room"]["seats"]] == ["person"] * 3 + ["computer"]
    assert started["room"]["starts_in"] is None
    assert state["view"]["seat"] == bob["seat"]
    # The table started takes nobody more: the next person, at either process, opens
    # another; four people across the two processes fill it, and it starts once their
    # pages have opened it.
    servers = [a, b, b, a]
    answers = [quick(s, f"P{i}") for i, s in enumerate(servers)]
    rooms = {ans["room"] for ans, _ in answers}
    assert len(rooms) == 1 and table not in rooms, rooms
    assert sorted(ans["seat"] for ans, _ in answers) == [0, 1, 2, 3]
    second = answers[0][0]["room"]
    assert room(a, answers[0][1], second)["status"] == "open"  # four seats given, no page

    async def fill() -> float:
        pages = [
            await page(s, cookie, second) for s, (_, cookie) in zip(servers, answers, strict=True)
        ]
        opened = time.monotonic()
        try:
            await playing(pages[-1], 5)
            return time.monotonic() - opened
        finally:
            for ws in pages:
                await ws.close()

    assert asyncio.run(fill()) < WAIT
    assert room(a, answers[0][1], second)["starts_in"] is None
    for s in two:
        assert "Traceback" not in s.log_text(), s.log_text()[-3000:]


def test_starts_in_after_a_forwarded_join_is_the_tables_own(
    tmp_path: Path, pg: Postgres, bus: Redis
) -> None:
    a, b = procs = processes(tmp_path, pg, bus, 2, 3 * WAIT)  # time for four to sit
    try:
        forwarded_join(a, b)
    finally:
        for s in procs:
            s.stop()


def forwarded_join(a: Server, b: Server) -> None:
    here = [quick(a, name) for name in ("Ann", "Bob", "Cy")]
    table = here[0][0]["room"]
    assert {ans["room"] for ans, _ in here} == {table}

    async def go() -> tuple[Msg, Msg, float, Msg]:
        pages = [await page(a, cookie, table) for _, cookie in here]
        try:
            # The fourth asks at the other process: the join is forwarded to a.
            di, di_cookie = await asyncio.to_thread(quick, b, "Di")
            seen = await asyncio.to_thread(room, a, here[0][1], table)
            di_page = await page(b, di_cookie, table)  # every seat counts: it starts
            opened = time.monotonic()
            await playing(di_page, 5)
            took = time.monotonic() - opened
            again, _ = await asyncio.to_thread(quick, b, "Di", di_cookie)
            await di_page.close()
            return di, seen, took, again
        finally:
            for ws in pages:
                await ws.close()

    di, seen, took, again = asyncio.run(go())
    assert di["room"] == table and di["seat"] == 3
    # Four seats given, the fourth's page not open yet: the table still waits, and the
    # answer says for as long as the table itself does.
    assert seen["status"] == "open", seen
    assert abs(di["starts_in"] - seen["starts_in"]) < 0.5, (di, seen["starts_in"])
    assert took < 2.0
    assert (again["room"], again["seat"], again["starts_in"]) == (table, 3, 0)


def test_quick_play_never_waits_on_a_dead_process(tmp_path: Path, pg: Postgres, bus: Redis) -> None:
    wait = 10.0
    a, b, c = procs = processes(tmp_path, pg, bus, 3, wait)
    innocent = Innocent(c.url, level="random", think=0.05).start()
    try:
        ann, ann_cookie = quick(a, "Ann")
        dead_table = ann["room"]

        async def scenario() -> list[tuple[str, float, Msg]]:
            out = []
            anns = await page(a, ann_cookie, dead_table)  # a has the open table
            # a is killed: the next person asks at b at once (a's lease still runs).
            await asyncio.to_thread(a.kill)
            await anns.close()
            bob, bob_cookie = await asyncio.to_thread(quick, b, "Bob")
            out.append(("at once", bob["took"], bob))
            bobs = await page(b, bob_cookie, bob["room"])
            # b, which has the open table now, is killed too; the next person asks at c
            # 3 s later (b's lease has run out, its heartbeat key not yet).
            await asyncio.to_thread(b.kill)
            await bobs.close()
            await asyncio.sleep(3.0)
            cy, cy_cookie = await asyncio.to_thread(quick, c, "Cy")
            out.append(("3 s after", cy["took"], cy))
            # Cy's table works: her page opens it, its game starts on time.
            cys = await page(c, cy_cookie, cy["room"])
            started, state = await playing(cys, wait + 5)
            await cys.close()
            assert state["view"]["seat"] == cy["seat"]
            kinds = started["room"]["seats"]
            assert kinds[cy["seat"]]["kind"] == "person" and kinds[cy["seat"]]["name"] == "Cy"
            return out

        answered = asyncio.run(scenario())
    finally:
        report = innocent.stop()
        for s in procs:
            s.stop()
    print()
    for when, took, answer in answered:
        print(f"quick play {when}: {took * 1000:.0f} ms, table {answer['room']}")
    print(report.summary())
    for when, took, answer in answered:
        assert took < 1.0, (when, took)
        assert answer["room"] != dead_table or when == "3 s after", answer
    report.assert_unharmed(ack_p99=0.5, max_bot_gap=3.0)
    for s in (b, c):
        assert "Traceback" not in s.log_text(), s.log_text()[-3000:]


def test_the_redis_queue_forgets_a_freed_seat(bus: Redis) -> None:
    from redis.asyncio import Redis as Client

    from lockup.server.quick import RedisQueue

    async def go() -> None:
        client = Client.from_url(bus.url, decode_responses=True)
        try:
            queue = RedisQueue(client)
            await queue.remember("freed-p", "r2")
            await queue.forget("freed-p", "r1")  # not the table remembered: kept
            assert await queue.seated("freed-p") == "r2"
            await queue.forget("freed-p", "r2")
            assert await queue.seated("freed-p") is None
        finally:
            await client.aclose()

    asyncio.run(go())


def test_a_redis_outage_is_said_as_such(tmp_path: Path, pg: Postgres) -> None:
    with redis() as own:
        url = pg.new_database()
        flags = ("--quick-wait", str(WAIT), "--redis", own.url)
        with Server(tmp_path / "log", *flags, url=url) as server:
            quick(server, "Ann")
            own.stop()
            transport = httpx.HTTPTransport(local_address=next(ADDRESSES))
            with httpx.Client(base_url=server.url, timeout=30, transport=transport) as http:
                r = http.post("/api/quickplay", json={"name": "Bob"})
            assert r.status_code == 503 and r.json()["error"] == "unavailable", r.text
            reason = r.json()["reason"]
            assert "Redis" in reason and "database" not in reason, reason
            assert int(r.headers["retry-after"]) >= 1
            own.start()  # back on its port: quick play works again
            deadline = time.monotonic() + 10
            while True:
                with httpx.Client(base_url=server.url, timeout=30) as http:
                    r = http.post("/api/quickplay", json={"name": "Cy"})
                if r.status_code == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            assert r.status_code == 200, r.text
            assert "Traceback" not in server.log_text(), server.log_text()[-3000:]
