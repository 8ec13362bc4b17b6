"""Computer opponents: one :class:`Bot` interface, levels from ``random`` to ``expert``."""

from .base import Bot

__all__ = ["Bot"]
