"""A person's hold on their seat in one game, as a small state machine (no I/O, no time).

::

    present ──grace over, unrated table──▶ away ──a page is back──▶ present
       │                                    │
       └──┬─ the K-th turn timeout ─────────┴──▶ abandoned (for good)
          ├─ grace over at a rated table
          └─ leaves the game

While ``away`` a computer plays for the person until one of their pages is back (they
take the seat back). ``abandoned`` is for good: a computer plays the seat for the rest
of the game and the person never takes it back. The session
(:mod:`~lockup.server.session.presence`, :mod:`~lockup.server.session.driver`) tells each
person's :class:`Attendance` what happened and does what it answers: store and publish a
``takeover``, a ``reclaim`` or an ``abandon`` event.
"""

from __future__ import annotations

from dataclasses import dataclass

PRESENT = "present"
AWAY = "away"
ABANDONED = "abandoned"
STATES = (PRESENT, AWAY, ABANDONED)
"""A person's hold on their seat."""

TIMEOUTS = "timeouts"
GONE = "gone"
LEFT = "left"
WHYS = (TIMEOUTS, GONE, LEFT)
"""Why a person abandoned their seat (the ``why`` of an ``abandon`` event): they ran out of
time :data:`ABANDON_AFTER` times, were gone the whole grace period at a rated table, or
left the game."""

ABANDON_AFTER = 3
"""The turn timeouts in one game after which a person has abandoned their seat (K)."""


@dataclass
class Attendance:
    """One person's hold on their seat in one game: :data:`PRESENT`, :data:`AWAY` (a
    computer plays for them until they are back) or :data:`ABANDONED` (a computer plays
    the seat for good; ``why`` says why), and how many times their turn timer ran out.

    Each method is one thing that happened; it changes the state and answers what the
    session must do. ``limit``: the timeouts that make an abandonment (K)."""

    limit: int = ABANDON_AFTER
    state: str = PRESENT
    timeouts: int = 0
    why: str | None = None

    @property
    def abandoned(self) -> bool:
        """Whether the person has abandoned the seat (for good)."""
        return self.state == ABANDONED

    def timed_out(self) -> str | None:
        """The turn timer ran out and the computer played one card for the person:
        counted. Returns :data:`TIMEOUTS` when that was the K-th (they abandon now), else
        None."""
        if self.abandoned:
            return None
        self.timeouts += 1
        if self.timeouts >= self.limit:
            return self._abandon(TIMEOUTS)
        return None

    def gone(self, rated: bool) -> str | None:
        """The grace period ran out with no page of the person's open: at a ``rated``
        table they abandon (returns :data:`GONE`); elsewhere they are :data:`AWAY` (a
        computer plays for them until they are back; returns None)."""
        if self.state != PRESENT:
            return None
        if rated:
            return self._abandon(GONE)
        self.state = AWAY
        return None

    def back(self) -> bool:
        """A page of the person's is open again: True if they take their seat back (they
        were away); False if they had not lost it, or abandoned it for good."""
        if self.state != AWAY:
            return False
        self.state = PRESENT
        return True

    def left(self) -> str | None:
        """The person left the game under way: returns :data:`LEFT` (they abandon), or
        None if they had abandoned it already."""
        if self.abandoned:
            return None
        return self._abandon(LEFT)

    def _abandon(self, why: str) -> str:
        self.state = ABANDONED
        self.why = why
        return why
