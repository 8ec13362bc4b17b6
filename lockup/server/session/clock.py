"""The turn timer: a person to play has this long before the computer plays for them
(the card itself is played by :meth:`~lockup.server.session.driver.Driver._play_for`)."""

from __future__ import annotations

import asyncio

from ...engine import PLAY
from ..protocol import (
    clock_frame,
)
from .core import SessionBase


class Clock(SessionBase):
    """A session's turn timer."""

    def _stop_clock(self) -> None:
        if self._clock is not None:
            self._clock[3].cancel()
            self._clock = None

    def _start_clock(self) -> None:
        """Start the turn timer if a person (not away) is to play and the table has one."""
        limit = self.table.turn_timer
        g = self.game
        if limit <= 0 or self.closed or g.phase != PLAY or self._clock is not None:
            return
        seat = g.turn
        if self.seats[seat].computer_plays:
            return
        loop = asyncio.get_running_loop()
        seq = self.seq

        def out_of_time() -> None:
            if self._clock is not None and self._clock[1] == seq:
                self._clock = None
                loop.create_task(self._play_for(seat, seq))

        deadline = loop.time() + limit
        self._clock = (seat, seq, deadline, loop.call_later(limit, out_of_time))
        frame = clock_frame(self.version, self.clock())
        for sub in self.subscribers:
            sub.send(frame)

    async def _play_for(self, seat: int, seq: int) -> None:
        """The turn timer ran out: the computer plays for ``seat`` (see the driver)."""
        raise NotImplementedError
