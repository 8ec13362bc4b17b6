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

    think_time: float = 0.0
    """The longest a move takes at the level's default budget, in seconds (0: no search).
    The server holds every card of the level at least this long, so that how long a bot
    took does not tell whether its card was forced."""

    @abstractmethod
    def choose(self, view: SeatView) -> Card:
        """The card to play, one of ``view.legal_cards``; it is ``view.seat``'s turn."""

    def choose_legal(self, legal_mask: int) -> Card | None:
        """The card to play chosen from the legal cards alone, for a bot that needs no
        more (``random``), or None (the default): the caller then builds the seat's view
        and asks :meth:`choose`. A server calls this first, since a view costs it more
        than such a bot's whole choice."""
        return None

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the bot holds (a subprocess, a pool); the default does nothing."""
