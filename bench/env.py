"""RL environment speed: the PettingZoo env's steps per second against OpenSpiel Hearts.

Run: ``python bench/env.py [--seconds S] [--rounds N]`` (needs the ``rl`` and ``bench``
extras: ``pip install -e '.[rl,bench]'``).

Both sides play random legal actions, as an agent would: read its observation and legal
actions, pick one, step. They run in one process, in alternating rounds, timed by the
process's CPU time (``time.process_time``); the figures are medians over the rounds.

- Lockup: ``lockup.pettingzoo.env()`` (the wrapped AEC environment of PettingZoo 1.27:
  illegal-move, bounds and order checks included), one hand an episode, its default
  per-trick rewards; ``env.agent_iter()``, ``env.last()`` (the observation with its action
  mask), a random card of the mask, ``env.step(card)``. Lockup discards happen inside.
- OpenSpiel Hearts: ``rl_environment.Environment("hearts")``, the environment OpenSpiel's
  RL algorithms use; each step a random action of ``legal_actions[current_player]``. Its
  chance events (the deal) happen inside too; the pass counts as steps.

A step is one agent action (PettingZoo's closing ``step(None)`` calls of an ended episode
are not counted, though their time is). The last line is
``env/openspiel-hearts-rl ratio: R``, the median of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def lockup_steps(seconds: float, rng: random.Random) -> float:
    """Agent steps per second through ``lockup.pettingzoo.env()``."""
    import numpy as np

    from lockup.pettingzoo import env

    environment = env()
    flatnonzero = np.flatnonzero
    randrange = rng.randrange
    n = 0
    start = time.process_time()
    while True:
        environment.reset(seed=randrange(1 << 30))
        for _agent in environment.agent_iter():
            obs, _reward, term, trunc, _info = environment.last()
            if term or trunc:
                environment.step(None)
                continue
            legal = flatnonzero(obs["action_mask"])
            environment.step(legal[randrange(len(legal))])
            n += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return n / elapsed


def hearts_steps(seconds: float, rng: random.Random) -> float:
    """Agent steps per second through OpenSpiel's ``rl_environment`` for Hearts."""
    from open_spiel.python import rl_environment  # type: ignore[import-not-found]

    environment = rl_environment.Environment("hearts")
    environment.seed(rng.randrange(1 << 30))
    choice = rng.choice
    n = 0
    start = time.process_time()
    while True:
        ts = environment.reset()
        while not ts.last():
            obs = ts.observations
            ts = environment.step([choice(obs["legal_actions"][obs["current_player"]])])
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
        import open_spiel.python.rl_environment  # type: ignore[import-not-found]  # noqa: F401
        import pettingzoo  # noqa: F401
    except ImportError as missing:
        sys.exit(f"{missing.name} is missing: pip install -e '.[rl,bench]'")
    gc.collect()
    gc.freeze()
    rng = random.Random(2024)
    runs: dict[str, list[float]] = {"lockup": [], "hearts": []}
    for r in range(args.rounds):
        runs["lockup"].append(lockup_steps(args.seconds, rng))
        runs["hearts"].append(hearts_steps(args.seconds, rng))
        print(
            f"round {r + 1}/{args.rounds}: "
            + ", ".join(f"{k} {v[-1]:,.0f} steps/s" for k, v in runs.items()),
            file=sys.stderr,
        )
    med = {k: statistics.median(v) for k, v in runs.items()}
    ratio = statistics.median(a / b for a, b in zip(runs["lockup"], runs["hearts"], strict=True))
    print(f"lockup pettingzoo env() steps/s:                 {med['lockup']:,.0f}")
    print(f"openspiel hearts rl_environment steps/s:         {med['hearts']:,.0f}")
    print(f"env/openspiel-hearts-rl ratio: {ratio:.2f}")


if __name__ == "__main__":
    main()
