"""Games as the server runs them: one :class:`GameSession` per game under way.

A session holds the game (the engine, the seats, the stored actions) and makes its
actions: each made by the engine, stored, then published. It composes and wires its
parts, each a class of its own that holds nothing of the session:

- :class:`~.clock.TurnClock`: the turn timer; when a person's time runs out it calls
  :meth:`GameSession._out_of_time`, which has the driver play the card for them.
- :class:`~.publisher.Publisher`: versions, each viewer's frames and history, the pages.
- :class:`~.driver.Driver`: plays on for the server and the computers, asking the
  service's bots for cards and the session (its :class:`~.driver.Table`) to make them.
- :class:`~.presence.Presence`: each person's hold on their seat and the grace periods;
  it asks the session (its :class:`~.presence.Seats`) for a takeover or an abandonment.

The parts that act on the session are handed it for that call (a timer or the driver's
task keep it while they run), so a session nobody holds is freed at once: no reference
cycle is left for the collector's full passes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ...cards import Card, card_str
from ...engine import PLAY, Game, SeatView
from ...record import dumps
from ..pool import HintsBusy
from ..protocol import (
    CLOSE_RESTART,
    CLOSE_TRY_LATER,
    SPECTATOR,
    UNAVAILABLE,
    UNAVAILABLE_REASON,
    ProtocolError,
    View,
    clock_frame,
    error_frame,
    hint_frame,
    note_event,
    state_frame,
    to_json,
)
from ..store import (
    ActionRow,
    Lease,
    LeaseLost,
    Store,
    StoreError,
    WriteOp,
)
from ..views import Views, move_events, seat_view
from .attendance import Attendance
from .backlog import Backlog
from .clock import TurnClock
from .driver import RUN, Bots, Chooser, Driver
from .moves import Made
from .presence import Presence
from .publisher import Publisher
from .seat import Seat, Subscriber, TableOptions

log = logging.getLogger("lockup.server")


class Pool(Chooser, Protocol):
    """The bots and the hint workers (:class:`~lockup.server.pool.BotPool`)."""

    async def hint(self, view: SeatView, time_limit: float | None) -> dict[Card, float]:
        """The expert's value of each legal card of ``view``."""
        ...


class Games(Bots, Protocol):
    """What a session asks of its service (:class:`~.service.GameService`): the store,
    the bots and hints, the settings, and to be forgotten."""

    @property
    def store(self) -> Store:
        """Where every change is written."""
        ...

    @property
    def pool(self) -> Pool:
        """The bots and the hint workers."""
        ...

    @property
    def hint_time(self) -> float | None:
        """How long a hint may think."""
        ...

    @property
    def buffer_size(self) -> int:
        """How many frames each viewer's history keeps."""
        ...

    @property
    def on_finish(self) -> Callable[[str], None] | None:
        """Told a room's game's id once its end is stored."""
        ...

    def forget(self, session: GameSession) -> None:
        """Drop ``session`` from memory."""
        ...


class GameSession:
    """One game in memory: the engine state, the seats, versions and subscribers.

    Every change happens under :attr:`lock`, is stored before it is published, and bumps
    :attr:`version` by the number of events it makes.
    """

    def __init__(
        self,
        service: Games,
        game_id: str,
        game: Game,
        names: list[str],
        seats: list[Seat],
        version: int,
        seq: int,
    ) -> None:
        self.service = service
        self.id = game_id
        self.game = game
        self.names = names
        self.seats = seats
        self.seq = seq
        """The number of stored actions."""
        self.played = False
        """Whether a person has played a card in this game (see :attr:`priority`)."""
        self.lock = asyncio.Lock()
        self.closed = False
        """Set once evicted or broken: look the game up again."""
        self.unstored = 0
        """Actions the engine holds that are not stored yet (a run or a card whose write is
        under way): meanwhile the engine is ahead of :attr:`version` and of the store."""
        self.table = TableOptions()
        """How the game goes on without its people (set by the room)."""
        self.on_change: Callable[[GameSession], None] | None = None
        """Told when presence or who plays a seat changes (the room updates its page)."""
        self.on_abandon: Callable[[GameSession, str], None] | None = None
        """Told the player token of a person who abandoned their seat (the room frees it)."""
        self.room_id: str | None = None
        self.abandoned_seats: set[int] = set()
        """The seats whose person abandoned the game: a computer plays them for good, and
        they rank last (docs/ratings.md)."""
        self.lease: Lease | None = None
        """This process's lease on the game (several processes, see
        :mod:`lockup.server.cluster.leases`): every write is made under it."""
        self.last_active = time.monotonic()
        self.publisher = Publisher(
            Views(game).of_all, version, self.human_seats(), service.buffer_size
        )
        self.turn_clock = TurnClock()
        self.driver = Driver(service)
        self.presence = Presence()

    # ------------------------------------------------------------------ state

    @property
    def version(self) -> int:
        """The number of events this game has made (the last event's version)."""
        return self.publisher.version

    @property
    def stable_since(self) -> int:
        """The first version showing the current state (see
        :attr:`~.publisher.Publisher.stable_since`)."""
        return self.publisher.stable_since

    @stable_since.setter
    def stable_since(self, version: int) -> None:
        self.publisher.stable_since = version

    @property
    def subscribers(self) -> set[Subscriber]:
        """The pages subscribed to this game."""
        return self.publisher.subscribers

    @property
    def histories(self) -> dict[int, Backlog]:
        """Each viewer's recent frames."""
        return self.publisher.histories

    @property
    def attendance(self) -> dict[int, Attendance]:
        """Each person's hold on their seat (see :meth:`attendance_of`)."""
        return self.presence.attendance

    def attendance_of(self, seat: int) -> Attendance:
        """The hold of ``seat``'s person on it in this game (made on first use, with the
        table's :attr:`~.seat.TableOptions.abandon_after`)."""
        return self.presence.attendance_of(seat, self.table.abandon_after)

    def human_seats(self) -> list[int]:
        """The seats humans play."""
        return [s for s, seat in enumerate(self.seats) if seat.kind == "human"]

    def open_to_spectators(self) -> None:
        """Keep a public stream for spectators (room games)."""
        self.publisher.open_to_spectators()

    def connected(self, seat: int) -> bool:
        """Whether a page of ``seat`` is connected (or joining during a write)."""
        return self.publisher.connected(seat)

    @property
    def watchers(self) -> int:
        """How many spectators are connected."""
        return self.publisher.watchers

    def seat_of(self, player: str | None) -> int | None:
        """The seat ``player`` plays in this game, or None."""
        if player is None:
            return None
        for s, seat in enumerate(self.seats):
            if seat.kind == "human" and seat.player == player:
                return s
        return None

    @property
    def busy(self) -> bool:
        """Whether bots are thinking or a change is under way."""
        return self.lock.locked() or self.driver.running

    @property
    def priority(self) -> int:
        """0 for a game in play; 1 for a game no person has played a card in yet, so that
        a burst of new games never delays the moves of games under way."""
        return 0 if self.played else 1

    @property
    def level(self) -> str | None:
        """The bots' level (the first bot seat's), or None if every seat is a person's."""
        return next((x.level for x in self.seats if x.kind == "bot"), None)

    def view_of(self, seat: int) -> View:
        """What ``seat`` (or :data:`SPECTATOR`) may see now."""
        return seat_view(self.game, seat)

    def state_frame(self, seat: int) -> str:
        """The JSON text of a ``state`` snapshot for ``seat``."""
        seats = [x.public() for x in self.seats]
        return state_frame(self.version, self.names, seats, self.view_of(seat), self.clock())

    def clock(self) -> dict[str, Any] | None:
        """The running turn timer as a page shows it, or None."""
        return self.turn_clock.shown()

    def changed(self) -> None:
        """Presence or who plays a seat changed, or the game ended: the room is told."""
        if self.on_change is not None:
            self.on_change(self)

    def _check_seat(self, seat: int, player: str | None) -> None:
        """Refuse an action of ``seat`` from a page whose person does not play it now."""
        if player is None or self.seat_of(player) != seat:
            raise ProtocolError(
                "not-seated", "You no longer play that seat: this page now only watches."
            )

    # ------------------------------------------------------------------ requests

    async def play(self, seat: int, card: Card, version: int, player: str | None) -> None:
        """A human's card: checked by the engine, stored, then acknowledged by its event.

        ``player``: the person whose page sent it, who must play ``seat`` now.
        Raises :class:`ProtocolError` (nothing changed) for a page whose person does not
        play the seat, a stale version or a card the rules refuse (the engine's code, rule
        and reason).

        The computers' cards that follow at once (unpaced bots: ``bot_delay`` 0) are made
        with it and stored in the same write, under one of the move slots, as the driver's
        own runs are: however many people play at once, the work under way at a time stays
        bounded and the event loop answers new connections promptly.
        """
        at_once = self.service.bot_delay <= 0 and any([x.computer_plays for x in self.seats])
        # priority 0: a person's card is a move of a game in play, however new the game
        gate = self.service.slots.hold(0) if at_once else contextlib.nullcontext()
        async with gate, self.lock:
            if self.closed:
                raise ProtocolError("no-game", "The game was reloaded: send hello again.")
            self._check_seat(seat, player)
            self.publisher.check_version(version)
            refusal = self.game.why_not(card, seat)
            if refusal is not None:
                raise ProtocolError(refusal.code, refusal.reason, refusal.rule, refusal.params)
            if self.seats[seat].away:
                raise ProtocolError(
                    "not-your-turn", "A computer is playing for you: reconnect to take it back."
                )
            first = () if self.played else (Store.op_played(self.id),)
            # The card, and what follows at once (the unpaced computers' cards, a deal),
            # stored in one write and sent together.
            made = [self.make("play", seat, card, actor="person")]
            try:
                more, wait = self.driver.make_run(self, made)
            except Exception:  # a bug: what the engine made is never stored, nor shown
                log.exception("game %s: the computers' run after a card failed", self.id)
                self.drop(StoreError("the run after a card failed"))
                raise ProtocolError(UNAVAILABLE, UNAVAILABLE_REASON) from None
            try:
                await self.commit(made + more, first)
            except LeaseLost:  # another process plays it now: the page reconnects there
                raise ProtocolError(
                    "no-game", "The game moved to another server process: send hello again."
                ) from None
            except StoreError:
                raise ProtocolError(UNAVAILABLE, UNAVAILABLE_REASON) from None
            self.played = True
        if wait is not None or len(made) + len(more) >= RUN:
            self.kick()  # a computer to wait for, or more to make

    async def hint(self, seat: int, version: int, player: str | None) -> str:
        """The ``hint`` frame for ``seat``: the expert's value of each legal card.

        Raises :class:`ProtocolError`: ``not-seated`` (``player`` does not play ``seat``
        now), ``stale``, the engine's refusal when no card is due from the seat, or
        ``hint-busy`` when every hint worker is taken.
        """
        async with self.lock:
            self._check_seat(seat, player)
            self.publisher.check_version(version)
            g = self.game
            hand = g.hand(seat)
            refusal = g.why_not(hand[0] if hand else 0, seat)
            if refusal is not None and refusal.code not in (
                "must-follow",
                "lead-club",
                "picture-rank",
            ):
                raise ProtocolError(refusal.code, refusal.reason, refusal.rule, refusal.params)
            view = g.view(seat)
        try:
            values = await self.service.pool.hint(view, self.service.hint_time)
        except HintsBusy:
            raise ProtocolError(
                "hint-busy", "The server is busy with other hints: ask again in a moment."
            ) from None
        return hint_frame(version, values)

    async def note(
        self, kind: str, seat: int, data: dict[str, Any], *, players_only: bool = False
    ) -> None:
        """Store and publish an event that is not a move (call it holding :attr:`lock`):
        ``chat``, ``react``, ``takeover``, ``reclaim``, ``seat``. ``players_only`` hides it
        from spectators (they get a ``skip`` of its version)."""
        version = self.publisher.version + 1
        await self._write(Store.op_event(self.id, version, kind, seat, to_json(data)))
        self.publisher.publish(
            [note_event(kind, seat, data)], moved=False, players_only=players_only
        )

    # ------------------------------------------------------------------ pages

    def join(self, sub: Subscriber, since: int) -> None:
        """Subscribe ``sub`` and send it what it missed after version ``since``: the
        kept events, or one ``state`` if they are gone (or ``since`` is 0)."""
        self.last_active = time.monotonic()
        publisher = self.publisher
        if sub.seat not in publisher.histories:
            raise ProtocolError("not-your-game", "You have no seat in this game.")
        if self.unstored:
            # A write is under way and the engine already holds its moves, which may yet
            # be refused: the page is sent the game once it is stored (a room's page
            # joins without the game's lock).
            publisher.wait(sub, since)
            return
        publisher.catch_up(sub, since, self.state_frame, self.clock())
        first = not publisher.connected(sub.seat)
        publisher.add(sub)
        if sub.seat != SPECTATOR:
            self.presence.arrived(self, sub.seat)
            if first:
                self.changed()

    def leave(self, sub: Subscriber) -> None:
        """Unsubscribe ``sub``; a person's last page gone starts the grace period."""
        publisher = self.publisher
        if publisher.unwait(sub):  # it joined during a write, and left
            if sub.seat != SPECTATOR and not publisher.connected(sub.seat):
                self.presence.start_grace(self, sub.seat)
            return
        if not publisher.remove(sub):
            return
        self.last_active = time.monotonic()
        if sub.seat != SPECTATOR and not publisher.connected(sub.seat):
            self.presence.start_grace(self, sub.seat)
        self.changed()

    def start_graces(self, waits: dict[int, float] | None = None) -> None:
        """Start the grace period of every person not connected (a game just loaded or
        started); ``waits``: seconds left of it for some seats (a person already away)."""
        self.presence.start_graces(self, self.human_seats(), waits or {})

    def takeover_in(self, seat: int) -> float | None:
        """Seconds until a computer plays for ``seat``'s person, away now, or None."""
        return self.presence.takeover_in(seat)

    async def leave_game(self, player: str) -> bool:
        """``player`` leaves the game under way: they have abandoned their seat (why
        ``left``), a computer plays it for the rest of the game. False if they play no seat
        in it now, or it is over."""
        return await self.presence.leave_game(self, player)

    async def replace_by_computer(self, seat: int, name: str) -> None:
        """A computer takes ``seat`` for good (its person was removed from the room): a
        ``seat`` event, and the seats stored."""
        async with self.lock:
            who = self.seats[seat]
            if who.kind != "human":
                return
            self.seats[seat] = Seat("bot", level=who.level or self.service.default_level)
            self.names[seat] = name
            self.presence.cancel(seat)
            if self.turn_clock.seat == seat:
                self.turn_clock.stop()
            await self._write(
                Store.op_seats(self.id, [x.to_dict() for x in self.seats], self.names)
            )
            self._hand_over(seat)
            await self.note("seat", seat, {"by": "computer", "name": name})
        self.changed()
        self.kick()

    # ------------------------------------------------------------------ moves

    def kick(self) -> None:
        """Start the driver (deals, discards, bots' turns) unless it is running."""
        if not self.closed:
            self.driver.kick(self)

    async def _write(
        self, *ops: WriteOp, actions: tuple[str, list[ActionRow]] | None = None
    ) -> None:
        """Store a change of this game, under its lease when it has one."""
        await self.service.store.write(*ops, actions=actions, lease=self.lease)

    async def apply(
        self,
        kind: str,
        seat: int,
        card: Card = -1,
        deal: list[list[Card]] | None = None,
        before: tuple[WriteOp, ...] = (),
        actor: str | None = None,
    ) -> None:
        """Make one action (engine-checked by the caller), store it, then publish it.
        ``actor``: who chose a card, ``person`` or ``computer`` (stored with it);
        ``before``: what the write does first."""
        await self.commit([self.make(kind, seat, card, deal, actor)], before)

    def make(
        self,
        kind: str,
        seat: int,
        card: Card = -1,
        deal: list[list[Card]] | None = None,
        actor: str | None = None,
        pending: Sequence[Made] = (),
    ) -> Made:
        """Make one action in the engine (checked by the caller) and build its row and
        frames, to be stored and published by :meth:`commit`, after the ``pending``
        actions made before it and not yet stored."""
        g = self.game
        tricks_before = len(g.tricks)
        summaries_before = len(g.summaries)
        was_over = g.is_over
        if kind == "deal":
            assert deal is not None
            g.deal(deal)
            tricks_before = 0
            row_seat = g.dealer
            data = json.dumps([[card_str(c) for c in cs] for cs in deal])
        else:
            if kind == "play":
                g.play(card, seat)
            else:
                g.discard(card, seat)
            row_seat = seat
            data = card_str(card)
        self.unstored += 1
        events = move_events(
            g,
            kind,
            seat,
            card,
            # a computer played for a person
            by_computer=kind == "play" and actor == "computer" and self.seats[seat].kind == "human",
            tricks_before=tricks_before,
            summaries_before=summaries_before,
            was_over=was_over,
        )
        finish: tuple[WriteOp, ...] = ()
        if g.is_over and not was_over:
            assert g.winner is not None
            finish = (Store.op_finish(self.id, g.winner, dumps(g, self.names)),)
        last = self.publisher.version + sum(m.frames.count for m in pending)
        seq = self.seq + len(pending)
        row = ActionRow(seq, kind, row_seat, data, last + len(events), actor)
        return Made(row, finish, self.publisher.frames(events, last), bool(finish))

    async def commit(self, made: Sequence[Made], before: tuple[WriteOp, ...] = ()) -> None:
        """Store actions made by :meth:`make` in one write, then publish them in order.
        If the store refuses them, this copy of the game is dropped (:meth:`drop`): what
        the engine made was never shown, and the stored game is loaded again."""
        ops = tuple(op for m in made for op in m.ops)
        try:
            await self._write(*before, *ops, actions=(self.id, [m.row for m in made]))
        except StoreError as e:
            self.drop(e)
            raise
        self.unstored = 0
        self.seq += len(made)
        self.last_active = time.monotonic()
        self.turn_clock.stop()
        publisher = self.publisher
        for m in made:
            publisher.deliver(m.frames)
        self.start_clock()
        if publisher.waiting:
            for sub, since in publisher.take_waiting().items():  # joined during the write
                self.join(sub, since)
        if any(m.finished for m in made):
            self.changed()
            # Only a room's game may be rated: a solo game's end costs no database read.
            if self.service.on_finish is not None and self.room_id is not None:
                self.service.on_finish(self.id)

    def drop(self, cause: StoreError) -> None:
        """The store refused a change the engine had made: drop this copy of the game.

        Subscribers are told and disconnected; they reconnect and get the stored game
        back: at once when another process took the game over (:data:`CLOSE_RESTART`),
        with back-off and "saving is paused" while the database is down
        (:data:`UNAVAILABLE`, :data:`CLOSE_TRY_LATER`).
        """
        log.error("game %s: storing failed (%s); reloading it from the database", self.id, cause)
        self.closed = True
        self.service.forget(self)
        if isinstance(cause, LeaseLost):
            self.publisher.close_all(None, CLOSE_RESTART)
        else:
            frame = error_frame(UNAVAILABLE, UNAVAILABLE_REASON, self.version)
            self.publisher.close_all(frame, CLOSE_TRY_LATER)

    # ------------------------------------------------------------------ the turn clock

    def start_clock(self) -> None:
        """Start the turn timer if a person (not away) is to play and the table has one,
        and show it to every page."""
        limit = self.table.turn_timer
        g = self.game
        if limit <= 0 or self.closed or g.phase != PLAY or self.turn_clock.running:
            return
        seat = g.turn
        if self.seats[seat].computer_plays:
            return
        self.turn_clock.start(seat, self.seq, limit, self._out_of_time)
        self.publisher.send_all(clock_frame(self.version, self.clock()))

    def _out_of_time(self, seat: int, seq: int) -> None:
        """The turn timer of ``seat`` ran out at action ``seq``: the driver plays the
        computer's card for the person (:meth:`.driver.Driver.play_for`)."""
        asyncio.get_running_loop().create_task(self.driver.play_for(self, seat, seq))

    # ------------------------------------------------------------------ abandonment

    async def timed_out(self, seat: int) -> str | None:
        """The computer played a card for ``seat``'s person, whose time ran out: counted
        by presence (the K-th time they abandon the seat). Their token if they did; call
        it holding :attr:`lock`."""
        return await self.presence.timed_out(self, seat)

    async def abandon(self, seat: int, why: str) -> str | None:
        """The person at ``seat`` has abandoned it (``why``: ``timeouts``, ``gone`` or
        ``left``, their :class:`~.attendance.Attendance`'s answer): an ``abandon`` event
        every viewer sees, and the seat the computer's for good, stored in one write; the
        person's pages watch from then on. Returns the person's token (None: not done).
        Call it holding :attr:`lock`.

        The event is at the seat with ``{"why": why}``, never the token: the ratings find
        the person through the game's participants. If the store refuses the write, this
        copy of the game is dropped and loaded again (the seat is the person's there)."""
        who = self.seats[seat]
        if self.closed or who.kind != "human" or who.player is None or self.game.is_over:
            return None
        seats = list(self.seats)
        seats[seat] = Seat("bot", level=who.level or self.service.default_level)
        data: dict[str, Any] = {"why": why}
        try:
            await self._write(
                Store.op_event(self.id, self.version + 1, "abandon", seat, to_json(data)),
                Store.op_seats(self.id, [x.to_dict() for x in seats], self.names),
            )
        except StoreError as e:
            self.drop(e)
            return None
        # The person's pages get the event at their seat (the page says what happened to
        # them), then watch.
        self.publisher.publish([note_event("abandon", seat, data)], moved=False)
        self.seats = seats
        self.abandoned_seats.add(seat)
        self._hand_over(seat)
        log.info("game %s: the person at seat %d abandoned it (%s)", self.id, seat, why)
        return who.player

    def abandoned(self, player: str) -> None:
        """After an abandonment (out of the lock): the room is told, the computer plays."""
        self.changed()
        self.kick()
        if self.on_abandon is not None:
            self.on_abandon(self, player)

    def _hand_over(self, seat: int) -> None:
        """``seat`` is the computer's for good: no grace or clock for it, and its person's
        pages watch from now on (a room's game has a public stream), before anything more
        of the seat is sent."""
        self.presence.cancel(seat)
        if self.turn_clock.seat == seat:
            self.turn_clock.stop()
        for sub in self.publisher.take_seat(seat):
            sub.seat = SPECTATOR
            if SPECTATOR in self.publisher.histories:
                self.join(sub, 0)
            else:
                sub.close(1000)
