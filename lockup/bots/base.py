"""The one interface every computer player uses, built-in or outside.

A bot sees only its seat's :class:`~lockup.engine.SeatView` (never another seat's hidden
cards) and answers a legal card. Bots never make lockup discards: those are random (R10)
and made by whoever runs the game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..cards import Card
from ..engine import SeatView


class Bot(ABC):
    """A computer player. Subclasses implement :meth:`choose`."""

    name: str = "bot"
    """The level or program name shown in arena tables (``random``, ``expert``...)."""

    @abstractmethod
    def choose(self, view: SeatView) -> Card:
        """The card to play, one of ``view.legal_cards``; it is ``view.seat``'s turn."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the bot holds (a subprocess, a pool); the default does nothing."""
