"""The turn clock: a person to play has this long for their card.

:class:`TurnClock` knows one timer at a time, for one seat at one action number (seq). When
it runs out it calls back what its starter gave it with that seat and seq; whether the
seat is a person's and what happens then (the computer plays the card for them) is the
session's to decide."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .timers import Handle, Timers, timers_or_loop

OutOfTime = Callable[[int, int], object]
"""Told ``(seat, seq)`` when the time of ``seat`` for the action numbered ``seq`` ran out."""


class TurnClock:
    """A game's turn timer: one seat's time for one card, or none running.

    ``timers``: the event loop's clock and timers (the running loop when None). The
    callback is given to :meth:`start`, not kept here beyond the timer it goes with, so
    the clock holds nothing of its game while no timer runs."""

    def __init__(self, timers: Timers | None = None) -> None:
        self._timers = timers
        self._running: tuple[int, int, float, float, Handle] | None = None
        """(seat, seq, deadline on the timers' clock, limit in seconds, timer)."""

    @property
    def seat(self) -> int | None:
        """The seat whose time runs, or None."""
        return None if self._running is None else self._running[0]

    @property
    def running(self) -> bool:
        """Whether a seat's time runs."""
        return self._running is not None

    def start(self, seat: int, seq: int, limit: float, out_of_time: OutOfTime) -> bool:
        """Give ``seat`` ``limit`` seconds for the action numbered ``seq``; when they run
        out, ``out_of_time(seat, seq)`` is called (once). Nothing is done, and False
        returned, while a timer runs already."""
        if self._running is not None:
            return False
        timers = timers_or_loop(self._timers)
        handle = timers.call_later(limit, self._rang, seq, out_of_time)
        self._running = (seat, seq, timers.time() + limit, limit, handle)
        return True

    def stop(self) -> None:
        """Stop the running timer, if any (its callback is not called)."""
        if self._running is not None:
            self._running[4].cancel()
            self._running = None

    def shown(self) -> dict[str, Any] | None:
        """The running timer as a page shows it (``seat``, ``seconds`` left, ``limit``),
        or None."""
        if self._running is None:
            return None
        seat, _, deadline, limit, _ = self._running
        left = max(0.0, deadline - timers_or_loop(self._timers).time())
        return {"seat": seat, "seconds": round(left, 1), "limit": limit}

    def _rang(self, seq: int, out_of_time: OutOfTime) -> None:
        running = self._running
        if running is not None and running[1] == seq:
            self._running = None
            out_of_time(running[0], seq)
