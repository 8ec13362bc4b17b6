"""Ratings on the server: finished games of rated rooms rated once, the leaderboard and a
player's rating history (docs/ratings.md; the model is :mod:`lockup.ratings`).

- :mod:`.rate`: who counts at each seat (the sat-out rule), the plan, stored once.
- :mod:`.board`: the leaderboard and a player's history, read.
- :mod:`.service`: :class:`RatingService`, the hook at a game's end and the look for
  games left unrated.
"""

from __future__ import annotations

from .board import BOARD_LIMIT, HISTORY_LIMIT, leaderboard, my_ratings
from .rate import Conflict, Plan, read_plan, sat_out, seat_subjects, write_plan
from .service import RatingService

__all__ = [
    "BOARD_LIMIT",
    "HISTORY_LIMIT",
    "Conflict",
    "Plan",
    "RatingService",
    "leaderboard",
    "my_ratings",
    "read_plan",
    "sat_out",
    "seat_subjects",
    "write_plan",
]
