"""Games as the server runs them: one :class:`GameSession` per game under way.

The server owns the game. A session holds the engine's :class:`~lockup.engine.Game`, who
sits where (a human known by a player cookie, or a bot of some level), and the versioned
events each human seat has been sent. Every action (a deal, a play, a lockup discard) is
checked by the engine, committed to the :class:`~lockup.server.store.Store`, and only then
published: each human seat gets the event with its own
:meth:`~lockup.engine.SeatView.to_dict` view, never another seat's hidden cards.

Deals and lockup discards are drawn from a server-side :class:`random.SystemRandom` and
stored as the record; bots think in the :class:`~lockup.server.pool.BotPool`.
:class:`GameService` finds, loads (replaying the stored record), creates and evicts
sessions.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..cards import Card, card_str
from ..engine import DEAL, DEFAULT_PLAYERS, DISCARD, PLAY, Game, Rules
from ..record import dumps, from_record
from .cluster import Leases
from .history import History
from .limits import Slots
from .pool import BotPool, HintsBusy
from .protocol import (
    CLOSE_RESTART,
    CLOSE_TRY_LATER,
    SPECTATOR,
    UNAVAILABLE,
    UNAVAILABLE_REASON,
    ProtocolError,
    clock_frame,
    error_frame,
    event_frame,
    hint_frame,
    skip_frame,
    state_frame,
    synced_frame,
    to_json,
)
from .store import (
    ActionRow,
    GameRow,
    Lease,
    LeaseLost,
    Store,
    StoreError,
    WriteOp,
    record_of,
)

log = logging.getLogger("lockup.server")


def available_levels() -> list[str]:
    """The bot levels a game may use, weakest first."""
    from ..bots import LEVELS

    return list(LEVELS)


class Subscriber(Protocol):
    """A connection that receives a seat's events (the WebSocket, in the app)."""

    seat: int

    def send(self, text: str) -> None:
        """Queue a JSON text frame for the client; never blocks."""

    def close(self, code: int) -> None:
        """Close the connection (the client reconnects and says ``hello``)."""


@dataclass
class Seat:
    """Who sits at a seat: a human (``player`` token) or a bot (``level``).

    A human's ``level`` is the computer that plays for them while they are ``away`` (in a
    room: gone longer than the grace period).
    """

    kind: str
    player: str | None = None
    level: str | None = None
    away: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON for the store."""
        if self.kind == "human":
            return {"kind": "human", "player": self.player, "level": self.level}
        return {"kind": "bot", "level": self.level}

    def public(self) -> dict[str, Any]:
        """What every player may know of the seat: who plays it, never their token."""
        return {
            "kind": self.kind,
            "level": self.level if self.kind == "bot" else None,
            "away": self.away,
        }

    @property
    def computer_plays(self) -> bool:
        """Whether a computer makes this seat's decisions now."""
        return self.kind == "bot" or self.away

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        """A seat from the store's JSON."""
        return cls(str(data["kind"]), data.get("player"), data.get("level"))


def spectator_view(game: Game) -> dict[str, Any]:
    """What anyone may see of ``game``: a seat's view without its hand."""
    view = game.view(0).to_dict()
    view.update(seat=None, hand=[], legal=[])
    return view


@dataclass
class TableOptions:
    """How a game at a table of people goes on without them (rooms' options).

    ``grace``: seconds a person may be gone before a computer plays for them (None: never,
    a game of one person waits). ``turn_timer``: seconds a person has for a card before the
    computer plays it for them (0: no limit).
    """

    grace: float | None = None
    turn_timer: float = 0.0


class GameSession:
    """One game in memory: the engine state, the seats, versions and subscribers.

    Every change happens under :attr:`lock`, is stored before it is published, and bumps
    :attr:`version` by the number of events it makes.
    """

    def __init__(
        self,
        service: GameService,
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
        self.version = version
        """The number of events this game has made (the last event's version)."""
        self.seq = seq
        """The number of stored actions."""
        self.stable_since = min(version, 1)
        """The first version showing the current state: the events of one action (a card
        and the trick and hand it ends) all show the state after it."""
        self.played = False
        """Whether a person has played a card in this game (see :attr:`priority`)."""
        self.lock = asyncio.Lock()
        self.closed = False
        """Set once evicted or broken: look the game up again."""
        self.subscribers: set[Subscriber] = set()
        self.histories: dict[int, History] = {
            s: History(service.buffer_size) for s in self.human_seats()
        }
        self.table = TableOptions()
        """How the game goes on without its people (set by the room)."""
        self.on_change: Callable[[GameSession], None] | None = None
        """Told when presence or who plays a seat changes (the room updates its page)."""
        self.room_id: str | None = None
        self.lease: Lease | None = None
        """This process's lease on the game (several processes, see :mod:`.cluster`):
        every write is made under it."""
        self.last_active = time.monotonic()
        self._driver: asyncio.Task[None] | None = None
        self._away_timers: dict[int, asyncio.TimerHandle] = {}
        self._taking_over: set[int] = set()
        """Seats whose grace ran out, the computer's takeover under way."""
        self._clock: tuple[int, int, float, asyncio.TimerHandle] | None = None
        """The running turn timer: (seat, seq, deadline on the loop's clock, handle)."""

    # ------------------------------------------------------------------ seats

    def human_seats(self) -> list[int]:
        """The seats humans play."""
        return [s for s, seat in enumerate(self.seats) if seat.kind == "human"]

    def open_to_spectators(self) -> None:
        """Keep a public stream for spectators (room games)."""
        self.histories.setdefault(SPECTATOR, History(self.service.buffer_size))

    def connected(self, seat: int) -> bool:
        """Whether a page of ``seat`` is connected."""
        return any(sub.seat == seat for sub in self.subscribers)

    @property
    def watchers(self) -> int:
        """How many spectators are connected."""
        return sum(1 for sub in self.subscribers if sub.seat == SPECTATOR)

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
        return self.lock.locked() or (self._driver is not None and not self._driver.done())

    # ------------------------------------------------------------------ frames

    def view_of(self, seat: int) -> dict[str, Any]:
        """What ``seat`` (or :data:`SPECTATOR`) may see now."""
        if seat == SPECTATOR:
            return spectator_view(self.game)
        return self.game.view(seat).to_dict()

    def state_frame(self, seat: int) -> str:
        """The JSON text of a ``state`` snapshot for ``seat``."""
        seats = [x.public() for x in self.seats]
        return state_frame(self.version, self.names, seats, self.view_of(seat), self.clock())

    def clock(self) -> dict[str, Any] | None:
        """The running turn timer as a page shows it, or None."""
        if self._clock is None:
            return None
        seat, _, deadline, _ = self._clock
        left = max(0.0, deadline - asyncio.get_running_loop().time())
        return {"seat": seat, "seconds": round(left, 1), "limit": self.table.turn_timer}

    @property
    def level(self) -> str | None:
        """The bots' level (the first bot seat's), or None if every seat is a person's."""
        return next((x.level for x in self.seats if x.kind == "bot"), None)

    def join(self, sub: Subscriber, since: int) -> None:
        """Subscribe ``sub`` and send it what it missed after version ``since``: the
        kept events, or one ``state`` if they are gone (or ``since`` is 0)."""
        self.last_active = time.monotonic()
        history = self.histories.get(sub.seat)
        if history is None:
            raise ProtocolError("not-your-game", "You have no seat in this game.")
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
        if sub not in self.subscribers:
            return
        self.subscribers.discard(sub)
        self.last_active = time.monotonic()
        if sub.seat != SPECTATOR and not self.connected(sub.seat):
            self._start_grace(sub.seat)
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)

    # ------------------------------------------------------------------ people away

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

    async def note(
        self, kind: str, seat: int | None, data: dict[str, Any], *, players_only: bool = False
    ) -> None:
        """Store and publish an event that is not a move (call it holding :attr:`lock`):
        ``chat``, ``react``, ``takeover``, ``reclaim``, ``seat``. ``players_only`` hides it
        from spectators (they get a ``skip`` of its version)."""
        version = self.version + 1
        await self._write(Store.op_event(self.id, version, kind, seat, to_json(data)))
        event = {"kind": kind, "seat": seat, **data}
        self._publish([event], moved=False, players_only=players_only)

    def _publish(
        self, events: list[dict[str, Any]], *, moved: bool = True, players_only: bool = False
    ) -> None:
        """Send stored events to every viewer (each human seat and the spectators), each
        with its own view; an event hidden from a viewer is a ``skip`` of its version, so
        every viewer's versions stay consecutive. ``moved``: the events change the game
        (a move); events that do not (chat) leave a card's version valid."""
        encoded = [to_json(ev) for ev in events]
        for seat, history in self.histories.items():
            subs = [s for s in self.subscribers if s.seat == seat]
            hidden = players_only and seat == SPECTATOR
            view = to_json(self.view_of(seat)) if not hidden else ""
            for i, ev in enumerate(encoded):
                v = self.version + i + 1
                text = skip_frame(v) if hidden else event_frame(v, ev, view)
                history.add(v, text)
                for sub in subs:
                    sub.send(text)
        if moved:
            self.stable_since = self.version + 1
        self.version += len(events)

    # ------------------------------------------------------------------ changes

    async def _write(
        self, *ops: WriteOp, actions: tuple[str, list[ActionRow]] | None = None
    ) -> None:
        """Store a change of this game, under its lease when it has one."""
        await self.service.store.write(*ops, actions=actions, lease=self.lease)

    async def _apply(
        self,
        kind: str,
        seat: int,
        card: Card = -1,
        deal: list[list[Card]] | None = None,
        before: tuple[WriteOp, ...] = (),
        actor: str | None = None,
    ) -> None:
        """Make one action (engine-checked by the caller), store it, then publish it.
        ``actor``: who chose a card, ``person`` or ``computer`` (stored with it)."""
        g = self.game
        tricks_before = len(g.tricks)
        summaries_before = len(g.summaries)
        was_over = g.is_over
        if kind == "deal":
            assert deal is not None
            g.deal(deal)
            tricks_before = 0
            event: dict[str, Any] = {"kind": "deal", "hand": g.hand_number, "dealer": g.dealer}
            row_seat = g.dealer
            data = json.dumps([[card_str(c) for c in cs] for cs in deal])
        else:
            if kind == "play":
                g.play(card, seat)
            else:
                g.discard(card, seat)
            event = {"kind": kind, "seat": seat, "card": card_str(card)}
            if kind == "play" and actor == "computer" and self.seats[seat].kind == "human":
                event["by"] = "computer"  # a computer played for a person
            row_seat = seat
            data = card_str(card)
        events = [event]
        for t in g.tricks[tricks_before:]:
            events.append({"kind": "trick", "winner": t.winner, "clubs": t.clubs, "lock": t.lock})
        if len(g.summaries) > summaries_before:
            events.append({"kind": "hand", "summary": g.summaries[-1].to_dict()})
        finish: tuple[WriteOp, ...] = ()
        if g.is_over and not was_over:
            assert g.winner is not None
            events.append({"kind": "over", "winner": g.winner})
            finish = (Store.op_finish(self.id, g.winner, dumps(g, self.names)),)
        row = ActionRow(self.seq, kind, row_seat, data, self.version + len(events), actor)
        try:
            await self._write(*before, *finish, actions=(self.id, [row]))
        except StoreError as e:
            self._break(e)
            raise
        self.seq += 1
        self.last_active = time.monotonic()
        self._stop_clock()
        self._publish(events)
        self._start_clock()
        if g.is_over and not was_over:
            self._changed()

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

    # ------------------------------------------------------------------ turn timer

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
        """The turn timer ran out: the computer plays this one card for the person."""
        async with self.lock:
            if self.closed or self.seq != seq or self.game.turn != seat:
                return
            view = self.game.view(seat)
        level = self.seats[seat].level or self.service.default_level
        card = await self.service.pool.choose(level, view)
        async with self.lock:
            if self.closed or self.seq != seq:
                return
            try:
                await self._apply("play", seat, card, actor="computer")
            except StoreError:
                return
        self.kick()

    def _break(self, cause: StoreError) -> None:
        """The store refused a change the engine had made: drop this copy of the game.

        Subscribers are told and disconnected; they reconnect and get the stored game
        back: at once when another process took the game over (:data:`CLOSE_RESTART`),
        with back-off and "saving is paused" while the database is down
        (:data:`UNAVAILABLE`, :data:`CLOSE_TRY_LATER`).
        """
        log.error("game %s: storing failed (%s); reloading it from the database", self.id, cause)
        self.closed = True
        self.service.forget(self)
        moved = isinstance(cause, LeaseLost)
        frame = error_frame(UNAVAILABLE, UNAVAILABLE_REASON, self.version)
        for sub in list(self.subscribers):
            if not moved:
                sub.send(frame)
            sub.close(CLOSE_RESTART if moved else CLOSE_TRY_LATER)
        self.subscribers.clear()

    async def _server_step(self) -> bool:
        """Make a deal or a lockup discard if one is due (server rng); True if it did."""
        g = self.game
        rng = self.service.rng
        if g.phase == DISCARD:
            seat = g.pending[0]
            cards = g.hand(seat)
            await self._apply("discard", seat, cards[rng.randrange(len(cards))])
            return True
        if g.phase == DEAL:
            deck = list(range(52))
            rng.shuffle(deck)
            await self._apply("deal", g.dealer, deal=[deck[13 * s : 13 * s + 13] for s in range(4)])
            return True
        return False

    def kick(self) -> None:
        """Start the driver (deals, discards, bots' turns) unless it is running."""
        if self.closed:
            return
        if self._driver is None or self._driver.done():
            self._driver = asyncio.create_task(self._drive(), name=f"lockup-game-{self.id}")

    @property
    def priority(self) -> int:
        """0 for a game in play; 1 for a game no person has played a card in yet, so that
        a burst of new games never delays the moves of games under way."""
        return 0 if self.played else 1

    async def _drive(self) -> None:
        """Play on until a human's turn or the game's end: deals, discards, bots' cards.

        Each change takes one of the service's :attr:`GameService.slots` (bots think
        without one), so however many games have bots to move, a human's card never
        queues behind all of them. A bot's card is held until :meth:`GameService.bot_hold`
        after its turn began, so how long it took says nothing of the bot's hand.
        """
        slots = self.service.slots
        loop = asyncio.get_running_loop()
        try:
            while True:
                async with slots.hold(self.priority), self.lock:
                    if self.closed or self.game.is_over:
                        return
                    if await self._server_step():
                        continue
                    g = self.game
                    seat = g.turn
                    who = self.seats[seat]
                    if g.phase != PLAY or not who.computer_plays:
                        return
                    view = g.view(seat)
                    seq = self.seq
                level = who.level or self.service.default_level
                release_at = loop.time() + self.service.bot_hold(level)
                card = await self.service.pool.choose(level, view)
                late = loop.time() - release_at
                if late < 0:
                    await asyncio.sleep(-late)
                elif self.service.bot_delay > 0:
                    log.debug("game %s: a bot's card came %.3f s after its hold", self.id, late)
                async with slots.hold(self.priority), self.lock:
                    if self.closed or self.seq != seq or not self.seats[seat].computer_plays:
                        continue  # the game moved on, or the person came back
                    await self._apply("play", seat, card, actor="computer")
        except StoreError:
            return
        except Exception:  # pragma: no cover - a bug must not kill the server quietly
            log.exception("game %s: the driver failed", self.id)

    # ------------------------------------------------------------------ client requests

    def _check_version(self, version: int) -> None:
        if not self.stable_since <= version <= self.version:
            raise ProtocolError(
                "stale",
                f"The page shows version {version} but the game is at version {self.version}: "
                "send hello to catch up.",
                params={"version": version, "current": self.version},
            )

    def _check_seat(self, seat: int, player: str | None) -> None:
        """Refuse an action of ``seat`` from a page whose person does not play it now."""
        if player is None or self.seat_of(player) != seat:
            raise ProtocolError(
                "not-seated", "You no longer play that seat: this page now only watches."
            )

    async def play(self, seat: int, card: Card, version: int, player: str | None) -> None:
        """A human's card: checked by the engine, stored, then acknowledged by its event.

        ``player``: the person whose page sent it, who must play ``seat`` now.
        Raises :class:`ProtocolError` (nothing changed) for a page whose person does not
        play the seat, a stale version or a card the rules refuse (the engine's code, rule
        and reason).
        """
        async with self.lock:
            if self.closed:
                raise ProtocolError("no-game", "The game was reloaded: send hello again.")
            self._check_seat(seat, player)
            self._check_version(version)
            refusal = self.game.why_not(card, seat)
            if refusal is not None:
                raise ProtocolError(refusal.code, refusal.reason, refusal.rule, refusal.params)
            if self.seats[seat].away:
                raise ProtocolError(
                    "not-your-turn", "A computer is playing for you: reconnect to take it back."
                )
            first = () if self.played else (Store.op_played(self.id),)
            try:
                await self._apply("play", seat, card, before=first, actor="person")
            except LeaseLost:  # another process plays it now: the page reconnects there
                raise ProtocolError(
                    "no-game", "The game moved to another server process: send hello again."
                ) from None
            except StoreError:
                raise ProtocolError(UNAVAILABLE, UNAVAILABLE_REASON) from None
            self.played = True
        self.kick()

    async def hint(self, seat: int, version: int, player: str | None) -> str:
        """The ``hint`` frame for ``seat``: the expert's value of each legal card.

        Raises :class:`ProtocolError`: ``not-seated`` (``player`` does not play ``seat``
        now), ``stale``, the engine's refusal when no card is due from the seat, or
        ``hint-busy`` when every hint worker is taken.
        """
        async with self.lock:
            self._check_seat(seat, player)
            self._check_version(version)
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


def game_key(game_id: str) -> str:
    """The key of a game's lease."""
    return f"game:{game_id}"


class GameService:
    """Finds, creates, loads and evicts :class:`GameSession` objects.

    ``idle_s``: a game nobody watches leaves memory after this many idle seconds (it stays
    stored). ``buffer_size``: events kept per seat for reconnecting pages. ``bot_slots``: how
    many games may move (deal, discard, a bot's card) at once. ``bot_delay`` and
    ``bot_jitter``: a bot's card leaves the server ``bot_delay`` plus up to ``bot_jitter``
    seconds (uniform) after its turn began, however quickly the bot decided.
    ``purge_unplayed_after`` and ``purge_abandoned_after`` (seconds; 0: never): stored
    games in which no card was played, and unfinished games with no move, are deleted
    after that long (looked for every ``purge_every`` seconds, and at least four times
    in ``purge_unplayed_after``). A game in memory that nobody watches leaves it after
    ``idle_s``, or after 5 s once it is over or while nobody has played a card in it.
    """

    def __init__(
        self,
        store: Store,
        pool: BotPool,
        *,
        default_level: str = "normal",
        hint_time: float | None = None,
        idle_s: float = 120.0,
        buffer_size: int = 200,
        bot_slots: int = 4,
        bot_delay: float = 0.35,
        bot_jitter: float = 0.25,
        purge_unplayed_after: float = 3600.0,
        purge_abandoned_after: float = 30 * 86400.0,
        purge_every: float = 600.0,
        leases: Leases | None = None,
    ) -> None:
        self.store = store
        self.leases = leases
        """This process's leases when several processes share the database (each game is
        loaded and played under its lease), or None: the only process."""
        if leases is not None:
            leases.on_lost = self._lost
        self.pool = pool
        self.default_level = default_level
        self.hint_time = hint_time
        self.idle_s = idle_s
        self.buffer_size = buffer_size
        self.bot_delay = bot_delay
        self.bot_jitter = bot_jitter
        self.purge_unplayed_after = purge_unplayed_after
        self.purge_abandoned_after = purge_abandoned_after
        if purge_unplayed_after > 0:
            purge_every = min(purge_every, max(1.0, purge_unplayed_after / 4))
        self.purge_every = purge_every
        self.rng = random.SystemRandom()
        self.slots = Slots(bot_slots)
        """How many games may make a server or bot move at once (humans need none)."""
        self.sessions: dict[str, GameSession] = {}
        self._loading: dict[str, asyncio.Future[GameSession | None]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._player_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self.on_lost_room: Callable[[str], None] | None = None
        """Told when another process took over a room of this process (see :meth:`_lost`)."""
        self.on_forget_room_game: Callable[[str], None] | None = None
        """Told the room's id when a room's game leaves memory (see :meth:`forget`)."""
        self.on_load: Callable[[GameSession], Awaitable[None]] | None = None
        """Called with a room's game loaded from the store, before it plays on."""

    def bot_hold(self, level: str = "") -> float:
        """How long after its turn began a card of a bot of ``level`` is sent (see the
        class): at least ``bot_delay``, and at least the level's longest think plus 0.15 s
        when that is longer (the ``master`` level thinks 0.9 s), so that a forced card
        and a searched one leave alike (with ``bot_delay`` 0, pacing is off)."""
        base = self.bot_delay
        if base > 0 and level:
            from ..bots.registry import think_time

            base = max(base, think_time(level) + 0.15)
        if self.bot_jitter <= 0:
            return base
        return base + self.rng.uniform(0.0, self.bot_jitter)

    async def start(self) -> None:
        """Start evicting idle games and purging stored ones."""
        self._sweeper = asyncio.create_task(self._sweep(), name="lockup-sweeper")
        if self.leases is not None:
            self.leases.start()

    async def close(self) -> None:
        """Stop the sweeper and every game's driver."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for s in list(self.sessions.values()):
            s.closed = True
            if s._driver is not None:
                s._driver.cancel()
        if self.leases is not None:
            await self.leases.close()

    def forget(self, session: GameSession) -> None:
        """Drop a session from memory (it stays in the store)."""
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]
            if self.leases is not None and session.lease is not None:
                if self.leases.held.get(session.lease.key) == session.lease:
                    self.leases.release_soon(session.lease.key)
            if session.room_id is not None and self.on_forget_room_game is not None:
                self.on_forget_room_game(session.room_id)

    def _lost(self, key: str) -> None:
        """Another process took the game ``key`` over: drop this copy; its pages reconnect
        (and are sent to the new owner)."""
        if key.startswith("room:"):
            if self.on_lost_room is not None:
                self.on_lost_room(key.removeprefix("room:"))
            return
        s = self.sessions.get(key.removeprefix("game:"))
        if s is None:
            return
        s.closed = True
        s.lease = None
        self.forget(s)
        if s._driver is not None:
            s._driver.cancel()
        for sub in list(s.subscribers):
            sub.close(1012)
        s.subscribers.clear()

    async def _sweep(self) -> None:
        next_purge = time.monotonic()
        tick = max(0.5, min(10.0, self.idle_s / 4, self.purge_every or 10.0))
        while True:
            self.evict_idle()
            if self.purge_every > 0 and time.monotonic() >= next_purge:
                next_purge = time.monotonic() + self.purge_every
                await self.purge()
            await asyncio.sleep(tick)

    async def purge(self) -> tuple[int, int]:
        """Delete stored games never played and games abandoned (see the class); how many
        of each. Games in memory are kept."""
        if self.purge_unplayed_after <= 0 and self.purge_abandoned_after <= 0:
            return 0, 0
        never = 100 * 365 * 86400.0
        try:
            counts = await self.store.purge(
                unplayed_after=self.purge_unplayed_after or never,
                abandoned_after=self.purge_abandoned_after or never,
                keep=set(self.sessions),
            )
        except StoreError as e:
            log.error("purging old games failed: %s", e)
            return 0, 0
        return counts

    def evict_idle(self) -> int:
        """Evict games nobody watches that have been idle long enough; how many."""
        now = time.monotonic()
        n = 0
        for s in list(self.sessions.values()):
            short = s.game.is_over or s.priority > 0  # over, or no card played yet
            limit = min(5.0, self.idle_s) if short else self.idle_s
            if not s.subscribers and not s.busy and now - s.last_active > limit:
                s.closed = True
                self.forget(s)
                n += 1
        return n

    # ------------------------------------------------------------------ lookup

    async def get(self, game_id: str) -> GameSession | None:
        """The game ``game_id``, loaded from the store if it is not in memory; None if
        there is no such game (or its record does not replay)."""
        s = self.sessions.get(game_id)
        if s is not None:
            return s
        pending = self._loading.get(game_id)
        if pending is not None:
            return await pending
        fut: asyncio.Future[GameSession | None] = asyncio.get_running_loop().create_future()
        self._loading[game_id] = fut
        try:
            try:
                s = await self._load(game_id)
            finally:
                if self.leases is not None and s is None:  # not playable here
                    self.leases.release_soon(game_key(game_id))
            if s is not None:
                if s.room_id is not None and self.on_load is not None:
                    await self.on_load(s)
                self.sessions[game_id] = s
                s.kick()
            fut.set_result(s)
            return s
        except BaseException as e:
            fut.set_exception(e)
            fut.exception()  # mark retrieved
            raise
        finally:
            del self._loading[game_id]

    async def _load(self, game_id: str) -> GameSession | None:
        if not isinstance(game_id, str) or not 1 <= len(game_id) <= 32:
            return None
        lease = None
        if self.leases is not None:  # raises OwnedElsewhere while another process plays it
            lease = await self.leases.acquire(game_key(game_id))
        found = await self.store.load(game_id)
        if found is None:
            return None
        header, actions = found
        try:
            game = from_record(record_of(header, actions))
        except Exception as e:
            log.error("game %s: the stored record does not replay: %s", game_id, e)
            return None
        if any(d.get("kind") == "uploaded" for d in header.seats):
            return None  # a record brought in for review: never played on
        seats = [Seat.from_dict(d) for d in header.seats]
        version = max(actions[-1].version if actions else 0, header.events_version)
        s = GameSession(self, header.id, game, header.players, seats, version, len(actions))
        s.lease = lease
        s.room_id = header.room_id
        s.stable_since = actions[-2].version + 1 if len(actions) > 1 else min(version, 1)
        humans = set(s.human_seats())
        s.played = any(a.kind == "play" and a.seat in humans for a in actions)
        return s

    async def current(
        self,
        player: str,
        before_new: Callable[[], Awaitable[None]] | None = None,
        *,
        keep: bool = True,
    ) -> GameSession:
        """The game ``player`` plays now; a new one (default options) if none, after
        ``await before_new()`` (which may raise to refuse it); ``keep``: see
        :meth:`new_game_at`.

        Two requests at once (the page's ``/api/game`` and its ``hello``) find one game.
        """
        lock = self._player_locks.get(player)
        if lock is None:
            lock = self._player_locks[player] = asyncio.Lock()
        async with lock:
            game_id = await self.store.player_game(player)
            if game_id is not None:
                s = await self.get(game_id)
                if s is not None and s.seat_of(player) is not None:
                    return s
            if before_new is not None:
                await before_new()
            return await self.new_game(player, Rules(), self.default_level, keep=keep)

    async def new_game(
        self, player: str, rules: Rules, level: str, *, keep: bool = True
    ) -> GameSession:
        """A new game: ``player`` at South, bots of ``level`` at the other seats; its first
        hand is dealt (server rng) and everything is stored before this returns. Its bots'
        first moves wait behind the moves of games people play (:attr:`GameSession.priority`).
        ``keep``: see :meth:`new_game_at`."""
        seats = [Seat("human", player=player)] + [Seat("bot", level=level) for _ in range(3)]
        return await self.new_game_at(seats, list(DEFAULT_PLAYERS), rules, [player], keep=keep)

    async def new_game_at(
        self,
        seats: list[Seat],
        names: list[str],
        rules: Rules,
        owners: list[str],
        *,
        room_id: str | None = None,
        prepare: Callable[[GameSession], None] | None = None,
        keep: bool = True,
    ) -> GameSession:
        """A new game with these seats and names, the current game of every player in
        ``owners``; ``prepare`` is called on it before its first deal is published.

        ``keep=False`` (several processes, a game made by an HTTP request): the game is
        stored and its lease given back, not played here; the returned session is closed.
        The process its player's WebSocket reaches takes the lease and plays it there, so
        the player's moves need no hop to another process (see docs/deploy.md)."""
        game_id = secrets.token_urlsafe(9)
        game = Game(rules, dealer=self.rng.randrange(4))
        s = GameSession(self, game_id, game, names, seats, 0, 0)
        if self.leases is not None:
            s.lease = await self.leases.acquire(game_key(game_id))
        s.room_id = room_id
        if prepare is not None:
            prepare(s)
        header = GameRow(
            game_id, rules.to_dict(), names, [x.to_dict() for x in seats], None, room_id
        )
        create = Store.op_create_game(header, [], owners)
        deck = list(range(52))
        self.rng.shuffle(deck)
        async with s.lock:
            await s._apply(
                "deal",
                game.dealer,
                deal=[deck[13 * i : 13 * i + 13] for i in range(4)],
                before=(create,),
            )
        if not keep and self.leases is not None and s.lease is not None:
            s.closed = True
            await self.leases.release(s.lease.key)
            return s
        self.sessions[game_id] = s
        s.kick()
        return s
