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
- The same two in pure Python: the engine run from its Python sources
  (``lockup._accel.source_package``), measured only when the engine as installed runs the
  extensions that ``make engine`` compiles; otherwise the two lines above are these.
- OpenSpiel Hearts: ``pyspiel.load_game("hearts")``, a whole game (the deal's chance
  actions, the pass and the 52 plays) by ``random.choice(state.legal_actions())``.

The first line says which implementation was measured. The ratio lines are medians of
the rounds' ratios (each round measures both sides back to back): ``engine-step`` for the
step-by-step figure of the engine as installed (compiled after ``make engine``), and the
last line, ``engine/openspiel-hearts ratio: R``, for its playout.
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
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lockup._accel import implementations, source_package  # noqa: E402
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


def pure_engine() -> ModuleType:
    """The engine run from its Python sources (cards, playout and engine)."""
    engine: ModuleType = source_package().engine
    return engine


def lockup_step_hands_pure(seconds: float, rng: random.Random) -> float:
    """Hands per second, every card through the checked API of the pure-Python engine."""
    pure = pure_engine()
    game_class, play, discard, pick = pure.Game, pure.PLAY, pure.DISCARD, pure.nth_card
    rules = pure.Rules()
    n = 0
    start = time.process_time()
    while True:
        game = game_class(rules, rng.randrange(4), record=False)
        game.deal(rng=rng)
        while True:
            phase = game.phase
            if phase == play:
                game.play(pick(game.legal_mask(), rng.random()))
            elif phase == discard:
                game.discard_random(rng)
            else:
                break
        n += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


def lockup_playout_hands_pure(seconds: float, rng: random.Random) -> float:
    """Hands per second through ``Game.playout`` of the pure-Python engine."""
    pure = pure_engine()
    game_class, rules = pure.Game, pure.Rules()
    n = 0
    start = time.process_time()
    while True:
        game = game_class(rules, rng.randrange(4), record=False)
        game.deal(rng=rng)
        game.playout(rng)
        n += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


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
    compiled = implementation() != "python"
    if compiled:
        pure_engine()  # imported before the collector is frozen, as the rest
    # As long-running servers do after start-up, move what the imports made out of the
    # collector's way, so that neither side pays for scanning the other's modules.
    gc.collect()
    gc.freeze()
    rng = random.Random(2024)
    measures: dict[str, Callable[[float, random.Random], float]] = {
        "step": lockup_step_hands,
        "hearts": hearts_games,
        "playout": lockup_playout_hands,
        "clones": lockup_clones,
    }
    if compiled:
        measures["step-pure"] = lockup_step_hands_pure
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
    def ratio(key: str) -> float:
        return statistics.median(a / b for a, b in zip(runs[key], runs["hearts"], strict=True))

    how = {
        "compiled": "compiled by mypyc (make engine)",
        "python": "pure Python",
        "mixed": "partly compiled (a build is out of date: run make engine)",
    }[implementation()]
    modules = ", ".join(f"{k} {v}" for k, v in implementations().items())
    print(f"lockup engine measured: {how} ({modules})")
    print(f"lockup random hands/s (step by step, Game.play):   {med['step']:,.0f}")
    if compiled:
        print(f"lockup random hands/s (step by step, pure Python): {med['step-pure']:,.0f}")
    print(f"lockup random hands/s (Game.playout):              {med['playout']:,.0f}")
    if compiled:
        print(f"lockup random hands/s (playout, pure Python):      {med['pure']:,.0f}")
    print(f"lockup clones/s (mid-hand Game.clone):             {med['clones']:,.0f}")
    print(f"openspiel hearts random games/s:                   {med['hearts']:,.0f}")
    print(f"engine-step/openspiel-hearts ratio: {ratio('step'):.2f}")
    if compiled:
        print(f"engine-step-pure-python/openspiel-hearts ratio: {ratio('step-pure'):.2f}")
        print(f"engine-pure-python/openspiel-hearts ratio: {ratio('pure'):.2f}")
    print(f"engine/openspiel-hearts ratio: {ratio('playout'):.2f}")


if __name__ == "__main__":
    main()
