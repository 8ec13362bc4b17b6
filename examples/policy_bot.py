#!/usr/bin/env python3
"""The policy trained by examples/train_policy.py, as an outside bot for the arena.

    lockup arena --bots "cmd:python3 examples/policy_bot.py policy.npz,random,random,random" \\
        --hands 800 --seed 1

It speaks ``lockup-bot/2`` (docs/bot-protocol.md): each ``turn`` message becomes the
observation the policy was trained on (:func:`lockup.pettingzoo.observation_from_turn`,
the environment's own encoder), and it answers the legal card the policy scores highest.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from train_policy import FEATURES, features  # noqa: E402

from lockup.cards import card_str  # noqa: E402
from lockup.pettingzoo import observation_from_turn  # noqa: E402


def main() -> None:
    """Load the weights, then answer ``hello`` and every ``turn`` until ``bye``."""
    saved = np.load(sys.argv[1] if len(sys.argv) > 1 else "policy.npz")
    if tuple(saved["features"]) != FEATURES:
        sys.exit("policy_bot: these weights were trained on other features")
    weights = saved["weights"]
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if message.get("type") == "hello":
            print(json.dumps({"type": "hello", "protocol": "lockup-bot/2"}), flush=True)
        elif message.get("type") == "turn":
            legal, rows = features(observation_from_turn(message))
            card = int(legal[int(np.argmax(rows @ weights))])
            print(json.dumps({"id": message["id"], "card": card_str(card)}), flush=True)
        elif message.get("type") == "bye":
            break


if __name__ == "__main__":
    main()
