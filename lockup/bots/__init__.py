"""Computer opponents: one :class:`Bot` interface, levels from ``random`` to ``expert``."""

from .base import Bot
from .registry import LEVELS, make_bot

__all__ = ["LEVELS", "Bot", "make_bot"]
