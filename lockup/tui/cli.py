"""``lockup play``: Lockup in the terminal, against the computer or at a server's table."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from ..engine import TARGETS
from .words import LANGS, default_language, set_language, tr

DEFAULT_SAVE = "lockup-game.json"
DEFAULT_SERVER = "http://127.0.0.1:8000"
"""The server ``--quick`` asks when no ``--server`` is given (``lockup serve``'s default)."""


def _config_dir_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config-dir",
        default=None,
        metavar="DIR",
        help="the folder that keeps your player and sign-in at each server (default "
        "$LOCKUP_CONFIG_DIR, else the user's config folder, ~/.config/lockup on Linux)",
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``play``, ``login`` and ``logout`` to the ``lockup`` command."""
    p = subparsers.add_parser(
        "play",
        help="play in the terminal against the computer (or at a lockup serve table)",
        description="Play Lockup in the terminal (docs/terminal.md): you at South against "
        "three computers, saved after every card; or, with --server, at a table of a "
        "running lockup serve; or, with --quick, at a table of people there.",
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
    p.add_argument(
        "--new",
        action="store_true",
        help="start a new game even when the save file holds an unfinished one (the new "
        "game is saved to a new file, lockup-game-2.json and so on)",
    )
    p.add_argument("--name", default=None, help="your name at the table")
    p.add_argument(
        "--server",
        default=None,
        metavar="URL",
        help="play at a lockup serve table: a room's invite link, a watch link, or the "
        "server's address for your own game there",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="play people: a seat at the server's next table of people (computers take "
        f"the seats nobody comes for); --server is its address (default {DEFAULT_SERVER}), "
        "--name your name there (asked if not given)",
    )
    p.add_argument(
        "--lang",
        default=None,
        choices=list(LANGS),
        help="the table's language: en (English), fr (French, français) or is (Icelandic, "
        "íslenska); default from LC_ALL, LC_MESSAGES or LANG (fr_FR.UTF-8 is French, "
        "is_IS.UTF-8 Icelandic), else English",
    )
    p.add_argument(
        "--pace",
        type=float,
        default=0.6,
        metavar="SECONDS",
        help="pause after each card of the others (default 0.6)",
    )
    _config_dir_option(p)
    p.set_defaults(func=_play)

    p = subparsers.add_parser(
        "login",
        help="sign in to a lockup serve: lockup play --server/--quick then plays as you",
        description="Sign in to a lockup serve's account (made on its page): the sign-in "
        "is kept in your config folder, and lockup play --server or --quick at that server "
        "plays as your account, rated (docs/terminal.md).",
    )
    p.add_argument(
        "--server",
        default=DEFAULT_SERVER,
        metavar="URL",
        help=f"the server's address (default {DEFAULT_SERVER})",
    )
    p.add_argument("--name", default=None, help="your account's name (asked if not given)")
    p.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of standard input (for scripts) "
        "instead of asking for it",
    )
    _config_dir_option(p)
    p.set_defaults(func=_login)

    p = subparsers.add_parser(
        "logout",
        help="sign out of a lockup serve (the terminal plays there as a guest again)",
        description="End the sign-in kept for a lockup serve, at the server and here.",
    )
    p.add_argument(
        "--server",
        default=DEFAULT_SERVER,
        metavar="URL",
        help=f"the server's address (default {DEFAULT_SERVER})",
    )
    _config_dir_option(p)
    p.set_defaults(func=_logout)


def _login(args: argparse.Namespace) -> int:
    from .login import login

    return login(args.server, args.name, args.password_stdin, args.config_dir)


def _logout(args: argparse.Namespace) -> int:
    from .login import logout

    return logout(args.server, args.config_dir)


def _terminal() -> bool:
    """Whether standard input and error are a terminal (Textual draws on standard error)."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def _save_files(path: Path) -> Iterator[Path]:
    """``path``, then ``stem-2.json``, ``stem-3.json``... up to the first that does not exist."""
    yield path
    n = 2
    while path.exists():
        path = path.with_name(f"{path.stem.removesuffix(f'-{n - 1}')}-{n}{path.suffix}")
        yield path
        n += 1


def _play(args: argparse.Namespace) -> int:
    from .app import TableApp
    from .driver import Driver

    def fail(reason: str, status: int = 2) -> int:
        print(f"lockup play: {reason}", file=sys.stderr)
        return status

    no_terminal = (
        "needs a terminal: standard input or error is not one (run it in a terminal, "
        "not through a pipe; lockup arena plays games without one)"
    )
    if not args.pace >= 0:
        return fail("--pace must be 0 or more")
    set_language(args.lang or default_language())
    driver: Driver
    saved: Path | None = None
    notice: str | None = None
    store = None
    if args.server is not None or args.quick:
        from .identity import Identity, IdentityStore, config_dir
        from .remote import RemoteDriver

        store = IdentityStore(config_dir(args.config_dir))
        url = args.server or DEFAULT_SERVER
        try:
            identity = Identity.of(url, store)
            remote = RemoteDriver(url, name=args.name, quick=args.quick, identity=identity)
        except ValueError as e:
            return fail(str(e))
        known = bool(identity.player or identity.session)  # the server knows their name
        unreachable = remote.reach()
        if unreachable is not None:
            return fail(unreachable, 1)
        if not _terminal():
            return fail(no_terminal)
        if args.quick and not (args.name or "").strip() and not known:
            try:
                remote.name = input(tr("cli.askName")).strip()
            except EOFError:
                remote.name = ""
            if not remote.name:
                return fail("quick play needs your name at the table (--name NAME)")
        driver = remote
    else:
        from ..engine import Rules
        from .local import LocalDriver, LocalGame, SaveError

        if not _terminal():
            return fail(no_terminal)
        save = Path(args.save) if args.save else None
        if args.resume is not None:
            try:
                local = LocalGame.resume(
                    Path(args.resume), level=args.level, name=args.name, save=save
                )
            except SaveError as e:
                return fail(str(e))
        else:
            wanted = save or Path(DEFAULT_SAVE)
            path = wanted
            local_or_none: LocalGame | None = None
            # Never overwrite a saved game: the first unfinished one of the save file and
            # its numbered siblings goes on (unless --new), else the new game takes the
            # first free name.
            for path in _save_files(wanted):
                if not path.exists() or args.new:
                    continue
                try:
                    old = LocalGame.resume(path, level=args.level, name=args.name)
                except SaveError:
                    continue
                if not old.game.is_over:
                    local_or_none = old
                    notice = tr("cli.resuming", path=path)
                    break
            if local_or_none is None and path != wanted:
                notice = tr("cli.kept", wanted=wanted, path=path)
            if local_or_none is None:
                rules = Rules(
                    picture_exception=args.picture_exception,
                    lock_discards=args.lock_discards,
                    target=args.target,
                )
                local_or_none = LocalGame.new(
                    rules,
                    level=args.level or "normal",
                    seed=args.seed,
                    name=args.name,
                    save=path,
                )
            local = local_or_none
        driver = LocalDriver(local, pace=args.pace, notice=notice)
        saved = local.save_path
    if notice:
        print(f"lockup play: {notice}", file=sys.stderr)
    app = TableApp(driver)
    app.run()
    if store is not None and store.problem:
        print(f"lockup play: {tr('say.noConfig', problem=store.problem)}", file=sys.stderr)
    rating = getattr(driver, "rating_line", None)
    if rating:
        print(f"lockup play: {rating}", file=sys.stderr)
    if driver.failure:
        return fail(driver.failure, 1)
    if saved is not None:
        print(f"lockup play: {tr('cli.saved', path=saved)}", file=sys.stderr)
    return app.return_code or 0
