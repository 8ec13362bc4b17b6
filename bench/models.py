"""Which rollout model predicts a bot's cards?

The expert's search rolls each other seat out by a model of how that seat plays: the
``normal`` rules (:func:`lockup.bots._kernel.policy`) for a seat they explain, otherwise
the greedy policy (:func:`lockup.bots._kernel.greedy_card`); a third candidate model is
the policy learned from the expert's choices in self-play
(:func:`lockup.arena.learned.learned_card`, the arena's ``learned``). This script plays
hands with four copies of one bot and, at each of its choices among two or more legal
cards, asks each model which card it would play from what that seat knows (the greedy
policy reads which cards are still in play, public knowledge). It prints how often each
model names the card the bot played.

Run::

    python bench/models.py pimc+ --hands 6 --iterations 300
    python bench/models.py pimc --hands 6 --iterations 300

The bot is any arena spec (``lockup arena --help``); ``--iterations`` is its search budget
(deterministic, so the figures repeat for a seed).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lockup.arena.learned import learned_card  # noqa: E402
from lockup.arena.specs import build_bot, parse_spec  # noqa: E402
from lockup.bots import _kernel as K  # noqa: E402
from lockup.bots.kernel import DEFAULT_POLICY, view_state  # noqa: E402
from lockup.engine import Game, Rules  # noqa: E402


def agreement(spec: str, hands: int, iterations: int, seed: int) -> dict[str, float]:
    """Per model, the share of the bot's choices it predicts; ``decisions`` their number."""
    rng = random.Random(seed)
    bot_spec = parse_spec(spec)
    bots = [build_bot(bot_spec, seed=seed + i, iterations=iterations) for i in range(4)]
    n = 0
    hits = {"normal": 0, "learned": 0, "greedy": 0}
    for _ in range(hands):
        game = Game.new(rng, Rules(), record=False)
        while not game.hand_over:
            if game.discard_due is not None:
                game.discard_random(rng)
                continue
            seat = game.turn
            view = game.view(seat)
            card = bots[seat].choose(view)
            if view.legal_mask & (view.legal_mask - 1):
                s = view_state(view, K, DEFAULT_POLICY)  # what the seat sees
                n += 1
                hits["normal"] += K.policy(list(s)) == card
                hits["learned"] += learned_card(view) == card
                for i in range(4):
                    s[K.I_HAND + i] = game.hands[i]  # the cards left; only their union is read
                hits["greedy"] += K.greedy_card(s) == card
            game.play(card, seat)
    return {"decisions": float(n), **{k: v / max(n, 1) for k, v in hits.items()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bot", help="an arena bot spec, e.g. pimc+ or expert:iterations=200")
    ap.add_argument("--hands", type=int, default=6)
    ap.add_argument("--iterations", type=int, default=300, help="the bot's search budget")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    r = agreement(args.bot, args.hands, args.iterations, args.seed)
    print(
        f"{args.bot}: {int(r['decisions'])} choices; the card predicted by "
        f"normal {r['normal']:.1%}, learned {r['learned']:.1%}, greedy {r['greedy']:.1%}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
