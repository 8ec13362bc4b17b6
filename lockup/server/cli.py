"""``lockup serve``: run the browser game on uvicorn."""

from __future__ import annotations

import argparse
import logging
import os
import sys

SWITCH_INTERVAL = 0.0005
"""Seconds between GIL hand-offs (Python's default is 0.005): the event loop, the database
thread and the bot threads pass the GIL often, so a card waits less for a busy loop."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the ``lockup`` command."""
    from .config import ServerConfig

    d = ServerConfig()  # the defaults
    p = subparsers.add_parser(
        "serve",
        help="run the browser game (http://127.0.0.1:8000 by default)",
        description="Run the Lockup game server: the table at /, the game over a WebSocket at "
        "/ws, games stored in a database (docs/server.md).",
    )
    p.add_argument("--host", default=d.host, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument(
        "--db",
        default=d.db,
        metavar="URL",
        help="SQLAlchemy database URL (default sqlite:///lockup.sqlite, a file here)",
    )
    p.add_argument(
        "--redis",
        default=d.redis,
        metavar="URL",
        help="Redis URL (redis://host:6379/0): one of several server processes on one "
        "PostgreSQL --db, each game owned by one process, any process taking any WebSocket "
        "(docs/deploy.md)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="N server processes on one port (SO_REUSEPORT), restarted if one dies; more "
        "than 1 needs --redis and a PostgreSQL --db (default 1)",
    )
    p.add_argument(
        "--level",
        default=d.level,
        help="the bots' level when a new game names none: random, easy, normal, expert or "
        "master (default normal, or random while normal is not installed)",
    )
    p.add_argument(
        "--bot-processes",
        type=int,
        default=d.bot_processes,
        metavar="N",
        help="worker processes for the expert and master bots (random and easy choose on the "
        "event loop, normal in a thread; hints have their own, --hint-processes; default: "
        "CPUs, at most 4)",
    )
    p.add_argument(
        "--move-slots",
        type=int,
        default=d.move_slots,
        metavar="N",
        help="how many games may make a bot's move (or a deal, a discard) at once; fewer "
        "keeps a person's card quicker under load, more plays bots faster (default 16)",
    )
    p.add_argument(
        "--hint-processes",
        type=int,
        default=d.hint_processes,
        metavar="N",
        help="worker processes for hints, apart from the bots' and at a lower CPU priority; "
        "at most 2 hints per worker are under way, more are refused (default 1)",
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=d.bot_delay,
        metavar="SECONDS",
        help="a bot's card leaves the server this long after its turn began, plus the jitter, "
        "however quickly the bot decided: the time says nothing of its hand (default 0.35)",
    )
    p.add_argument(
        "--bot-jitter",
        type=float,
        default=d.bot_jitter,
        metavar="SECONDS",
        help="up to this much more, at random, for each bot card (default 0.25)",
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host name the server answers besides localhost, 127.0.0.1, ::1 and --host "
        "(repeat it for several; '*' for any). Others get 400",
    )
    p.add_argument(
        "--new-games-per-player",
        default="10/60",
        metavar="BURST/SECONDS",
        help="new games one player may start: BURST at once, BURST per SECONDS after "
        "(default 10/60; 0: no limit). More get 429",
    )
    p.add_argument(
        "--new-games-per-address",
        default="30/60",
        metavar="BURST/SECONDS",
        help="new games one client address may start (default 30/60; 0: no limit)",
    )
    p.add_argument(
        "--hints-per-player",
        default="6/30",
        metavar="BURST/SECONDS",
        help="hints one player may ask, one at a time (default 6/30; 0: no limit)",
    )
    p.add_argument(
        "--messages-per-connection",
        default="60/10",
        metavar="BURST/SECONDS",
        help="WebSocket messages one connection may send (default 60/10; 0: no limit)",
    )
    p.add_argument(
        "--quick-wait",
        type=float,
        default=d.quick_wait,
        metavar="SECONDS",
        help="quick play: seconds from a table's first person to its start, computers in "
        "the seats still empty; a full table starts at once (default 20)",
    )
    p.add_argument(
        "--quick-grace",
        type=float,
        default=d.quick_grace,
        metavar="SECONDS",
        help="quick play: seconds a person may be gone before a computer plays for them "
        "(default 45)",
    )
    p.add_argument(
        "--quick-turn-timer",
        type=float,
        default=d.quick_turn_timer,
        metavar="SECONDS",
        help="quick play: seconds a person has for each card before a computer plays it for "
        "them (default 30)",
    )
    p.add_argument(
        "--quick-per-player",
        default=str(d.limits.quick_player),
        metavar="BURST/SECONDS",
        help="quick-play requests one player may make (default 10/60; 0: no limit)",
    )
    p.add_argument(
        "--quick-per-address",
        default=str(d.limits.quick_address),
        metavar="BURST/SECONDS",
        help="quick-play requests one client address may make (default 20/60; 0: no limit)",
    )
    p.add_argument(
        "--signups-per-address",
        default=str(d.limits.signups_address),
        metavar="BURST/SECONDS",
        help="accounts one client address may make (default 10/3600; 0: no limit)",
    )
    p.add_argument(
        "--logins-per-address",
        default=str(d.limits.logins_address),
        metavar="BURST/SECONDS",
        help="sign-in attempts one client address may make (default 30/300; 0: no limit)",
    )
    p.add_argument(
        "--logins-per-name",
        default=str(d.limits.logins_name),
        metavar="BURST/SECONDS",
        help="sign-in attempts at one account name, from anywhere (default 10/300; 0: no limit)",
    )
    p.add_argument(
        "--password-time-cost",
        type=int,
        default=d.password_time_cost,
        metavar="N",
        help="argon2id passes for each account password (default 3)",
    )
    p.add_argument(
        "--password-memory",
        type=int,
        default=d.password_memory_kib,
        metavar="KIB",
        help="argon2id memory for each account password, in KiB (default 65536: 64 MiB)",
    )
    p.add_argument(
        "--purge-unplayed-after",
        type=float,
        default=d.purge_unplayed_after,
        metavar="SECONDS",
        help="delete stored games in which no card was played after this long (default "
        "3600; 0: never)",
    )
    p.add_argument(
        "--purge-abandoned-after",
        type=float,
        default=d.purge_abandoned_after,
        metavar="SECONDS",
        help="delete unfinished games with no move for this long (default 30 days; 0: never)",
    )
    p.add_argument(
        "--analysis-workers",
        type=int,
        default=d.analysis_workers,
        metavar="N",
        help="processes for the analyses of reviewed games, one game at a time (default 1)",
    )
    p.add_argument(
        "--analysis-iterations",
        type=int,
        default=d.analysis_iterations,
        metavar="N",
        help="sampled deals per decision in a review's analysis (default: the analysis's "
        "own, as lockup analyse)",
    )
    p.add_argument(
        "--hint-time",
        type=float,
        default=d.hint_time,
        metavar="SECONDS",
        help="how long the expert thinks for a hint (default: the expert's own, half a second)",
    )
    p.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="how much the server logs (default info)",
    )
    from .net.serve import add_arguments

    add_arguments(p)
    p.set_defaults(func=_serve)


WORKER_ENV = "LOCKUP_WORKER"
"""Set (to the worker's number) in the processes ``--workers N`` starts."""

STARTUP_FAILURE = 3
"""The exit status when the server cannot listen (a port in use), as uvicorn's."""


def port_refusal(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host:port`` (a port in use, an address not
    of this machine, a port below 1024 without the right), or None if it can: tried by
    binding it as uvicorn will (``SO_REUSEADDR``), then let go, before anything is
    printed or the database is made."""
    import errno
    import socket

    if port == 0:
        return None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is in use (another server?): stop it or choose "
                    "another --port"
                )
            return f"cannot listen on {host}:{port}: {e.strerror or e}"
    return None


def _supervise(n: int) -> int:
    """Run ``n`` copies of this very command as workers sharing the port; start again one
    that dies (after a second), stop them all on SIGTERM or Ctrl-C."""
    import signal
    import subprocess
    import time

    argv = [sys.executable, "-m", "lockup", *sys.argv[1:]]
    procs: dict[int, subprocess.Popen[bytes]] = {}
    stopping = False

    def start(i: int) -> None:
        procs[i] = subprocess.Popen(argv, env={**os.environ, WORKER_ENV: str(i)})

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for i in range(n):
        start(i)
    died: dict[int, float] = {}
    while not stopping:
        time.sleep(0.2)
        for i, p in list(procs.items()):
            code = p.poll()
            if code is None:
                continue
            if code == 3 and i not in died:  # could not start (the port): give up
                stopping = True
                break
            if i not in died:
                print(f"lockup serve: worker {i} exited ({code}); restarting it", file=sys.stderr)
                died[i] = time.monotonic()
            elif time.monotonic() - died[i] >= 1.0:
                del died[i]
                start(i)
    for p in procs.values():
        if p.poll() is None:
            p.terminate()
    for p in procs.values():
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
    return 0


def _serve(args: argparse.Namespace) -> int:
    from .app import create_app
    from .config import ServerConfig
    from .net.limits import Limits, Rate
    from .protocol import MAX_MESSAGE
    from .rooms.options import GRACE_RANGE, TIMER_RANGE
    from .session import available_levels
    from .store import Store, StoreError

    def fail(reason: str) -> int:
        print(f"lockup serve: {reason}", file=sys.stderr)
        return 2

    if not 0 <= args.port <= 65535:
        return fail(f"--port must be 0 to 65535, not {args.port}")
    levels = available_levels()
    if args.level is not None and args.level not in levels:
        return fail(f"--level must be one of {', '.join(levels)}, not {args.level!r}")
    if args.workers < 1:
        return fail("--workers must be at least 1")
    if args.workers > 1 and args.redis is None:
        return fail("--workers above 1 needs --redis (the processes share games through it)")
    if args.redis is not None and args.db.startswith("sqlite"):
        return fail("--redis needs a database several processes share: a PostgreSQL --db")
    if args.bot_processes is not None and args.bot_processes < 1:
        return fail("--bot-processes must be at least 1")
    if args.move_slots < 1:
        return fail("--move-slots must be at least 1")
    if args.hint_time is not None and not 0 < args.hint_time <= 60:
        return fail("--hint-time must be more than 0 and at most 60 seconds")
    if args.hint_processes < 1:
        return fail("--hint-processes must be at least 1")
    if args.analysis_workers < 1:
        return fail("--analysis-workers must be at least 1")
    if args.analysis_iterations is not None and not 1 <= args.analysis_iterations <= 100_000:
        return fail("--analysis-iterations must be 1 to 100000")
    if not 1 <= args.quick_wait <= 600:
        return fail("--quick-wait must be 1 to 600 seconds")
    if not GRACE_RANGE[0] <= args.quick_grace <= GRACE_RANGE[1]:
        return fail(f"--quick-grace must be {GRACE_RANGE[0]:g} to {GRACE_RANGE[1]:g} seconds")
    if not TIMER_RANGE[0] <= args.quick_turn_timer <= TIMER_RANGE[1]:
        return fail(f"--quick-turn-timer must be {TIMER_RANGE[0]:g} to {TIMER_RANGE[1]:g} seconds")
    if not 1 <= args.password_time_cost <= 100 or not 64 <= args.password_memory <= 4194304:
        return fail("--password-time-cost must be 1 to 100, --password-memory 64 to 4194304 KiB")
    for name in ("bot_delay", "bot_jitter", "purge_unplayed_after", "purge_abandoned_after"):
        if not getattr(args, name) >= 0:
            return fail(f"--{name.replace('_', '-')} must be 0 or more")
    try:
        limits = Limits(
            messages=Rate.parse(args.messages_per_connection),
            hints=Rate.parse(args.hints_per_player),
            new_games_player=Rate.parse(args.new_games_per_player),
            new_games_address=Rate.parse(args.new_games_per_address),
            quick_player=Rate.parse(args.quick_per_player),
            quick_address=Rate.parse(args.quick_per_address),
            signups_address=Rate.parse(args.signups_per_address),
            logins_address=Rate.parse(args.logins_per_address),
            logins_name=Rate.parse(args.logins_per_name),
        )
    except ValueError as e:
        return fail(str(e))
    if os.environ.get(WORKER_ENV) is None:  # a worker shares the port its supervisor checked
        busy = port_refusal(args.host, args.port)
        if busy is not None:
            print(f"lockup serve: {busy}", file=sys.stderr)
            return STARTUP_FAILURE
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s: %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    store = Store(args.db)
    try:
        store.open()  # the schema upgraded once, before any worker starts
    except StoreError as e:
        return fail(str(e))
    if args.workers > 1 and os.environ.get(WORKER_ENV) is None:
        import asyncio

        asyncio.run(store.close())
        print(
            f"Lockup: http://{args.host}:{args.port}/  ({args.workers} processes, games in "
            f"{args.db}, events through {args.redis})",
            file=sys.stderr,
        )
        return _supervise(args.workers)
    config = ServerConfig(
        db=args.db,
        level=args.level,
        bot_processes=args.bot_processes,
        hint_processes=args.hint_processes,
        hint_time=args.hint_time,
        move_slots=args.move_slots,
        bot_delay=args.bot_delay,
        bot_jitter=args.bot_jitter,
        purge_unplayed_after=args.purge_unplayed_after,
        purge_abandoned_after=args.purge_abandoned_after,
        limits=limits,
        host=args.host,
        extra_hosts=tuple(args.allowed_host),
        analysis_workers=args.analysis_workers,
        analysis_iterations=args.analysis_iterations,
        redis=args.redis,
        quick_wait=args.quick_wait,
        quick_grace=args.quick_grace,
        quick_turn_timer=args.quick_turn_timer,
        password_time_cost=args.password_time_cost,
        password_memory_kib=args.password_memory,
    )
    app = create_app(config, store=store)
    print(f"Lockup: http://{args.host}:{args.port}/  (games in {args.db})", file=sys.stderr)
    sys.setswitchinterval(SWITCH_INTERVAL)
    from .net.serve import limits_from_args, serve

    serve(  # uvicorn, with the limits per client of net/
        app,
        host=args.host,
        port=args.port,
        reuse_port=os.environ.get(WORKER_ENV) is not None,
        limits=limits_from_args(args),
        log_level=args.log_level,
        ws_max_size=MAX_MESSAGE * 4,
        ws_per_message_deflate=False,
        access_log=args.log_level == "debug",
    )
    return 0
