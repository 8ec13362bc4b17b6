"""The server's views: microseconds to encode what a seat sees, once a move, against a peer.

Run: ``python bench/views.py [--peer DIR] [--games N] [--rounds R]``.

Each move of a game the server encodes the public part of the view once and adds each
viewer's own (:class:`lockup.server.views.Views`). This plays ``--games`` random games of
the default rules (the same deals and cards every round) and times ``Views.of_all([0])``
at every state (the clock read around each call), the best of ``--rounds``. With
``--peer`` (another checkout: a worktree of an earlier commit with its compiled engine
copied in) the same runs in a process of that checkout, after this one's, and the last
line is the ratio ``views this/peer``: under 1 is faster.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def measure(games: int, rounds: int) -> dict[str, float]:
    """The best of ``rounds`` over ``games`` random games: µs a state, and the states."""
    import random

    from lockup.engine import Game, Rules
    from lockup.server.views import Views

    best = float("inf")
    states = 0
    for _ in range(rounds):
        rng = random.Random(5)
        total = 0.0
        states = 0
        for g in range(games):
            game = Game(Rules(), dealer=g % 4)
            views = Views(game)
            while not game.is_over:
                start = time.perf_counter()
                views.of_all([0])
                total += time.perf_counter() - start
                states += 1
                if game.phase.value in ("deal", "discard"):
                    game.chance_move(rng)
                else:
                    game.play(rng.choice(game.view(game.turn).legal_cards), game.turn)
        best = min(best, total / states * 1e6)
    return {"us": best, "states": states}


def run_in(checkout: Path, games: int, rounds: int) -> dict[str, float]:
    """:func:`measure` in a fresh process of ``checkout``."""
    code = (
        f"import sys; sys.path.insert(0, {str(checkout)!r}); sys.path.insert(0, {str(HERE)!r}); "
        f"import json, views; print(json.dumps(views.measure({games}, {rounds})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=checkout, capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", type=Path, default=None, help="another checkout to compare")
    ap.add_argument("--games", type=int, default=20, help="random games a round (default 20)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds, the best kept (default 5)")
    args = ap.parse_args()
    here = HERE.parent
    ours = run_in(here, args.games, args.rounds)
    print(f"this checkout: {ours['us']:.2f} µs a state ({ours['states']:.0f} states)")
    if args.peer is None:
        return 0
    theirs = run_in(args.peer.resolve(), args.games, args.rounds)
    print(f"peer {args.peer}: {theirs['us']:.2f} µs a state ({theirs['states']:.0f} states)")
    print(f"views this/peer: {ours['us'] / theirs['us']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
