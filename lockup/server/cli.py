"""``lockup serve``: run the browser game on uvicorn."""

from __future__ import annotations

import argparse
import logging
import sys

SWITCH_INTERVAL = 0.0005
"""Seconds between GIL hand-offs (Python's default is 0.005): the event loop, the database
thread and the bot threads pass the GIL often, so a card waits less for a busy loop."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the ``lockup`` command."""
    p = subparsers.add_parser(
        "serve",
        help="run the browser game (http://127.0.0.1:8000 by default)",
        description="Run the Lockup game server: the table at /, the game over a WebSocket at "
        "/ws, games stored in a database (docs/server.md).",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument(
        "--db",
        default="sqlite:///lockup.sqlite",
        metavar="URL",
        help="SQLAlchemy database URL (default sqlite:///lockup.sqlite, a file here)",
    )
    p.add_argument(
        "--level",
        default=None,
        help="the bots' level when a new game names none (default normal, or random "
        "while normal is not installed)",
    )
    p.add_argument(
        "--bot-processes",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for bots above random and for hints (default: CPUs, at most 4)",
    )
    p.add_argument(
        "--move-slots",
        type=int,
        default=4,
        metavar="N",
        help="how many games may make a bot's move (or a deal, a discard) at once; fewer "
        "keeps a person's card quicker under load, more plays bots faster (default 4)",
    )
    p.add_argument(
        "--hint-time",
        type=float,
        default=None,
        metavar="SECONDS",
        help="how long the expert thinks for a hint (default: the expert's own, half a second)",
    )
    p.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="how much the server logs (default info)",
    )
    p.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import MAX_MESSAGE, create_app
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
    if args.bot_processes is not None and args.bot_processes < 1:
        return fail("--bot-processes must be at least 1")
    if args.move_slots < 1:
        return fail("--move-slots must be at least 1")
    if args.hint_time is not None and not 0 < args.hint_time <= 60:
        return fail("--hint-time must be more than 0 and at most 60 seconds")
    store = Store(args.db)
    try:
        store.open()
    except StoreError as e:
        return fail(str(e))
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s: %(name)s: %(message)s")
    app = create_app(
        args.db,
        level=args.level,
        bot_processes=args.bot_processes,
        hint_time=args.hint_time,
        move_slots=args.move_slots,
        store=store,
    )
    print(f"Lockup: http://{args.host}:{args.port}/  (games in {args.db})", file=sys.stderr)
    sys.setswitchinterval(SWITCH_INTERVAL)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_max_size=MAX_MESSAGE * 4,
        ws_per_message_deflate=False,
        access_log=args.log_level == "debug",
    )
    return 0
