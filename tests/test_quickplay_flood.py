"""A flood of quick-play requests from many addresses beside an innocent player, against a
real ``lockup serve``.

Forty addresses each ask ``POST /api/quickplay`` as fast as they can, each request a new
person (no cookie, a name), for :data:`FLOOD_SECONDS`, while an innocent person plays a
game of their own against computers. The flood is refused past each address's limit
(429 with Retry-After), the tables it fills never start a game (nobody opens them: the
seats are freed and the tables close, no game is made of no-shows), and the innocent person's card acknowledgements during the flood are compared with the
same game while quiet, with the sane bound of tests/test_room_storm.py.

The flood runs in a process of its own (:data:`FLOOD`), so that it does not take the
measuring thread's share of this process.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from attack_helpers import Innocent, Server, percentile, raise_nofile_limit

from lockup.server.net.limits import Limits

pytestmark = pytest.mark.serial  # timing measured: run alone (make pytest)

ADDRESSES = 40
QUIET = 8.0
"""Seconds measured before the flood."""
FLOOD_SECONDS = 10.0
NOISE = 0.1
"""Seconds of delay a loaded test machine adds now and then, flood or not (as in
tests/test_room_storm.py)."""
WAIT = 3.0
LIMITS = Limits()

FLOOD = r"""
import asyncio, json, sys, time
import httpx

url, n, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
counts = {}
retry_after = []

async def address(i):
    transport = httpx.AsyncHTTPTransport(local_address=f"127.0.{20 + i // 250}.{i % 250 + 2}")
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=30) as http:
        end = time.monotonic() + seconds
        k = 0
        while time.monotonic() < end:
            k += 1
            http.cookies.clear()  # a new person each time
            try:
                r = await http.post("/api/quickplay", json={"name": f"F{i}-{k}"})
            except httpx.HTTPError as e:
                counts[type(e).__name__] = counts.get(type(e).__name__, 0) + 1
                continue
            counts[r.status_code] = counts.get(r.status_code, 0) + 1
            if r.status_code == 429:
                retry_after.append(int(r.headers["retry-after"]))

async def main():
    await asyncio.gather(*(address(i) for i in range(n)))
    print(json.dumps({"counts": counts, "retry_after": min(retry_after, default=None)}))

asyncio.run(main())
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    raise_nofile_limit()
    flags = ("--quick-wait", str(WAIT), "--bot-delay", "0.05", "--bot-jitter", "0")
    with Server(tmp_path / "flood.sqlite", *flags) as s:
        yield s


def test_a_quick_play_flood_does_not_cost_an_innocent_player(server: Server) -> None:
    innocent = Innocent(server.url, level="random", target=50, think=0.05).start()
    try:
        time.sleep(QUIET)
        quiet = list(innocent.report.acks)
        start = time.monotonic()
        flood = subprocess.run(
            [sys.executable, "-c", FLOOD, server.url, str(ADDRESSES), str(FLOOD_SECONDS)],
            capture_output=True,
            text=True,
            timeout=FLOOD_SECONDS + 60,
        )
        took = time.monotonic() - start
        loud = innocent.report.acks[len(quiet) :]
    finally:
        report = innocent.stop()
    assert flood.returncode == 0, flood.stderr[-2000:]
    result = json.loads(flood.stdout.strip().splitlines()[-1])
    counts = {str(k): v for k, v in result["counts"].items()}
    con = sqlite3.connect(server.db)
    try:
        tables = con.execute("SELECT status, COUNT(*) FROM rooms GROUP BY status").fetchall()
    finally:
        con.close()
    quiet_p99, loud_p99 = percentile(quiet, 99), percentile(loud, 99)
    print()
    print(
        f"quiet: {len(quiet)} acks p50 {percentile(quiet, 50) * 1000:.0f} ms"
        f" p99 {quiet_p99 * 1000:.0f} ms; flood: {len(loud)} acks"
        f" p50 {percentile(loud, 50) * 1000:.0f} ms p99 {loud_p99 * 1000:.0f} ms"
        f" max {max(loud, default=0) * 1000:.0f} ms"
    )
    print(f"flood over {took:.1f} s: {counts}, quick tables by status {dict(tables)}")
    print(report.summary())
    assert len(quiet) >= 10 and len(loud) >= 10, (len(quiet), len(loud))
    # The flood is refused past each address's limit, with a Retry-After.
    rate = LIMITS.quick_address
    most = ADDRESSES * (rate.burst + took / rate.per + 1)
    assert counts.get("429", 0) >= ADDRESSES, counts
    assert ADDRESSES * rate.burst // 2 <= counts.get("200", 0) <= most, counts
    assert result["retry_after"] >= 1
    assert set(counts) <= {"200", "429"}, counts
    # Nobody of the flood opened a table: no game was started on its seats.
    assert "playing" not in dict(tables) and dict(tables).get("closed", 0) > 0, tables
    # Within twice the quiet game's p99 (a hiccup of the machine's below NOISE aside).
    allowed = max(2 * quiet_p99, quiet_p99 + NOISE)
    assert loud_p99 <= allowed, f"ack p99 {loud_p99:.3f} s > {allowed:.3f} s"
    assert not report.ws_failures, report.ws_failures
    assert "Traceback" not in server.log_text()
