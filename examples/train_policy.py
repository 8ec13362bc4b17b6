#!/usr/bin/env python3
"""Train a small Lockup policy in the PettingZoo environment, on CPU, with NumPy only.

    python examples/train_policy.py --seconds 180 --out policy.npz

One seat (a different one each episode) is the learner; the other three are the project's
bots (``random`` by default, ``--opponents easy`` for a harder school). The policy is a
softmax over the legal cards of a linear score: each legal card gets a handful of features
read from the environment's observation (does it follow suit, would it win the trick as it
stands, how many clubs would that trick lock its winner for, is it the highest card of
its suit still out...). Training is REINFORCE on the per-trick rewards (1 a trick won) with
a baseline per trick number: a lock (R9) costs tricks later in the hand, and the returns
teach the policy that. A few minutes are enough to beat ``random`` clearly.

Then measure it in the arena, where it plays as an outside bot (examples/policy_bot.py):

    lockup arena --bots "cmd:python3 examples/policy_bot.py policy.npz,random,random,random" \\
        --hands 800 --seed 1

See docs/pettingzoo.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lockup.bots.registry import make_bot  # noqa: E402
from lockup.pettingzoo import AGENTS, LAYOUT, raw_env  # noqa: E402

FEATURES = (
    "bias",
    "rank",
    "club",
    "picture",
    "leading",
    "leading*rank",
    "follows",
    "follows*rank",
    "wins_now",
    "wins_now*clubs",
    "wins_now*last",
    "wins_now*last*clubs",
    "club_on_other_suit",
    "master",
    "leading*master",
    "suit_length",
    "clubs_held",
    "wins_now*late",
)
"""The features of a legal card, in the order of the weight vector."""


def features(obs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The legal cards of an observation and a row of :data:`FEATURES` for each."""
    o = obs["observation"]
    legal = np.flatnonzero(obs["action_mask"])
    hand = o[LAYOUT["hand"]].astype(bool)
    on_table = o[LAYOUT["trick_by_seat"]].reshape(4, 52)
    played = o[LAYOUT["played_by_seat"]].reshape(4, 52).any(axis=0)
    lost = o[LAYOUT["lost_by_seat"]].reshape(4, 52).any(axis=0)
    unseen = ~(hand | played | lost)
    table = on_table.any(axis=0)
    n_table = int(table.sum())
    leading = n_table == 0
    locks = o[LAYOUT["locks_by_seat"]]
    players = int((locks == 0).sum())
    last = n_table == players - 1
    clubs_on_table = int(table[:13].sum())
    if leading:
        led, best = -1, -1
    else:
        leader = int(np.flatnonzero(o[LAYOUT["leader_by_seat"]])[0])
        led = int(np.flatnonzero(on_table[leader])[0]) // 13
        best = int(np.flatnonzero(table[13 * led : 13 * led + 13]).max())
    late = o[LAYOUT["trick_number"]][0] / 12
    clubs_held = hand[:13].sum() / 13
    rows = []
    for c in legal:
        suit, rank = divmod(int(c), 13)
        club = suit == 0
        follows = suit == led
        wins = leading or (follows and rank > best)
        clubs_after = (clubs_on_table + club) / 4
        master = not unseen[13 * suit + rank + 1 : 13 * suit + 13].any()
        rows.append(
            (
                1.0,
                rank / 12,
                club,
                9 <= rank <= 11,
                leading,
                leading * rank / 12,
                follows,
                follows * rank / 12,
                wins,
                wins * clubs_after,
                wins and last,
                wins * last * clubs_after,
                club and not leading and not follows,
                master,
                leading and master,
                hand[13 * suit : 13 * suit + 13].sum() / 13,
                clubs_held,
                wins * late,
            )
        )
    return legal, np.asarray(rows, dtype=np.float64)


def probabilities(weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The softmax policy over the legal cards."""
    z = rows @ weights
    z = np.exp(z - z.max())
    return z / z.sum()


def choose(weights: np.ndarray, obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    """A card drawn from the policy (``greedy`` play: take the argmax instead)."""
    legal, rows = features(obs)
    return int(legal[rng.choice(len(legal), p=probabilities(weights, rows))])


def train(seconds: float, opponents: str, seed: int, lr: float) -> tuple[np.ndarray, int]:
    """REINFORCE for ``seconds`` of CPU time; the weights and the episodes played."""
    rng = np.random.default_rng(seed)
    pyrng = random.Random(seed)
    weights = np.zeros(len(FEATURES))
    baseline = np.full(13, 13 / 4 / 2)  # return still to come, per trick number
    grad_sq = np.full(len(FEATURES), 1e-8)  # RMSprop-style step sizes
    env = raw_env(reward="trick", episode="hand")
    episodes = 0
    start = time.process_time()
    recent: list[float] = []
    while time.process_time() - start < seconds:
        env.reset(seed=pyrng.randrange(1 << 30))
        learner = AGENTS[episodes % 4]
        bots = {a: make_bot(opponents, seed=pyrng.randrange(1 << 30)) for a in AGENTS}
        steps: list[tuple[np.ndarray, int, np.ndarray, int]] = []
        rewards: list[float] = []
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if agent == learner and steps:
                rewards[-1] += reward
            if term or trunc:
                env.step(None)
                continue
            if agent == learner:
                legal, rows = features(obs)
                p = probabilities(weights, rows)
                k = int(rng.choice(len(legal), p=p))
                steps.append((rows, k, p, env.game.trick_number))
                rewards.append(0.0)
                env.step(int(legal[k]))
            else:
                env.step(bots[agent].choose(env.game.view(AGENTS.index(agent))))
        returns = np.cumsum(rewards[::-1])[::-1]
        grad = np.zeros_like(weights)
        for (rows, k, p, t), g in zip(steps, returns, strict=True):
            advantage = g - baseline[t]
            baseline[t] += 0.01 * advantage
            grad += advantage * (rows[k] - p @ rows)
        grad_sq = 0.99 * grad_sq + 0.01 * grad**2
        weights += lr * grad / np.sqrt(grad_sq)
        recent.append(float(returns[0]) if len(returns) else 0.0)
        episodes += 1
        if episodes % 2000 == 0:
            print(
                f"{episodes} hands, {time.process_time() - start:.0f} s: "
                f"learner's tricks a hand over the last 2000: {np.mean(recent[-2000:]):.2f}",
                file=sys.stderr,
            )
    return weights, episodes


def evaluate(weights: np.ndarray, opponents: str, hands: int, seed: int) -> float:
    """Mean tricks a hand of the greedy policy at each seat in turn, in the environment."""
    pyrng = random.Random(seed)
    env = raw_env(reward="trick", episode="hand")
    total = 0.0
    for h in range(hands):
        env.reset(seed=pyrng.randrange(1 << 30))
        learner = AGENTS[h % 4]
        bots = {a: make_bot(opponents, seed=pyrng.randrange(1 << 30)) for a in AGENTS}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if agent == learner:
                total += reward
            if term or trunc:
                env.step(None)
            elif agent == learner:
                legal, rows = features(obs)
                env.step(int(legal[int(np.argmax(rows @ weights))]))
            else:
                env.step(bots[agent].choose(env.game.view(AGENTS.index(agent))))
    return total / hands


def main() -> None:
    """Train, report, save."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=180, help="CPU seconds of training")
    parser.add_argument("--opponents", default="random", help="the bots' level (random, easy...)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--out", default="policy.npz", help="where to save the weights")
    args = parser.parse_args()
    weights, episodes = train(args.seconds, args.opponents, args.seed, args.lr)
    np.savez(args.out, weights=weights, features=np.array(FEATURES))
    print(f"trained on {episodes} hands; weights saved to {args.out}")
    for name, w in zip(FEATURES, weights, strict=True):
        print(f"  {name:22} {w:+.2f}")
    score = evaluate(weights, args.opponents, 2000, args.seed + 1)
    print(
        f"greedy policy against {args.opponents}: {score:.2f} tricks a hand (an equal share: 3.25)"
    )


if __name__ == "__main__":
    main()
