"""The driver: deals, lockup discards and computers' cards, played on until a person's turn.

:class:`Driver` runs one task at a time for its game. It asks the bots (:class:`Bots`:
the move slots, the bot pool, the server's random source, the pacing) for cards, and its
game (:class:`Table`, the session) to make, store and publish them. The game is handed to
:meth:`Driver.kick` and kept only while the task runs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Protocol

from ...cards import Card
from ...engine import DEAL, DISCARD, PLAY, Game, RandomSource, SeatView
from ..net.limits import Slots
from ..pool import INLINE_LEVELS
from ..store import StoreError
from .moves import Made
from .seat import Seat

log = logging.getLogger("lockup.server")

RUN = 16
"""The most actions the driver makes under one hold and stores in one write (a run of
unpaced computers and the server's deals and discards)."""


class Chooser(Protocol):
    """What chooses a computer's card (:class:`~lockup.server.pool.BotPool`)."""

    async def choose(self, level: str, view: SeatView) -> Card:
        """The card a bot of ``level`` plays from ``view``."""
        ...

    def choose_now(self, level: str, game: Game, seat: int) -> Card:
        """The card a bot of an inline level (``INLINE_LEVELS``) plays for ``seat`` of
        ``game``, chosen at once."""
        ...


class Bots(Protocol):
    """What the driver asks of the server (:class:`~.service.GameService`)."""

    @property
    def slots(self) -> Slots:
        """How many games may make a server or bot move at once."""
        ...

    @property
    def pool(self) -> Chooser:
        """The bots."""
        ...

    @property
    def rng(self) -> RandomSource:
        """The server's random source (deals and discards)."""
        ...

    @property
    def default_level(self) -> str:
        """The level of a seat that names none."""
        ...

    @property
    def bot_delay(self) -> float:
        """The least time a bot's card is held after its turn began (0: no pacing)."""
        ...

    def bot_hold(self, level: str = "") -> float:
        """How long after its turn began a bot of ``level``'s card is sent."""
        ...


class Table(Protocol):
    """What the driver asks of its game (:class:`~.game.GameSession`)."""

    @property
    def id(self) -> str:
        """The game's id."""
        ...

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
        """The engine."""
        ...

    @property
    def seats(self) -> list[Seat]:
        """Who plays each seat."""
        ...

    @property
    def seq(self) -> int:
        """The number of stored actions."""
        ...

    @property
    def unstored(self) -> int:
        """Actions the engine holds that are not stored yet."""
        ...

    @property
    def priority(self) -> int:
        """The game's priority for the move slots (0 first)."""
        ...

    def make(
        self,
        kind: str,
        seat: int,
        card: Card = -1,
        deal: list[list[Card]] | None = None,
        actor: str | None = None,
        pending: Sequence[Made] = (),
    ) -> Made:
        """Make one action in the engine, after ``pending`` ones not stored yet."""
        ...

    async def commit(self, made: Sequence[Made]) -> None:
        """Store actions made by :meth:`make` in one write, then publish them."""
        ...

    async def apply(self, kind: str, seat: int, card: Card = -1, *, actor: str) -> None:
        """Make one action, store it, then publish it."""
        ...

    def drop(self, cause: StoreError) -> None:
        """Give this copy of the game up (it is loaded again from the store)."""
        ...

    async def timed_out(self, seat: int) -> str | None:
        """The computer played a card for ``seat``'s person, whose time ran out: the
        person's token if that made them abandon the seat (call it holding the lock)."""
        ...

    def abandoned(self, player: str) -> None:
        """After an abandonment, out of the lock."""
        ...

    def kick(self) -> None:
        """Play on (the driver, started again unless it runs)."""
        ...


class Driver:
    """Playing on for the server and the computers: one task at a time for a game."""

    def __init__(self, bots: Bots) -> None:
        self.bots = bots
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        """Whether the driver is playing on (bots thinking, a run being stored)."""
        return self._task is not None and not self._task.done()

    def kick(self, table: Table) -> None:
        """Play on for ``table`` (deals, discards, bots' turns) unless the driver runs."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._drive(table), name=f"lockup-game-{table.id}")

    def cancel(self) -> None:
        """Stop the running task, if any (the game is closed)."""
        if self._task is not None:
            self._task.cancel()

    async def _drive(self, table: Table) -> None:
        """Play on until a human's turn or the game's end: deals, discards, bots' cards.

        Each change takes one of the bots' :attr:`~Bots.slots` (bots think without one),
        so however many games have bots to move, a human's card never queues behind all
        of them. A bot's card is held until :meth:`~Bots.bot_hold` after its turn began,
        so how long it took says nothing of the bot's hand.

        What needs no wait (the server's deals and discards, and the cards of unpaced
        bots that choose on the loop) is made in runs of up to :data:`RUN` actions under
        one hold and stored in one write: a trick of three such bots costs one commit,
        not three, and its frames go out together once it is stored.
        """
        bots = self.bots
        slots = bots.slots
        loop = asyncio.get_running_loop()
        try:
            while True:
                async with slots.hold(table.priority), table.lock:
                    if table.closed or table.game.is_over:
                        return
                    made, wait = self.make_run(table)
                    if made:
                        await table.commit(made)
                    if wait is None:
                        if len(made) == RUN:
                            continue  # a long run of computers: the next part
                        return
                    seat, level, hold = wait
                    seq = table.seq
                    if level in INLINE_LEVELS:  # chosen at once, held below
                        chosen: Card | None = bots.pool.choose_now(level, table.game, seat)
                    else:
                        chosen, view = None, table.game.view(seat)
                release_at = loop.time() + hold
                card = chosen if chosen is not None else await bots.pool.choose(level, view)
                late = loop.time() - release_at
                if late < 0:
                    await asyncio.sleep(-late)
                elif bots.bot_delay > 0:
                    log.debug("game %s: a bot's card came %.3f s after its hold", table.id, late)
                async with slots.hold(table.priority), table.lock:
                    if table.closed or table.seq != seq or not table.seats[seat].computer_plays:
                        continue  # the game moved on, or the person came back
                    await table.apply("play", seat, card, actor="computer")
        except StoreError:
            return
        except Exception:  # pragma: no cover - a bug must not kill the server quietly
            log.exception("game %s: the driver failed", table.id)
            if table.unstored:  # the engine holds moves never stored: load the game again
                table.drop(StoreError("the driver failed"))

    def make_run(
        self, table: Table, pending: Sequence[Made] = ()
    ) -> tuple[list[Made], tuple[int, str, float] | None]:
        """Make (not store) the actions due now that need no wait, at most :data:`RUN`
        with the ``pending`` ones made before them and not yet stored: deals and discards
        (server rng) and the cards of unpaced bots that choose on the loop. Returns them,
        and the computer's turn that stopped the run, if one did: ``(seat, level, hold)``,
        a bot that thinks off the loop or is paced. The run also stops at a person's turn
        and at the game's end. Call it holding the lock."""
        bots = self.bots
        g = table.game
        made: list[Made] = list(pending)
        while len(made) < RUN and not g.is_over:
            if g.phase in (DISCARD, DEAL):
                # drawn by the engine, made by the table
                move = g.chance_move(bots.rng, make=False)
                made.append(table.make(move.kind, move.seat, move.card, move.deal, None, made))
                continue
            seat = g.turn
            who = table.seats[seat]
            if g.phase != PLAY or not who.computer_plays:
                break
            level = who.level or bots.default_level
            hold = bots.bot_hold(level)
            if hold > 0 or level not in INLINE_LEVELS:
                return made[len(pending) :], (seat, level, hold)
            card = bots.pool.choose_now(level, g, seat)
            made.append(table.make("play", seat, card, None, "computer", made))
        return made[len(pending) :], None

    async def play_for(self, table: Table, seat: int, seq: int) -> None:
        """The turn timer of ``seat`` ran out at action ``seq``: the computer plays this
        one card for the person, and the table counts it (:meth:`Table.timed_out`: the
        K-th time in a game the person has abandoned the seat). Then play goes on."""
        async with table.lock:
            if table.closed or table.seq != seq or table.game.turn != seat:
                return
            view = table.game.view(seat)
        level = table.seats[seat].level or self.bots.default_level
        card = await self.bots.pool.choose(level, view)
        gone: str | None = None
        async with table.lock:
            if table.closed or table.seq != seq:
                return
            try:
                await table.apply("play", seat, card, actor="computer")
            except StoreError:
                return
            if table.seats[seat].kind == "human" and not table.game.is_over:
                gone = await table.timed_out(seat)
        table.kick()
        if gone is not None:
            table.abandoned(gone)
