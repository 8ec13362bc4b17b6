"""The ``easy`` level: plausible, simple and beatable.

It plays like a beginner who knows only the first tips: follow low, throw a club when
void, win from the last seat when the trick is clean. It never counts cards nor judges
risk, and one decision in four (``noise``) it plays any legal card at random.
"""

from __future__ import annotations

import random

from ..cards import CLUB_MASK, SUIT_MASKS, Card, CardMask, cards_of
from ..engine import SeatView
from .base import Bot


def _low(m: CardMask) -> Card:
    return (m & -m).bit_length() - 1


def _high(m: CardMask) -> Card:
    return m.bit_length() - 1


class EasyBot(Bot):
    """Simple rules with noise; deterministic for a given seed."""

    name = "easy"

    def __init__(self, seed: int | None = None, *, noise: float = 0.25) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be between 0 and 1, not {noise!r}")
        self.rng = random.Random(seed)
        self.noise = noise

    def choose(self, view: SeatView) -> Card:
        """A simple rule-based card, or a random legal one now and then."""
        legal = view.legal_mask
        cards = cards_of(legal)
        if len(cards) == 1:
            return cards[0]
        if self.rng.random() < self.noise:
            return cards[self.rng.randrange(len(cards))]
        hand = view.hand_mask
        if not view.trick:
            # Lead the highest card of the longest suit it may lead.
            best = max(range(4), key=lambda su: ((legal & SUIT_MASKS[su]).bit_count(), -su))
            return _high(legal & SUIT_MASKS[best])
        led = view.led_suit
        assert led is not None
        follow = hand & SUIT_MASKS[led]
        if not follow:
            clubs = hand & CLUB_MASK
            return _high(clubs) if clubs else _low(hand)
        trick = view.trick
        clean = all(c >= 13 for _, c in trick)
        last = len(trick) == sum(1 for x in view.locks if x == 0) - 1
        best = max(c for _, c in trick if c // 13 == led)
        above = follow & ~((2 << best) - 1)
        if clean and last and above:
            return _low(above)
        return _low(follow)
