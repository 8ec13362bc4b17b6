"""The server's load (bench/server.py's simulated players) on 1 and on 2 processes, side by
side: ``lockup serve --workers N --redis ... --db postgresql+psycopg://...`` on one port,
with a PostgreSQL and a Redis of its own (started here as the tests start them, on private
ports and temporary directories; tests/services.py).

A player's game is made by whichever process answers its ``POST /api/games`` (that process
owns it) and its WebSocket lands on whichever process the kernel gives it (SO_REUSEPORT):
about half of the games are played through another process, over Redis. Prints each run's
figures (bench/server.py's report), then the ratios of games/s and of ack p99.

    python bench/cluster.py --games 1000 --concurrency 1000
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from cpu import CpuMeter, Usage, tree  # noqa: E402
from server import UNLIMITED, UNPACED, Stats, free_port, percentile, report, run  # noqa: E402
from services import Postgres, Redis  # noqa: E402


def start(
    db: str, redis: str, workers: int, args: argparse.Namespace
) -> tuple[subprocess.Popen[bytes], str]:
    """``lockup serve --workers N`` on a free port; (process, base URL) once it answers."""
    port = free_port()
    cmd = [sys.executable, "-m", "lockup", "serve", "--port", str(port), "--db", db]
    cmd += [
        "--redis",
        redis,
        "--workers",
        str(workers),
        "--log-level",
        "warning",
        *UNPACED,
        *UNLIMITED,
    ]
    if args.bot_processes:
        cmd += ["--bot-processes", str(args.bot_processes)]
    if args.move_slots:
        cmd += ["--move-slots", str(args.move_slots)]
    proc = subprocess.Popen(cmd)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server did not start")
        try:
            if httpx.get(url + "/healthz", timeout=1).text == "ok":
                time.sleep(args.settle)
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start in 120 s")


def one_run(
    pg: Postgres, redis: Redis, workers: int, args: argparse.Namespace
) -> tuple[Stats, float, Usage]:
    """One run of the load on a fresh database; (stats, wall seconds, CPU used)."""
    proc, url = start(pg.new_database(), redis.url, workers, args)
    postmaster = int((pg.data / "postmaster.pid").read_text().split()[0])
    assert redis.proc is not None
    redis_pid = redis.proc.pid
    meter = CpuMeter(
        {
            "servers": lambda: tree(proc.pid),
            "postgres": lambda: tree(postmaster),
            "redis": lambda: tree(redis_pid),
        }
    )
    try:
        meter.start()
        stats, wall = asyncio.run(run(args, url))
        return stats, wall, meter.stop()
    finally:
        proc.terminate()
        proc.wait(60)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games to play in all (default 200)")
    ap.add_argument("--concurrency", type=int, default=None, help="games at once (default all)")
    ap.add_argument("--level", default="random", help="the bots' level (default random)")
    ap.add_argument("--target", type=int, default=20, help="points to win (default 20)")
    ap.add_argument("--bot-processes", type=int, default=1, help="per server process (default 1)")
    ap.add_argument(
        "--move-slots", type=int, default=None, help="per server process (default: the server's)"
    )
    ap.add_argument("--seed", type=int, default=1, help="the players' random seed")
    ap.add_argument("--rounds", type=int, default=1, help="runs of each (default 1)")
    ap.add_argument("--settle", type=float, default=8.0, metavar="S", help="seconds after start")
    args = ap.parse_args()
    args.concurrency = args.concurrency or args.games
    args.rooms = 0
    args.pace = args.ramp = 0.0  # machine speed, all at once (bench/server.py's options)
    args.verbose = True
    pg, redis = Postgres(), Redis(appendonly=False)
    runs: dict[int, list[tuple[Stats, float, Usage]]] = {1: [], 2: []}
    try:
        pg.start()
        redis.start()
        for _ in range(args.rounds):
            for workers in (1, 2):
                runs[workers].append(one_run(pg, redis, workers, args))
    finally:
        redis.remove()
        pg.remove()
    for workers, results in runs.items():
        for stats, wall, usage in results:
            report(args, stats, wall, f"[{workers} process{'es' if workers > 1 else ''}] ", usage)
    gps = {w: statistics.median(s.games / t for s, t, _ in r) for w, r in runs.items()}
    p99 = {
        w: statistics.median(percentile([x * 1000 for x in s.acks], 99) for s, _, _ in r)
        for w, r in runs.items()
    }
    bound = statistics.median(u.bound(s.games) for s, _, u in runs[2])
    failed = {w: sum(s.failed for s, _, _ in r) for w, r in runs.items()}
    if any(failed.values()):  # a failed player's game never ran: the figures flatter
        print(f"NOT COMPARABLE: players failed (1: {failed[1]}, 2: {failed[2]})")
    print(f"games/s        1: {gps[1]:.2f}   2: {gps[2]:.2f}   ratio 2/1: {gps[2] / gps[1]:.2f}")
    print(f"ack p99 (ms)   1: {p99[1]:.1f}   2: {p99[2]:.1f}   ratio 2/1: {p99[2] / p99[1]:.2f}")
    # What the machine allows: its CPUs over what a game cost in all (servers, PostgreSQL,
    # Redis and these players) in the 2-process run. Two processes cannot pass this however
    # well they share the work; near it, every card waits for a CPU.
    print(
        f"machine bound  {bound:.2f} games/s at the 2-process run's CPU a game "
        f"= {bound / gps[1]:.2f} x the 1-process run"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
