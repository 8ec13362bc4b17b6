"""The leaderboard, a player's rating history and what a game did to their rating, read
from the ``ratings`` and ``rating_changes`` tables (never a player's token: people are
shown by their account's name).

The leaderboard lists every rated computer level, and a person once their account has
:data:`~lockup.ratings.PROVISIONAL_GAMES` rated games; before that their rating is
provisional: their own pages show it, marked so, with no rank."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import Connection

from ...ratings import PROVISIONAL_GAMES, level_of, provisional
from ..protocol.wire import GameRating, LeaderboardEntry, MyRating, RatingChange
from ..store.schema import (
    accounts_table,
    games_table,
    participants_table,
    rating_changes_table,
    ratings_table,
)
from .rate import GUEST, read_facts

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


def _board() -> Any:
    """The ratings with their account (none for a computer level, or a guest rated before
    only accounts were)."""
    return ratings_table.outerjoin(
        accounts_table, accounts_table.c.player_id == ratings_table.c.subject
    )


def _listed() -> Any:
    """Who is on the board: every rated computer level, and accounts past their
    provisional games (see :func:`_board`)."""
    r, a = ratings_table.c, accounts_table.c
    return or_(
        r.kind == "computer",
        and_(r.kind == "person", a.id.is_not(None), r.games >= PROVISIONAL_GAMES),
    )


def _above(conn: Connection, rating: float) -> int:
    """How many listed subjects have a higher rating."""
    return int(
        conn.execute(
            select(func.count())
            .select_from(_board())
            .where(_listed(), ratings_table.c.rating > rating)
        ).scalar_one()
    )


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
    """The best ``limit`` listed (:func:`_listed`) by the shown rating (equal ratings share
    a rank), and the asking player's row (``you``) after them when they are listed but not
    among them."""
    r, a = ratings_table.c, accounts_table.c
    query = (
        select(r.subject, r.kind, r.mu, r.sigma, r.rating, r.games, a.name)
        .select_from(_board())
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
            out.append(_entry(mine, _above(conn, mine.rating) + 1, me))
    return out


def _is_account(conn: Connection, player: str) -> bool:
    a = accounts_table.c
    return conn.execute(select(a.id).where(a.player_id == player)).first() is not None


def my_ratings(conn: Connection, me: str) -> MyRating:
    """The player's rating now (None before their first rated game), whether it is still
    provisional (then it has no rank) and whether they are a guest (never rated), and each
    rated game they sat at, oldest first (:data:`HISTORY_LIMIT` newest at most): before,
    after and the change of the shown rating, and whether they abandoned it (ranked last).
    A game rated while a person a computer played most cards for sat out (the rule before
    abandoning counted) lists them not rated."""
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
                "sat_out": bool(row.sat_out) and not rated,
                "abandoned": bool(row.sat_out) and rated,
                "before": _r(row.rating_before, 2) if rated else None,
                "after": _r(row.rating_after, 2) if rated else None,
                "change": _r(row.rating_after - row.rating_before, 2) if rated else None,
                "mu": _r(row.mu_after) if rated else None,
                "sigma": _r(row.sigma_after) if rated else None,
            }
        )
    guest = not _is_account(conn, me)
    count = 0 if now is None else int(now.games)
    early = provisional(count)
    rank = None
    if now is not None and not guest and not early:
        rank = _above(conn, now.rating) + 1
    return {
        "rating": None if now is None else _r(now.rating, 2),
        "mu": None if now is None else _r(now.mu),
        "sigma": None if now is None else _r(now.sigma),
        "games": count,
        "rank": rank,
        "provisional": early,
        "guest": guest,
        "min_games": PROVISIONAL_GAMES,
        "history": games,
    }


def game_rating(conn: Connection, game_id: str, me: str, default_level: str) -> GameRating | None:
    """What ``game_id`` does to the rating of ``me``, who sat at it (None: they did not,
    or there is no such game): stored once rated; else whether it will rate them (a game
    under way) or why not, worked out as the rating will (:func:`~.rate.read_facts`)."""
    facts = read_facts(conn, game_id)
    mine = None if facts is None else next((p for p in facts.people if p.player == me), None)
    if facts is None or mine is None:
        return None
    c, r = rating_changes_table.c, ratings_table.c
    count = conn.execute(
        select(r.games).where(r.subject == me, r.kind == "person")
    ).scalar_one_or_none()
    answer: GameRating = {
        "game": game_id,
        "seat": mine.seat,
        "rated": False,
        "why": None,
        "done": False,
        "last": mine.seat in facts.abandoned,
        "before": None,
        "after": None,
        "change": None,
        "provisional": provisional(int(count or 0)),
    }
    change = conn.execute(
        select(c.subject, c.rating_before, c.rating_after).where(
            c.game_id == game_id, c.seat == mine.seat
        )
    ).first()
    if change is not None and change.subject == me:
        answer["rated"] = answer["done"] = True
        answer["before"] = _r(change.rating_before, 2)
        answer["after"] = _r(change.rating_after, 2)
        answer["change"] = _r(change.rating_after - change.rating_before, 2)
        return answer
    why = facts.table or (GUEST if not mine.account else None)
    if why is None and change is None:
        why = facts.lineup(default_level).why[mine.seat]
    elif why is None:  # rated before only accounts were: a computer played for them
        why = "sat-out"
    answer["rated"] = why is None
    answer["why"] = why
    return answer
