"""The leaderboard and a player's rating history, read from the ``ratings`` and
``rating_changes`` tables (never a player's token: people are shown by name)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import Connection

from ...ratings import level_of
from ..protocol.wire import LeaderboardEntry, MyRating, RatingChange
from ..store.schema import (
    games_table,
    participants_table,
    players_table,
    rating_changes_table,
    ratings_table,
)

BOARD_LIMIT = 100
"""The most rows of the leaderboard (the asking player's own row comes on top of them)."""
HISTORY_LIMIT = 200
"""The most rated games of a player's rating history (the newest)."""


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return (value if value.tzinfo is not None else value.replace(tzinfo=UTC)).isoformat()


def _r(x: float, digits: int = 3) -> float:
    return round(float(x), digits)


def _listed() -> Any:
    """Who is on the board: people with a rated game, and every rated computer level."""
    r = ratings_table.c
    return or_(r.kind == "computer", and_(r.kind == "person", r.games >= 1))


def _entry(row: Any, rank: int, me: str | None) -> LeaderboardEntry:
    level = level_of(row.subject) if row.kind == "computer" else None
    entry: LeaderboardEntry = {
        "rank": rank,
        "name": row.name if level is None else level.capitalize(),
        "rating": _r(row.rating, 2),
        "mu": _r(row.mu),
        "sigma": _r(row.sigma),
        "games": int(row.games),
        "kind": "computer" if level is not None else "person",
        "you": me is not None and row.subject == me,
    }
    if level is not None:
        entry["level"] = level
    return entry


def leaderboard(
    conn: Connection, me: str | None, limit: int = BOARD_LIMIT
) -> list[LeaderboardEntry]:
    """The best ``limit`` by the shown rating (equal ratings share a rank), and the asking
    player's row (``you``) after them when they are rated but not among them."""
    r, p = ratings_table.c, players_table.c
    query = (
        select(r.subject, r.kind, r.mu, r.sigma, r.rating, r.games, p.name)
        .select_from(ratings_table.outerjoin(players_table, p.id == r.subject))
        .where(_listed())
        .order_by(r.rating.desc(), r.games.desc(), r.subject)
    )
    rows = conn.execute(query.limit(limit)).all()
    out: list[LeaderboardEntry] = []
    rank = 0
    for i, row in enumerate(rows):
        if i == 0 or row.rating < rows[i - 1].rating:
            rank = i + 1
        out.append(_entry(row, rank, me))
    if me is not None and not any(e["you"] for e in out):
        mine = conn.execute(query.where(r.subject == me)).first()
        if mine is not None:
            above = conn.execute(
                select(func.count())
                .select_from(ratings_table)
                .where(_listed(), r.rating > mine.rating)
            ).scalar_one()
            out.append(_entry(mine, int(above) + 1, me))
    return out


def my_ratings(conn: Connection, me: str) -> MyRating:
    """The player's rating now (None before their first rated game) and each rated game
    they sat at, oldest first (:data:`HISTORY_LIMIT` newest at most): before, after and
    the change of the shown rating; a game they sat out changed nothing of theirs."""
    r = ratings_table.c
    now = conn.execute(
        select(r.mu, r.sigma, r.rating, r.games).where(r.subject == me, r.kind == "person")
    ).first()
    c, p, g = rating_changes_table.c, participants_table.c, games_table.c
    rows = conn.execute(
        select(
            c.game_id,
            c.seat,
            c.subject,
            c.sat_out,
            c.mu_before,
            c.sigma_before,
            c.rating_before,
            c.mu_after,
            c.sigma_after,
            c.rating_after,
            g.finished_at,
            g.created_at,
        )
        .select_from(
            rating_changes_table.join(
                participants_table, and_(p.game_id == c.game_id, p.seat == c.seat)
            ).join(games_table, g.id == c.game_id)
        )
        .where(p.player_id == me)
        .order_by(g.finished_at.desc(), c.game_id)
        .limit(HISTORY_LIMIT)
    ).all()
    games: list[RatingChange] = []
    for row in reversed(rows):
        rated = row.subject == me
        games.append(
            {
                "game": row.game_id,
                "date": _iso(row.finished_at or row.created_at) or "",
                "seat": int(row.seat),
                "rated": rated,
                "sat_out": bool(row.sat_out),
                "before": _r(row.rating_before, 2) if rated else None,
                "after": _r(row.rating_after, 2) if rated else None,
                "change": _r(row.rating_after - row.rating_before, 2) if rated else None,
                "mu": _r(row.mu_after) if rated else None,
                "sigma": _r(row.sigma_after) if rated else None,
            }
        )
    rank = None
    if now is not None:
        above = conn.execute(
            select(func.count()).select_from(ratings_table).where(_listed(), r.rating > now.rating)
        ).scalar_one()
        rank = int(above) + 1
    return {
        "rating": None if now is None else _r(now.rating, 2),
        "mu": None if now is None else _r(now.mu),
        "sigma": None if now is None else _r(now.sigma),
        "games": 0 if now is None else int(now.games),
        "rank": rank,
        "history": games,
    }
