"""Load test of the game server: many players at once, each over its own WebSocket.

Starts ``lockup serve`` on a free port with a fresh SQLite file (or uses ``--url``), then
runs ``--games`` simulated players, ``--concurrency`` at a time. Each one opens a new game
against bots (``--level``, no pacing), says ``hello`` and plays a random legal card whenever
its view shows it may, until the game is over. A card's acknowledgement latency runs from
sending ``play`` to receiving the ``event`` of that card (stored by then); a turn, from
sending ``play`` to the view that asks for the player's next card (the computers' cards
in between: without pacing the server stores them with the player's, so at machine speed
the ack and the turn come together).

Prints games per second, the 50th and 99th percentiles of the acknowledgement latency
and of the turn, where the server's CPU went and its peak resident memory (``server RSS N MB``).

At machine speed (the default) the bench measures what the server can carry, so the
server it starts sends bots' cards as soon as they are chosen (``--bot-delay 0
--bot-jitter 0``; a public server holds them 0.35-0.6 s). At human pace (``--pace S``)
each simulated person waits about S seconds (0.5 S to 1.5 S, at random) before each card,
and the server paces its computers as a public server does (its default ``--bot-delay``
and ``--bot-jitter``): thousands of open sockets, a card every few seconds. Either way it
lifts the limits per client, since every simulated player comes from one address with a
script's speed (``--new-games-per-player 0 --new-games-per-address 0
--messages-per-connection 0 --max-connections-per-ip 0``). Every other limit stays on.

    python bench/server.py --games 200 --concurrency 200 --level random
    python bench/server.py --games 2000 --pace 2 --target 10 --level random
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
from websockets.exceptions import InvalidStatus

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu import CpuMeter, Usage, tree  # noqa: E402
from memory import Memory, MemoryMeter  # noqa: E402


@dataclass
class Stats:
    """What the simulated players measured."""

    acks: list[float] = field(default_factory=list)
    acked_at: list[float] = field(default_factory=list)
    """When each of :attr:`acks` came (``time.time()``), to set beside a server's log."""
    turns: list[float] = field(default_factory=list)
    """From each card sent to the view that asks the person for the next one: the ack,
    then the computers' cards (and their pace) in between."""
    games: int = 0
    frames: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    failed: int = 0
    why_failed: dict[str, int] = field(default_factory=dict)

    def fail(self, e: BaseException) -> None:
        """Count a player (or room) that failed, by a short name of why."""
        self.failed += 1
        why = _why(e)
        self.why_failed[why] = self.why_failed.get(why, 0) + 1


def _why(e: BaseException) -> str:
    """A short name for what made a player fail: an HTTP status and its path, a refused
    WebSocket, a timeout, or the exception's type."""
    if isinstance(e, httpx.HTTPStatusError):
        r = e.response
        return f"HTTP {r.status_code} at {r.request.method} {r.request.url.path}"
    if isinstance(e, InvalidStatus):
        return f"WebSocket refused with HTTP {e.response.status_code}"
    if isinstance(e, TimeoutError | asyncio.TimeoutError):
        return "timed out"
    return type(e).__name__


_SSL = ssl.create_default_context()
"""One TLS context for every player's HTTP client (making one each is costly)."""


def _has(text: str, *needles: str) -> bool:
    """Whether text holds one of the needles, written compact or with spaces."""
    return any(n in text or n.replace(":", ": ").replace(",", ", ") in text for n in needles)


def percentile(xs: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of xs."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = max(0, min(len(s) - 1, round(q / 100 * len(s) + 0.5) - 1))
    return s[k]


async def think(pace: float, rng: random.Random) -> None:
    """A person's time to choose a card: about ``pace`` seconds (0.5 to 1.5 times it)."""
    if pace > 0:
        await asyncio.sleep(rng.uniform(0.5, 1.5) * pace)


async def player(
    url: str,
    ws_url: str,
    options: dict[str, Any],
    stats: Stats,
    rng: random.Random,
    pace: float = 0.0,
    arriving: asyncio.Semaphore | None = None,
) -> None:
    """One simulated player: a new game, played to its end (each card after about
    ``pace`` seconds). ``arriving``: held while the player makes its game and opens its
    socket (people arrive a few at a time)."""
    async with contextlib.AsyncExitStack() as stack:
        async with arriving or contextlib.nullcontext():
            async with httpx.AsyncClient(base_url=url, timeout=60, verify=_SSL) as http:
                r = await http.post("/api/games", json=options)
                r.raise_for_status()
                game = r.json()["game"]
                cookie = http.cookies["lockup_player"]
            ws = await stack.enter_async_context(
                websockets.connect(
                    ws_url,
                    additional_headers={"Cookie": f"lockup_player={cookie}"},
                    max_queue=None,
                )
            )
            await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
        sent_at = 0.0
        waiting: str | None = None
        while True:
            raw = await ws.recv()
            text = raw if isinstance(raw, str) else raw.decode()  # the server sends text
            stats.frames += 1
            # Most frames are other seats' cards: skip decoding those (a cheap client).
            if waiting is None:
                if _has(text, '"legal":[]') and not _has(text, '"phase":"over"', '"type":"error"'):
                    continue
            elif not _has(text, f'"seat":0,"card":"{waiting}"}}', '"type":"error"'):
                continue
            msg = json.loads(text)
            kind = msg["type"]
            if kind == "error":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                waiting = None
                await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
                continue
            if kind not in ("state", "event"):
                continue
            ev = msg.get("event")
            if (
                waiting is not None
                and ev is not None
                and ev["kind"] == "play"
                and ev["seat"] == 0
                and ev["card"] == waiting
            ):
                stats.acks.append(time.perf_counter() - sent_at)
                stats.acked_at.append(time.time())
                waiting = None
            view = msg["view"]
            if view["phase"] == "over":
                stats.games += 1
                return
            if waiting is None and view["legal"]:
                if sent_at:
                    stats.turns.append(time.perf_counter() - sent_at)
                await think(pace, rng)
                waiting = rng.choice(view["legal"])
                sent_at = time.perf_counter()
                await ws.send(
                    json.dumps({"type": "play", "card": waiting, "version": msg["version"]})
                )


async def person(
    ws_url: str,
    cookie: str,
    room: str,
    host: bool,
    stats: Stats,
    rng: random.Random,
    pace: float = 0.0,
) -> None:
    """One person at a room's table, playing a random legal card whenever it may, until
    the game is over; the host starts it once all four have said hello."""
    async with websockets.connect(
        ws_url, additional_headers={"Cookie": f"lockup_player={cookie}"}, max_queue=None
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "room": room, "since": 0}))
        sent_at = 0.0
        waiting: str | None = None
        seat = -1
        while True:
            msg = json.loads(await ws.recv())
            stats.frames += 1
            kind = msg["type"]
            if kind == "room":
                info = msg["room"]
                seat = info["you"]
                if host and info["status"] == "open" and all(s["connected"] for s in info["seats"]):
                    await ws.send('{"type":"start"}')
                continue
            if kind == "error":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                waiting = None
                continue
            if kind not in ("state", "event"):
                continue
            ev = msg.get("event")
            if waiting is not None and ev is not None and ev["kind"] == "play":
                if ev["seat"] == seat and ev["card"] == waiting:
                    stats.acks.append(time.perf_counter() - sent_at)
                    stats.acked_at.append(time.time())
                    waiting = None
            view = msg["view"]
            if view["phase"] == "over":
                if host:
                    stats.games += 1
                return
            if waiting is None and view["legal"]:
                if sent_at:
                    stats.turns.append(time.perf_counter() - sent_at)
                await think(pace, rng)
                waiting = rng.choice(view["legal"])
                sent_at = time.perf_counter()
                await ws.send(
                    json.dumps({"type": "play", "card": waiting, "version": msg["version"]})
                )


async def table(
    url: str, ws_url: str, args: argparse.Namespace, stats: Stats, rng: random.Random
) -> None:
    """One room of four people, each with a cookie and a WebSocket of their own."""
    cookies: list[str] = []
    async with httpx.AsyncClient(base_url=url, timeout=60, verify=_SSL) as http:
        body: dict[str, Any] = {"target": args.target, "name": "Host"}
        if args.turn_timer:
            body["turn_timer"] = args.turn_timer
        r = await http.post("/api/rooms", json=body)
        r.raise_for_status()
        room, invite = r.json()["room"], r.json()["invite"].rsplit("=", 1)[1]
        cookies.append(http.cookies["lockup_player"])
    for i in range(3):
        async with httpx.AsyncClient(base_url=url, timeout=60, verify=_SSL) as http:
            r = await http.post(f"/api/rooms/{room}/join", json={"invite": invite, "name": f"P{i}"})
            r.raise_for_status()
            cookies.append(http.cookies["lockup_player"])
    await asyncio.gather(
        *(
            person(ws_url, c, room, i == 0, stats, random.Random(rng.random()), args.pace)
            for i, c in enumerate(cookies)
        )
    )


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of each simulated player's game (``POST /api/games``)."""
    return {"level": args.level, "target": args.target}


async def run(args: argparse.Namespace, url: str) -> tuple[Stats, float]:
    """Run every player (or room), ``args.concurrency`` at a time; (stats, wall seconds).

    The players run with this process's cyclic garbage collector off: a thousand players'
    sockets and frames made its full passes last up to 0.85 s, during which no player
    read anything, and every card in flight then counted the pause as the server's.
    """
    gc.collect()
    gc.disable()
    try:
        return await _run(args, url)
    finally:
        gc.enable()


async def _run(args: argparse.Namespace, url: str) -> tuple[Stats, float]:
    ws_url = url.replace("http", "ws", 1) + "/ws"
    stats = Stats()
    if args.rooms:
        rng = random.Random(args.seed)

        async def one_room(i: int) -> None:
            try:
                await asyncio.wait_for(
                    table(url, ws_url, args, stats, random.Random(rng.random())),
                    900 + 200 * args.pace * args.target,
                )
            except Exception as e:
                stats.fail(e)
                if args.verbose:
                    print(f"room {i} failed: {e!r}", file=sys.stderr)

        t0 = time.perf_counter()
        await asyncio.gather(*(one_room(i) for i in range(args.rooms)))
        return stats, time.perf_counter() - t0
    options = game_options(args)
    sem = asyncio.Semaphore(args.concurrency)
    rng = random.Random(args.seed)

    limit = 600 if not args.pace else 600 + 200 * args.pace * args.target
    ramp = args.ramp / max(1, args.games)
    # People arrive: at human pace, ARRIVING make their game and open their socket at a
    # time (one client process cannot send 5,000 requests' headers in the same instant).
    arriving = asyncio.Semaphore(ARRIVING) if args.pace else None

    async def one(i: int) -> None:
        if ramp:
            await asyncio.sleep(i * ramp)
        async with sem:
            try:
                play = player(
                    url, ws_url, options, stats, random.Random(rng.random()), args.pace, arriving
                )
                await asyncio.wait_for(play, limit)
            except Exception as e:
                stats.fail(e)
                if args.verbose:
                    print(f"player {i} failed: {e!r}", file=sys.stderr)

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(args.games)))
    return stats, time.perf_counter() - t0


ARRIVING = 50
"""At human pace, how many simulated people make their game and open their socket at once."""


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


UNPACED = ("--bot-delay", "0", "--bot-jitter", "0")
"""What the started server is told at machine speed: bots unpaced (see above)."""

UNLIMITED = (
    "--new-games-per-player",
    "0",
    "--new-games-per-address",
    "0",
    "--messages-per-connection",
    "0",
    "--max-connections-per-ip",
    "0",
)
"""What the started server is told: no limits per client (see above)."""


def known_flags(checkout: Path | None, paced: bool = False) -> list[str]:
    """The flags of :data:`UNLIMITED` (and, unless ``paced``, :data:`UNPACED`) that
    ``lockup serve`` of ``checkout`` knows (an older checkout has no limits to lift)."""
    help_text = subprocess.run(
        [sys.executable, "-m", "lockup", "serve", "--help"],
        capture_output=True,
        text=True,
        cwd=checkout,
        check=True,
    ).stdout
    out: list[str] = []
    wanted = UNLIMITED if paced else UNPACED + UNLIMITED
    for flag, value in zip(wanted[::2], wanted[1::2], strict=True):
        if flag in help_text:
            out += [flag, value]
    return out


def start_server(
    db: Path,
    bot_processes: int | None,
    move_slots: int | None,
    checkout: Path | None = None,
    settle: float = 0.0,
    paced: bool = False,
    extra: list[str] | None = None,
    first_game: dict[str, Any] | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    """``lockup serve`` (of ``checkout``, default this one) on a free port, its computers
    paced as on a public server if ``paced``, with ``extra`` flags; (process, base URL)
    once it answers, ``first_game`` made and ``settle`` seconds after.

    ``first_game``: the options of a game made (and left) before the load, as a first
    visitor would: the server starts the worker processes such a game needs (a hint
    worker, each loading the expert's search: a second or two of CPU, once) while the
    bench settles, so the load's CPU is what the games cost, not the server's start."""
    port = free_port()
    cmd = [sys.executable, "-m", "lockup", "serve", "--port", str(port)]
    cmd += ["--db", f"sqlite:///{db}", "--log-level", "warning", *known_flags(checkout, paced)]
    cmd += extra or []
    if bot_processes:
        cmd += ["--bot-processes", str(bot_processes)]
    if move_slots:
        cmd += ["--move-slots", str(move_slots)]
    proc = subprocess.Popen(cmd, cwd=checkout)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server did not start")
        try:
            if httpx.get(url + "/healthz", timeout=1).text == "ok":
                if first_game is not None:
                    httpx.post(url + "/api/games", json=first_game, timeout=30).raise_for_status()
                time.sleep(settle)
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start in 60 s")


def main() -> int:
    """Parse arguments, run the bench, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=200, help="games to play in all (default 200)")
    ap.add_argument(
        "--concurrency", type=int, default=None, help="games at once (default: all of them)"
    )
    ap.add_argument(
        "--level", default="random", help="the bots' level: random or normal (default random)"
    )
    ap.add_argument("--target", type=int, default=20, help="points to win (default 20)")
    ap.add_argument("--url", default=None, help="a running server (default: start one)")
    ap.add_argument("--bot-processes", type=int, default=None, help="for the started server")
    ap.add_argument("--move-slots", type=int, default=None, help="for the started server")
    ap.add_argument("--seed", type=int, default=1, help="the players' random seed")
    ap.add_argument(
        "--peer",
        type=Path,
        default=None,
        metavar="DIR",
        help="another checkout of Lockup (e.g. a git worktree of an earlier commit): run the "
        "same load on its server too, alternating, and print the ratios",
    )
    ap.add_argument("--rounds", type=int, default=1, help="with --peer: rounds of each (default 1)")
    ap.add_argument(
        "--settle",
        type=float,
        default=8.0,
        metavar="S",
        help="seconds to wait once a started server answers and has made one game of the "
        "load's options, before the load (the server starts the worker processes that game "
        "needs, and each loads the expert's search: a few CPU seconds; default 8)",
    )
    ap.add_argument(
        "--rooms",
        type=int,
        default=0,
        metavar="N",
        help="instead of games against bots: N rooms of 4 people, each person over their own "
        "WebSocket, all at once (games/s counts the rooms' games)",
    )
    ap.add_argument(
        "--turn-timer",
        type=float,
        default=0.0,
        metavar="S",
        help="with --rooms: each room's turn clock in seconds (the clock a quick table has; "
        "default 0, none)",
    )
    ap.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="S",
        help="human pace: each person waits about S seconds (0.5 S to 1.5 S) before each "
        "card, and the started server paces its computers as a public server does (its "
        "default --bot-delay and --bot-jitter); people make their game and open their socket "
        f"{ARRIVING} at a time; default 0, machine speed",
    )
    ap.add_argument(
        "--ramp",
        type=float,
        default=0.0,
        metavar="S",
        help="start the players evenly over S seconds instead of all at once (default 0)",
    )
    ap.add_argument(
        "--server-flag",
        action="append",
        default=[],
        metavar="FLAG",
        help="one more flag (or value) for the started server, e.g. "
        "--server-flag=--limit-concurrency --server-flag=500 (repeat it)",
    )
    ap.add_argument(
        "--acks",
        type=Path,
        default=None,
        metavar="FILE",
        help="write each card's acknowledgement to FILE as CSV: when (Unix time), ms",
    )
    ap.add_argument("--verbose", action="store_true", help="print each failed player's error too")
    args = ap.parse_args()
    if args.pace < 0 or args.ramp < 0:
        ap.error("--pace and --ramp must be 0 or more")
    raise_open_files()
    if args.rooms:
        args.games = args.concurrency = args.rooms
    elif args.turn_timer:
        ap.error("--turn-timer is for --rooms (a game against bots has no clock)")
    args.concurrency = args.concurrency or args.games
    if args.peer is None:
        stats, wall, usage, memory = one_run(args, None)
        report(args, stats, wall, "", usage, memory)
        if args.acks is not None:
            rows = zip(stats.acked_at, stats.acks, strict=True)
            args.acks.write_text("".join(f"{t:.3f},{1000 * x:.1f}\n" for t, x in rows))
        return 0 if stats.games == args.games else 1
    ours: list[Run] = []
    theirs: list[Run] = []
    for _ in range(args.rounds):
        ours.append(one_run(args, None))
        theirs.append(one_run(args, args.peer.resolve()))
    for name, runs in (("this checkout", ours), (f"peer {args.peer}", theirs)):
        for stats, wall, usage, memory in runs:
            report(args, stats, wall, f"[{name}] ", usage, memory)
    gps = [s.games / w for s, w, _, _ in ours]
    peer_gps = [s.games / w for s, w, _, _ in theirs]
    p99 = [percentile([x * 1000 for x in s.acks], 99) for s, _, _, _ in ours]
    peer_p99 = [percentile([x * 1000 for x in s.acks], 99) for s, _, _, _ in theirs]
    failed = sum(s.failed for s, _, _, _ in ours), sum(s.failed for s, _, _, _ in theirs)
    if any(failed):  # a failed player's game never ran: the figures would flatter its side
        print(f"NOT COMPARABLE: players failed (this {failed[0]}, peer {failed[1]})")
    print(f"games/s ratio (this/peer): {statistics.median(gps) / statistics.median(peer_gps):.2f}")
    print(f"ack p99 ratio (this/peer): {statistics.median(p99) / statistics.median(peer_p99):.2f}")
    cpu = [u.per_game(s.games)["server"] for s, _, u, _ in ours if s.games and u is not None]
    peer_cpu = [u.per_game(s.games)["server"] for s, _, u, _ in theirs if s.games and u is not None]
    if cpu and peer_cpu:
        print(
            f"server CPU a game, median: this {1000 * statistics.median(cpu):.1f} ms, "
            f"peer {1000 * statistics.median(peer_cpu):.1f} ms, "
            f"ratio {statistics.median(cpu) / statistics.median(peer_cpu):.2f}"
        )
    # The simulated players do the same work a game against either server, so their CPU a
    # game measures how fast the machine ran during that run (a shared machine's speed
    # drifts by a fifth from one minute to the next); the server's over it does not drift.
    rel = [_relative(u, s.games) for s, _, u, _ in ours if s.games and u is not None]
    peer_rel = [_relative(u, s.games) for s, _, u, _ in theirs if s.games and u is not None]
    if rel and peer_rel:
        print(
            "server CPU over the players' CPU, median: "
            f"this {statistics.median(rel):.2f}, peer {statistics.median(peer_rel):.2f}, "
            f"ratio {statistics.median(rel) / statistics.median(peer_rel):.2f}"
        )
    return 0


def _relative(usage: Usage, games: int) -> float:
    """The server's CPU a game over the simulated players' (see :func:`main`)."""
    each = usage.per_game(games)
    return each["server"] / each["players"] if each.get("players") else float("nan")


def raise_open_files() -> None:
    """Raise this process's soft limit on open files to the hard one: each player holds a
    socket (two while it makes its game)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


Run = tuple[Stats, float, Usage | None, Memory | None]
"""One run's figures: what the players saw, the wall seconds, the CPU and the memory of
the server (None for a server of ``--url``)."""


def one_run(args: argparse.Namespace, checkout: Path | None) -> Run:
    """One run of the load on a fresh server (of ``checkout``), or on ``--url``; (stats,
    wall seconds, the CPU the server and the players used, the server's memory)."""
    proc = None
    tmp = tempfile.TemporaryDirectory(prefix="lockup-bench-")
    try:
        if args.url:
            url = args.url.rstrip("/")
        else:
            proc, url = start_server(
                Path(tmp.name) / "bench.sqlite",
                args.bot_processes,
                args.move_slots,
                checkout,
                args.settle,
                paced=args.pace > 0,
                extra=args.server_flag,
                first_game=None if args.rooms else game_options(args),
            )
        if proc is None:
            return (*asyncio.run(run(args, url)), None, None)
        server = proc.pid
        meter = CpuMeter({"server": lambda: tree(server)})
        memory = MemoryMeter(server, lambda: tree(server), every=0.5)
        meter.start()
        memory.start()
        stats, wall = asyncio.run(run(args, url))
        return stats, wall, meter.stop(), memory.stop()
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
        tmp.cleanup()


def report(
    args: argparse.Namespace,
    stats: Stats,
    wall: float,
    prefix: str,
    usage: Usage | None = None,
    memory: Memory | None = None,
) -> None:
    """Print one run's figures (and where its CPU went and the server's memory, when
    measured)."""
    ms = [x * 1000 for x in stats.acks]
    who = "4 people a room" if args.rooms else f"bots {args.level}"
    pace = f"human pace {args.pace:g} s a card" if args.pace else "machine speed"
    print(
        f"{prefix}server bench: {stats.games}/{args.games} games, {args.concurrency} at once, "
        f"{who}, target {args.target}, {pace}, {os.cpu_count()} CPUs"
    )
    print(f"wall time      {wall:.1f} s")
    print(f"games/s        {stats.games / wall:.2f}")
    print(f"frames/s       {stats.frames / wall:.0f}")
    print(f"cards acked    {len(ms)}")
    print(f"ack p50        {percentile(ms, 50):.1f} ms")
    print(f"ack p99        {percentile(ms, 99):.1f} ms")
    print(f"ack max        {max(ms) if ms else float('nan'):.1f} ms")
    if stats.turns:
        turns = [x * 1000 for x in stats.turns]
        print(f"turn p50, p99  {percentile(turns, 50):.1f}, {percentile(turns, 99):.1f} ms")
    print(f"errors         {stats.errors or 'none'}; players failed: {stats.failed}")
    for why, n in sorted(stats.why_failed.items(), key=lambda kv: -kv[1]):
        print(f"  failed       {n}: {why}")
    if usage is not None:
        print(f"CPU            {usage.line(stats.games, wall)}")
    if memory is not None:
        print(memory.line())


if __name__ == "__main__":
    sys.exit(main())
