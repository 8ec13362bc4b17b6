"""What ``narrow`` or ``rcache`` buys ``master``: the deals its recursive search makes.

Run: ``python bench/narrow.py [--positions N] [--seconds S] [--rec R] [--narrow K | --rcache C]``.

On the positions of ``bench/search.py`` (games of ``normal`` bots, a fixed seed), the
search ``master`` makes (``rec=R``, default 2, ``S`` seconds, its other defaults) and the
same with ``narrow=K`` (every card flat for a quarter of the time, then the ``K`` best
again with ``rec``), or with ``rcache=C`` (each decision searched once per state of its
seat's knowledge, 2: refined at each later visit): for each, the deals the recursive
search sampled, and how often the two pick the same card. By the number of candidate
cards (after merging cards that play the same), the mean deals of each and their ratio,
so a run on another machine reads the same. One process, one core.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from search import positions  # noqa: E402

from lockup.bots import make_bot  # noqa: E402
from lockup.bots.expert import ExpertBot, warm_up  # noqa: E402
from lockup.bots.kernel import Position, jit_available, search  # noqa: E402

Row = tuple[int, int, bool]
"""One position: deals of ``rec=2``'s search, of the narrowed one's, and whether the two
played the same card."""


def compare(
    n_positions: int, seconds: float, variant: dict[str, Any], rec: int = 2
) -> dict[int, list[Row]]:
    """Per number of candidate cards, a :data:`Row` for each of ``n_positions`` positions
    (those with one candidate left out); ``variant`` the options of the second search,
    ``rec`` the searched decisions of both."""
    master = make_bot("master", seed=1, rec=rec)
    assert isinstance(master, ExpertBot)
    kw = {**master.search_options(), "time_limit": seconds, "iterations": None}
    rows: dict[int, list[Row]] = defaultdict(list)
    for k, view in enumerate(positions(n_positions)):
        n = len(Position(view, seed=1, merge=True).cards)
        if n < 2:
            continue
        plain = search(view, seed=k, **{**kw, "narrow": 0})
        narrowed = search(view, seed=k, **{**kw, **variant})
        rows[n].append((plain.iterations, narrowed.iterations, plain.best() == narrowed.best()))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=20, help="positions (default 20)")
    ap.add_argument("--seconds", type=float, default=0.9, help="search time a move (0.9)")
    ap.add_argument("--narrow", type=int, default=2, help="cards kept (default 2)")
    ap.add_argument("--rcache", type=int, default=0, help="compare rcache=C, not narrow")
    ap.add_argument("--rec", type=int, default=2, help="searched decisions (default 2)")
    args = ap.parse_args()
    if not jit_available():
        print("numba is not installed", file=sys.stderr)
        return 2
    warm_up()
    variant: dict[str, Any] = {"rcache": args.rcache} if args.rcache else {"narrow": args.narrow}
    name = "rcache" if args.rcache else "narrow"
    rows = compare(args.positions, args.seconds, variant, args.rec)
    opts = ",".join(f"{k}={v}" for k, v in variant.items())
    base = f"rec={args.rec}"
    print(f"master ({base}, {args.seconds} s) and master:{base},{opts}: deals searched")
    print(f"| candidates | positions | {base} | {name} | ratio | same card |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in sorted(rows):
        r = rows[n]
        a = statistics.mean(x[0] for x in r)
        b = statistics.mean(x[1] for x in r)
        same = sum(x[2] for x in r)
        print(f"| {n} | {len(r)} | {a:,.0f} | {b:,.0f} | {b / a:.1f}x | {same}/{len(r)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
