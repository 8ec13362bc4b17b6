"""The ``expert`` level and the coach's :func:`hint`: a search over the deals a seat can't see.

The expert runs information-set Monte Carlo by determinized sampling (PIMC, see
:mod:`lockup.bots.kernel`). It deals the cards it has not seen to the other seats, in
ways that agree with everything its view shows (cards played, cards lost, hand sizes,
voids shown), weighted by how well each deal explains the other seats' plays so far
(by the ``normal`` level's rules, or by the greedy policy below for a seat those rules
do not explain).
In every sampled deal it plays each legal card (cards that play the same searched once)
and rolls the hand out: a seat whose plays this game the ``normal`` level's rules explain
plays by those rules; every other seat, and itself, by the greedy policy
(:func:`lockup.bots._kernel.greedy_card`, the playout of the arena's ``pimc-greedy``),
which takes a trick while the trick holds at most two clubs. It plays the card of
highest mean value: the tricks it ends the hand with plus ``wgame`` times a game term,
winning the game when the hand can end it (R15, a sole leader at or over the target),
otherwise a smooth estimate from the gap to the best other total. The ``master`` level
is the expert with more time and recursive rollouts (``rec``).
"""

from __future__ import annotations

import random

from ..cards import Card
from ..engine import Game, SeatView
from .base import Bot
from .kernel import SearchResult, search

DEFAULT_ITERATIONS = 400
"""Sampled deals a move by default (more hardly helps), ..."""
DEFAULT_TIME_LIMIT = 0.07
"""... or this many seconds, whichever ends first: an arena of 2,000 hands against three
``normal`` bots then takes well under half an hour on two cores. The browser game can
give the expert up to a second (``time_limit=0.9``)."""

HINT_TIME_LIMIT = 0.5
"""Seconds :func:`hint` searches by default."""

DEFAULT_WGAME = 5.0
"""The weight of the game term, in tricks."""

DEFAULT_LAM = 0.03
"""How much less likely a deal becomes for each past play it fails to explain."""

MAX_REC = 13
"""The most decisions ``rec`` may search in a rollout (a hand's)."""


def _check_budget(iterations: int | None, time_limit: float | None) -> None:
    if iterations is not None and (
        isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1
    ):
        raise ValueError(f"iterations must be a whole number of at least 1, not {iterations!r}")
    if time_limit is not None and (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, int | float)
        or not 0 < time_limit <= 60
    ):
        raise ValueError(f"time_limit must be a number of seconds in (0, 60], not {time_limit!r}")


def _check_float(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValueError(f"{name} must be a number from {low} to {high}, not {value!r}")
    return float(value)


class ExpertBot(Bot):
    """Searches each move (see the module's description).

    Budget: ``iterations`` sampled deals a move, or ``time_limit`` seconds a move, or
    whichever ends first when both are given; by default :data:`DEFAULT_ITERATIONS` and
    :data:`DEFAULT_TIME_LIMIT`. With ``iterations`` alone and a ``seed`` it is
    deterministic. ``wgame`` weighs the game term against tricks (0: tricks only);
    ``rec`` above 0 chooses its own first ``rec`` decisions of every rollout by a search
    of their own (recursive PIMC, :func:`lockup.bots._kernel.rec_card`; the ``master``
    level's); ``jit`` forces the compiled (True) or plain Python (False) kernel, which
    play the same cards.
    """

    name = "expert"
    think_time = DEFAULT_TIME_LIMIT

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int | None = None,
        time_limit: float | None = None,
        wgame: float = DEFAULT_WGAME,
        rec: int = 0,
        jit: bool | None = None,
    ) -> None:
        _check_budget(iterations, time_limit)
        if iterations is None and time_limit is None:
            iterations, time_limit = DEFAULT_ITERATIONS, DEFAULT_TIME_LIMIT
        self.iterations = iterations
        self.time_limit = time_limit
        self.wgame = _check_float("wgame", wgame, 0.0, 100.0)
        if isinstance(rec, bool) or not isinstance(rec, int) or not 0 <= rec <= MAX_REC:
            raise ValueError(
                f"rec must be a whole number of decisions from 0 to {MAX_REC}, not {rec!r}"
            )
        self.rec = rec
        self.jit = jit
        self._hands_seen = -1
        self._prior = [(0, 0)] * 4
        self._this_hand = [(0, 0)] * 4
        self.rng = random.Random(seed)
        self.last: SearchResult | None = None
        """The search behind the last move (None for a forced card)."""

    def choose(self, view: SeatView) -> Card:
        """The legal card of highest searched value."""
        legal = view.legal_mask
        if legal & (legal - 1) == 0:
            self.last = None
            return (legal & -legal).bit_length() - 1
        prior = self._remember(view)
        result = search(
            view,
            iterations=self.iterations,
            time_limit=self.time_limit,
            seed=self.rng.getrandbits(32),
            wgame=self.wgame,
            jit=self.jit,
            min_iterations=8,
            lam=DEFAULT_LAM,
            merge=True,
            greedy=True,
            rec=self.rec,
            prior=prior,
        )
        if result.fit is not None:
            self._this_hand = result.fit
        self.last = result
        return result.best()

    def _remember(self, view: SeatView) -> list[tuple[int, int]]:
        """The others' plays the ``normal`` rules failed to explain in the game's earlier
        hands, per seat (plays with a choice, plays the rules would not make): this hand's
        last judgement is added once the next hand starts; a new game starts afresh."""
        done = len(view.summaries)
        if done < self._hands_seen:
            self._prior = [(0, 0)] * 4
        elif done > self._hands_seen:
            self._prior = [
                (a + c, b + d) for (a, b), (c, d) in zip(self._prior, self._this_hand, strict=True)
            ]
        if done != self._hands_seen:
            self._this_hand = [(0, 0)] * 4
            self._hands_seen = done
        return self._prior


MASTER_TIME_LIMIT = 0.9
"""Seconds a move the ``master`` level thinks by default (the browser game's limit is 1 s)."""


MASTER_REC = 2
"""The ``master`` level's default ``rec``: its own first two decisions of every rollout
chosen by a search of their own (recursive PIMC), which its time buys (+0.11 tricks a
hand over the expert at 0.1 s, where the flat search with nine times the deals tied:
docs/bots.md)."""


class MasterBot(ExpertBot):
    """The expert given about a second a move (``time_limit`` :data:`MASTER_TIME_LIMIT`,
    no iteration cap) and recursive rollouts (``rec`` :data:`MASTER_REC`): for players who
    want the strongest opponent and can wait. Takes the expert's options."""

    name = "master"
    think_time = MASTER_TIME_LIMIT

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int | None = None,
        time_limit: float | None = None,
        wgame: float = DEFAULT_WGAME,
        rec: int = MASTER_REC,
        jit: bool | None = None,
    ) -> None:
        if iterations is None and time_limit is None:
            time_limit = MASTER_TIME_LIMIT
        super().__init__(
            seed, iterations=iterations, time_limit=time_limit, wgame=wgame, rec=rec, jit=jit
        )


def hint(
    view: SeatView,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    seed: int | None = None,
) -> dict[Card, float]:
    """The expert's value of every legal card of ``view``, in tricks.

    For each legal card: the mean number of tricks the seat ends the current hand with
    (those already won included) if it plays that card, over the deals it cannot tell
    apart, everyone playing on by the ``normal`` rules. The expert's search, with the
    game term left out. Budget as :class:`ExpertBot`; by default
    :data:`HINT_TIME_LIMIT` seconds. With ``iterations`` (alone) and a ``seed`` the
    answer is deterministic. Raises :class:`ValueError` when no card is due from the
    view's seat.
    """
    _check_budget(iterations, time_limit)
    if view.turn != view.seat or view.legal_mask == 0:
        raise ValueError(f"no card is due from seat {view.seat} now: nothing to hint")
    if iterations is None and time_limit is None:
        time_limit = HINT_TIME_LIMIT
    rng = random.Random(seed)
    result = search(
        view,
        iterations=iterations,
        time_limit=time_limit,
        seed=rng.getrandbits(32),
        wgame=0.0,
        min_iterations=8,
        lam=DEFAULT_LAM,
    )
    return {c: round(t, 4) for c, t in zip(result.cards, result.tricks, strict=True)}


def warm_up() -> None:
    """Load the search kernel now (compiling it, the first time on a machine), so that the
    first real move does not pay for it: about a second from numba's cache, 10-20 s cold.
    A server calls this at start-up."""
    game = Game.new(random.Random(0), record=False)
    search(game.view(game.turn), iterations=2, seed=1, lam=DEFAULT_LAM, wgame=1.0)
