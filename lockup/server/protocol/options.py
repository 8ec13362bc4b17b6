"""The options of a new game (``POST /api/games``), checked, and the options document
of ``GET /api/options``."""

from __future__ import annotations

from typing import Any

from ...engine import Rules
from .client import MAX_CHAT, REACTIONS, safe_text
from .wire import OPTION_KEYS, Options, RoomLimits

GRACE_RANGE = (5.0, 600.0)
"""The seconds a room's grace period may be (its option ``grace``)."""
GRACE_DEFAULT = 45.0
"""A room's grace period when its host sets none."""
TIMER_RANGE = (5.0, 300.0)
"""The seconds a room's turn timer may be, when it has one (its option ``turn_timer``)."""
TIMER_DEFAULT = 0.0
"""A room's turn timer when its host sets none: none."""


class OptionError(ValueError):
    """A new game's options are not valid; ``str()`` says why in plain words."""


def parse_options(data: Any, levels: list[str], default_level: str) -> tuple[Rules, str]:
    """The rules and bot level of ``POST /api/games``'s body; raises :class:`OptionError`."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise OptionError("the body must be a JSON object of options")
    unknown = sorted(set(data) - set(OPTION_KEYS))
    if unknown:
        raise OptionError(
            f"unknown option {safe_text(str(unknown[0]))!r}: the options are "
            f"{', '.join(OPTION_KEYS)}"
        )
    level = data.get("level", default_level)
    if not isinstance(level, str) or level not in levels:
        shown = safe_text(level) if isinstance(level, str) else level
        raise OptionError(f"level must be one of {', '.join(levels)}, not {shown!r}"[:200])
    try:
        rules = Rules(**{k: v for k, v in data.items() if k != "level"})
    except (TypeError, ValueError) as e:
        raise OptionError(safe_text(str(e), 200)) from None
    return rules, level


def options_document(levels: list[str], default_level: str) -> Options:
    """``GET /api/options``: what a new game may choose, with the defaults, and the limits
    of rooms (:func:`room_limits`)."""
    from ...engine import LOCK_DISCARDS, PICTURE_EXCEPTIONS, TARGETS

    d = Rules()
    return {
        "levels": levels,
        "default_level": default_level,
        "rules": {
            "target": {"default": d.target, "choices": sorted(TARGETS)},
            "picture_exception": {
                "default": d.picture_exception,
                "choices": list(PICTURE_EXCEPTIONS),
            },
            "lock_discards": {"default": d.lock_discards, "choices": list(LOCK_DISCARDS)},
        },
        "room": room_limits(),
    }


def room_limits() -> RoomLimits:
    """The limits of rooms, as ``GET /api/options`` serves them to the page (its
    room-core.js holds the same, tied by a test, for what it draws before they come)."""
    from ..accounts.names import MAX_NAME

    return {
        "reactions": list(REACTIONS),
        "max_chat": MAX_CHAT,
        "max_name": MAX_NAME,
        "grace": {
            "default": GRACE_DEFAULT,
            "min": GRACE_RANGE[0],
            "max": GRACE_RANGE[1],
            "off": False,
        },
        "turn_timer": {
            "default": TIMER_DEFAULT,
            "min": TIMER_RANGE[0],
            "max": TIMER_RANGE[1],
            "off": True,
        },
    }
