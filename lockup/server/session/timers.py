"""What the session's timed parts need of the event loop: its clock and its timers.

The turn clock (:mod:`.clock`) and the grace periods (:mod:`.presence`) are given an
object with the event loop's :meth:`~asyncio.loop.time` and
:meth:`~asyncio.loop.call_later`: the running loop itself, or in a test a fake whose
time is moved by hand."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol


class Handle(Protocol):
    """A timer that was set (:class:`asyncio.TimerHandle`)."""

    def cancel(self) -> None:
        """Stop it: its callback is not called, and is let go."""

    def when(self) -> float:
        """When it goes off, on the timers' clock."""


class Timers(Protocol):
    """A clock and timers on it (the running event loop, or a fake in tests)."""

    def time(self) -> float:
        """Now, in seconds on this clock."""

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> Handle:
        """Call ``callback(*args)`` in ``delay`` seconds."""


def timers_or_loop(timers: Timers | None) -> Timers:
    """``timers``, or the running event loop when None."""
    return timers if timers is not None else asyncio.get_running_loop()
