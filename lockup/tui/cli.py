"""``lockup play``: Lockup in the terminal, against the computer or at a server's table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..engine import TARGETS

DEFAULT_SAVE = "lockup-game.json"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``play`` to the ``lockup`` command."""
    p = subparsers.add_parser(
        "play",
        help="play in the terminal against the computer (or at a lockup serve table)",
        description="Play Lockup in the terminal (docs/terminal.md): you at South against "
        "three computers, saved after every card; or, with --server, at a table of a "
        "running lockup serve.",
    )
    p.add_argument(
        "--level",
        default=None,
        choices=["random", "easy", "normal", "expert"],
        help="the computers' level (default normal, or the saved game's)",
    )
    p.add_argument(
        "--target",
        type=int,
        default=20,
        choices=TARGETS,
        metavar="N",
        help="points to win, 10 to 50 in steps of 5 (R16; default 20)",
    )
    p.add_argument(
        "--picture-exception",
        default="same-rank",
        choices=["same-rank", "any-club"],
        help="which club a picture on the table allows (R7; default same-rank)",
    )
    p.add_argument(
        "--lock-discards",
        default="per-trick",
        choices=["per-trick", "upfront"],
        help="when a locked hand loses its cards (R10; default per-trick)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed of the deals, discards and bots")
    p.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help=f"the record file written after every card (default {DEFAULT_SAVE}, or the "
        "--resume file)",
    )
    p.add_argument("--resume", default=None, metavar="FILE", help="go on with a saved game")
    p.add_argument("--name", default=None, help="your name at the table")
    p.add_argument(
        "--server",
        default=None,
        metavar="URL",
        help="play at a lockup serve table: a room's invite link, a watch link, or the "
        "server's address for your own game there",
    )
    p.add_argument(
        "--pace",
        type=float,
        default=0.6,
        metavar="SECONDS",
        help="pause after each card of the others (default 0.6)",
    )
    p.set_defaults(func=_play)


def _play(args: argparse.Namespace) -> int:
    from .app import TableApp
    from .driver import Driver

    def fail(reason: str) -> int:
        print(f"lockup play: {reason}", file=sys.stderr)
        return 2

    if not args.pace >= 0:
        return fail("--pace must be 0 or more")
    driver: Driver
    saved: Path | None = None
    if args.server is not None:
        from .remote import RemoteDriver

        try:
            driver = RemoteDriver(args.server, name=args.name)
        except ValueError as e:
            return fail(str(e))
    else:
        from ..engine import Rules
        from .local import LocalDriver, LocalGame, SaveError

        save = Path(args.save) if args.save else None
        if args.resume is not None:
            try:
                local = LocalGame.resume(
                    Path(args.resume), level=args.level, name=args.name, save=save
                )
            except SaveError as e:
                return fail(str(e))
        else:
            rules = Rules(
                picture_exception=args.picture_exception,
                lock_discards=args.lock_discards,
                target=args.target,
            )
            local = LocalGame.new(
                rules,
                level=args.level or "normal",
                seed=args.seed,
                name=args.name,
                save=save or Path(DEFAULT_SAVE),
            )
        driver = LocalDriver(local, pace=args.pace)
        saved = local.save_path
    TableApp(driver).run()
    if saved is not None:
        print(f"lockup play: saved in {saved} (lockup play --resume {saved})", file=sys.stderr)
    return 0
