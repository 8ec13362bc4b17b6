"""The ratings' service: a game that ends is rated (once), and games a stopped process
left unrated are found again; the leaderboard and a player's history are read here."""

from __future__ import annotations

import asyncio
import functools
import logging
from datetime import datetime, timedelta

from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import Connection

from ..protocol.wire import GameRating, LeaderboardEntry, MyRating
from ..store import Store, StoreError
from ..store.rows import _now
from ..store.schema import (
    accounts_table,
    games_table,
    participants_table,
    rating_changes_table,
)
from .board import BOARD_LIMIT, game_rating, leaderboard, my_ratings
from .rate import MIN_ACCOUNTS, Plan, read_plan, write_plan

log = logging.getLogger("lockup.server")

TRIES = 5
"""How many times a game is read and written again when a rating it read changed."""
SWEEP_EVERY = 300.0
"""Seconds between two looks for finished games left unrated (a process stopped between
a game's end and its rating)."""
SWEEP_WINDOW = timedelta(days=2)
"""How far back the look goes."""
SWEEP_BATCH = 100
"""The most games one look rates."""


class RatingService:
    """Rates finished games of rated rooms (see docs/ratings.md).

    :meth:`finished` is the game service's ``on_finish`` hook; :meth:`rate` rates one game
    and says what it did. One game is rated at a time in a process; between processes the
    changes' key and the ratings' version (their game count) keep every update whole.
    """

    def __init__(self, store: Store, default_level: str, sweep_every: float = SWEEP_EVERY) -> None:
        self.store = store
        self.default_level = default_level
        self.sweep_every = sweep_every
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[str]] = set()
        self._sweeper: asyncio.Task[None] | None = None

    def finished(self, game_id: str) -> None:
        """A game ended (its end is stored): rate it in the background."""
        task = asyncio.get_running_loop().create_task(self._rate_logged(game_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def start(self) -> None:
        """Start looking for finished games left unrated (now, then every so often)."""
        self._sweeper = asyncio.create_task(self._sweep(), name="lockup-ratings")

    async def close(self) -> None:
        """Stop looking, and let the ratings under way finish."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=5)

    async def _rate_logged(self, game_id: str) -> str:
        try:
            return await self.rate(game_id)
        except StoreError as e:
            log.warning("game %s: rating it failed (%s); the next look tries again", game_id, e)
            return "failed"
        except Exception:  # pragma: no cover - a bug must not kill the server quietly
            log.exception("game %s: rating it failed", game_id)
            return "failed"

    async def rate(self, game_id: str) -> str:
        """Rate ``game_id`` unless it is rated already or not to be rated; returns
        ``rated`` or the reason it was not (see :func:`read_plan`)."""
        async with self._lock:
            for attempt in range(TRIES):
                plan: Plan | str = await self.store.read(
                    functools.partial(read_plan, game_id=game_id, default_level=self.default_level)
                )
                if not isinstance(plan, Plan):
                    return plan
                try:
                    await self.store.write(functools.partial(write_plan, plan=plan))
                except StoreError:
                    # Rated by another process meanwhile (the key), or a rating it read
                    # changed: read again; a database down raises again below.
                    if attempt == TRIES - 1:
                        raise
                    continue
                return "rated"
        raise AssertionError("unreachable")  # pragma: no cover

    async def unrated(self, after: tuple[datetime, str] | None = None) -> list[str]:
        """Finished games of rooms (the last two days) with no rating changes that at
        least two accounts played (a game with fewer is never rated): rated ones left by a
        stopped process, and unrated ones (looked at and left); :data:`SWEEP_BATCH` at
        most, by their end, from after ``after`` (the end and id of the last one seen)."""
        g, c = games_table.c, rating_changes_table.c
        p, a = participants_table.c, accounts_table.c
        since = _now() - SWEEP_WINDOW

        def read(conn: Connection) -> list[str]:
            rated = select(c.game_id).where(c.game_id == g.id).exists()
            accounts = (
                select(func.count())
                .select_from(participants_table.join(accounts_table, a.player_id == p.player_id))
                .where(p.game_id == g.id)
                .scalar_subquery()
            )
            query = select(g.id).where(
                g.finished_at.is_not(None),
                g.finished_at >= since,
                g.room_id.is_not(None),
                ~rated,
                accounts >= MIN_ACCOUNTS,
            )
            if after is not None:
                query = query.where(
                    or_(g.finished_at > after[0], and_(g.finished_at == after[0], g.id > after[1]))
                )
            return list(
                conn.execute(query.order_by(g.finished_at, g.id).limit(SWEEP_BATCH)).scalars()
            )

        found: list[str] = await self.store.read(read)
        return found

    async def sweep(self) -> int:
        """Rate the finished games left unrated; how many were rated now. Every game the
        look finds is looked at, a batch at a time."""
        n = 0
        after: tuple[datetime, str] | None = None
        while True:
            batch = await self.unrated(after)
            for game_id in batch:
                if await self._rate_logged(game_id) == "rated":
                    n += 1
            if len(batch) < SWEEP_BATCH:
                break
            after = await self.store.read(functools.partial(_end_of, game_id=batch[-1]))
        if n:
            log.info("rated %d finished games left unrated", n)
        return n

    async def _sweep(self) -> None:
        while True:
            try:
                await self.sweep()
            except StoreError as e:
                log.warning("looking for unrated games failed: %s", e)
            await asyncio.sleep(self.sweep_every)

    async def leaderboard(self, me: str | None, limit: int = BOARD_LIMIT) -> list[LeaderboardEntry]:
        """The leaderboard (see :func:`~.board.leaderboard`)."""
        rows: list[LeaderboardEntry] = await self.store.read(
            functools.partial(leaderboard, me=me, limit=limit)
        )
        return rows

    async def mine(self, me: str) -> MyRating:
        """A player's rating and history (see :func:`~.board.my_ratings`)."""
        found: MyRating = await self.store.read(functools.partial(my_ratings, me=me))
        return found

    async def of_game(self, game_id: str, me: str) -> GameRating | None:
        """What a game does to a player's rating (see :func:`~.board.game_rating`)."""
        found: GameRating | None = await self.store.read(
            functools.partial(game_rating, game_id=game_id, me=me, default_level=self.default_level)
        )
        return found


def _end_of(conn: Connection, game_id: str) -> tuple[datetime, str]:
    """A finished game's end and id (where the look goes on from)."""
    g = games_table.c
    end = conn.execute(select(g.finished_at).where(g.id == game_id)).scalar_one()
    return end, game_id
