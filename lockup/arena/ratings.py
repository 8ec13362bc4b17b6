"""``lockup arena --ratings``: the bots rated from the arena's games with the same model
as the server's ratings (:mod:`lockup.ratings`, docs/ratings.md).

Each game is a table of four ranked by final points, rated in the order the games were
played (set by set, rotation by rotation). A bot is a spec (``--bots`` text): the same
spec at several seats is one bot, each of its seats rated from the same prior and its new
rating the mean of theirs, as computers of one level are on the server.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ..ratings import Rating, rate_table

if TYPE_CHECKING:
    from .specs import BotSpec


class Totals(Protocol):
    """What the ratings read of a game: each entry's final points (the runner's
    ``GameResult`` is one)."""

    @property
    def totals(self) -> list[int]:
        """Each bot entry's final points in the game."""
        ...


def rate_games(specs: Sequence[BotSpec], games: Sequence[Totals]) -> list[dict[str, Any]]:
    """Each bot's rating after ``games`` (their totals by entry), best first: ``bot`` (its
    label), ``spec``, ``entries``, ``rating`` (shown: ``mu - 3 sigma``), ``mu``, ``sigma``,
    ``games``."""
    subjects = [spec.text or spec.name for spec in specs]
    ratings: dict[str, Rating] = {}
    for game in games:
        ratings.update(rate_table(subjects, game.totals, ratings).subjects)
    rows: list[dict[str, Any]] = []
    for subject in dict.fromkeys(subjects):
        entries = [e for e, s in enumerate(subjects) if s == subject]
        first = specs[entries[0]]
        label = (
            first.label(entries[0])
            if len(entries) == 1
            else f"{first.short_name} ({','.join(map(str, entries))})"
        )
        r = ratings.get(subject, Rating())
        rows.append(
            {
                "bot": label,
                "spec": subject,
                "entries": entries,
                "rating": r.shown,
                "mu": r.mu,
                "sigma": r.sigma,
                "games": r.games,
            }
        )
    rows.sort(key=lambda row: -float(row["rating"]))
    return rows


def format_ratings(rows: Sequence[dict[str, Any]]) -> str:
    """The ratings as a table for people."""
    out = [
        "ratings (Weng-Lin Plackett-Luce, openskill; rating = mu - 3 sigma):",
        f"  {'bot':<28} {'rating':>8} {'mu':>8} {'sigma':>7} {'games':>6}",
    ]
    for row in rows:
        bot = row["bot"] if len(row["bot"]) <= 28 else row["bot"][:25] + "..."
        out.append(
            f"  {bot:<28} {row['rating']:>8.2f} {row['mu']:>8.3f} {row['sigma']:>7.3f} "
            f"{row['games']:>6}"
        )
    return "\n".join(out)
