"""Ratings of players: Weng-Lin (the ``openskill`` library's Plackett-Luce model).

Pure: no I/O. The server (:mod:`lockup.server.ratings`) and ``lockup arena --ratings``
both rate a table of four with :func:`rate_table`; docs/ratings.md says what is rated.

- A **subject** is what carries a rating: a person (the player token) or a computer level
  (``computer:normal``, see :func:`computer_subject`), or, in the arena, a bot spec.
- A table's seats are teams of one, ranked by their final points (most points first;
  equal points share a rank, as openskill's ``ranks`` allow). A seat may be left out (its
  subject None: the server leaves guests out) and seats may be ranked last whatever their
  points (the server ranks so a person who abandoned the game); several such seats tie
  for last.
- Two or more seats of one subject at one table (three Normal computers against a
  person) are each rated from the same prior, the subject's rating before the game; the
  subject's new rating is the mean of its seats' new ``mu`` and the mean of their new
  ``sigma``. Its game count goes up by one, not one a seat.
- The number shown to people is openskill's *ordinal*, ``mu - 3 * sigma``
  (:func:`shown`): a new subject (``mu`` 25, ``sigma`` 25/3) shows 0, and it rises as
  games make the estimate both higher and surer.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
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

PROVISIONAL_GAMES = 10
"""A person's rating is provisional until this many rated games: the leaderboard lists
them from then on (computer levels are listed from their first)."""

MODEL = PlackettLuce(mu=MU, sigma=SIGMA)
"""The model every rating goes through (openskill's defaults otherwise: beta, tau)."""


def shown(mu: float, sigma: float) -> float:
    """The rating shown to people: openskill's ordinal, ``mu - 3 * sigma``."""
    return mu - Z * sigma


def provisional(games: int) -> bool:
    """Whether a person's rating after ``games`` rated games is still provisional."""
    return games < PROVISIONAL_GAMES


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
    """A rated table: each rated seat's change (a seat left out has none) and each
    subject's new rating (for a subject of several seats, the mean of its seats'
    ``after``)."""

    seats: list[SeatChange]
    subjects: dict[str, Rating]


def ranks_of(points: Sequence[float], last: Collection[int] = ()) -> list[int]:
    """Competition ranks of final points, 1 the best: ``[20, 12, 12, 7]`` gives
    ``[1, 2, 2, 4]`` (more points rank higher; equal points share a rank). The seats in
    ``last`` rank after all the others whatever their points, tied among themselves:
    ``[20, 12, 12, 7]`` with ``last={0}`` gives ``[4, 1, 1, 3]``."""
    ranked = [p for s, p in enumerate(points) if s not in last]
    return [
        len(ranked) + 1 if s in last else 1 + sum(1 for q in ranked if q > p)
        for s, p in enumerate(points)
    ]


def rate_table(
    subjects: Sequence[str | None],
    points: Sequence[float],
    ratings: Mapping[str, Rating],
    last: Collection[int] = (),
) -> TableResult:
    """Rate one finished table: ``subjects[s]`` played seat ``s`` and ended with
    ``points[s]``; ``ratings`` holds the subjects' ratings before (a subject missing from
    it starts new). A seat whose subject is None is left out (neither rated nor ranked);
    the seats in ``last`` rank last whatever their points (:func:`ranks_of`). Raises
    ValueError for unequal lengths or fewer than two seats rated."""
    if len(subjects) != len(points):
        raise ValueError("a rated table needs a subject and points for each of its seats")
    counted = [s for s, subject in enumerate(subjects) if subject is not None]
    if len(counted) < 2:
        raise ValueError("a rated table needs at least two seats rated")
    who = {s: str(subjects[s]) for s in counted}
    before = {subject: ratings.get(subject, Rating()) for subject in who.values()}
    teams = [[MODEL.rating(mu=before[who[s]].mu, sigma=before[who[s]].sigma)] for s in counted]
    ranks = ranks_of([points[s] for s in counted], {i for i, s in enumerate(counted) if s in last})
    rated = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    seats = [
        SeatChange(
            seat,
            who[seat],
            before[who[seat]],
            Rating(team[0].mu, team[0].sigma, before[who[seat]].games + 1),
        )
        for seat, team in zip(counted, rated, strict=True)
    ]
    after: dict[str, Rating] = {}
    for subject in dict.fromkeys(who.values()):
        mine = [c.after for c in seats if c.subject == subject]
        after[subject] = Rating(
            sum(r.mu for r in mine) / len(mine),
            sum(r.sigma for r in mine) / len(mine),
            before[subject].games + 1,
        )
    return TableResult(seats, after)
