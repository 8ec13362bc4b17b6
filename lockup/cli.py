"""The ``lockup`` command: ``replay``, ``arena``, ``serve`` and friends.

Each sub-command lives in the layer it belongs to; this module only parses arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from . import __version__

Command = Callable[[argparse.Namespace], int]
_COMMANDS: dict[str, Command] = {}


def _replay(args: argparse.Namespace) -> int:
    from .record import RecordError, parse_record, replay

    try:
        if args.file == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                text = f.read()
    except OSError as e:
        print(json.dumps({"status": "invalid", "reason": f"cannot read {args.file}: {e.strerror}"}))
        return 2
    try:
        parsed = parse_record(text)
    except RecordError as e:
        print(json.dumps({"status": "invalid", "reason": str(e)}, ensure_ascii=False))
        return 2
    result = replay(parsed)
    print(json.dumps(result.to_dict(), ensure_ascii=False))
    return 1 if result.error is not None else 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lockup`` command."""
    parser = argparse.ArgumentParser(
        prog="lockup", description="Lockup, the trick-taking card game."
    )
    parser.add_argument("--version", action="version", version=f"lockup {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("replay", help="check a lockup-record/1 file and print its summary as JSON")
    p.add_argument("file", help="the record file, or - for standard input")
    p.set_defaults(func=_replay)

    for register in _registrars():
        register(sub)
    return parser


def _registrars() -> list[Callable[[argparse._SubParsersAction], None]]:
    """Sub-commands of the layers above the engine, registered if their module imports."""
    out = []
    for mod_name in ("lockup.arena.cli", "lockup.server.cli", "lockup.tui"):
        try:
            mod = __import__(mod_name, fromlist=["register"])
        except ModuleNotFoundError as e:
            if e.name and (e.name == mod_name or mod_name.startswith(e.name + ".")):
                continue
            raise
        out.append(mod.register)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lockup`` command; returns its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
