"""The registry of sessions: find, load, create, evict, purge (:class:`GameService`)."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import secrets
import time
import weakref
from collections.abc import Awaitable, Callable

from ...engine import DEFAULT_PLAYERS, Game, Rules
from ...record import from_record
from ..cluster.leases import Leases
from ..config import ServerConfig
from ..net.limits import Slots
from ..pool import BotPool
from ..store import (
    GameRow,
    Store,
    StoreError,
    record_of,
)
from .game import GameSession
from .seat import Seat

log = logging.getLogger("lockup.server")

NEW_GAME_PRIORITY = 2
"""The move slots' priority of a new game's creation: after the moves of games in play (0)
and of games just made (1, :attr:`GameSession.priority`), by two steps of waiting at most
(:data:`~lockup.server.net.limits.PRIORITY_STEP`): never starved."""


def game_key(game_id: str) -> str:
    """The key of a game's lease."""
    return f"game:{game_id}"


class GameService:
    """Finds, creates, loads and evicts :class:`GameSession` objects.

    ``config``: the settings (see :class:`~lockup.server.config.ServerConfig`: ``idle_s``,
    ``buffer_size``, ``move_slots``, ``bot_delay`` and ``bot_jitter``, the purge). A game in
    memory that nobody watches leaves it after ``idle_s``, or after 5 s once it is over or
    while nobody has played a card in it.
    """

    def __init__(
        self,
        store: Store,
        pool: BotPool,
        config: ServerConfig | None = None,
        *,
        leases: Leases | None = None,
    ) -> None:
        config = config or ServerConfig()
        self.config = config
        self.store = store
        self.leases = leases
        """This process's leases when several processes share the database (each game is
        loaded and played under its lease), or None: the only process."""
        if leases is not None:
            leases.on_lost = self._lost
        self.pool = pool
        self.default_level = config.bot_level()
        self.hint_time = config.hint_time
        self.idle_s = config.idle_s
        self.buffer_size = config.buffer_size
        self.bot_delay = config.bot_delay
        self.bot_jitter = config.bot_jitter
        self.purge_unplayed_after = config.purge_unplayed_after
        self.purge_abandoned_after = config.purge_abandoned_after
        purge_every = config.purge_every
        if config.purge_unplayed_after > 0:
            purge_every = min(purge_every, max(1.0, config.purge_unplayed_after / 4))
        self.purge_every = purge_every
        self.slots = Slots(config.move_slots)
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
        self.on_finish: Callable[[str], None] | None = None
        """Told a room's game's id once its end is stored (the ratings rate it)."""

    @property
    def rng(self) -> random.Random:
        """A random source for one draw (a deal, a lockup discard, a pace): a generator
        seeded afresh with 256 bits of the operating system's entropy, as unpredictable
        as :class:`random.SystemRandom` without a system call for each of a deal's 52
        keys."""
        return random.Random(int.from_bytes(os.urandom(32)))

    def bot_hold(self, level: str = "") -> float:
        """How long after its turn began a card of a bot of ``level`` is sent (see the
        class): at least ``bot_delay``, and at least the level's longest think plus 0.15 s
        when that is longer (the ``master`` level thinks 0.9 s), so that a forced card
        and a searched one leave alike (with ``bot_delay`` 0, pacing is off)."""
        base = self.bot_delay
        if base > 0 and level:
            from ...bots.registry import think_time

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
            s.driver.cancel()
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
        s.driver.cancel()
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
                self._expect(s)
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
        s.abandoned_seats = set(header.abandoned)
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
        first = game.chance_move(self.rng, make=False)  # the first deal, drawn by the engine
        # A new game's first write waits for a slot behind every game's moves (priority
        # 2): a burst of new games never holds up the cards of games under way.
        async with self.slots.hold(NEW_GAME_PRIORITY), s.lock:
            await s.apply("deal", game.dealer, deal=first.deal, before=(create,))
        if not keep and self.leases is not None and s.lease is not None:
            s.closed = True
            await self.leases.release(s.lease.key)
            return s
        self.sessions[game_id] = s
        self._expect(s)
        s.kick()
        return s

    def _expect(self, s: GameSession) -> None:
        """Have the workers ``s`` may need started ahead (unless ``config.warm`` is off):
        its computers' levels, the level that plays for a person who is away or out of
        time, and hints wherever a person sits."""
        if not self.config.warm or self.pool is None:
            return
        people = any(seat.kind == "human" for seat in s.seats)
        levels = {seat.level or self.default_level for seat in s.seats if seat.kind == "bot"}
        if people:
            levels.add(self.default_level)
        self.pool.expect(levels, hints=people)
