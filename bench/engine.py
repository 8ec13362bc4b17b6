"""Engine speed: random full hands per second, against OpenSpiel's Hearts as the peer.

Run: ``python bench/engine.py [--seconds S] [--rounds N]`` (OpenSpiel comes with the
``bench`` extra: ``pip install -e '.[bench]'``).

Both sides play random legal actions, in one process, in alternating rounds, timed by
the process's CPU time (``time.process_time``) so that other work on a busy machine
slows neither; the figures are the medians over the rounds.

- Lockup, step by step: each card through ``Game.play`` (checked), each lockup discard
  through ``Game.discard_random``, a fresh shuffled deal per hand.
- Lockup, playout: the same random hand through ``Game.playout`` (the engine's rollout
  primitive that search uses; the tests check it does exactly what the step-by-step loop
  does).
- Lockup, playout in pure Python: the same, with the playout run from its Python source
  (measured only when the engine runs the compiled extension that ``make engine`` builds
  from ``lockup/playout.py``; otherwise the playout line above is this figure).
- OpenSpiel Hearts: ``pyspiel.load_game("hearts")``, a whole game (the deal's chance
  actions, the pass and the 52 plays) by ``random.choice(state.legal_actions())``.

The last line is ``engine/openspiel-hearts ratio: R`` for the playout figure of the
engine as installed (compiled after ``make``): the median of the rounds' ratios (each
round measures both sides back to back).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import lockup.engine  # noqa: E402
from lockup._accel import source_module  # noqa: E402
from lockup.engine import DISCARD, PLAY, Game, Rules, implementation, nth_card  # noqa: E402


def lockup_step_hands(seconds: float, rng: random.Random) -> float:
    """Hands per second, every card through the checked public API."""
    rules = Rules()
    n = 0
    start = time.process_time()
    while True:
        game = Game(rules, rng.randrange(4), record=False)
        game.deal(rng=rng)
        while True:
            phase = game.phase
            if phase == PLAY:
                game.play(nth_card(game.legal_mask(), rng.random()))
            elif phase == DISCARD:
                game.discard_random(rng)
            else:
                break
        n += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


def lockup_playout_hands(seconds: float, rng: random.Random) -> float:
    """Hands per second through ``Game.playout``."""
    rules = Rules()
    n = 0
    start = time.process_time()
    while True:
        game = Game(rules, rng.randrange(4), record=False)
        game.deal(rng=rng)
        game.playout(rng)
        n += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


def lockup_playout_hands_pure(seconds: float, rng: random.Random) -> float:
    """Hands per second through ``Game.playout`` with the playout's Python source."""
    source = source_module("lockup_playout_source")
    compiled = lockup.engine._play_out
    lockup.engine._play_out = source.play_out
    try:
        return lockup_playout_hands(seconds, rng)
    finally:
        lockup.engine._play_out = compiled


def lockup_clones(seconds: float, rng: random.Random) -> float:
    """Clones per second of a game in the middle of a hand."""
    game = Game.new(rng, record=False)
    for _ in range(20):
        if game.phase == DISCARD:
            game.discard_random(rng)
        else:
            game.play(nth_card(game.legal_mask(), rng.random()))
    n = 0
    start = time.process_time()
    while True:
        for _ in range(1000):
            game.clone()
        n += 1000
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


def hearts_games(seconds: float, rng: random.Random) -> float:
    """OpenSpiel Hearts games per second, random legal actions to the end."""
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game("hearts")
    choice = rng.choice
    n = 0
    start = time.process_time()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
        n += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


def main() -> None:
    """Run the rounds and print the figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one measurement")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    args = parser.parse_args()
    try:
        import pyspiel  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        sys.exit("OpenSpiel is missing: pip install -e '.[bench]'")
    # As long-running servers do after start-up, move what the imports made out of the
    # collector's way, so that neither side pays for scanning the other's modules.
    gc.collect()
    gc.freeze()
    rng = random.Random(2024)
    compiled = implementation() == "compiled"
    measures: dict[str, Callable[[float, random.Random], float]] = {
        "step": lockup_step_hands,
        "hearts": hearts_games,
        "playout": lockup_playout_hands,
        "clones": lockup_clones,
    }
    if compiled:
        measures["pure"] = lockup_playout_hands_pure
    runs: dict[str, list[float]] = {key: [] for key in measures}
    for r in range(args.rounds):
        for key, fn in measures.items():
            runs[key].append(fn(args.seconds, rng))
        print(
            f"round {r + 1}/{args.rounds}: "
            + ", ".join(f"{k} {v[-1]:,.0f}/s" for k, v in runs.items()),
            file=sys.stderr,
        )
    med = {k: statistics.median(v) for k, v in runs.items()}
    # Each round measures both sides back to back: the median of the rounds' ratios is
    # the figure least moved by other work on the machine.
    ratio = statistics.median(a / b for a, b in zip(runs["playout"], runs["hearts"], strict=True))
    ratio_step = statistics.median(a / b for a, b in zip(runs["step"], runs["hearts"], strict=True))
    how = "compiled by mypyc (make engine)" if compiled else "pure Python"
    print(f"lockup playout: {how}")
    print(f"lockup random hands/s (step by step, Game.play): {med['step']:,.0f}")
    print(f"lockup random hands/s (Game.playout):            {med['playout']:,.0f}")
    if compiled:
        print(f"lockup random hands/s (playout, pure Python):    {med['pure']:,.0f}")
    print(f"lockup clones/s (mid-hand Game.clone):           {med['clones']:,.0f}")
    print(f"openspiel hearts random games/s:                 {med['hearts']:,.0f}")
    print(f"engine-step/openspiel-hearts ratio: {ratio_step:.2f}")
    if compiled:
        ratio_pure = statistics.median(
            a / b for a, b in zip(runs["pure"], runs["hearts"], strict=True)
        )
        print(f"engine-pure-python/openspiel-hearts ratio: {ratio_pure:.2f}")
    print(f"engine/openspiel-hearts ratio: {ratio:.2f}")


if __name__ == "__main__":
    main()
