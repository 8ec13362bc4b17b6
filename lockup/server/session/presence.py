"""Presence and takeover: pages joining and leaving, the grace period, a computer taking
over a person's seat (for a while, or for good)."""

from __future__ import annotations

import asyncio
import time

from ..protocol import (
    SPECTATOR,
    ProtocolError,
    clock_frame,
    synced_frame,
)
from ..store import (
    Store,
    StoreError,
)
from .driver import Driver
from .seat import Seat, Subscriber


class Presence(Driver):
    """Who is connected, and a computer playing for a person who is not."""

    def join(self, sub: Subscriber, since: int) -> None:
        """Subscribe ``sub`` and send it what it missed after version ``since``: the
        kept events, or one ``state`` if they are gone (or ``since`` is 0)."""
        self.last_active = time.monotonic()
        history = self.histories.get(sub.seat)
        if history is None:
            raise ProtocolError("not-your-game", "You have no seat in this game.")
        if self.unstored:
            # A write is under way and the engine already holds its moves, which may yet
            # be refused: the page is sent the game once it is stored (a room's page
            # joins without the game's lock).
            self._joining[sub] = since
            return
        missed = history.since(since, self.version)
        if missed is None:
            sub.send(self.state_frame(sub.seat))
        else:
            for text in missed:
                sub.send(text)
            if not missed:  # up to date: say so, the page's game is back
                sub.send(synced_frame(self.version))
            clock = self.clock()
            if clock is not None:
                sub.send(clock_frame(self.version, clock))
        first = not self.connected(sub.seat)
        self.subscribers.add(sub)
        if sub.seat != SPECTATOR:
            timer = self._away_timers.pop(sub.seat, None)
            if timer is not None:
                timer.cancel()
            if self.seats[sub.seat].away:
                asyncio.get_running_loop().create_task(self._set_away(sub.seat, False))
        if first and sub.seat != SPECTATOR:
            self._changed()

    def leave(self, sub: Subscriber) -> None:
        """Unsubscribe ``sub``; a person's last page gone starts the grace period."""
        if self._joining.pop(sub, None) is not None:  # it joined during a write, and left
            if sub.seat != SPECTATOR and not self.connected(sub.seat):
                self._start_grace(sub.seat)
            return
        if sub not in self.subscribers:
            return
        self.subscribers.discard(sub)
        self.last_active = time.monotonic()
        if sub.seat != SPECTATOR and not self.connected(sub.seat):
            self._start_grace(sub.seat)
        self._changed()

    def _start_grace(self, seat: int, wait: float | None = None) -> None:
        """Start the grace period of a person with no page connected (rooms only);
        ``wait``: seconds left of it, when less than the whole."""
        grace = self.table.grace if wait is None or self.table.grace is None else wait
        if grace is None or self.closed or self.game.is_over or self.seats[seat].away:
            return
        if seat in self._away_timers or self.seats[seat].kind != "human":
            return
        loop = asyncio.get_running_loop()

        def expired() -> None:
            self._away_timers.pop(seat, None)
            if not self.connected(seat):
                self._taking_over.add(seat)
                loop.create_task(self._set_away(seat, True))

        self._away_timers[seat] = loop.call_later(grace, expired)

    def start_graces(self, waits: dict[int, float] | None = None) -> None:
        """Start the grace period of every person not connected (a game just loaded or
        started); ``waits``: seconds left of it for some seats (a person already away)."""
        for seat in self.human_seats():
            if not self.connected(seat):
                self._start_grace(seat, (waits or {}).get(seat))

    def takeover_in(self, seat: int) -> float | None:
        """Seconds until a computer plays for ``seat``'s person, away now, or None."""
        if seat in self._taking_over:
            return 0.0
        timer = self._away_timers.get(seat)
        if timer is None:
            return None
        return round(max(0.0, timer.when() - asyncio.get_running_loop().time()), 1)

    async def _set_away(self, seat: int, away: bool) -> None:
        """A computer takes over ``seat`` (``away``), or its person takes it back: an event
        (``takeover`` or ``reclaim``) every viewer sees."""
        try:
            await self._set_away_locked(seat, away)
        finally:
            if away:
                self._taking_over.discard(seat)

    async def _set_away_locked(self, seat: int, away: bool) -> None:
        async with self.lock:
            who = self.seats[seat]
            if self.closed or who.away == away or who.kind != "human":
                return
            if away and (self.connected(seat) or self.game.is_over):
                return
            who.away = away
            kind = "takeover" if away else "reclaim"
            try:
                await self.note(kind, seat, {"level": who.level})
            except StoreError:
                return
        self._changed()
        if away:
            self.kick()
        else:
            self._start_clock()

    async def replace_by_computer(self, seat: int, name: str) -> None:
        """A computer takes ``seat`` for good (its person was removed from the room): a
        ``seat`` event, and the seats stored."""
        async with self.lock:
            who = self.seats[seat]
            if who.kind != "human":
                return
            self.seats[seat] = Seat("bot", level=who.level or self.service.default_level)
            self.names[seat] = name
            timer = self._away_timers.pop(seat, None)
            if timer is not None:
                timer.cancel()
            if self._clock is not None and self._clock[0] == seat:
                self._stop_clock()
            await self._write(
                Store.op_seats(self.id, [x.to_dict() for x in self.seats], self.names)
            )
            # The person's pages watch from now on (a room's game has a public stream),
            # before anything more of the seat is sent: the event below reaches them as
            # spectators.
            for sub in [s for s in self.subscribers if s.seat == seat]:
                self.subscribers.discard(sub)
                sub.seat = SPECTATOR
                if SPECTATOR in self.histories:
                    self.join(sub, 0)
                else:
                    sub.close(1000)
            await self.note("seat", seat, {"by": "computer", "name": name})
        self._changed()
        self.kick()
