"""The points of a hand in self-play, for the expert's chance-to-win value (issue 24).

The expert's option ``gwin`` values the end of an imagined hand by each seat's chance
to win the game (:mod:`lockup.bots.winchance`): it plays the rest of the game forward
many times, each later hand's points drawn from the hands of self-play this script
records. It plays ``--hands`` hands with four copies of a bot (by default the learned
policy, the strongest fast player: a hand takes milliseconds) and prints, as the Python
literal :data:`lockup.bots.winchance.HAND_POINTS` holds, each distinct four seats'
points sorted high to low with how often it fell. ``--check`` plays other games of self-play and scores,
after each hand, the chance the table gives each seat and the smooth estimate the expert
uses by default, against who won the game (log loss, and how often each names the winner).

Run::

    python bench/winchance.py --hands 20000 --seed 1
    python bench/winchance.py --check --games 4000 --seed 2
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lockup.arena.specs import build_bot, parse_spec  # noqa: E402
from lockup.bots import _kernel as K  # noqa: E402
from lockup.bots.kernel import kernel  # noqa: E402
from lockup.bots.winchance import win_chances  # noqa: E402
from lockup.engine import Game, Rules  # noqa: E402

GameHands = list[tuple[list[int], list[int]]]
"""One game: (totals before the hand, the hand's points) for each of its hands."""


def play_games(spec: str, hands: int, seed: int, target: int = 20) -> list[GameHands]:
    """Whole games of self-play of ``spec``, at least ``hands`` hands in all."""
    rng = random.Random(seed)
    bots = [build_bot(parse_spec(spec), seed=seed + i) for i in range(4)]
    games: list[GameHands] = []
    n = 0
    while n < hands:
        game = Game.new(rng, Rules(target=target), record=False)
        played: GameHands = []
        while not game.is_over:
            if game.hand_over:
                game.deal(rng=rng)
                continue
            if game.discard_due is not None:
                game.discard_random(rng)
            else:
                seat = game.turn
                game.play(bots[seat].choose(game.view(seat)), seat)
            if game.hand_over:
                before = [t - p for t, p in zip(game.totals, game.points, strict=True)]
                played.append((before, list(game.points)))
        games.append(played)
        n += len(played)
    return games


def check(spec: str, games: int, seed: int, target: int = 20) -> None:
    """Score, before every hand of ``games`` games of self-play, the chance the table gives
    each seat and the chance the default heuristic gives it, against who won."""
    km = kernel()
    loss = {"table": 0.0, "heuristic": 0.0}
    right = {"table": 0, "heuristic": 0}
    n = 0
    played = play_games(spec, games * 6, seed, target)[:games]
    for hands in played:
        last_before, last_pts = hands[-1]
        final = [t + p for t, p in zip(last_before, last_pts, strict=True)]
        winner = K.game_winner(final, target)
        for before, pts in hands:
            table = win_chances(km, tuple(before), target)
            s = [0] * K.STATE_SIZE
            for i in range(4):
                s[K.I_PTS + i] = pts[i]
            k = K.points_key(*pts)
            chance = {
                "table": [float(table[seat * K.P4 + k]) for seat in range(4)],
                "heuristic": [
                    K.utility(s, seat, before, target, 1.0, [0.0]) - pts[seat] for seat in range(4)
                ],
            }
            for name, ps in chance.items():
                right[name] += max(range(4), key=lambda i: ps[i]) == winner
                for seat, p in enumerate(ps):
                    p = min(max(p, 1e-3), 1 - 1e-3)
                    loss[name] -= math.log(p if seat == winner else 1 - p)
            n += 1
    print(f"{len(played)} games of {spec} self-play, {n} hands, seed {seed}:")
    for name in loss:
        print(
            f"  {name}: log loss {loss[name] / (4 * n):.4f} a seat, "
            f"names the winner after {right[name] / n:.1%} of the hands"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", default="learned", help="the arena bot spec that plays every seat")
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true", help="score the table against the heuristic")
    ap.add_argument("--games", type=int, default=2000)
    args = ap.parse_args(argv)
    if args.check:
        check(args.bot, args.games, args.seed)
        return 0
    seen: Counter[tuple[int, ...]] = Counter()
    for game in play_games(args.bot, args.hands, args.seed):
        for _, pts in game:
            seen[tuple(sorted(pts, reverse=True))] += 1
    print(f"# {args.hands} hands of {args.bot} self-play, seed {args.seed}")
    print("HAND_POINTS = (")
    for pts, count in sorted(seen.items(), key=lambda x: (-x[1], x[0])):
        print(f"    ({', '.join(map(str, pts))}, {count}),")
    print(")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
