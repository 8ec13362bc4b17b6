"""A room's options (``POST /api/rooms``) and display names, checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...engine import Rules
from ..accounts.names import MAX_NAME as MAX_NAME
from ..accounts.names import BadName, clean_name
from ..protocol import OptionError, safe_text
from ..protocol.options import GRACE_DEFAULT, TIMER_DEFAULT
from ..protocol.options import GRACE_RANGE as GRACE_RANGE
from ..protocol.options import TIMER_RANGE as TIMER_RANGE

ROOM_KEYS = (
    "target",
    "picture_exception",
    "lock_discards",
    "levels",
    "grace",
    "turn_timer",
    "public",
    "rated",
    "name",
)
"""The options of ``POST /api/rooms``."""


@dataclass
class RoomOptions:
    """A room's options: the rules, a computer level per seat, the grace period before a
    computer plays for a person who left (seconds), a turn timer (seconds, 0: none), and
    whether the lobby lists it; whether its finished games change the players' ratings
    (``rated``: the host's choice, always so at a quick-play table); whether it is a
    quick-play table (``quick``: seated by ``POST /api/quickplay``, never by the host)."""

    rules: Rules = field(default_factory=Rules)
    levels: list[str] = field(default_factory=lambda: ["normal"] * 4)
    grace: float = GRACE_DEFAULT
    turn_timer: float = TIMER_DEFAULT
    public: bool = False
    rated: bool = False
    quick: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON for the store and the pages."""
        return {
            **self.rules.to_dict(),
            "levels": self.levels,
            "grace": self.grace,
            "turn_timer": self.turn_timer,
            "public": self.public,
            "rated": self.rated,
            "quick": self.quick,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoomOptions:
        """Options as stored."""
        rules = Rules(
            picture_exception=data["picture_exception"],
            lock_discards=data["lock_discards"],
            target=data["target"],
        )
        return cls(
            rules,
            list(data["levels"]),
            data["grace"],
            data["turn_timer"],
            data["public"],
            bool(data.get("rated", False)),  # rooms stored before ratings have neither
            bool(data.get("quick", False)),
        )


def parse_room_options(
    data: Any, levels: list[str], default_level: str
) -> tuple[RoomOptions, str | None]:
    """The options of ``POST /api/rooms`` and the host's display name; raises
    :class:`OptionError` saying what is wrong."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise OptionError("the body must be a JSON object of options")
    unknown = sorted(set(data) - set(ROOM_KEYS))
    if unknown:
        raise OptionError(
            f"unknown option {safe_text(str(unknown[0]))!r}: the options are {', '.join(ROOM_KEYS)}"
        )
    try:
        rules = Rules(
            **{k: data[k] for k in ("target", "picture_exception", "lock_discards") if k in data}
        )
    except (TypeError, ValueError) as e:
        raise OptionError(safe_text(str(e), 200)) from None
    chosen = data.get("levels", default_level)
    if isinstance(chosen, str):
        chosen = [chosen] * 4
    if (
        not isinstance(chosen, list)
        or len(chosen) not in (3, 4)
        or not all(isinstance(x, str) and x in levels for x in chosen)
    ):
        raise OptionError(f"levels must be a level or a list of 3 or 4 of {', '.join(levels)}")
    if len(chosen) == 3:  # the seats other than the host's
        chosen = [default_level, *chosen]

    def number(key: str, default: float, low: float, high: float, zero_ok: bool) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise OptionError(f"{key} must be a number of seconds")
        value = float(value)
        if not (low <= value <= high or (zero_ok and value == 0)):
            off = " or 0 for none" if zero_ok else ""
            raise OptionError(f"{key} must be {low:g} to {high:g} seconds{off}")
        return value

    grace = number("grace", 45.0, *GRACE_RANGE, zero_ok=False)
    timer = number("turn_timer", 0.0, *TIMER_RANGE, zero_ok=True)
    public = data.get("public", False)
    if not isinstance(public, bool):
        raise OptionError("public must be true or false")
    rated = data.get("rated", False)
    if not isinstance(rated, bool):
        raise OptionError("rated must be true or false")
    name = data.get("name")
    if name is not None:
        name = check_name(name)
    return RoomOptions(rules, list(chosen), grace, timer, public, rated), name


def check_name(name: Any) -> str:
    """A display name, cleaned; raises :class:`OptionError` for none or a bad one: the
    rules of account names (:func:`~lockup.server.accounts.names.clean_name`): a letter
    or digit that shows, at most :data:`MAX_NAME` characters, no computer's name."""
    try:
        return clean_name(name, MAX_NAME)
    except BadName as e:
        raise OptionError(str(e)) from None
