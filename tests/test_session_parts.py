"""The parts of a game session, each alone: the turn clock, the publisher, the driver and
presence (``lockup/server/session``), with fakes for everything around them.

- :class:`~lockup.server.session.clock.TurnClock` on fake timers (and once on the real
  loop): it rings once, for the seat and action it was started for, unless stopped.
- :class:`~lockup.server.session.publisher.Publisher` with fake pages: each viewer gets
  each version with its own view, spectators a ``skip`` of what they may not see, and a
  page that comes back what it missed.
- :class:`~lockup.server.session.driver.Driver` with a fake game around the real engine
  and a fake bot pool: runs stored a run a write, up to a person's turn; a paced bot asked
  out of the lock; a timed-out person's card.
- :class:`~lockup.server.session.presence.Presence` with a fake game and fake timers:
  grace periods started and cancelled, a takeover and a reclaim, abandonment.

Last, the whole :class:`~lockup.server.session.GameSession` (with a fake store): its parts
keep nothing of it, so a session nobody holds is freed without the cyclic collector.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import weakref
from collections.abc import Callable, Iterable
from types import SimpleNamespace
from typing import Any

import pytest

from lockup.cards import card_str
from lockup.engine import DEAL, PLAY, Game, Rules, SeatView
from lockup.server.net.limits import Slots
from lockup.server.protocol import (
    CLOSE_TRY_LATER,
    SPECTATOR,
    UNAVAILABLE,
    ProtocolError,
    note_event,
)
from lockup.server.session import GameSession, Seat, TableOptions
from lockup.server.session.attendance import ABANDON_AFTER, AWAY, PRESENT
from lockup.server.session.clock import TurnClock
from lockup.server.session.driver import RUN, Driver
from lockup.server.session.presence import Presence
from lockup.server.session.publisher import Publisher
from lockup.server.store import StoreError

# ---------------------------------------------------------------------- fakes


class FakeHandle:
    """A timer of :class:`FakeTimers`."""

    def __init__(self, at: float, callback: Callable[..., object], args: tuple[Any, ...]):
        self.at = at
        self.callback: Callable[..., object] | None = callback
        self.args = args
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
        self.callback = None

    def when(self) -> float:
        return self.at


class FakeTimers:
    """A clock moved by hand and the timers on it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.handles: list[FakeHandle] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> FakeHandle:
        handle = FakeHandle(self.now + delay, callback, args)
        self.handles.append(handle)
        return handle

    def armed(self) -> int:
        return sum(1 for h in self.handles if not h.cancelled)

    def advance(self, seconds: float) -> None:
        """Move the clock on, calling the timers due, in order."""
        self.now += seconds
        due = sorted((h for h in self.handles if h.at <= self.now), key=lambda h: h.at)
        for handle in due:
            self.handles.remove(handle)
            if handle.callback is not None:
                handle.callback(*handle.args)


class Page:
    """A page subscribed to one viewer: the frames it was sent, how it was closed."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.frames: list[dict[str, Any]] = []
        self.closed: int | None = None

    def send(self, text: str) -> None:
        self.frames.append(json.loads(text))

    def close(self, code: int) -> None:
        self.closed = code

    def versions(self) -> list[int]:
        return [f["version"] for f in self.frames if f["type"] in ("event", "skip")]


async def settle() -> None:
    """Let the tasks started so far run."""
    for _ in range(5):
        await asyncio.sleep(0)


def lowest(view: SeatView) -> int:
    """The lowest legal card of ``view``."""
    mask = view.legal_mask
    return (mask & -mask).bit_length() - 1


# ---------------------------------------------------------------------- the turn clock


def test_the_clock_rings_once_for_the_seat_and_action_it_was_started_for() -> None:
    timers = FakeTimers()
    clock = TurnClock(timers)
    rang: list[tuple[int, int]] = []
    assert clock.shown() is None and clock.seat is None
    assert clock.start(2, 7, 30.0, lambda seat, seq: rang.append((seat, seq)))
    assert clock.shown() == {"seat": 2, "seconds": 30.0, "limit": 30.0}
    timers.advance(12.34)
    assert rang == [] and clock.shown() == {"seat": 2, "seconds": 17.7, "limit": 30.0}
    timers.advance(17.66)
    assert rang == [(2, 7)]
    assert not clock.running and clock.seat is None and clock.shown() is None
    timers.advance(100)
    assert rang == [(2, 7)]


def test_a_stopped_clock_never_rings_and_a_running_one_is_not_started_again() -> None:
    timers = FakeTimers()
    clock = TurnClock(timers)
    rang: list[tuple[int, int]] = []
    clock.start(1, 3, 10.0, lambda seat, seq: rang.append((seat, seq)))
    assert not clock.start(2, 4, 10.0, lambda seat, seq: rang.append((seat, seq)))
    assert clock.seat == 1
    clock.stop()
    assert timers.armed() == 0, "the timer (and its callback) is let go"
    timers.advance(60)
    assert rang == []
    assert clock.start(2, 4, 5.0, lambda seat, seq: rang.append((seat, seq)))
    timers.advance(5)
    assert rang == [(2, 4)]


def test_the_clock_on_the_running_loop() -> None:
    """No timers given: the running event loop's."""

    async def go() -> list[tuple[int, int]]:
        rang: list[tuple[int, int]] = []
        clock = TurnClock()
        clock.start(3, 1, 0.02, lambda seat, seq: rang.append((seat, seq)))
        shown = clock.shown()
        assert shown is not None and shown["seat"] == 3 and shown["limit"] == 0.02
        await asyncio.sleep(0.05)
        return rang

    assert asyncio.run(go()) == [(3, 1)]


# ---------------------------------------------------------------------- the publisher


def publisher(version: int = 0) -> Publisher:
    """A publisher for people at seats 0 and 2 and spectators; a viewer's view says who
    it is for."""

    def views(viewers: Iterable[int]) -> dict[int, bytes]:
        return {v: json.dumps({"for": v}).encode() for v in viewers}

    pub = Publisher(views, version, [0, 2], 4)
    pub.open_to_spectators()
    return pub


def chat(text: str) -> Any:
    return note_event("chat", 0, {"text": text})


def test_each_viewer_gets_each_version_with_its_own_view_and_spectators_no_chat() -> None:
    pub = publisher()
    south, north, watcher, other = Page(0), Page(2), Page(SPECTATOR), Page(0)
    for page in (south, north, watcher, other):
        pub.add(page)
    pub.publish([chat("a"), chat("b")])
    pub.publish([chat("c")], moved=False, players_only=True)
    assert pub.version == 3 and pub.stable_since == 1  # the chat leaves a card's version
    for page in (south, north, watcher, other):
        assert page.versions() == [1, 2, 3]
        events = [f for f in page.frames if f["type"] == "event"]
        assert {json.dumps(f["view"]) for f in events} == {json.dumps({"for": page.seat})}
    assert [f["type"] for f in watcher.frames] == ["event", "event", "skip"]
    assert [f["event"]["text"] for f in south.frames] == ["a", "b", "c"]
    assert pub.watchers == 1 and pub.connected(0) and not pub.connected(1)
    with pytest.raises(ProtocolError) as refused:
        pub.check_version(0)
    assert refused.value.code == "stale"
    pub.check_version(2)


def test_frames_made_before_a_write_are_delivered_after_it() -> None:
    """Frames are built at the version they will have, and only sent when delivered."""
    pub = publisher(5)
    page = Page(2)
    pub.add(page)
    made = pub.frames([chat("x"), chat("y")], pub.version)
    assert page.frames == [] and pub.version == 5
    pub.deliver(made)
    assert page.versions() == [6, 7] and pub.version == 7 and pub.stable_since == 6


def test_a_page_that_comes_back_gets_what_it_missed_or_the_state() -> None:
    pub = publisher()
    pub.publish([chat("a"), chat("b"), chat("c")])
    states: list[int] = []

    def state(viewer: int) -> str:
        states.append(viewer)
        return json.dumps({"type": "state", "version": pub.version})

    clock = {"seat": 0, "seconds": 9.5, "limit": 30.0}
    missed = Page(0)
    pub.catch_up(missed, 1, state, clock)
    assert [f["type"] for f in missed.frames] == ["event", "event", "clock"]
    assert missed.versions() == [2, 3]
    current = Page(2)
    pub.catch_up(current, 3, state, None)
    assert [f["type"] for f in current.frames] == ["synced"]
    new = Page(SPECTATOR)
    pub.catch_up(new, 0, state, clock)
    assert [f["type"] for f in new.frames] == ["state"] and states == [SPECTATOR]
    pub.publish([chat(str(i)) for i in range(5)])  # more than a history keeps
    late = Page(0)
    pub.catch_up(late, 3, state, None)
    assert [f["type"] for f in late.frames] == ["state"]
    with pytest.raises(ProtocolError) as refused:
        pub.catch_up(Page(1), 0, state, None)
    assert refused.value.code == "not-your-game"
    assert pub.subscribers == set(), "catching up subscribes nobody"


def test_pages_waiting_for_a_write_then_a_seat_handed_over_then_all_closed() -> None:
    pub = publisher()
    waiting, gone, south = Page(0), Page(2), Page(0)
    pub.wait(waiting, 0)
    pub.wait(gone, 0)
    assert pub.connected(0) and pub.connected(2)
    assert pub.unwait(gone) and not pub.unwait(gone) and not pub.connected(2)
    assert pub.take_waiting() == {waiting: 0} and pub.waiting == {}
    pub.add(south)
    assert pub.take_seat(0) == [south] and not pub.connected(0)
    assert not pub.remove(south)
    pub.add(south)
    pub.wait(waiting, 0)
    pub.close_all('{"type":"error"}', 1013)
    assert south.closed == 1013 and waiting.closed == 1013
    assert [f["type"] for f in south.frames] == ["error"]
    assert pub.subscribers == set() and pub.waiting == {}


# ---------------------------------------------------------------------- the driver


class FakePool:
    """Bots that play their lowest legal card, noting who was asked and whether the game
    was locked then; ``during``: called while a bot thinks."""

    def __init__(self, table: FakeTable | None = None) -> None:
        self.table = table
        self.asked: list[tuple[str, int, bool]] = []
        self.during: Callable[[], None] | None = None

    async def choose(self, level: str, view: SeatView) -> int:
        locked = self.table is not None and self.table.lock.locked()
        self.asked.append((level, view.seat, locked))
        if self.during is not None:
            during, self.during = self.during, None
            during()
        await asyncio.sleep(0)
        return lowest(view)

    def choose_now(self, level: str, game: Game, seat: int) -> int:
        view = game.view(seat)
        locked = self.table is not None and self.table.lock.locked()
        self.asked.append((level, view.seat, locked))
        return lowest(view)


class FakeBots:
    """The service's side of the driver: slots, a fake pool, a seeded rng, no pacing
    unless ``holds`` says so."""

    def __init__(self, pool: FakePool, holds: dict[str, float] | None = None) -> None:
        self.slots = Slots(2)
        self.pool = pool
        self.rng = random.Random(3)
        self.default_level = "random"
        self.bot_delay = 0.0
        self.holds = holds or {}

    def bot_hold(self, level: str = "") -> float:
        return self.holds.get(level, 0.0)


class FakeTable:
    """A game for the driver: the real engine, each action noted; ``commits``: the
    actions stored, a write each."""

    def __init__(self, seats: list[Seat]) -> None:
        self.id = "g"
        self.lock = asyncio.Lock()
        self.closed = False
        self.game = Game(Rules(target=10), dealer=0)
        self.seats = seats
        self.seq = 0
        self.unstored = 0
        self.priority = 0
        self.commits: list[list[tuple[str, int, int, str | None]]] = []
        self.timeouts: list[int] = []
        self.gone: str | None = None
        self.abandons: list[str] = []
        self.kicks = 0

    def make(
        self,
        kind: str,
        seat: int,
        card: int = -1,
        deal: list[list[int]] | None = None,
        actor: str | None = None,
        pending: Any = (),
    ) -> tuple[str, int, int, str | None]:
        assert self.lock.locked(), "an action is made holding the game's lock"
        assert len(pending) == self.unstored
        if kind == "deal":
            assert deal is not None
            self.game.deal(deal)
        elif kind == "play":
            self.game.play(card, seat)
        else:
            self.game.discard(card, seat)
        self.unstored += 1
        return (kind, seat, card, actor)

    async def commit(self, made: list[tuple[str, int, int, str | None]]) -> None:
        self.commits.append(list(made))
        self.seq += len(made)
        self.unstored = 0

    async def apply(self, kind: str, seat: int, card: int = -1, *, actor: str) -> None:
        await self.commit([self.make(kind, seat, card, None, actor)])

    def drop(self, cause: StoreError) -> None:
        raise AssertionError(f"dropped: {cause}")

    async def timed_out(self, seat: int) -> str | None:
        assert self.lock.locked()
        self.timeouts.append(seat)
        return self.gone

    def abandoned(self, player: str) -> None:
        self.abandons.append(player)

    def kick(self) -> None:
        self.kicks += 1

    def actions(self) -> list[tuple[str, int, int, str | None]]:
        return [a for c in self.commits for a in c]


def people_and_bots(level: str) -> list[Seat]:
    return [Seat("human", player="p", level="easy")] + [Seat("bot", level=level)] * 3


async def driven(driver: Driver, table: FakeTable) -> None:
    driver.kick(table)
    for _ in range(1000):
        if not driver.running:
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the driver never stopped")


def test_the_driver_plays_on_in_runs_a_write_each_up_to_a_persons_turn() -> None:
    """Deals, discards and the cards of bots that choose on the loop are made under one
    hold and stored together, a run of at most RUN a write; the driver stops at the
    person's turn, never choosing for the person."""

    async def go() -> None:
        table = FakeTable(people_and_bots("random"))
        pool = FakePool(table)
        driver = Driver(FakeBots(pool))
        await driven(driver, table)
        g = table.game
        assert g.phase == PLAY and g.turn == 0 and not g.is_over
        actions = table.actions()
        assert actions[0][0] == "deal" and table.seq == len(actions)
        assert all(1 <= len(c) <= RUN for c in table.commits)
        assert all(seat != 0 for kind, seat, _, _ in actions if kind == "play")
        assert all(actor == "computer" for kind, _, _, actor in actions if kind == "play")
        assert {seat for _, seat, _ in pool.asked} <= {1, 2, 3}
        assert all(locked for _, _, locked in pool.asked), "an inline bot chooses in the run"
        # The person plays; the driver goes on to their next turn.
        async with table.lock:
            await table.apply("play", 0, g.legal_cards()[0], actor="person")
        before = len(table.commits)
        await driven(driver, table)
        assert len(table.commits) > before and (g.turn == 0 or g.phase != PLAY)

    asyncio.run(go())


def test_a_paced_bot_thinks_out_of_the_lock_and_a_card_for_a_moved_game_is_dropped() -> None:
    """A bot that is paced (or thinks off the loop) is asked with the game's lock free;
    if the game moved on meanwhile, its card is not played and its turn asked again."""

    async def go() -> None:
        table = FakeTable(people_and_bots("expert"))
        pool = FakePool(table)
        driver = Driver(FakeBots(pool, holds={"expert": 0.001}))
        # The first bot's card comes back after the game moved on.
        pool.during = lambda: setattr(table, "seq", table.seq + 1)
        await driven(driver, table)
        while not pool.asked:  # the person led: their card, then the bots'
            async with table.lock:
                await table.apply("play", 0, table.game.legal_cards()[0], actor="person")
            await driven(driver, table)
        assert table.game.turn == 0 and table.game.phase == PLAY
        assert pool.asked and not any(locked for _, _, locked in pool.asked)
        plays = [a for a in table.actions() if a[0] == "play" and a[3] == "computer"]
        assert len(pool.asked) == len(plays) + 1, "the dropped card's turn was asked again"
        assert pool.asked[0][1] == pool.asked[1][1]

    asyncio.run(go())


def test_a_timed_out_persons_card_is_the_computers_and_counted() -> None:
    async def go() -> None:
        table = FakeTable(people_and_bots("random"))
        pool = FakePool(table)
        driver = Driver(FakeBots(pool))
        await driven(driver, table)
        seq = table.seq
        await driver.play_for(table, 0, seq - 1)  # the game moved on since: nothing
        assert table.seq == seq and table.timeouts == []
        await driver.play_for(table, 0, seq)
        assert table.actions()[-1][:2] == ("play", 0) and table.actions()[-1][3] == "computer"
        assert pool.asked[-1][:2] == ("easy", 0), "the person's seat's level chooses"
        assert table.timeouts == [0] and table.kicks == 1 and table.abandons == []
        await driven(driver, table)
        table.gone = "p"  # this time out abandons the seat
        await driver.play_for(table, 0, table.seq)
        assert table.timeouts == [0, 0] and table.abandons == ["p"]

    asyncio.run(go())


def test_the_driver_stops_at_the_games_end_and_when_closed() -> None:
    async def go() -> None:
        table = FakeTable([Seat("bot", level="random")] * 4)
        driver = Driver(FakeBots(FakePool()))
        await driven(driver, table)
        assert table.game.is_over
        assert all(len(c) <= RUN for c in table.commits) and len(table.commits) > 1
        closed = FakeTable([Seat("bot", level="random")] * 4)
        closed.closed = True
        await driven(driver, closed)
        assert closed.commits == [] and closed.game.phase == DEAL

    asyncio.run(go())


# ---------------------------------------------------------------------- presence


class FakeSeats:
    """A game for presence: seats 0 and 1 people, 2 and 3 computers; ``pages``: the
    seats with a page open; every event and call noted."""

    def __init__(self, table: TableOptions) -> None:
        self.lock = asyncio.Lock()
        self.closed = False
        self.game = SimpleNamespace(is_over=False)
        self.seats = [
            Seat("human", player="p0", level="easy"),
            Seat("human", player="p1", level="normal"),
            Seat("bot", level="easy"),
            Seat("bot", level="easy"),
        ]
        self.table = table
        self.pages: set[int] = set()
        self.notes: list[tuple[str, int, dict[str, Any]]] = []
        self.abandons: list[tuple[int, str]] = []
        self.after: list[str] = []
        self.calls: list[str] = []

    def connected(self, seat: int) -> bool:
        return seat in self.pages

    def seat_of(self, player: str | None) -> int | None:
        return next((s for s, x in enumerate(self.seats) if x.player == player), None)

    async def note(self, kind: str, seat: int, data: dict[str, Any]) -> None:
        assert self.lock.locked()
        self.notes.append((kind, seat, data))

    async def abandon(self, seat: int, why: str) -> str | None:
        assert self.lock.locked()
        self.abandons.append((seat, why))
        player = self.seats[seat].player
        self.seats[seat] = Seat("bot", level="easy")
        return player

    def abandoned(self, player: str) -> None:
        self.after.append(player)

    def changed(self) -> None:
        self.calls.append("changed")

    def kick(self) -> None:
        self.calls.append("kick")

    def start_clock(self) -> None:
        self.calls.append("clock")


def test_a_person_gone_the_grace_is_taken_over_and_takes_the_seat_back_on_return() -> None:
    async def go() -> None:
        timers = FakeTimers()
        table = FakeSeats(TableOptions(grace=30.0))
        presence = Presence(timers)
        presence.start_grace(table, 1)
        assert presence.takeover_in(1) == 30.0 and presence.takeover_in(0) is None
        timers.advance(29)
        await settle()
        assert presence.takeover_in(1) == 1.0 and table.notes == []
        timers.advance(1)
        assert presence.takeover_in(1) == 0.0  # under way
        await settle()
        assert table.notes == [("takeover", 1, {"level": "normal"})]
        assert table.seats[1].away and table.calls == ["changed", "kick"]
        assert presence.attendance_of(1, ABANDON_AFTER).state == AWAY
        assert presence.takeover_in(1) is None
        table.pages.add(1)
        presence.arrived(table, 1)
        await settle()
        assert table.notes[-1] == ("reclaim", 1, {"level": "normal"})
        assert not table.seats[1].away and table.calls[-2:] == ["changed", "clock"]
        assert presence.attendance[1].state == PRESENT and table.abandons == []

    asyncio.run(go())


def test_a_page_back_within_the_grace_cancels_it_and_a_grace_only_runs_for_people() -> None:
    async def go() -> None:
        timers = FakeTimers()
        table = FakeSeats(TableOptions(grace=30.0))
        presence = Presence(timers)
        table.pages.add(0)
        presence.start_graces(table, [0, 1], {1: 4.0})
        assert presence.takeover_in(0) is None and presence.takeover_in(1) == 4.0
        presence.start_grace(table, 2)  # a computer's seat
        presence.start_grace(table, 1)  # one runs already
        assert timers.armed() == 1
        table.pages.add(1)
        presence.arrived(table, 1)
        assert timers.armed() == 0 and presence.takeover_in(1) is None
        timers.advance(60)
        await settle()
        assert table.notes == [] and table.calls == []
        # A grace that ends while a page is open again does nothing either.
        table.pages.discard(1)
        presence.start_grace(table, 1)
        table.pages.add(1)
        timers.advance(30)
        await settle()
        assert table.notes == [] and not table.seats[1].away
        # No grace at a table without one (a game of one person waits).
        alone = FakeSeats(TableOptions())
        Presence(timers).start_grace(alone, 0)
        assert timers.armed() == 0

    asyncio.run(go())


def test_a_person_gone_the_grace_at_a_rated_table_abandons_the_seat() -> None:
    async def go() -> None:
        timers = FakeTimers()
        table = FakeSeats(TableOptions(grace=10.0, rated=True))
        presence = Presence(timers)
        presence.start_grace(table, 0)
        timers.advance(10)
        await settle()
        assert table.abandons == [(0, "gone")] and table.after == ["p0"]
        assert table.notes == [] and "kick" not in table.calls

    asyncio.run(go())


def test_the_kth_timeout_abandons_and_leaving_abandons_once() -> None:
    async def go() -> None:
        table = FakeSeats(TableOptions(abandon_after=3))
        presence = Presence(FakeTimers())
        async with table.lock:
            assert await presence.timed_out(table, 1) is None
            assert await presence.timed_out(table, 1) is None
            assert await presence.timed_out(table, 1) == "p1"
        assert table.abandons == [(1, "timeouts")]
        assert await presence.leave_game(table, "p0")
        assert table.abandons[-1] == (0, "left") and table.after == ["p0"]
        assert not await presence.leave_game(table, "p0"), "no seat of theirs any more"
        assert not await presence.leave_game(table, "nobody")

    asyncio.run(go())


# ---------------------------------------------------------------------- the whole


class FakeStore:
    """Every write accepted and noted: ``rows``, the action rows of each write."""

    def __init__(self) -> None:
        self.writes = 0
        self.rows: list[list[Any]] = []

    async def write(self, *ops: Any, actions: Any = None, lease: Any = None) -> None:
        self.writes += 1
        self.rows.append(list(actions[1]) if actions is not None else [])
        await asyncio.sleep(0)


def session_service(bot_delay: float) -> SimpleNamespace:
    """A service around a session: a fake store and pool, bots paced by ``bot_delay``."""
    return SimpleNamespace(
        store=FakeStore(),
        pool=FakePool(),
        slots=Slots(2),
        rng=random.Random(5),
        default_level="random",
        bot_delay=bot_delay,
        bot_hold=lambda level="": bot_delay,
        hint_time=None,
        buffer_size=50,
        on_finish=None,
        forget=lambda s: None,
    )


async def person_to_play(service: SimpleNamespace) -> tuple[GameSession, Page]:
    """A session of a person (seat 0) and three ``random`` bots, dealt and played on to
    the person's turn, with the person's page subscribed."""
    seats = [Seat("human", player="p")] + [Seat("bot", level="random")] * 3
    game = Game(Rules(target=10), dealer=0)
    s = GameSession(service, "g1", game, ["S", "W", "N", "E"], seats, 0, 0)  # type: ignore[arg-type]
    first = game.chance_move(service.rng, make=False)
    async with s.lock:
        await s.apply("deal", game.dealer, deal=first.deal)
    s.kick()
    for _ in range(5000):
        if not s.busy and game.turn == 0:
            break
        await asyncio.sleep(0.001)
    assert game.phase == PLAY and game.turn == 0
    page = Page(0)
    s.join(page, s.version)
    return s, page


def test_a_persons_card_and_the_unpaced_computers_after_it_are_one_write() -> None:
    """Without pacing, a person's card and what follows at once (the computers' cards to
    the person's next turn, a deal) are made together, stored in one write and sent in
    order, the person's card first: no driver task is left to start."""

    async def go() -> None:
        service = session_service(0.0)
        s, page = await person_to_play(service)
        for _ in range(6):
            if s.game.is_over:
                break
            writes, version = len(service.store.rows), s.version
            card = s.game.legal_cards()[0]
            await s.play(0, card, version, "p")
            assert len(service.store.rows) == writes + 1, "one write for the card and the run"
            rows = service.store.rows[-1]
            assert (rows[0].kind, rows[0].seat, rows[0].actor) == ("play", 0, "person")
            assert len(rows) > 1, "the computers' cards came with it"
            assert all(r.actor == "computer" for r in rows[1:] if r.kind == "play")
            assert not s.driver.running
            assert s.game.is_over or s.game.turn == 0
            new = [f for f in page.frames if f["version"] > version]
            assert [f["version"] for f in new] == list(range(version + 1, s.version + 1))
            assert new[0]["event"] == {"kind": "play", "seat": 0, "card": card_str(card)}
            assert new[-1]["view"]["legal"] or s.game.is_over

    asyncio.run(go())


def test_a_run_that_fails_after_a_card_stores_nothing_and_the_page_is_told() -> None:
    """A bug in a computer's choice after a person's card: the card is refused as
    ``unavailable`` and never stored, the game's copy is dropped (it is loaded again from
    the store) and the person's page is told and closed, to come back to the stored game."""

    async def go() -> None:
        service = session_service(0.0)
        s, page = await person_to_play(service)
        writes, version = len(service.store.rows), s.version

        def broken(level: str, game: Game, seat: int) -> int:
            raise RuntimeError("a bug")

        service.pool.choose_now = broken
        with pytest.raises(ProtocolError) as e:
            await s.play(0, s.game.legal_cards()[0], version, "p")
        assert e.value.code == UNAVAILABLE
        assert len(service.store.rows) == writes and s.closed
        assert page.frames[-1]["type"] == "error" and page.closed == CLOSE_TRY_LATER

    asyncio.run(go())


def test_a_paced_computers_card_is_not_stored_with_the_persons() -> None:
    """With pacing, a person's card is stored and sent alone, at once; the driver then
    holds the next computer's card for its pace."""

    async def go() -> None:
        service = session_service(0.05)
        s, page = await person_to_play(service)
        writes, version = len(service.store.rows), s.version
        await s.play(0, s.game.legal_cards()[0], version, "p")
        assert [r.seat for r in service.store.rows[writes] if r.kind == "play"] == [0]
        new = [f for f in page.frames if f["version"] > version]
        assert [f["version"] for f in new] == list(range(version + 1, s.version + 1))
        assert [f["event"]["kind"] for f in new if f["event"]["kind"] in ("play", "deal")] == [
            "play"
        ], "the person's card alone (and the trick it ends)"
        assert s.driver.running, "the driver paces the next computer's card"
        while s.driver.running:
            await asyncio.sleep(0.01)
        assert len(service.store.rows) > writes + 1

    asyncio.run(go())


def test_a_session_nobody_holds_is_freed_without_the_cyclic_collector() -> None:
    """The parts keep nothing of their session beyond a call (or a running timer or
    task): once the driver has stopped and no timer runs, dropping the last reference
    frees the session at once."""

    async def go() -> weakref.ref[GameSession]:
        service = session_service(0.0)
        seats = [Seat("human", player="p")] + [Seat("bot", level="random")] * 3
        game = Game(Rules(target=10), dealer=0)
        s = GameSession(service, "g1", game, ["S", "W", "N", "E"], seats, 0, 0)  # type: ignore[arg-type]
        s.table = TableOptions(turn_timer=60.0)
        first = game.chance_move(service.rng, make=False)
        async with s.lock:
            await s.apply("deal", game.dealer, deal=first.deal)
        page = Page(0)
        for _ in range(3):
            s.kick()
            while s.busy:
                await asyncio.sleep(0.001)
            if not s.subscribers:
                s.join(page, 0)
            assert s.clock() is not None, "the person's clock runs"
            await s.play(0, s.game.legal_cards()[0], s.version, "p")
        while s.busy:
            await asyncio.sleep(0.001)
        assert page.versions() and page.versions()[-1] == s.version
        s.leave(page)
        s.turn_clock.stop()  # the person's clock (a timer keeps its game while it runs)
        await settle()
        return weakref.ref(s)

    gc.collect()
    gc.disable()
    try:
        ref = asyncio.run(go())
        assert ref() is None, "a reference cycle keeps the session"
    finally:
        gc.enable()
