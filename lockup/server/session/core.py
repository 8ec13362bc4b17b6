"""A game session's state: the engine, seats, versions and subscribers, and what it shows.

:class:`SessionBase` holds what every part of :class:`~lockup.server.session.GameSession`
reads; the parts (turn timer, moves, driver, presence) build on it in that order."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ...engine import Game
from ..protocol import (
    SPECTATOR,
    ProtocolError,
    View,
    state_frame,
)
from ..store import (
    Lease,
)
from ..views import seat_view
from .history import History
from .seat import Seat, Subscriber, TableOptions

if TYPE_CHECKING:
    from .game import GameSession
    from .service import GameService


class SessionBase:
    """The state of one game in memory and the frames built from it (see
    :class:`~lockup.server.session.GameSession`)."""

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
        self.unstored = 0
        """Actions the engine holds that are not stored yet (a run or a card whose write is
        under way): meanwhile the engine is ahead of :attr:`version` and of the store."""
        self._joining: dict[Subscriber, int] = {}
        """Pages that joined while :attr:`unstored` was not 0, with the version they had:
        they are sent the game once the write is done (:meth:`Presence.join`)."""
        self.histories: dict[int, History] = {
            s: History(service.buffer_size) for s in self.human_seats()
        }
        self.table = TableOptions()
        """How the game goes on without its people (set by the room)."""
        self.on_change: Callable[[GameSession], None] | None = None
        """Told when presence or who plays a seat changes (the room updates its page)."""
        self.room_id: str | None = None
        self.lease: Lease | None = None
        """This process's lease on the game (several processes, see :mod:`lockup.server.cluster.leases`):
        every write is made under it."""
        self.last_active = time.monotonic()
        self._driver: asyncio.Task[None] | None = None
        self._away_timers: dict[int, asyncio.TimerHandle] = {}
        self._taking_over: set[int] = set()
        """Seats whose grace ran out, the computer's takeover under way."""
        self._clock: tuple[int, int, float, asyncio.TimerHandle] | None = None
        """The running turn timer: (seat, seq, deadline on the loop's clock, handle)."""

    def human_seats(self) -> list[int]:
        """The seats humans play."""
        return [s for s, seat in enumerate(self.seats) if seat.kind == "human"]

    def open_to_spectators(self) -> None:
        """Keep a public stream for spectators (room games)."""
        self.histories.setdefault(SPECTATOR, History(self.service.buffer_size))

    def connected(self, seat: int) -> bool:
        """Whether a page of ``seat`` is connected (or joining: see :attr:`_joining`)."""
        return any(sub.seat == seat for sub in self.subscribers) or any(
            sub.seat == seat for sub in self._joining
        )

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

    def view_of(self, seat: int) -> View:
        """What ``seat`` (or :data:`SPECTATOR`) may see now."""
        return seat_view(self.game, seat)

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

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(cast("GameSession", self))

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
