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
        return self.choose_legal(view.legal_mask)

    def choose_legal(self, legal_mask: int) -> Card:
        """A random card of ``legal_mask``: all this bot needs (see :meth:`Bot.choose_legal`)."""
        legal = cards_of(legal_mask)
        return legal[self.rng.randrange(len(legal))]
