"""The expert's search speed: simulated hands per second, and how long bots take a move.

Run: ``python bench/search.py [--positions N] [--no-jit] [--json]``.

Positions come from games of ``normal`` bots (default rules, a fixed seed), spread over
the whole hand. Figures, all in one process on one core:

- search: hands simulated per second of CPU time inside the expert's search (each hand
  is one rollout from the position to the end of the hand, every seat playing by the
  ``normal`` rules, after the deal is sampled and weighed), over every position, and the
  same from the first trick only (whole hands);
- the expert with its default budget, the browser's (``time_limit=0.9``) and ``normal``:
  median, 95th percentile and worst seconds a move, from when the bot is asked to when it
  answers (moves with one legal card left out).

``--no-jit`` runs the plain Python kernel (identical results, slower).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lockup.bots import make_bot  # noqa: E402
from lockup.bots.expert import DEFAULT_LAM, warm_up  # noqa: E402
from lockup.bots.kernel import jit_available, search  # noqa: E402
from lockup.engine import Game, Rules, SeatView  # noqa: E402


def positions(n: int, seed: int = 2024) -> list[SeatView]:
    """``n`` views where the seat to play has at least two legal cards."""
    rng = random.Random(seed)
    bots = [make_bot("normal") for _ in range(4)]
    out: list[SeatView] = []
    game = Game.new(rng, Rules(), record=False)
    while len(out) < n:
        if game.is_over:
            game = Game.new(rng, Rules(), record=False)
        if game.discard_due is not None:
            game.discard_random(rng)
        elif game.phase == "deal":
            game.deal(rng=rng)
        else:
            view = game.view(game.turn)
            if len(view.legal_cards) > 1 and rng.random() < 0.25:
                out.append(view)
            game.play(bots[game.turn].choose(view))
    return out


def search_rate(views: list[SeatView], seconds: float, jit: bool) -> tuple[float, float]:
    """(hands per CPU second over all views, the same over first-trick views)."""
    hands = cpu = 0.0
    first_hands = first_cpu = 0.0
    for k, view in enumerate(views):
        start = time.process_time()
        r = search(view, time_limit=seconds, seed=k, jit=jit, lam=DEFAULT_LAM, wgame=3.0)
        spent = time.process_time() - start
        hands += r.hands
        cpu += spent
        if view.trick_number == 0:
            first_hands += r.hands
            first_cpu += spent
    return hands / cpu, (first_hands / first_cpu if first_cpu else float("nan"))


def latency(views: list[SeatView], name: str, **options: object) -> dict[str, float]:
    """Median, 95th percentile and worst seconds a move."""
    bot = make_bot(name, seed=1, **options)
    times = []
    for view in views:
        start = time.perf_counter()
        bot.choose(view)
        times.append(time.perf_counter() - start)
    times.sort()
    return {
        "median": statistics.median(times),
        "p95": times[min(len(times) - 1, int(0.95 * len(times)))],
        "max": times[-1],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=40, help="positions to time (default 40)")
    ap.add_argument("--seconds", type=float, default=0.2, help="search time a position")
    ap.add_argument("--no-jit", action="store_true", help="the plain Python kernel")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    jit = not args.no_jit
    if jit and not jit_available():
        print("numba is not installed: use --no-jit", file=sys.stderr)
        return 2
    start = time.perf_counter()
    if jit:
        warm_up()
    load = time.perf_counter() - start
    views = positions(args.positions)
    # The first-trick figure needs first-trick positions: add a few.
    firsts = [v for v in positions(200, seed=7) if v.trick_number == 0][:10]
    rate, rate_first = search_rate(views + firsts, args.seconds, jit)
    opts = {} if jit else {"jit": False}
    out = {
        "kernel": "numba" if jit else "python",
        "kernel_load_s": round(load, 3),
        "hands_per_s": round(rate),
        "hands_per_s_first_trick": round(rate_first),
        "expert_default_s": latency(views, "expert", **opts),
        "expert_browser_s": latency(views[:20], "expert", time_limit=0.9, **opts),
        "normal_s": latency(views, "normal"),
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"kernel: {out['kernel']} (loaded in {load:.2f} s)")
    print(f"search: {rate:,.0f} simulated hands/s on one core")
    print(f"search from the first trick (whole hands): {rate_first:,.0f} hands/s")
    for key, label in (
        ("expert_default_s", "expert, default budget"),
        ("expert_browser_s", "expert, time_limit=0.9"),
        ("normal_s", "normal"),
    ):
        t = out[key]
        assert isinstance(t, dict)
        print(
            f"{label:24s} median {t['median'] * 1000:7.1f} ms  p95 {t['p95'] * 1000:7.1f} ms"
            f"  max {t['max'] * 1000:7.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
