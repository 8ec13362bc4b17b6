"""Games as the server runs them: one :class:`GameSession` per game under way.

:class:`GameSession` is made of the parts of this package; here are the client requests."""

from __future__ import annotations

from ...cards import Card
from ..pool import HintsBusy
from ..protocol import (
    UNAVAILABLE,
    UNAVAILABLE_REASON,
    ProtocolError,
    hint_frame,
)
from ..store import (
    LeaseLost,
    Store,
    StoreError,
)
from .presence import Presence


class GameSession(Presence):
    """One game in memory: the engine state, the seats, versions and subscribers.

    Every change happens under :attr:`lock`, is stored before it is published, and bumps
    :attr:`version` by the number of events it makes.
    """

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
