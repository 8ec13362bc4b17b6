"""Bots by name: ``make_bot("expert", seed=7)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Bot
from .random_bot import RandomBot

BotFactory = Callable[..., Bot]

LEVELS: dict[str, BotFactory] = {
    "random": RandomBot,
}
"""The built-in levels, weakest first."""


def make_bot(name: str, *, seed: int | None = None, **options: Any) -> Bot:
    """A new bot of level ``name``; ``seed`` makes it deterministic (with an iteration budget)."""
    try:
        factory = LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: choose one of {', '.join(LEVELS)}") from None
    return factory(seed=seed, **options)
