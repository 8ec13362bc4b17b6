"""The driver: deals, lockup discards and computers' cards, played on until a person's turn."""

from __future__ import annotations

import asyncio
import logging

from ...engine import DEAL, DISCARD, PLAY
from ..pool import INLINE_LEVELS
from ..store import (
    StoreError,
)
from .moves import Moves

log = logging.getLogger("lockup.server")


class Driver(Moves):
    """Playing on for the server and the computers."""

    async def _server_step(self) -> bool:
        """Make a deal or a lockup discard if one is due (server rng); True if it did."""
        g = self.game
        if g.phase not in (DISCARD, DEAL):
            return False
        move = g.chance_move(self.service.rng, make=False)  # drawn by the engine, made by _apply
        await self._apply(move.kind, move.seat, move.card, deal=move.deal)
        return True

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
                    hold = self.service.bot_hold(level)
                    if hold <= 0 and level in INLINE_LEVELS:
                        # Unpaced and chosen on the loop: played in this same hold, with
                        # no second wait for a slot and the lock.
                        card = await self.service.pool.choose(level, view)
                        await self._apply("play", seat, card, actor="computer")
                        continue
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
