"""Ratings of players: Weng-Lin (the ``openskill`` library's Plackett-Luce model).

Pure: no I/O. The server (:mod:`lockup.server.ratings`) and ``lockup arena --ratings``
both rate a table of four with :func:`rate_table`; docs/ratings.md says what is rated.

- A **subject** is what carries a rating: a person (the player token) or a computer level
  (``computer:normal``, see :func:`computer_subject`), or, in the arena, a bot spec.
- A table's four seats are four teams of one, ranked by their final points (most points
  first; equal points share a rank, as openskill's ``ranks`` allow).
- Two or more seats of one subject at one table (three Normal computers against a
  person) are each rated from the same prior, the subject's rating before the game; the
  subject's new rating is the mean of its seats' new ``mu`` and the mean of their new
  ``sigma``. Its game count goes up by one, not one a seat.
- The number shown to people is openskill's *ordinal*, ``mu - 3 * sigma``
  (:func:`shown`): a new subject (``mu`` 25, ``sigma`` 25/3) shows 0, and it rises as
  games make the estimate both higher and surer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MU = 25.0
"""A new subject's ``mu`` (openskill's default)."""
SIGMA = 25.0 / 3.0
"""A new subject's ``sigma`` (openskill's default)."""
Z = 3.0
"""How many ``sigma`` the shown number stands below ``mu``."""
COMPUTER = "computer:"
"""The prefix of a computer level's subject."""

MODEL = PlackettLuce(mu=MU, sigma=SIGMA)
"""The model every rating goes through (openskill's defaults otherwise: beta, tau)."""


def shown(mu: float, sigma: float) -> float:
    """The rating shown to people: openskill's ordinal, ``mu - 3 * sigma``."""
    return mu - Z * sigma


def computer_subject(level: str) -> str:
    """The subject of a computer level: ``computer:<level>``."""
    return COMPUTER + level


def level_of(subject: str) -> str | None:
    """The level of a computer subject, or None for a person."""
    return subject.removeprefix(COMPUTER) if subject.startswith(COMPUTER) else None


@dataclass(frozen=True)
class Rating:
    """A subject's rating: the estimate ``mu``, its uncertainty ``sigma``, and how many
    rated games it took."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def shown(self) -> float:
        """The number shown to people (:func:`shown`)."""
        return shown(self.mu, self.sigma)


@dataclass(frozen=True)
class SeatChange:
    """One seat of a rated table: its subject, the rating it played with (``before``) and
    the model's answer for the seat (``after``)."""

    seat: int
    subject: str
    before: Rating
    after: Rating


@dataclass(frozen=True)
class TableResult:
    """A rated table: each seat's change and each subject's new rating (for a subject of
    several seats, the mean of its seats' ``after``)."""

    seats: list[SeatChange]
    subjects: dict[str, Rating]


def ranks_of(points: Sequence[float]) -> list[int]:
    """Competition ranks of final points, 1 the best: ``[20, 12, 12, 7]`` gives
    ``[1, 2, 2, 4]`` (more points rank higher; equal points share a rank)."""
    return [1 + sum(1 for q in points if q > p) for p in points]


def rate_table(
    subjects: Sequence[str], points: Sequence[float], ratings: Mapping[str, Rating]
) -> TableResult:
    """Rate one finished table: ``subjects[s]`` played seat ``s`` and ended with
    ``points[s]``; ``ratings`` holds the subjects' ratings before (a subject missing from
    it starts new). Raises ValueError for tables of fewer than two seats or unequal
    lengths."""
    if len(subjects) != len(points) or len(subjects) < 2:
        raise ValueError("a rated table needs a subject and points for each of its seats")
    before = {s: ratings.get(s, Rating()) for s in subjects}
    teams = [[MODEL.rating(mu=before[s].mu, sigma=before[s].sigma)] for s in subjects]
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks_of(points)])
    seats = [
        SeatChange(
            seat,
            subject,
            before[subject],
            Rating(team[0].mu, team[0].sigma, before[subject].games + 1),
        )
        for seat, (subject, team) in enumerate(zip(subjects, rated, strict=True))
    ]
    after: dict[str, Rating] = {}
    for subject in dict.fromkeys(subjects):
        mine = [c.after for c in seats if c.subject == subject]
        after[subject] = Rating(
            sum(r.mu for r in mine) / len(mine),
            sum(r.sigma for r in mine) / len(mine),
            before[subject].games + 1,
        )
    return TableResult(seats, after)
