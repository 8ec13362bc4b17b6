"""``lockup arena``: bots against bots over duplicate deals, with 95% intervals.

See docs/arena.md. Example::

    lockup arena --bots expert,normal,normal,normal --hands 2000 --seed 7 --json out.json
    lockup arena --population --hands 800 --time-per-move 0.1

``--population`` plays one candidate against each of several sparring partners
(:mod:`lockup.arena.population`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, TextIO

from ..engine import LOCK_DISCARDS, PICTURE_EXCEPTIONS, TARGETS, Rules
from .population import (
    DEFAULT_CANDIDATE,
    DEFAULT_LAYOUT,
    DEFAULT_POPULATION,
    LAYOUTS,
    PopulationConfig,
    format_population,
    kept_rows,
    run_population,
)
from .ratings import format_ratings
from .runner import ArenaConfig, ArenaError, run_arena
from .specs import SpecError, parse_spec, split_bots


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``lockup arena`` to the ``lockup`` command."""
    p = subparsers.add_parser(
        "arena",
        help="bots play each other over duplicate deals; mean tricks and win rates with 95%% CIs",
        description=(
            "Four bots play duplicate sets: each game's deals are played four times, the bots "
            "rotated through the seats, so the cards' luck cancels. Prints per bot the mean "
            "tricks per hand and the game win rate with 95% confidence intervals, and paired "
            "differences. Bot specs: a level (random, easy, normal, expert...), "
            "openspiel-ismcts, pimc, pimc+, pimc-greedy, learned, or cmd:COMMAND (an outside program, "
            "docs/bot-protocol.md); options after a colon: expert:iterations=200. "
            "With --population: one candidate against each of several bots, two of each "
            "(or one against three: --layout)."
        ),
    )
    p.add_argument(
        "--bots",
        metavar="SPECS",
        help="four bot specs separated by commas, by seat order of the first rotation "
        "(e.g. expert,normal,normal,normal)",
    )
    p.add_argument(
        "--bot",
        action="append",
        metavar="SPEC",
        help="one bot spec (repeat four times; for commands holding commas)",
    )
    p.add_argument(
        "--hands",
        type=int,
        default=400,
        help="play duplicate sets until at least this many hands are played, every rotation "
        "counted (default 400)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the deals, discards and bots")
    p.add_argument("--target", type=int, default=20, choices=TARGETS, help="R16 (default 20)")
    p.add_argument(
        "--picture-exception", default="same-rank", choices=PICTURE_EXCEPTIONS, help="R7"
    )
    p.add_argument("--lock-discards", default="per-trick", choices=LOCK_DISCARDS, help="R10")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes playing games at once (default: the number of cores)",
    )
    p.add_argument(
        "--time-per-move",
        type=float,
        metavar="SECONDS",
        help="thinking time of every bot that takes a time budget (time_limit); "
        "outside bots are told it",
    )
    p.add_argument(
        "--iterations",
        type=int,
        metavar="N",
        help="search budget of every bot that takes one (iterations); deterministic",
    )
    p.add_argument(
        "--bot-timeout",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="how long an outside bot may take to answer (default 2)",
    )
    p.add_argument("--json", metavar="FILE", help="write the summary as JSON (- for stdout)")
    p.add_argument("--records", metavar="DIR", help="keep every game as a lockup-record/1 file")
    p.add_argument(
        "--ratings",
        action="store_true",
        help="also rate the bots from the games (Weng-Lin, as the server rates players; "
        "docs/ratings.md) and print bot, rating, mu, sigma, games",
    )
    p.add_argument(
        "--population",
        nargs="?",
        const=",".join(DEFAULT_POPULATION),
        metavar="SPECS",
        help="play the candidate (--candidate) against each of these bots in turn, two of "
        "each (entries C, M, C, M; or --layout), --hands hands each, and print one table; "
        "without SPECS: "
        f"{','.join(DEFAULT_POPULATION)} (openspiel-ismcts skipped where OpenSpiel is missing)",
    )
    p.add_argument(
        "--layout",
        choices=sorted(LAYOUTS),
        help="with --population: how the candidate and each member share the seats: "
        "two-of-each (C, M, C, M; the default) or one-against-three (C, M, M, M)",
    )
    p.add_argument(
        "--candidate",
        metavar="SPEC",
        help=f"the bot --population measures (default {DEFAULT_CANDIDATE})",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="with --population and --json FILE: keep the members FILE holds (an earlier "
        "run of the same candidate and settings, finished or stopped) and play the rest; "
        "FILE is rewritten after each member either way",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=main)


def _error(message: str) -> int:
    print(f"lockup arena: error: {message}", file=sys.stderr)
    return 2


def config_from_args(args: argparse.Namespace) -> ArenaConfig:
    """The arena configuration of the command line; raises SpecError or ArenaError."""
    texts: list[str] = []
    if args.bots:
        texts += split_bots(args.bots)
    if args.bot:
        texts += list(args.bot)
    if not texts:
        raise ArenaError("name four bots with --bots A,B,C,D (or --bot four times)")
    if len(texts) != 4:
        raise ArenaError(f"the arena needs four bots, one a seat; got {len(texts)}: {texts}")
    if getattr(args, "candidate", None):
        raise ArenaError("--candidate goes with --population")
    if getattr(args, "resume", False):
        raise ArenaError("--resume goes with --population")
    if getattr(args, "layout", None):
        raise ArenaError("--layout goes with --population")
    specs = tuple(parse_spec(t) for t in texts)
    return ArenaConfig(
        specs=specs,
        records=args.records,
        ratings=bool(getattr(args, "ratings", False)),
        **_shared_options(args),
    )


def population_from_args(args: argparse.Namespace) -> PopulationConfig:
    """The ``--population`` configuration of the command line; raises SpecError or
    ArenaError."""
    if args.bots or args.bot:
        raise ArenaError("--population plays --candidate against each member: leave out --bots")
    if args.records or getattr(args, "ratings", False):
        raise ArenaError("--records and --ratings do not go with --population")
    return PopulationConfig(
        candidate=parse_spec(args.candidate or DEFAULT_CANDIDATE),
        members=tuple(parse_spec(t) for t in split_bots(args.population)),
        layout=args.layout or DEFAULT_LAYOUT,
        **_shared_options(args),
    )


def _shared_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options every arena of the command shares, checked."""
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1)
    if workers < 1:
        raise ArenaError("--workers must be at least 1")
    if args.hands < 1:
        raise ArenaError("--hands must be at least 1")
    if args.time_per_move is not None and not args.time_per_move > 0:
        raise ArenaError("--time-per-move must be a positive number of seconds")
    if args.iterations is not None and args.iterations < 1:
        raise ArenaError("--iterations must be at least 1")
    if not args.bot_timeout > 0:
        raise ArenaError("--bot-timeout must be a positive number of seconds")
    if args.json and args.json != "-":
        folder = os.path.dirname(os.path.abspath(args.json))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise ArenaError(f"cannot write {args.json}: no writable folder {folder}")
    rules = Rules(
        picture_exception=args.picture_exception,
        lock_discards=args.lock_discards,
        target=args.target,
    )
    return {
        "hands": args.hands,
        "seed": args.seed,
        "rules": rules,
        "workers": workers,
        "time_per_move": args.time_per_move,
        "iterations": args.iterations,
        "bot_timeout": args.bot_timeout,
    }


class ProgressBar:
    """Progress on stderr: a bar on a terminal, a line every 10% otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.step = 0

    def __call__(self, played: int, asked: int, elapsed: float) -> None:
        rate = played / elapsed if elapsed > 0 else 0.0
        frac = min(1.0, played / asked)
        if self.tty:
            width = 30
            fill = int(frac * width)
            left = (asked - played) / rate if rate > 0 and played < asked else 0.0
            self.stream.write(
                f"\r[{'#' * fill}{'.' * (width - fill)}] {played}/{asked} hands "
                f"{rate:.1f} hands/s, {left:.0f} s left "
            )
            self.stream.flush()
        else:
            step = int(frac * 10)
            if step > self.step:
                self.step = step
                print(
                    f"arena: {played}/{asked} hands, {elapsed:.1f} s, {rate:.1f} hands/s",
                    file=self.stream,
                    flush=True,
                )

    def done(self) -> None:
        """End the bar's line."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _ci(ci: list[float] | None, pct: bool = False, sign: bool = False) -> str:
    if ci is None:
        return "[n/a]"
    f = "{:+.1f}%" if (pct and sign) else "{:.1f}%" if pct else "{:+.3f}" if sign else "{:.3f}"
    scale = 100.0 if pct else 1.0
    return "[" + ", ".join(f.format(x * scale) for x in ci) + "]"


def format_summary(s: dict[str, Any]) -> str:
    """The summary as a table for people."""
    r = s["rules"]
    out = [
        f"Lockup arena: {s['sets']} duplicate sets = {s['games']} games, {s['hands']} hands "
        f"({s['deals']} deals), seed {s['seed']}; rules {r['picture_exception']}, "
        f"{r['lock_discards']}, target {r['target']}; {s['elapsed_s']:.1f} s "
        f"({(s['hands_per_s'] or 0):.1f} hands/s, {s['workers']} workers)",
        *_warnings(s),
        "",
        f"{'bot':<28} {'tricks/hand':>11} {'95% CI':>17} {'win rate':>9} {'95% CI':>16} "
        f"{'p95 move':>9} {'faults':>6}",
    ]
    for b in s["bots"]:
        p95 = b["move_time_p95_s"]
        nf = sum(b["faults"].values())
        out.append(
            f"{_short(b['label'] + ' ' + _opts(b['spec'], b['name'])):<28} "
            f"{b['tricks_per_hand']:>11.3f} {_ci(b['tricks_per_hand_ci95']):>17} "
            f"{100 * b['game_win_rate']:>8.1f}% {_ci(b['game_win_rate_ci95'], pct=True):>16} "
            f"{_ms(p95):>9} {nf:>6}"
        )
    pooled = [g for g in s["groups"] if len(g["entries"]) > 1]
    if pooled:
        out.append("")
        for g in pooled:
            out.append(
                f"{_short('pooled ' + g['spec'] + ' ' + str(g['entries'])):<28} "
                f"{g['tricks_per_hand']:>11.3f} {_ci(g['tricks_per_hand_ci95']):>17} "
                f"{100 * g['game_win_rate']:>8.1f}% {_ci(g['game_win_rate_ci95'], pct=True):>16}"
            )
    out += ["", "paired differences (a - b), per duplicate set:"]
    for d in s["differences"]:
        mark = " *" if d["tricks_clear_of_zero"] else ""
        out.append(
            f"  {d['a']} - {d['b']}: {d['tricks_per_hand']:+.3f} tricks/hand "
            f"{_ci(d['tricks_per_hand_ci95'], sign=True)}{mark}; win rate "
            f"{100 * d['game_win_rate']:+.1f}% {_ci(d['game_win_rate_ci95'], pct=True, sign=True)}"
            f"{' *' if d['win_rate_clear_of_zero'] else ''}"
        )
    out.append("  (* the 95% interval is clear of zero)")
    faulty = [b for b in s["bots"] if sum(b["faults"].values()) or b.get("dropped_lines")]
    if faulty:
        out.append("")
        for b in faulty:
            kinds = ", ".join(f"{k} {v}" for k, v in b["faults"].items() if v) or "none"
            dropped = b.get("dropped_lines", 0)
            out.append(
                f"faults of {b['label']}: {kinds}; {b['random_moves']} cards played at random"
                + (f"; {dropped} lines dropped (unasked or stale)" if dropped else "")
            )
    return "\n".join(out)


def _warnings(s: dict[str, Any]) -> list[str]:
    """Loud lines, above the table, for each bot that failed in games (an outside bot
    that crashed, stalled or broke the rules): its row is partly random play."""
    out = []
    for b in s["bots"]:
        n = b.get("games_with_faults", 0)
        if not n:
            continue
        kinds = ", ".join(f"{k} {v}" for k, v in b["faults"].items() if v)
        out += [
            "",
            f"!! WARNING: {b['label']} failed in {n} of {b['games']} games ({kinds}): "
            f"{b['random_moves']} of its {b['moves']} cards were played at random for it, "
            "so its row measures random play more than the bot.",
            f"!! its first failure: {b.get('first_fault') or '?'}",
        ]
    return out


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    ms = 1000 * seconds
    return f"{ms:.0f} ms" if ms >= 10 else f"{ms:.2f} ms"


def _opts(spec: str, name: str) -> str:
    return spec[len(name) :].lstrip(":") if spec.startswith(name) and name != "cmd" else ""


def _short(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def main(args: argparse.Namespace) -> int:
    """Run ``lockup arena``; returns the exit status."""
    if getattr(args, "population", None) is not None:
        return population_main(args)
    try:
        config = config_from_args(args)
    except (SpecError, ArenaError, ValueError) as e:
        return _error(str(e))
    bar = None if args.quiet else ProgressBar(sys.stderr)
    try:
        summary = run_arena(config, bar)
    except (SpecError, ArenaError) as e:
        if bar is not None:
            bar.done()
        return _error(str(e))
    except KeyboardInterrupt:
        if bar is not None:
            bar.done()
        print("lockup arena: interrupted", file=sys.stderr)
        return 130
    if bar is not None:
        bar.done()
    table = format_summary(summary)
    if "ratings" in summary:
        table += "\n\n" + format_ratings(summary["ratings"])
    return _emit(table, summary, args.json)


def _emit(table: str, document: dict[str, Any], json_path: str | None) -> int:
    """Print the table, and the JSON document to ``json_path`` (``-``: standard output,
    the table then on standard error); returns the exit status."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    if json_path == "-":
        print(table, file=sys.stderr)
        print(text)
    else:
        print(table)
        if json_path:
            try:
                _write_json(json_path, document)
            except OSError as e:
                return _error(f"cannot write {json_path}: {e.strerror}")
    return 0


def _write_json(path: str, document: dict[str, Any]) -> None:
    """Write the document to ``path`` whole or not at all (a new file, then renamed)."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def population_main(args: argparse.Namespace) -> int:
    """Run ``lockup arena --population``; returns the exit status."""
    try:
        config = population_from_args(args)
    except (SpecError, ArenaError, ValueError) as e:
        return _error(str(e))
    kept: dict[str, dict[str, Any]] = {}
    if args.resume:
        if not args.json or args.json == "-":
            return _error("--resume needs --json FILE: the file to keep members from")
        try:
            with open(args.json, encoding="utf-8") as f:
                kept = kept_rows(config, json.load(f))
        except FileNotFoundError:
            kept = {}  # nothing played yet: a first run
        except (OSError, ValueError, ArenaError) as e:
            return _error(f"cannot resume from {args.json}: {e}")
    bars: list[ProgressBar] = []

    def progress(index: int, count: int, member: str) -> ProgressBar | None:
        if bars:
            bars.pop().done()
        if args.quiet:
            return None
        print(
            f"arena: member {index + 1} of {count}: {config.candidate.text} against {member}",
            file=sys.stderr,
            flush=True,
        )
        bars.append(ProgressBar(sys.stderr))
        return bars[-1]

    def checkpoint(document: dict[str, Any]) -> None:
        if args.json and args.json != "-":
            try:
                _write_json(args.json, document)
            except OSError as e:
                raise ArenaError(f"cannot write {args.json}: {e.strerror}") from e

    try:
        result = run_population(config, progress, kept, checkpoint)
    except (SpecError, ArenaError) as e:
        return _error(str(e))
    except KeyboardInterrupt:
        print("lockup arena: interrupted", file=sys.stderr)
        return 130
    finally:
        if bars:
            bars.pop().done()
    return _emit(format_population(result), result, args.json)
