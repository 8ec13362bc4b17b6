"""Ratings on the server: finished games of rated rooms rated once, the leaderboard and a
player's rating history (docs/ratings.md; the model is :mod:`lockup.ratings`).

- :mod:`.rate`: who counts at each seat (:func:`lineup`: accounts only, nobody twice,
  abandoning ranks last), the plan, stored once.
- :mod:`.board`: the leaderboard (provisional players left off), a player's history and
  what one game does to their rating, read.
- :mod:`.service`: :class:`RatingService`, the hook at a game's end and the look for
  games left unrated.
"""

from __future__ import annotations

from .board import BOARD_LIMIT, HISTORY_LIMIT, game_rating, leaderboard, my_ratings
from .rate import (
    ABANDON,
    FEW_ACCOUNTS,
    GUEST,
    MIN_ACCOUNTS,
    REMATCH,
    SHARED,
    Conflict,
    Facts,
    Lineup,
    Plan,
    Sat,
    lineup,
    read_facts,
    read_plan,
    shared_seats,
    write_plan,
)
from .service import RatingService

__all__ = [
    "ABANDON",
    "BOARD_LIMIT",
    "FEW_ACCOUNTS",
    "GUEST",
    "HISTORY_LIMIT",
    "MIN_ACCOUNTS",
    "REMATCH",
    "SHARED",
    "Conflict",
    "Facts",
    "Lineup",
    "Plan",
    "RatingService",
    "Sat",
    "game_rating",
    "leaderboard",
    "lineup",
    "my_ratings",
    "read_facts",
    "read_plan",
    "shared_seats",
    "write_plan",
]
