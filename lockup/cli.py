"""The ``lockup`` command: ``replay``, ``arena``, ``serve`` and friends.

Each sub-command lives in the layer it belongs to; this module only parses arguments.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence

from . import __version__


def _replay(args: argparse.Namespace) -> int:
    from .record import RecordError, parse_record, replay

    try:
        if args.file == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                text = f.read()
    except OSError as e:
        _print_json({"status": "invalid", "reason": f"cannot read {args.file}: {e.strerror}"})
        return 2
    try:
        parsed = parse_record(text)
    except RecordError as e:
        _print_json({"status": "invalid", "reason": str(e)})
        return 2
    result = replay(parsed)
    _print_json(result.to_dict())
    return 1 if result.error is not None else 0


_LAYERS = {
    "arena": "lockup.arena.cli",
    "serve": "lockup.server.cli",
    "db": "lockup.server.dbcli",
    "play": "lockup.tui.cli",
    "login": "lockup.tui.cli",
    "logout": "lockup.tui.cli",
    "analyse": "lockup.analysis.cli",
}
"""Sub-commands of the layers above the engine, and the module that registers each (a
module registers all of its sub-commands at once: ``play``, ``login`` and ``logout``)."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``lockup`` command.

    With ``only`` naming a sub-command, the other layers' modules are not imported, so
    ``lockup replay`` loads neither the server nor the arena.
    """
    parser = argparse.ArgumentParser(
        prog="lockup", description="Lockup, the trick-taking card game."
    )
    parser.add_argument("--version", action="version", version=f"lockup {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("replay", help="check a lockup-record/1 file and print its summary as JSON")
    p.add_argument("file", help="the record file, or - for standard input")
    p.set_defaults(func=_replay)

    wanted = [m for name, m in _LAYERS.items() if only is None or only == name]
    for mod_name in dict.fromkeys(wanted):
        mod = importlib.import_module(mod_name)
        mod.register(sub)
    return parser


def _print_json(data: object) -> None:
    """One JSON line on standard output, UTF-8 where the output takes it, else escaped."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    print(json.dumps(data, ensure_ascii=encoding != "utf8"))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lockup`` command; returns its exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(only=first if first in _LAYERS or first == "replay" else None)
    args = parser.parse_args(args_list)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args))
    except BrokenPipeError:  # e.g. `lockup replay x.json | head -c 10`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
