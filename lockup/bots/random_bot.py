"""The ``random`` level: a uniformly random legal card."""

from __future__ import annotations

import random

from ..cards import Card, cards_of
from ..engine import SeatView
from .base import Bot


class RandomBot(Bot):
    """Plays a legal card drawn uniformly at random; deterministic for a given seed."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Card:
        """A random card of ``view.legal_cards``."""
        return self.choose_among(view.legal_mask)

    def choose_among(self, legal_mask: int) -> Card:
        """A random card of ``legal_mask``: :meth:`choose` for a caller that has the legal
        cards and no view (building one costs a server more than this whole choice)."""
        legal = cards_of(legal_mask)
        return legal[self.rng.randrange(len(legal))]
