"""The rooms' state machine, driven by hypothesis's stateful testing.

Two machines. :class:`SeatingMachine` drives the pure model (:mod:`lockup.server.rooms.seating`)
through random lives of a room, thousands of steps a second. :class:`RoomMachine` drives
the real thing in one process: a :class:`RoomService` and its games on an SQLite file,
pages that record every frame, computers that play, and process restarts (new services
on the same file). After every step both check the room's promises:

- a page sees only its person's current seat (every game frame since it was last moved
  is of that seat's view, or a spectator's with no hand);
- an action from a page whose person does not hold that seat is refused;
- no seat waits on an absent person longer than the grace (a computer plays it, or its
  takeover is due within the grace);
- someone can always start or leave: while the room is open, its host is seated, and is
  present or will pass the host on to someone seated;
- a page that opens while the game stores a move is shown nothing of the game until the
  move is stored, then the stored game and every version after it.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    rule,
)

from lockup.engine import Rules
from lockup.server.config import ServerConfig
from lockup.server.pool import BotPool
from lockup.server.protocol import ProtocolError
from lockup.server.rooms import (
    CLOSED,
    OPEN,
    OVER,
    PLAYING,
    RELOAD_WAIT,
    SPECTATOR,
    RoomOptions,
    RoomService,
    Seating,
    Sitter,
)
from lockup.server.session import GameService
from lockup.server.store import Store

PEOPLE = ["ann", "bob", "cat", "dan", "eve"]
person = st.sampled_from(PEOPLE)
seat = st.one_of(st.none(), st.integers(0, 3), st.just(1.0), st.just(True))


class SeatingMachine(RuleBasedStateMachine):
    """The pure seating model: joins, leaves, pages, removals, starts, game ends, rematch
    votes and time, in any order."""

    pages = Bundle("pages")

    def __init__(self) -> None:
        super().__init__()
        self.s = Seating("ann", [Sitter("ann", "Ann"), None, None, None], grace=10.0)
        self.now = 0.0
        self.next_page = 0

    def attempt(self, f: Any, *args: Any) -> Any:
        """Call ``f``; a refusal must change nothing."""
        before = (
            [None if x is None else (x.player, x.name) for x in self.s.seats],
            self.s.host,
            self.s.status,
            set(self.s.rematch),
        )
        try:
            return f(*args)
        except ProtocolError:
            after = (
                [None if x is None else (x.player, x.name) for x in self.s.seats],
                self.s.host,
                self.s.status,
                set(self.s.rematch),
            )
            assert after == before
            return None

    @rule(target=pages, who=st.one_of(person, st.none()))
    def open_page(self, who: str | None) -> int:
        self.next_page += 1
        self.s.open_page(self.next_page, who)
        return self.next_page

    @rule(page=consumes(pages))
    def close_page(self, page: int) -> None:
        self.s.close_page(page, self.now)

    @rule(who=person, at=seat)
    def join(self, who: str, at: Any) -> None:
        before = self.s.status
        got = self.attempt(self.s.join, who, who.title(), at, self.now)
        if got is not None:
            assert before in (OPEN, OVER) or self.s.seat_of(who) == got
            assert self.s.seat_of(who) == got

    @rule(who=person)
    def leave(self, who: str) -> None:
        if self.attempt(self.s.leave, who) is not None:
            assert self.s.seat_of(who) is None

    @rule(by=person, at=seat)
    def remove(self, by: str, at: Any) -> None:
        gone = self.attempt(self.s.remove, by, at)
        if gone is not None:
            assert self.s.seat_of(gone) is None and gone != self.s.host

    @rule(by=person)
    def start(self, by: str) -> None:
        before = self.s.status
        self.attempt(self.s.start, by)
        if self.s.status != before:
            assert before == OPEN and self.s.status == PLAYING and by == self.s.host

    @rule()
    def game_over(self) -> None:
        self.s.game_over()

    @rule(who=person)
    def rematch(self, who: str) -> None:
        self.attempt(self.s.vote_rematch, who, self.now)

    @rule(seconds=st.floats(0, 30))
    def time_passes(self, seconds: float) -> None:
        self.now += seconds
        self.s.pass_host_if_due(self.now)

    @rule()
    def rematch_after_a_page_closed(self) -> None:
        self.s.start_rematch_if_ready(self.now)

    @invariant()
    def one_seat_a_person(self) -> None:
        people = self.s.people()
        assert len(people) == len(set(people))

    @invariant()
    def a_page_sees_its_persons_seat_now(self) -> None:
        for page, who in self.s.pages.items():
            mine = self.s.seat_of(who)
            assert self.s.view_of(page) == (SPECTATOR if mine is None else mine)

    @invariant()
    def someone_can_always_start_or_leave(self) -> None:
        if self.s.status == CLOSED:
            assert self.s.people() == []
            return
        assert self.s.host_seat() is not None, "the host is seated until the room closes"
        others = [p for p in self.s.people() if p != self.s.host]
        if not self.s.present(self.s.host) and others:
            due = self.s.host_passes_at()
            assert due is not None and due <= self.now + self.s.grace

    @invariant()
    def the_rematch_waits_only_on_present_people(self) -> None:
        for i in self.s.awaited(self.now):
            sitter = self.s.seats[i]
            assert sitter is not None
            gone = self.s.away_for(sitter.player, self.now)
            assert self.s.present(sitter.player) or gone < RELOAD_WAIT
        if self.s.status != OVER:
            assert not self.s.rematch


TestSeating = SeatingMachine.TestCase
TestSeating.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)


# ---------------------------------------------------------------------- the real service

GRACE = 0.3


class Page:
    """A page of a person in the room, recording the frames it is sent."""

    def __init__(self, player: str | None) -> None:
        self.player = player
        self.seat = SPECTATOR
        self.session: Any = None
        self.frames: list[dict[str, Any]] = []
        self.closed: int | None = None

    def send(self, text: str) -> None:
        self.frames.append(json.loads(text))

    def close(self, code: int) -> None:
        self.closed = code

    def set_session(self, session: Any) -> None:
        self.session = session


@pytest.fixture(scope="module")
def pool() -> Any:
    p = BotPool(processes=1)
    yield p
    p.close()


class RoomMachine(RuleBasedStateMachine):
    """One room in a real :class:`RoomService` on an SQLite file; pages, people, the host,
    games played by computers, and restarts of the process."""

    pages = Bundle("pages")
    db: Path
    bot_pool: BotPool

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.store: Store | None = None
        self.rooms: RoomService
        self.room_id = ""
        self.next_id = 0

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def in_loop(self, call: Any, *args: Any) -> Any:
        """Call ``call`` inside the event loop (the service reads the loop's clock)."""

        async def go() -> Any:
            return call(*args)

        return self.run(go())

    async def _up(self) -> None:
        self.store = Store(f"sqlite:///{self.db}")
        await self.store.start()
        service = GameService(
            self.store,
            self.bot_pool,
            replace(ServerConfig(), level="random", bot_delay=0.0, bot_jitter=0.0),
        )
        await service.start()
        self.rooms = RoomService(service)

    async def _down(self) -> None:
        await self.rooms.games.close()
        assert self.store is not None
        await self.store.close()

    def settle(self, seconds: float = 0.02) -> None:
        self.run(asyncio.sleep(seconds))

    def room(self) -> Any:
        return self.run(self.rooms.get(self.room_id))

    @initialize()
    def a_room(self) -> None:
        self.run(self._up())
        options = RoomOptions(Rules(target=10), levels=["random"] * 4, grace=GRACE)
        self.room_id = self.run(self.rooms.create("ann", options, "Ann")).id

    def teardown(self) -> None:
        if self.store is not None:
            self.run(self._down())
        for task in asyncio.all_tasks(self.loop):
            task.cancel()
        self.run(asyncio.sleep(0.01))
        self.loop.close()

    def attempt(self, coro: Any) -> Any:
        try:
            return self.run(coro)
        except ProtocolError:
            return None

    @rule(target=pages, who=st.one_of(person, st.none()))
    def open_page(self, who: str | None) -> Page:
        page = Page(who)
        room = self.room()
        if room is not None:
            self.in_loop(self.rooms.connect, room, page, 0)
        return page

    @rule(target=pages, who=st.one_of(person, st.none()))
    def open_page_during_a_write(self, who: str | None) -> Page:
        """A page opens while the game stores a move (a person's card, or the computers'
        run after it): it is sent nothing of the game until the move is stored, then the
        stored game and every version after it."""
        page = Page(who)
        room = self.room()
        if room is None:
            return page
        session = room.session
        if session is None or session.closed or room.status != PLAYING or session.game.is_over:
            self.in_loop(self.rooms.connect, room, page, 0)
            return page
        gate, writing = asyncio.Event(), asyncio.Event()
        real_write = session._write

        async def held_write(*args: Any, **kw: Any) -> None:
            writing.set()
            await gate.wait()
            await real_write(*args, **kw)

        async def a_card(turn: int, card: int, player: str | None) -> None:
            try:
                await session.play(turn, card, session.version, player)
            except ProtocolError:
                pass

        async def open_during_a_write() -> tuple[bool, int]:
            g, before = session.game, session.version
            who_plays = session.seats[g.turn]
            if g.phase == "play" and not who_plays.computer_plays and not session.busy:
                task = a_card(g.turn, g.legal_cards()[0], who_plays.player)
                asyncio.get_running_loop().create_task(task)
            else:
                session.kick()
            try:
                await asyncio.wait_for(writing.wait(), 0.5)
            except TimeoutError:
                pass
            moving = writing.is_set() and session.unstored > 0  # not a note's write
            self.rooms.connect(room, page, 0)
            return moving, before

        def game_frames() -> list[dict[str, Any]]:
            return [f for f in page.frames if f["type"] in ("state", "event", "skip")]

        session._write = held_write
        try:
            held, before = self.run(open_during_a_write())
            if held:
                assert game_frames() == [], "the game was shown before its move was stored"
        finally:
            del session._write
            gate.set()
        self.settle(0.05)
        shown = game_frames()
        if held and shown and not session.closed:
            first, rest = shown[0], [f["version"] for f in shown[1:]]
            assert first["type"] == "state" and first["version"] > before
            assert rest == list(range(first["version"] + 1, first["version"] + 1 + len(rest)))
        return page

    @rule(page=consumes(pages))
    def close_page(self, page: Page) -> None:
        room = self.rooms.rooms.get(self.room_id)
        if room is not None:
            self.in_loop(self.rooms.disconnect, room, page)
        page.closed = 1000

    @rule(who=person, at=st.one_of(st.none(), st.integers(0, 3)))
    def join(self, who: str, at: int | None) -> None:
        room = self.room()
        self.attempt(self.rooms.join(room, who, room.invite, at, None))

    @rule(who=person)
    def leave(self, who: str) -> None:
        self.attempt(self.rooms.leave(self.room(), who))

    @rule(at=st.integers(1, 3))
    def host_removes(self, at: int) -> None:
        room = self.room()
        self.attempt(self.rooms.remove(room, room.host, at))

    @rule(who=person)
    def start(self, who: str) -> None:
        self.attempt(self.rooms.start(self.room(), who))

    @rule(who=person)
    def rematch(self, who: str) -> None:
        self.attempt(self.rooms.rematch(self.room(), who))

    @rule(seconds=st.sampled_from([0.05, 0.2, 0.5]))
    def time_passes(self, seconds: float) -> None:
        self.settle(seconds)

    @rule()
    def the_game_ends(self) -> None:
        """The game is played to its end: each present person plays their first legal
        card, the computers the rest."""
        room = self.room()
        session = room.session
        if session is None or room.status != PLAYING:
            return

        async def finish() -> None:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            while not session.game.is_over and not session.closed:
                assert loop.time() < deadline, "the game never ended"
                g = session.game
                who = session.seats[g.turn]
                if g.phase == "play" and not who.computer_plays and not session.busy:
                    try:
                        await session.play(g.turn, g.legal_cards()[0], session.version, who.player)
                    except ProtocolError:
                        pass
                else:
                    session.kick()
                    await asyncio.sleep(0.002)

        self.run(finish())
        self.settle()

    @rule(page=pages, at=st.integers(0, 3))
    def a_page_plays_a_seat(self, page: Page, at: int) -> None:
        """A page sends a card for a seat: refused unless its person plays that seat."""
        room = self.rooms.rooms.get(self.room_id)
        session = room.session if room is not None else None
        if session is None or page.closed is not None or session.game.phase != "play":
            return
        holder = session.seat_of(page.player)
        card = session.game.hand(at)[0] if session.game.hand(at) else 0
        try:
            self.run(session.play(at, card, session.version, page.player))
        except ProtocolError as e:
            if holder != at:
                assert e.code == "not-seated", e.code
            return
        assert holder == at, "a page played a seat its person does not hold"

    @rule()
    def restart(self) -> None:
        """The process stops (pages cut off) and a new one serves the same file."""
        room = self.rooms.rooms.get(self.room_id)
        if room is not None:
            for page in list(room.members):
                page.closed = 1012  # type: ignore[attr-defined]
                self.in_loop(self.rooms.disconnect, room, page)
        self.run(self._down())
        self.run(self._up())

    @invariant()
    def a_page_sees_only_its_persons_seat(self) -> None:
        self.in_loop(self._a_page_sees_only_its_persons_seat)

    def _a_page_sees_only_its_persons_seat(self) -> None:
        room = self.rooms.rooms.get(self.room_id)
        if room is None:
            return
        for page in room.members:
            assert isinstance(page, Page)
            mine = room.seat_of(page.player)
            session = room.session
            expected = SPECTATOR
            if mine is not None and (session is None or session.seat_of(page.player) == mine):
                expected = mine
            assert page.seat == expected
            last = next((f for f in reversed(page.frames) if f.get("view")), None)
            if last is not None and session is not None and last["version"] >= 1:
                view = last["view"]
                if expected == SPECTATOR:
                    assert view["seat"] is None and view["hand"] == []
                else:
                    assert view["seat"] == expected

    @invariant()
    def no_seat_waits_on_an_absent_person_beyond_the_grace(self) -> None:
        self.in_loop(self._no_seat_waits_on_an_absent_person_beyond_the_grace)

    def _no_seat_waits_on_an_absent_person_beyond_the_grace(self) -> None:
        room = self.rooms.rooms.get(self.room_id)
        session = room.session if room is not None else None
        if session is None or room.status != PLAYING or session.game.is_over:
            return
        for s in session.human_seats():
            if not session.connected(s):
                left = session.takeover_in(s)
                assert session.seats[s].away or (left is not None and left <= GRACE + 0.01)

    @invariant()
    def someone_can_always_start_or_leave(self) -> None:
        self.in_loop(self._someone_can_always_start_or_leave)

    def _someone_can_always_start_or_leave(self) -> None:
        room = self.rooms.rooms.get(self.room_id)
        if room is None or room.status == CLOSED:
            return
        assert room.seating.host_seat() is not None
        others = [p for p in room.seating.people() if p != room.host]
        if room.status in (OPEN, OVER) and others and not room.seating.present(room.host):
            assert room._host_timer is not None or room.seating.host_passes_at() is not None


@pytest.mark.serial
def test_rooms_keep_their_promises_in_any_order(tmp_path: Path, pool: BotPool) -> None:
    RoomMachine.db = tmp_path / "rooms.sqlite"
    RoomMachine.bot_pool = pool
    RoomMachine.TestCase.settings = settings(
        max_examples=25,
        stateful_step_count=25,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    RoomMachine.TestCase().runTest()
