"""Presence: whether each person of a game is there, and a computer playing for them when
they are not (for a while, or for good).

:class:`Presence` keeps each person's :class:`~.attendance.Attendance` and the grace
timers of people with no page open. It decides; its game (a :class:`Seats`, the session)
does what it decides: a ``takeover`` or ``reclaim`` event, an abandonment, playing on.
The game is handed to each method that acts on it, and kept by a grace timer only while
it runs."""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from ...engine import Game
from ..store import StoreError
from .attendance import LEFT, PRESENT, Attendance
from .seat import Seat, TableOptions
from .timers import Handle, Timers, timers_or_loop


class Seats(Protocol):
    """What presence asks of its game (:class:`~.game.GameSession`)."""

    @property
    def lock(self) -> asyncio.Lock:
        """Held for every change of the game."""
        ...

    @property
    def closed(self) -> bool:
        """Whether this copy of the game is given up."""
        ...

    @property
    def game(self) -> Game:
        """The engine (whether the game is over)."""
        ...

    @property
    def seats(self) -> list[Seat]:
        """Who plays each seat (a person's ``away`` is set here)."""
        ...

    @property
    def table(self) -> TableOptions:
        """The grace period, whether the table is rated, the timeouts that abandon."""
        ...

    def connected(self, seat: int) -> bool:
        """Whether a page of ``seat``'s person is open."""
        ...

    def seat_of(self, player: str | None) -> int | None:
        """The seat ``player`` plays, or None."""
        ...

    async def note(self, kind: str, seat: int, data: dict[str, Any]) -> None:
        """Store and publish an event (``takeover``, ``reclaim``), holding the lock."""
        ...

    async def abandon(self, seat: int, why: str) -> str | None:
        """The person at ``seat`` abandons it for good, ``why``: their token, or None if
        it was not done (call it holding the lock)."""
        ...

    def abandoned(self, player: str) -> None:
        """After an abandonment, out of the lock."""
        ...

    def changed(self) -> None:
        """Who plays a seat changed (the room is told)."""
        ...

    def kick(self) -> None:
        """Play on (a computer now plays a seat)."""
        ...

    def start_clock(self) -> None:
        """Start the turn clock if a person is to play (a person took their seat back)."""
        ...


class Presence:
    """Each person's hold on their seat, and the grace periods of people gone.

    ``timers``: the event loop's clock and timers (the running loop when None)."""

    def __init__(self, timers: Timers | None = None) -> None:
        self._timers = timers
        self.attendance: dict[int, Attendance] = {}
        """Each person's hold on their seat (see :meth:`attendance_of`)."""
        self._grace: dict[int, Handle] = {}
        """The running grace timers, by seat."""
        self._taking_over: set[int] = set()
        """Seats whose grace ran out, the computer's takeover under way."""

    def attendance_of(self, seat: int, limit: int) -> Attendance:
        """The hold of ``seat``'s person on it in this game (made on first use; ``limit``:
        the turn timeouts that abandon it)."""
        found = self.attendance.get(seat)
        if found is None:
            found = self.attendance[seat] = Attendance(limit)
        return found

    # ------------------------------------------------------------------ pages

    def arrived(self, table: Seats, seat: int) -> None:
        """A page of ``seat``'s person is open: no grace runs; a person away takes their
        seat back (:meth:`set_away`, in a task)."""
        self.cancel(seat)
        if table.seats[seat].away:
            asyncio.get_running_loop().create_task(self.set_away(table, seat, False))

    def start_grace(self, table: Seats, seat: int, wait: float | None = None) -> None:
        """Start the grace period of ``seat``'s person, who has no page open (rooms only);
        ``wait``: seconds left of it, when less than the whole. When it runs out with no
        page back, a computer takes over (:meth:`set_away`)."""
        grace = table.table.grace if wait is None or table.table.grace is None else wait
        if grace is None or table.closed or table.game.is_over or table.seats[seat].away:
            return
        if seat in self._grace or table.seats[seat].kind != "human":
            return
        timers = timers_or_loop(self._timers)
        self._grace[seat] = timers.call_later(grace, self._expired, table, seat)

    def start_graces(self, table: Seats, seats: list[int], waits: dict[int, float]) -> None:
        """Start the grace period of each person of ``seats`` with no page open;
        ``waits``: seconds left of it for some (a person already away)."""
        for seat in seats:
            if not table.connected(seat):
                self.start_grace(table, seat, waits.get(seat))

    def cancel(self, seat: int) -> None:
        """Stop the grace period of ``seat``, if one runs."""
        timer = self._grace.pop(seat, None)
        if timer is not None:
            timer.cancel()

    def takeover_in(self, seat: int) -> float | None:
        """Seconds until a computer plays for ``seat``'s person, away now, or None."""
        if seat in self._taking_over:
            return 0.0
        timer = self._grace.get(seat)
        if timer is None:
            return None
        return round(max(0.0, timer.when() - timers_or_loop(self._timers).time()), 1)

    def _expired(self, table: Seats, seat: int) -> None:
        self._grace.pop(seat, None)
        if not table.connected(seat):
            self._taking_over.add(seat)
            asyncio.get_running_loop().create_task(self.set_away(table, seat, True))

    # ------------------------------------------------------------------ takeover

    async def set_away(self, table: Seats, seat: int, away: bool) -> None:
        """A computer takes over ``seat`` (``away``: its person's grace ran out), or its
        person takes it back: an event (``takeover`` or ``reclaim``) every viewer sees. At
        a rated table a person gone the whole grace has abandoned the seat instead
        (:meth:`Seats.abandon`, why ``gone``)."""
        done: bool | str = False
        try:
            async with table.lock:
                done = await self._set_away_locked(table, seat, away)
        finally:
            if away:
                self._taking_over.discard(seat)
        if isinstance(done, str):
            table.abandoned(done)
        elif done:
            table.changed()
            if away:
                table.kick()
            else:
                table.start_clock()

    async def _set_away_locked(self, table: Seats, seat: int, away: bool) -> bool | str:
        """:meth:`set_away` holding the lock: whether the seat changed hands, or the token
        of a person who abandoned it."""
        who = table.seats[seat]
        if table.closed or who.kind != "human":
            return False
        hold = self.attendance_of(seat, table.table.abandon_after)
        if away:
            if table.connected(seat) or table.game.is_over or hold.state != PRESENT:
                return False
            why = hold.gone(table.table.rated)
            if why is not None:
                return await table.abandon(seat, why) or False
        elif not hold.back():
            return False
        who.away = away
        kind = "takeover" if away else "reclaim"
        try:
            await table.note(kind, seat, {"level": who.level})
        except StoreError:
            return False
        return True

    async def timed_out(self, table: Seats, seat: int) -> str | None:
        """The computer played a card for ``seat``'s person, whose time ran out: counted;
        the K-th time in a game they abandon the seat (why ``timeouts``). Returns their
        token if they did. Call it holding the lock."""
        why = self.attendance_of(seat, table.table.abandon_after).timed_out()
        if why is None:
            return None
        return await table.abandon(seat, why)

    async def leave_game(self, table: Seats, player: str) -> bool:
        """``player`` leaves the game under way: they have abandoned their seat (why
        ``left``), a computer plays it for the rest of the game. False if they play no seat
        in it now, or it is over."""
        async with table.lock:
            seat = table.seat_of(player)
            if seat is None or table.closed or table.game.is_over:
                return False
            if self.attendance_of(seat, table.table.abandon_after).left() is None:
                return False
            gone = await table.abandon(seat, LEFT)
        if gone is not None:
            table.abandoned(gone)
        return gone is not None
