"""``lockup analyse``: the expert's judgement of every card one seat played in a record.

See docs/analysis.md. Example::

    lockup analyse game.json --seat 0 --json analysis.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, TextIO

from ..engine import SEAT_NAMES

_SEATS = {name.lower(): i for i, name in enumerate(SEAT_NAMES)}


def _seat(text: str) -> int:
    t = text.strip().lower()
    if t in _SEATS:
        return _SEATS[t]
    if t in ("0", "1", "2", "3"):
        return int(t)
    raise argparse.ArgumentTypeError(f"a seat is 0..3 or south, west, north, east, not {text!r}")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``analyse`` to the ``lockup`` command."""
    p = subparsers.add_parser(
        "analyse",
        help="the expert's value of every card a seat could have played in a record",
        description=(
            "For every card the seat played: the expert's value of each legal card "
            "(expected tricks this hand, and the chance to win the game where it is at "
            "stake), from what the seat knew only; the best card, the loss of the card "
            "played and a mark (inaccuracy, mistake, blunder); beside it the hindsight "
            "view, every hand known. See docs/analysis.md."
        ),
    )
    p.add_argument("record", help="a lockup-record/1 file, or - for standard input")
    p.add_argument("--seat", type=_seat, required=True, help="0..3 or south, west, north, east")
    p.add_argument(
        "--json", metavar="FILE", help="write the analysis as JSON to FILE (- for standard output)"
    )
    p.add_argument(
        "--time-per-move",
        type=float,
        metavar="T",
        help="seconds of search per decision (not deterministic: depends on the machine)",
    )
    p.add_argument(
        "--iterations",
        type=int,
        metavar="N",
        help="sampled deals per decision (default 2000 when no --time-per-move)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="processes analysing decisions at once (default: the CPUs, at most one per 8 "
        "decisions; 1: in this process)",
    )
    p.set_defaults(func=main)


class ProgressBar:
    """Progress on stderr: one line redrawn on a terminal; otherwise a final line only."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.start = time.perf_counter()
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.tty:
            return
        width = 30
        fill = int(width * done / total) if total else width
        elapsed = time.perf_counter() - self.start
        self.stream.write(
            f"\ranalyse: [{'#' * fill}{'.' * (width - fill)}] {done}/{total} decisions "
            f"{elapsed:.1f} s "
        )
        self.stream.flush()
        self.drawn = True

    def finish(self, line: str) -> None:
        if self.drawn:
            self.stream.write("\n")
        print(line, file=self.stream, flush=True)


def _error(message: str) -> int:
    print(f"lockup analyse: error: {message}", file=sys.stderr)
    return 2


def _marks(marks: dict[str, int]) -> str:
    """``1 blunder, 0 mistakes, 2 inaccuracies``."""
    plural = {"inaccuracy": "inaccuracies"}
    return ", ".join(f"{n} {k if n == 1 else plural.get(k, k + 's')}" for k, n in marks.items())


def format_table(result: dict[str, Any]) -> str:
    """The analysis (the JSON of :meth:`lockup.analysis.Analysis.to_dict`) as a table."""
    seat = result["seat"]
    budget = result["budget"]
    per = (
        f"{budget['iterations']} deals a decision"
        if budget["time_per_move"] is None
        else f"{budget['time_per_move']} s a decision"
        + (f" (at most {budget['iterations']} deals)" if budget["iterations"] else "")
    )
    decisions = result["decisions"]
    unforced = sum(1 for d in decisions if not d["forced"])
    out = [
        f"Lockup analysis: {SEAT_NAMES[seat]} ({result['player']}), {len(decisions)} "
        f"decisions ({unforced} unforced); {per}, seed {budget['seed']}",
        "values: expected tricks this hand, from what the seat knew; hindsight: every hand known",
        "",
        f"{'hand':>4} {'trick':>5}  {'played':<6} {'best':<4} {'value':>6} {'loss':>6}  "
        f"{'mark':<10}  {'hindsight best':<14} {'loss':>6}",
    ]
    for d in decisions:
        h = d["hindsight"]
        out.append(
            f"{d['hand']:>4} {d['trick']:>5}  {d['played']:<6} {d['best']:<4} "
            f"{d['values'][d['played']]:>6.2f} {d['loss']:>6.2f}  "
            f"{('forced' if d['forced'] else d['mark'] or ''):<10}  "
            f"{h['best']:<14} {h['loss']:>6.2f}"
        )
    out.append("")
    for h in result["hands"]:
        acc = "-" if h["accuracy"] is None else f"{h['accuracy']:.1f}"
        out.append(
            f"hand {h['hand']}: accuracy {acc}, loss {h['loss']:.2f} tricks, " + _marks(h["marks"])
        )
    acc = "-" if result["accuracy"] is None else f"{result['accuracy']:.1f}"
    out.append(f"game: accuracy {acc}; " + _marks(result["marks"]))
    return "\n".join(out)


def main(args: argparse.Namespace) -> int:
    """Run ``lockup analyse``; returns the exit status."""
    from ..record import IllegalRecord, RecordError
    from . import analyse

    try:
        if args.record == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.record, "rb") as f:
                data = f.read()
    except OSError as e:
        return _error(f"cannot read {args.record}: {e.strerror}")
    if args.workers is not None and args.workers < 1:
        return _error("--workers must be at least 1")
    bar = ProgressBar(sys.stderr)
    try:
        analysis = analyse(
            data,
            args.seat,
            time_per_move=args.time_per_move,
            iterations=args.iterations,
            seed=args.seed,
            workers=args.workers,
            progress=bar,
        )
    except RecordError as e:
        return _error(f"not a record: {e}")
    except IllegalRecord as e:
        return _error(f"the record breaks a rule: {e}")
    except ValueError as e:
        return _error(str(e))
    except KeyboardInterrupt:
        bar.finish("lockup analyse: interrupted")
        return 130
    result = analysis.to_dict()
    bar.finish(
        f"lockup analyse: {len(analysis.decisions)} decisions of "
        f"{SEAT_NAMES[analysis.seat]} in {analysis.seconds:.1f} s, {analysis.workers} "
        f"worker{'s' if analysis.workers != 1 else ''}"
    )
    text = json.dumps(result, indent=1, ensure_ascii=False)
    if args.json == "-":
        print(text)
        return 0
    print(format_table(result))
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        except OSError as e:
            return _error(f"cannot write {args.json}: {e.strerror}")
    return 0


__all__ = ["ProgressBar", "format_table", "main", "register"]
