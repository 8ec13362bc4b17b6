"""The purge: stored games nobody will come back to, deleted in batches."""

from __future__ import annotations

import functools
import logging
from collections.abc import Collection, Sequence
from datetime import timedelta

from sqlalchemy import (
    ColumnElement,
    and_,
    delete,
    or_,
    select,
    update,
)

from .rows import _chunks, _now
from .schema import (
    actions_table,
    analyses_table,
    game_events_table,
    games_table,
    participants_table,
    players_table,
)
from .writer import StoreBase

log = logging.getLogger("lockup.server")


class Purge(StoreBase):
    """Deleting the games nobody will come back to."""

    async def purge(
        self, *, unplayed_after: float, abandoned_after: float, keep: Collection[str] = ()
    ) -> tuple[int, int]:
        """Delete the games nobody will come back to; returns how many (unplayed, abandoned).

        *Unplayed*: no person has played a card in it (``played_at``, see
        :meth:`op_played`; bots may have) and created more than
        ``unplayed_after`` seconds ago. *Abandoned*: not finished and no action stored for
        more than ``abandoned_after`` seconds (``updated_at``). A finished game is never
        purged, nor one whose id is in ``keep`` (the games in memory). A purged game loses
        its actions and its row, and players whose current game it was have none.

        Runs on the database thread in transactions of at most :data:`BATCH` games, each
        checking its games again, so writes go on between them.
        """
        now = _now()
        g = games_table.c
        unfinished = and_(g.finished_at.is_(None), g.room_id.is_(None))  # rooms keep theirs
        unplayed = and_(
            unfinished,
            g.created_at < now - timedelta(seconds=unplayed_after),
            g.played_at.is_(None),
        )
        abandoned_before = now - timedelta(seconds=abandoned_after)
        abandoned = and_(
            unfinished,
            or_(
                g.updated_at < abandoned_before,
                and_(g.updated_at.is_(None), g.created_at < abandoned_before),
            ),
        )
        counts = []
        for cond in (unplayed, abandoned):
            ids = await self._run(functools.partial(self._purge_candidates, cond, keep))
            n = 0
            for chunk in _chunks(ids):
                n += await self._run(functools.partial(self._purge_chunk, chunk, cond))
            counts.append(n)
        if counts[0] or counts[1]:
            log.info("purged %d unplayed and %d abandoned games", counts[0], counts[1])
        return counts[0], counts[1]

    def _purge_candidates(self, cond: ColumnElement[bool], keep: Collection[str]) -> list[str]:
        with self._engine().connect() as conn:
            ids = conn.execute(select(games_table.c.id).where(cond)).scalars().all()
        kept = set(keep)
        return sorted(i for i in ids if i not in kept)

    def _purge_chunk(self, ids: Sequence[str], cond: ColumnElement[bool]) -> int:
        with self._engine().begin() as conn:
            gone = (
                conn.execute(select(games_table.c.id).where(games_table.c.id.in_(ids), cond))
                .scalars()
                .all()
            )
            if gone:
                conn.execute(
                    update(players_table)
                    .where(players_table.c.game_id.in_(gone))
                    .values(game_id=None)
                )
                conn.execute(delete(actions_table).where(actions_table.c.game_id.in_(gone)))
                for table in (game_events_table, participants_table, analyses_table):
                    conn.execute(delete(table).where(table.c.game_id.in_(gone)))
                conn.execute(delete(games_table).where(games_table.c.id.in_(gone)))
        return len(gone)
