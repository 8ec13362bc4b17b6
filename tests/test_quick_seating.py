"""The seating state machine at a quick-play table, as hypothesis's stateful test and as
plain examples: the rooms' machine of tests/test_room_seating.py, every rule and
invariant of it, with a quick table's differences: nobody starts it or removes anyone, it
has no host powers, it starts on its own once every seat counts or when its start time
has come, a seat counts only once its person's page has opened the table (a *pending*
seat is freed :data:`PENDING_WAIT` seconds after it was given, and at the start at the
latest), and nobody holds two seats of it from one address or one browser."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, rule
from test_room_seating import SeatingMachine, person, seat

from lockup.server.protocol import ProtocolError
from lockup.server.rooms import CLOSED, OPEN, PLAYING, Seating, Sitter
from lockup.server.rooms.seating import PENDING_WAIT

WAIT = 20.0
"""The table's start time, on the machine's clock (``now`` starts at 0)."""
ADDRESS = {"ann": "home", "bob": "home", "cat": "cafe", "dan": "office", "eve": "phone"}
"""Where each person sits down from: Ann and Bob share an address."""


class QuickSeatingMachine(SeatingMachine):
    """A quick table from its first person on: joins (pending until a page opens), leaves,
    pages, refused starts and removals, the server's step (freeing the pending seats whose
    time has come, then starting), game ends, rematch votes and time, in any order."""

    def __init__(self) -> None:
        super().__init__()
        first = Sitter("ann", "Ann", "home", "b-ann", pending_until=PENDING_WAIT)
        self.s = Seating("ann", [first, None, None, None], grace=10.0, quick=True, starts_at=WAIT)

    @rule(who=person, at=seat)
    def join(self, who: str, at: Any) -> None:
        before = self.s.status
        mine = self.s.seat_of(who)
        got = self.attempt(
            lambda: self.s.join(
                who,
                who.title(),
                at,
                self.now,
                tag=ADDRESS[who],
                browser=f"b-{who}",
                wall=self.now,
            )
        )
        if got is None:
            return
        assert self.s.seat_of(who) == got
        sitter = self.s.seats[got]
        assert sitter is not None
        if mine is None and before == OPEN:
            # A new seat counts once a page of its person is open, not before.
            assert (sitter.pending_until is None) == self.s.present(who)

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
    def the_server_checks_the_table(self) -> None:
        """What the room service does at a pending seat's end or the start time."""
        before = self.s.status
        pending = {self.s.seats[i].player for i in self.s.pending()}  # type: ignore[union-attr]
        freed = self.s.free_unconnected(self.now)
        assert set(freed) <= pending
        for i in self.s.pending():
            sitter = self.s.seats[i]
            assert sitter is not None and sitter.pending_until is not None
            assert sitter.pending_until > self.now and self.now < WAIT
        due = self.s.start_due(self.now)
        started = self.s.start_quick(self.now)
        assert started == due
        if started:
            assert before == OPEN and self.s.status == PLAYING and self.s.people()
        if before == OPEN and self.now >= WAIT:
            # Its time has come: the table plays, or nobody ever came and it closed.
            assert self.s.status in (PLAYING, CLOSED)
        if self.s.status == CLOSED and before != CLOSED:
            assert before == OPEN and freed, "only freeing no-shows closes a table here"

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
            counted = self.s.counted()
            full = len(counted) == 4
            assert self.s.start_due(self.now) == (bool(counted) and (full or self.now >= WAIT))
            wake = self.s.quick_wake(self.now)
            assert wake is not None and wake <= starts_in
        else:
            assert starts_in is None

    @invariant()
    def a_seat_counts_once_its_page_is_open(self) -> None:
        for i in self.s.pending():
            sitter = self.s.seats[i]
            assert sitter is not None and sitter.pending_until is not None
            assert self.s.status == OPEN, "a game never starts on a pending seat"
            assert not self.s.present(sitter.player)
            assert sitter.pending_until <= self.now + PENDING_WAIT

    @invariant()
    def one_seat_an_address_or_browser(self) -> None:
        sitters = [s for s in self.s.seats if s is not None]
        tags = [s.tag for s in sitters]
        browsers = [s.browser for s in sitters]
        assert len(tags) == len(set(tags)) and len(browsers) == len(set(browsers))


TestQuickSeating = QuickSeatingMachine.TestCase
TestQuickSeating.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)


# ---------------------------------------------------------------------- examples


def table(pending: bool = True) -> Seating:
    """A quick table made at 0, starting at :data:`WAIT`, Ann (from home) at South."""
    first = Sitter("ann", "Ann", "home", "b-ann", PENDING_WAIT if pending else None)
    return Seating("ann", [first, None, None, None], quick=True, starts_at=WAIT)


def test_a_seat_is_pending_until_its_page_opens() -> None:
    s = table()
    assert s.pending() == [0] and s.counted() == []
    assert s.join("bob", "Bob", None, 1.0, tag="cafe", browser="b-bob", wall=1.0) == 1
    bob = s.seats[1]
    assert bob is not None and bob.pending_until == 1.0 + PENDING_WAIT
    assert s.quick_wake(1.0) == PENDING_WAIT - 1.0  # Ann's seat ends first
    # Bob's page opens: his seat counts; a second page changes nothing more.
    assert s.open_page("p1", "bob") is True and s.open_page("p2", "bob") is False
    assert s.pending() == [0] and s.counted() == ["bob"]
    # Pressing again (a renamed join) keeps what is pending.
    s.join("ann", "Annie", wall=2.0)
    assert s.seats[0] is not None and s.seats[0].pending_until == PENDING_WAIT
    # A person whose page is already open (a spectator who sits down) counts at once.
    s.open_page("p3", "cy")
    s.join("cy", "Cy", None, 2.0, tag="office", browser="b-cy", wall=2.0)
    assert s.pending() == [0] and s.counted() == ["bob", "cy"]


def test_pending_seats_never_fill_the_table_and_are_freed_in_time() -> None:
    s = table()
    for i, who in enumerate(["bob", "cy", "di"], start=1):
        s.join(who, who.title(), None, 0.5, tag=f"t{i}", browser=f"b{i}", wall=0.5)
    assert len(s.people()) == 4 and not s.start_due(1.0), "four no-shows are not a full table"
    with pytest.raises(ProtocolError) as e:
        s.join("eve", "Eve", None, 1.0, tag="t9", browser="b9", wall=1.0)
    assert e.value.code == "room-full"
    s.open_page("p", "bob")
    assert s.free_unconnected(PENDING_WAIT - 0.01) == []
    assert s.free_unconnected(PENDING_WAIT) == ["ann"]  # hers was given first
    assert s.free_unconnected(PENDING_WAIT + 0.5) == ["cy", "di"]
    assert s.people() == ["bob"] and s.host == "bob" and s.status == OPEN
    assert s.seats == [None, s.seats[1], None, None]
    # The freed seats are free again; at the start the seats still empty are computers'.
    assert not s.start_quick(WAIT - 1) and s.start_quick(WAIT)
    assert s.status == PLAYING and s.people() == ["bob"]


def test_the_start_frees_every_pending_seat_and_a_table_of_no_shows_closes() -> None:
    s = table(pending=False)  # Ann's page is open
    s.open_page("p", "ann")
    s.join("bob", "Bob", None, 19.0, tag="cafe", browser="b-bob", wall=19.0)
    assert s.start_due(WAIT) and s.start_quick(WAIT)
    assert s.people() == ["ann"] and s.pending() == []
    # Nobody ever came: at the start time the table closes, it never starts.
    alone = table()
    alone.join("bob", "Bob", None, 1.0, tag="cafe", browser="b-bob", wall=1.0)
    assert not alone.start_due(WAIT) and not alone.start_quick(WAIT)
    assert sorted(alone.free_unconnected(WAIT)) == ["ann", "bob"]
    assert alone.status == CLOSED and alone.people() == []
    assert alone.quick_wake(WAIT) is None


def test_every_seat_counting_starts_the_table_at_once() -> None:
    s = table()
    for i, who in enumerate(["bob", "cy", "di"], start=1):
        s.join(who, who.title(), None, 1.0, tag=f"t{i}", browser=f"b{i}", wall=1.0)
    for i, who in enumerate(["ann", "bob", "cy"]):
        s.open_page(i, who)
        assert not s.start_due(2.0)
    s.open_page(9, "di")
    assert s.start_due(2.0) and s.start_quick(2.0) and s.status == PLAYING


def test_one_address_or_one_browser_holds_one_seat_of_a_quick_table() -> None:
    s = table()
    for tag, browser in (("home", "other"), ("elsewhere", "b-ann")):
        with pytest.raises(ProtocolError) as e:
            s.join("bob", "Bob", None, 1.0, tag=tag, browser=browser, wall=1.0)
        assert e.value.code == "same-address" and s.people() == ["ann"]
    assert s.join("bob", "Bob", None, 1.0, tag="cafe", browser="b-bob", wall=1.0) == 1
    # Not known is nobody's address; a friends' room takes a household.
    s.join("cy", "Cy", None, 1.0, wall=1.0)
    s.join("di", "Di", None, 1.0, wall=1.0)
    room = Seating("ann", [Sitter("ann", "Ann", "home", "b-ann"), None, None, None])
    assert room.join("bob", "Bob", None, 1.0, tag="home", browser="b-ann") == 1
    assert room.pending() == [], "a friends' room has no pending seats"
