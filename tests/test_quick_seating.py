"""The seating state machine at a quick-play table (issue 25), as hypothesis's stateful
test: the rooms' machine of tests/test_room_seating.py, every rule and invariant of it,
with a quick table's differences: nobody starts it or removes anyone, it has no host
powers, and it starts on its own once full or when its start time has come."""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule
from test_room_seating import SeatingMachine, person, seat

from lockup.server.rooms import CLOSED, OPEN, PLAYING, Seating, Sitter

WAIT = 20.0
"""The table's start time, on the machine's clock (``now`` starts at 0)."""


class QuickSeatingMachine(SeatingMachine):
    """A quick table from its first person on: joins, leaves, pages, refused starts and
    removals, the server's start check, game ends, rematch votes and time, in any order."""

    def __init__(self) -> None:
        super().__init__()
        self.s = Seating(
            "ann", [Sitter("ann", "Ann"), None, None, None], grace=10.0, quick=True, starts_at=WAIT
        )

    @rule(by=person)
    def start(self, by: str) -> None:
        before = self.s.status
        self.attempt(self.s.start, by)
        assert self.s.status == before, "nobody starts a quick table"

    @rule(by=person, at=seat)
    def remove(self, by: str, at: Any) -> None:
        before = list(self.s.seats)
        self.attempt(self.s.remove, by, at)
        assert self.s.seats == before, "nobody removes anyone at a quick table"

    @rule()
    def the_server_checks_the_start(self) -> None:
        due = self.s.start_due(self.now)
        before = self.s.status
        started = self.s.start_quick(self.now)
        assert started == due
        assert self.s.status == (PLAYING if started else before)
        if started:
            assert before == OPEN and self.s.people()

    @rule(seconds=st.floats(0, 30))
    def time_passes(self, seconds: float) -> None:
        super().time_passes(seconds)

    @invariant()
    def someone_can_always_start_or_leave(self) -> None:
        if self.s.status == CLOSED:
            assert self.s.people() == []
            return
        assert self.s.host_seat() is None, "no host powers at a quick table"
        starts_in = self.s.starts_in(self.now)
        if self.s.status == OPEN:
            # Open with people: it starts by itself, at its time at the latest.
            assert self.s.people() and starts_in is not None
            assert starts_in == max(0.0, WAIT - self.now)
            full = all(x is not None for x in self.s.seats)
            assert self.s.start_due(self.now) == (full or self.now >= WAIT)
        else:
            assert starts_in is None


TestQuickSeating = QuickSeatingMachine.TestCase
TestQuickSeating.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)
