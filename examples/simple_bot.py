#!/usr/bin/env python3
"""A small outside Lockup bot: the ``lockup-bot/2`` protocol in plain Python (stdlib only).

Run it in the arena::

    lockup arena --bots "cmd:python3 examples/simple_bot.py,random,random,random" --hands 200

It reads one JSON message a line on standard input. It answers ``hello`` with the protocol
version it speaks, and each ``turn`` with one line, ``{"id": ID, "card": "QD"}`` (the
turn's id and its card), on standard output (docs/bot-protocol.md). Its play is simple:
lead its highest card, take a trick without clubs when it can, duck a trick holding clubs
(its winner is locked up), and when it cannot follow, throw its highest club (a club
played on another suit never wins, and it locks the trick's winner) or else its lowest
card.
"""

import json
import sys

RANKS = "23456789TJQKA"


def rank(card: str) -> int:
    """0 for a two .. 12 for an ace."""
    return RANKS.index(card[0])


def suit(card: str) -> str:
    """The suit letter: C, D, H or S."""
    return card[1]


def choose(view: dict) -> str:
    """The card to play: one of ``view["legal"]``."""
    legal = view["legal"]
    trick = view["trick"]
    if not trick:  # leading: our highest card, to take the trick
        return max(legal, key=rank)
    led = suit(trick[0]["card"])
    best = max(rank(p["card"]) for p in trick if suit(p["card"]) == led)
    has_clubs = any(suit(p["card"]) == "C" for p in trick)
    follow = [c for c in legal if suit(c) == led]
    if follow:
        over = [c for c in follow if rank(c) > best]
        under = [c for c in follow if rank(c) < best]
        if has_clubs and under:  # a trick holding clubs locks its winner: duck it
            return max(under, key=rank)
        if over and not has_clubs:  # a clean trick is a point: take it
            return max(over, key=rank)
        return min(follow, key=rank)
    clubs = [c for c in legal if suit(c) == "C"]
    if clubs:  # a club on another suit never wins, and it locks the winner
        return max(clubs, key=rank)
    return min(legal, key=rank)


def send(message: dict) -> None:
    """Write one line and flush it (an answer left in a buffer never arrives)."""
    print(json.dumps(message), flush=True)


def main() -> None:
    """Answer ``hello`` and every ``turn`` until ``bye`` or the end of the input."""
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": "lockup-bot/2"})
        elif kind == "turn":
            send({"id": message["id"], "card": choose(message["view"])})
        elif kind == "bye":
            break
        # game, hand and game_over need no answer.


if __name__ == "__main__":
    main()
