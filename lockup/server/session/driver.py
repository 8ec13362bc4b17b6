"""The driver: deals, lockup discards and computers' cards, played on until a person's turn."""

from __future__ import annotations

import asyncio
import logging

from ...engine import DEAL, DISCARD, PLAY
from ..pool import INLINE_LEVELS
from ..store import (
    StoreError,
)
from .moves import Moves, _Made

log = logging.getLogger("lockup.server")

RUN = 16
"""The most actions the driver makes under one hold and stores in one write (a run of
unpaced computers and the server's deals and discards)."""


class Driver(Moves):
    """Playing on for the server and the computers."""

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

        What needs no wait (the server's deals and discards, and the cards of unpaced
        bots that choose on the loop) is made in runs of up to :data:`RUN` actions under
        one hold and stored in one write: a trick of three such bots costs one commit,
        not three, and its frames go out together once it is stored.
        """
        slots = self.service.slots
        loop = asyncio.get_running_loop()
        try:
            while True:
                async with slots.hold(self.priority), self.lock:
                    if self.closed or self.game.is_over:
                        return
                    made, wait = await self._make_run()
                    if made:
                        await self._store(made)
                    if wait is None:
                        if len(made) == RUN:
                            continue  # a long run of computers: the next part
                        return
                    seat, level, hold = wait
                    view = self.game.view(seat)
                    seq = self.seq
                release_at = loop.time() + hold
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
            if self.unstored:  # the engine holds moves never stored: load the game again
                self._break(StoreError("the driver failed"))

    async def _make_run(self) -> tuple[list[_Made], tuple[int, str, float] | None]:
        """Make (not store) the actions due now that need no wait, at most :data:`RUN`:
        deals and discards (server rng) and the cards of unpaced bots that choose on the
        loop. Returns them, and the computer's turn that stopped the run, if one did:
        ``(seat, level, hold)``, a bot that thinks off the loop or is paced. The run also
        stops at a person's turn and at the game's end. Call it holding :attr:`lock`."""
        g = self.game
        made: list[_Made] = []
        while len(made) < RUN and not g.is_over:
            if g.phase in (DISCARD, DEAL):
                # drawn by the engine, made by _make
                move = g.chance_move(self.service.rng, make=False)
                made.append(self._make(move.kind, move.seat, move.card, move.deal, None, made))
                continue
            seat = g.turn
            who = self.seats[seat]
            if g.phase != PLAY or not who.computer_plays:
                break
            level = who.level or self.service.default_level
            hold = self.service.bot_hold(level)
            if hold > 0 or level not in INLINE_LEVELS:
                return made, (seat, level, hold)
            card = await self.service.pool.choose(level, g.view(seat))
            made.append(self._make("play", seat, card, None, "computer", made))
        return made, None

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
