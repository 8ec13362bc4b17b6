"""Who sits where, and what a session tells its subscribers: seats, table options, views."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .attendance import ABANDON_AFTER


def available_levels() -> list[str]:
    """The bot levels a game may use, weakest first."""
    from ...bots import LEVELS

    return list(LEVELS)


class Subscriber(Protocol):
    """A connection that receives a seat's events (the WebSocket, in the app)."""

    seat: int

    def send(self, frame: str | bytes) -> None:
        """Queue a JSON text frame (as text, or encoded as UTF-8) for the client; never
        blocks."""

    def close(self, code: int) -> None:
        """Close the connection (the client reconnects and says ``hello``)."""


@dataclass
class Seat:
    """Who sits at a seat: a human (``player`` token) or a bot (``level``).

    A human's ``level`` is the computer that plays for them while they are ``away`` (in a
    room: gone longer than the grace period); ``tag`` and ``browser``: where they sat down
    from (a room's :class:`~lockup.server.rooms.Sitter`), kept with the game's
    participants so that a rated game can tell one person holding two seats.
    """

    kind: str
    player: str | None = None
    level: str | None = None
    away: bool = False
    tag: str | None = None
    browser: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON for the store."""
        if self.kind == "human":
            out: dict[str, Any] = {"kind": "human", "player": self.player, "level": self.level}
            if self.tag is not None:
                out["tag"] = self.tag
            if self.browser is not None:
                out["browser"] = self.browser
            return out
        return {"kind": "bot", "level": self.level}

    def public(self) -> dict[str, Any]:
        """What every player may know of the seat: who plays it, never their token."""
        return {
            "kind": self.kind,
            "level": self.level if self.kind == "bot" else None,
            "away": self.away,
        }

    @property
    def computer_plays(self) -> bool:
        """Whether a computer makes this seat's decisions now."""
        return self.kind == "bot" or self.away

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        """A seat from the store's JSON."""
        return cls(
            str(data["kind"]),
            data.get("player"),
            data.get("level"),
            tag=data.get("tag"),
            browser=data.get("browser"),
        )


@dataclass
class TableOptions:
    """How a game at a table of people goes on without them (rooms' options).

    ``grace``: seconds a person may be gone before a computer plays for them (None: never,
    a game of one person waits). ``turn_timer``: seconds a person has for a card before the
    computer plays it for them (0: no limit). ``rated``: a rated table, where a person gone
    the whole grace has abandoned their seat (a computer plays it for good) instead of
    getting it back on return. ``abandon_after``: the turn timeouts in one game after which
    a person has abandoned their seat (:data:`~.attendance.ABANDON_AFTER`).
    """

    grace: float | None = None
    turn_timer: float = 0.0
    rated: bool = False
    abandon_after: int = ABANDON_AFTER
