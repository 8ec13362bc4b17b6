"""Fair play at a quick-play table, as a hypothesis state machine over the real pure parts:
the room's :class:`~lockup.server.rooms.seating.Seating` (quick play's seats: pending
until a page connects, one seat per address or browser, freed at the start), each
person's :class:`~lockup.server.session.attendance.Attendance` (the turn clock's
timeouts, the grace, leaving: abandoned), the engine playing the cards, and the rating's
:func:`~lockup.server.ratings.lineup` with :func:`~lockup.ratings.rate_table`.

People arrive (accounts or guests, from shared or distinct addresses and browsers), ask
to sit, connect or never connect, play or squat, let the clock run out, close the tab,
come back, leave, and vote for a rematch; time passes; the game is played to its end.
What must hold:

- **nobody is stranded**: a table past its start time is under way or closed, never
  waiting on someone who never came; and every game reaches its end, every turn played
  by its person, the clock or a computer, however the people behave (squatters too);
- **no rating is escaped**: what makes a game rated or not is fixed when it starts
  (leaving cannot make it unrated), and anyone who abandoned or left a rated game is
  rated as themselves and ranked last;
- **no two seats of one person are rated**: no two rated seats share a player, an address
  or a browser; guests are never rated; a quick table's rematch is never rated.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import hypothesis.strategies as st
from hypothesis import settings
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from lockup.engine import DEAL, DISCARD, PLAY, Game, Rules
from lockup.ratings import computer_subject, ranks_of, rate_table
from lockup.server.protocol import ProtocolError
from lockup.server.ratings import REMATCH, Lineup, Sat, lineup
from lockup.server.rooms.seating import (
    CLOSED,
    OPEN,
    OVER,
    PENDING_WAIT,
    PLAYING,
    Seating,
    Sitter,
)
from lockup.server.session.attendance import ABANDONED, AWAY, PRESENT, Attendance

LEVEL = "normal"
START_WAIT = 8.0
"""Seconds from a quick table's opening to its start (when not full before)."""
ACCOUNT = st.sampled_from([True, True, False])
"""Mostly accounts (a rated game needs two), some guests."""
PLAYS = st.sampled_from([True, True, True, False])
"""Mostly people who play their cards; some squatters who never do."""
CONNECTS = st.sampled_from([True, True, True, False])
"""Mostly pages that open the table at once; some that never do."""
MOVES = 2000
"""More moves than any game of target 10 takes: a game that has not ended after them is
stranded."""


@dataclass
class Person:
    """Someone with a browser: their player, whether it is an account's, where they come
    from, their open pages, and whether they ever play a card (a squatter never does)."""

    player: str
    account: bool
    tag: str
    browser: str
    plays: bool = True
    pages: set[int] = field(default_factory=set)


@dataclass
class Played:
    """A game of the table: who sat where at its start, its per-seat attendance, the
    seats whose person abandoned, what the rating decided at the start, and whether it
    is a rematch."""

    game: Game
    people: dict[int, Person]
    attendance: dict[int, Attendance]
    rematch: bool
    abandoned: set[int] = field(default_factory=set)
    at_start: Lineup | None = None


class QuickTable(RuleBasedStateMachine):
    """One quick-play table over its life: its opening, its games, its rematches."""

    def __init__(self) -> None:
        super().__init__()
        self.wall = 1000.0
        self.people: list[Person] = []
        self.table: Seating | None = None
        self.played: Played | None = None
        self.games = 0
        self.page_ids = 0
        self.rng = random.Random(0)

    # ------------------------------------------------------------------ people

    def _person(self, account: bool, address: int, browser: int | None, plays: bool) -> Person:
        n = len(self.people)
        shared = browser is not None and browser < n
        person = Person(
            f"p{n}",
            account,
            f"addr-{address}",
            self.people[browser].browser if shared and browser is not None else f"browser-{n}",
            plays,
        )
        self.people.append(person)
        return person

    @initialize(
        account=ACCOUNT,
        address=st.integers(0, 3),
        plays=PLAYS,
        connects=CONNECTS,
        seed=st.integers(0, 2**32 - 1),
    )
    def open_table(
        self, account: bool, address: int, plays: bool, connects: bool, seed: int
    ) -> None:
        """The first person's quick play opens the table (their seat pending until their
        page connects, which it mostly does at once)."""
        self.rng = random.Random(seed)
        first = self._person(account, address, None, plays)
        pending = self.wall + PENDING_WAIT
        self.table = Seating(
            first.player,
            [Sitter(first.player, first.player, first.tag, first.browser, pending)]
            + [None, None, None],
            quick=True,
            starts_at=self.wall + START_WAIT,
            now=self.wall,
        )
        if connects:
            self._open_page(first)

    @rule(
        account=ACCOUNT,
        address=st.integers(0, 3),
        browser=st.one_of(st.none(), st.none(), st.integers(0, 5)),
        plays=PLAYS,
        connects=CONNECTS,
    )
    def arrive_and_ask_to_sit(
        self, account: bool, address: int, browser: int | None, plays: bool, connects: bool
    ) -> None:
        """Someone new asks quick play for a seat at this table (it may refuse); their
        page then opens the table, or never does."""
        assert self.table is not None
        person = self._person(account, address, browser, plays)
        self._sit(person)
        if connects:
            self._open_page(person)
            self._wake()

    @rule(who=st.integers(0, 20))
    def ask_to_sit_again(self, who: int) -> None:
        """Someone who is here (seated or not) asks for a seat again."""
        if self.people:
            self._sit(self.people[who % len(self.people)])

    def _sit(self, person: Person) -> None:
        assert self.table is not None
        try:
            self.table.join(
                person.player,
                person.player,
                now=self.wall,
                tag=person.tag,
                browser=person.browser,
                wall=self.wall,
            )
        except ProtocolError:
            pass
        self._wake()

    def _wake(self) -> None:
        """What an open quick table does on its own once something changed or its time
        came (the room service's timer): free the pending seats that are due, start when
        due."""
        assert self.table is not None
        if self.table.status == OPEN:
            self.table.free_unconnected(self.wall)
            if self.table.start_quick(self.wall):
                self._begin(rematch=False)

    def _who(self, who: int) -> Person | None:
        return self.people[who % len(self.people)] if self.people else None

    @rule(who=st.integers(0, 20))
    def connect(self, who: int) -> None:
        """A page of the person opens the table (or comes back after closing the tab)."""
        person = self._who(who)
        assert self.table is not None and person is not None
        self._open_page(person)
        seat = self._game_seat(person)
        if seat is not None and self.played is not None:
            self.played.attendance[seat].back()
        self._wake()

    def _open_page(self, person: Person) -> None:
        assert self.table is not None
        self.page_ids += 1
        person.pages.add(self.page_ids)
        self.table.open_page(self.page_ids, person.player)

    @rule(who=st.integers(0, 20))
    def close_the_tab(self, who: int) -> None:
        """One of the person's pages closes."""
        person = self._who(who)
        assert self.table is not None and person is not None
        if person.pages:
            page = min(person.pages)
            person.pages.discard(page)
            self.table.close_page(page, self.wall)
        self._wake()

    @rule(who=st.integers(0, 20))
    def leave(self, who: int) -> None:
        """The person leaves: their seat before a game, or the game under way (they
        abandon it: the clock helper stores an ``abandon`` event, why ``left``)."""
        person = self._who(who)
        assert self.table is not None and person is not None
        if self.table.status == PLAYING:
            seat = self._game_seat(person)
            if seat is None or self.table.seat_of(person.player) is None:
                return
            self.table.abandon(person.player)
            assert self.played is not None
            if self.played.attendance[seat].left() is not None:
                self.played.abandoned.add(seat)
            return
        try:
            self.table.leave(person.player)
        except ProtocolError:
            pass
        self._wake()

    @rule(seconds=st.sampled_from([1.0, 5.0, 11.0]))
    def time_passes(self, seconds: float) -> None:
        """Time passes: pending seats are freed, the table starts when it is due."""
        self.wall += seconds
        self._wake()

    # ------------------------------------------------------------------ a game

    def _begin(self, rematch: bool) -> None:
        assert self.table is not None
        by_player = {p.player: p for p in self.people}
        seated = {
            s: by_player[sitter.player]
            for s, sitter in enumerate(self.table.seats)
            if sitter is not None
        }
        game = Game.new(self.rng, Rules(target=10))
        self.played = Played(game, seated, {s: Attendance() for s in seated}, rematch)
        self.games += 1
        self._settle()
        self.played.at_start = self._lineup()

    def _game_seat(self, person: Person) -> int | None:
        if self.played is None or self.table is None or self.table.status != PLAYING:
            return None
        return next((s for s, p in self.played.people.items() if p is person), None)

    def _rated(self) -> bool:
        return self.played is not None and not self.played.rematch

    def _settle(self) -> None:
        """Deals and lockup discards: the server's (random), never a person's hold-up."""
        assert self.played is not None
        g = self.played.game
        while not g.is_over and g.phase in (DEAL, DISCARD):
            if g.phase == DEAL:
                g.deal(rng=self.rng)
            else:
                g.discard_random(self.rng)

    def _turn(self) -> tuple[int, Person | None, Attendance | None]:
        assert self.played is not None
        seat = self.played.game.turn
        assert seat is not None and 0 <= seat <= 3
        return seat, self.played.people.get(seat), self.played.attendance.get(seat)

    def _card(self) -> None:
        assert self.played is not None
        g = self.played.game
        legal = g.legal_cards()
        g.play(legal[self.rng.randrange(len(legal))])
        self._settle()

    def _abandoned(self, seat: int) -> None:
        """The person at ``seat`` abandoned the game: the session stores an ``abandon``
        event and the room frees their seat (the game's computer plays it)."""
        assert self.played is not None and self.table is not None
        self.played.abandoned.add(seat)
        person = self.played.people[seat]
        if self.table.seat_of(person.player) is not None:
            self.table.abandon(person.player)

    def _playing_turn(self) -> bool:
        return (
            self.table is not None
            and self.table.status == PLAYING
            and self.played is not None
            and not self.played.game.is_over
            and self.played.game.phase == PLAY
        )

    @precondition(lambda self: self._playing_turn())
    @rule()
    def the_turn_is_played(self) -> None:
        """The seat to play plays: its person (present, a page open, not a squatter), or a
        computer (no person, or away, or abandoned); a person who does not play has their
        clock run out: the computer plays that card and the timeout counts."""
        seat, person, hold = self._turn()
        if person is None or hold is None or hold.state != PRESENT:
            self._card()  # a computer's seat, or one it plays for the person
        elif person.pages and person.plays:
            self._card()  # the person plays
        else:
            self._clock_runs_out(seat, hold)
        self._end_if_over()

    @precondition(lambda self: self._playing_turn())
    @rule()
    def the_clock_runs_out(self) -> None:
        """The person to play lets their clock run out (whoever they are)."""
        seat, person, hold = self._turn()
        if hold is not None and hold.state == PRESENT:
            self._clock_runs_out(seat, hold)
        else:
            self._card()
        self._end_if_over()

    def _clock_runs_out(self, seat: int, hold: Attendance) -> None:
        self._card()  # the computer plays the card
        if hold.timed_out() is not None:
            self._abandoned(seat)

    @rule(who=st.integers(0, 20))
    def the_grace_runs_out(self, who: int) -> None:
        """A person of the game with no page open has been gone the whole grace: at a
        rated table they abandon, elsewhere a computer plays for them until they are
        back."""
        person = self._who(who)
        seat = None if person is None else self._game_seat(person)
        if person is None or seat is None or person.pages or self.played is None:
            return
        if self.played.attendance[seat].gone(self._rated()) is not None:
            self._abandoned(seat)

    @precondition(lambda self: self.table is not None and self.table.status == PLAYING)
    @rule()
    def the_game_ends(self) -> None:
        """The game is played to its end as each person behaves now."""
        for _ in range(MOVES):
            if not self._playing_turn():
                break
            self.the_turn_is_played()
        assert self.table is not None
        assert self.table.status != PLAYING, "a game was stranded"

    @rule(who=st.integers(0, 20))
    def ask_for_a_rematch(self, who: int) -> None:
        """A seated person asks to play again (a friendly game at a quick table)."""
        person = self._who(who)
        assert self.table is not None and person is not None
        if self.table.status != OVER:
            return
        try:
            started = self.table.vote_rematch(person.player, self.wall)
        except ProtocolError:
            return
        if started:
            self._begin(rematch=True)

    # ------------------------------------------------------------------ the end

    def _lineup(self) -> Lineup:
        assert self.played is not None
        seats: list[dict[str, Any]] = [
            {"kind": "human", "player": p.player, "level": LEVEL}
            if (p := self.played.people.get(s)) is not None
            else {"kind": "bot", "level": LEVEL}
            for s in range(4)
        ]
        people = [
            Sat(s, p.player, p.tag, p.browser, p.account) for s, p in self.played.people.items()
        ]
        return lineup(seats, people, self.played.abandoned, LEVEL, rematch=self.played.rematch)

    def _end_if_over(self) -> None:
        assert self.played is not None and self.table is not None
        if not self.played.game.is_over:
            return
        self.table.game_over()
        self._check_rating()

    def _check_rating(self) -> None:
        played = self.played
        assert played is not None and played.at_start is not None
        seen = self._lineup()
        # What makes the game rated is fixed at its start: leaving changes nothing of it.
        assert seen.unrated == played.at_start.unrated
        if played.rematch:
            assert seen.unrated == REMATCH
        for s in range(4):
            person = played.people.get(s)
            if person is None:
                assert seen.subjects[s] == computer_subject(LEVEL)
            elif not person.account:
                assert seen.subjects[s] is None  # a guest is never rated
        if seen.unrated is not None:
            return
        rated = {s: played.people[s] for s in range(4) if seen.kinds[s] == "person"}
        # No two seats of one person rated: no shared player, address or browser.
        players = [p.player for p in rated.values()]
        assert len(set(players)) == len(players) >= 2
        assert len({p.tag for p in rated.values()}) == len(rated)
        assert len({p.browser for p in rated.values()}) == len(rated)
        # No rating escaped: each account that abandoned is rated as themselves, last.
        counted = [s for s in range(4) if seen.subjects[s] is not None]
        last = {i for i, s in enumerate(counted) if seen.last[s]}
        ranks = ranks_of([played.game.totals[s] for s in counted], last)
        worst = len(counted) - len(last) + 1
        for i, s in enumerate(counted):
            if s in played.abandoned:
                assert seen.subjects[s] == played.people[s].player
                assert ranks[i] == worst
            else:
                assert ranks[i] < worst
        assert {s for s in played.abandoned if played.people[s].account} == {
            counted[i] for i in last
        }
        abandoned = {s for s in range(4) if seen.last[s]}
        result = rate_table(seen.subjects, list(played.game.totals), {}, abandoned)
        assert sorted(c.seat for c in result.seats) == counted

    # ------------------------------------------------------------------ invariants

    @invariant()
    def nobody_waits_on_someone_who_never_came(self) -> None:
        """A table past its start time is under way, over or closed; a game under way
        seats nobody whose page never opened."""
        if self.table is None:
            return
        if self.table.status == OPEN:
            assert self.table.starts_at is not None and self.wall < self.table.starts_at
        assert self.table.status in (OPEN, PLAYING, OVER, CLOSED)
        if self.table.status == PLAYING:
            assert not self.table.pending()

    @invariant()
    def a_seat_is_played_by_someone(self) -> None:
        """Every seat of a game under way is its person's (present), or a computer plays
        it; an abandoned seat is never its person's again."""
        if self.played is None or self.table is None or self.table.status != PLAYING:
            return
        for s, hold in self.played.attendance.items():
            assert hold.state in (PRESENT, AWAY, ABANDONED)
            if s in self.played.abandoned:
                assert hold.state == ABANDONED
                assert self.table.seat_of(self.played.people[s].player) is None


TestQuickTable = QuickTable.TestCase
TestQuickTable.settings = settings(max_examples=250, stateful_step_count=50, deadline=None)
