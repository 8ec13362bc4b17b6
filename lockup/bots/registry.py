"""Bots by name: ``make_bot("expert", seed=7)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Bot
from .easy import EasyBot
from .expert import ExpertBot, MasterBot
from .normal import NormalBot
from .random_bot import RandomBot

BotFactory = Callable[..., Bot]

LEVELS: dict[str, BotFactory] = {
    "random": RandomBot,
    "easy": EasyBot,
    "normal": NormalBot,
    "expert": ExpertBot,
    "master": MasterBot,
}
"""The built-in levels, weakest first."""


def think_time(name: str) -> float:
    """The longest a move of level ``name`` takes at its default budget (seconds; 0 for an
    unknown level)."""
    factory = LEVELS.get(name)
    return float(getattr(factory, "think_time", 0.0))


def make_bot(name: str, *, seed: int | None = None, **options: Any) -> Bot:
    """A new bot of level ``name``; ``seed`` makes it deterministic (with an iteration budget).

    ``options`` go to the level: ``expert`` and ``master`` take ``iterations``,
    ``time_limit``, ``wgame``, ``rec`` and ``jit`` (docs/bots.md); ``normal`` takes
    ``risk``; ``easy`` takes ``noise``. An unknown level or option raises
    :class:`ValueError`.
    """
    try:
        factory = LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: choose one of {', '.join(LEVELS)}") from None
    try:
        return factory(seed=seed, **options)
    except TypeError as e:
        raise ValueError(f"bad option for bot {name!r}: {e}") from None
