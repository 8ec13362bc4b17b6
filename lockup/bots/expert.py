"""The ``expert`` level and the coach's :func:`hint`: a search over the deals a seat can't see.

The expert runs information-set Monte Carlo by determinized sampling (PIMC, see
:mod:`lockup.bots.kernel`). It deals the cards it has not seen to the other seats, in
ways that agree with everything its view shows (cards played, cards lost, hand sizes,
voids shown), weighted by how well each deal explains the other seats' plays so far.
In every sampled deal it plays each legal card and rolls the hand out: a seat whose plays
this game the ``normal`` level's rules explain plays by those rules; every other seat, and
itself, by a club-aware playout that reads the sampled deal
(:func:`lockup.bots._kernel.see_card`, the playout of the arena's ``pimc+``). It plays the
card of highest mean value: the tricks it ends the hand with plus ``wgame`` times a game
term, winning the game when the hand can end it (R15, a sole leader at or over the
target), otherwise a smooth estimate from the gap to the best other total.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..cards import Card
from ..engine import Game, SeatView
from .base import Bot
from .kernel import ROLLOUT_POLICY, SearchResult, check_policy, search

DEFAULT_ITERATIONS = 400
"""Sampled deals a move by default (more hardly helps), ..."""
DEFAULT_TIME_LIMIT = 0.07
"""... or this many seconds, whichever ends first: an arena of 2,000 hands against three
``normal`` bots then takes well under half an hour on two cores. The browser game can
give the expert up to a second (``time_limit=0.9``)."""

HINT_TIME_LIMIT = 0.5
"""Seconds :func:`hint` searches by default."""

DEFAULT_SOLVE = 0
"""Tricks left at which each rollout's end is solved exactly (see :class:`ExpertBot`); 0:
never (the exact end lets a sampled deal's seat play knowing every hand: issue 24)."""

DEFAULT_WGAME = 5.0
"""The weight of the game term, in tricks."""

DEFAULT_SEE = 3
"""Rollouts: itself and the seats the ``normal`` rules do not explain play
:func:`lockup.bots._kernel.see_card` (see :class:`ExpertBot`)."""

DEFAULT_LAM = 0.03
"""How much less likely a deal becomes for each past play it fails to explain."""


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


def _check_int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be a whole number of at least {low}, not {value!r}")
    return value


def _check_float(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValueError(f"{name} must be a number from {low} to {high}, not {value!r}")
    return float(value)


class ExpertBot(Bot):
    """Searches each move (see the module's description).

    Budget: ``iterations`` sampled deals a move, or ``time_limit`` seconds a move, or
    whichever ends first when both are given; by default :data:`DEFAULT_ITERATIONS` and
    :data:`DEFAULT_TIME_LIMIT`. With ``iterations`` alone and a ``seed`` it is
    deterministic. Tuning: ``wgame`` weighs the game term against tricks (0: tricks
    only); ``lam`` (0 < lam <= 1) how strongly deals that fail to explain past plays are
    discounted (1: not at all); ``mc_restart``, ``mc_burn``, ``mc_steps`` drive the
    sampling chain; ``eps`` makes the rollouts play a random card once in ``eps``
    decisions (0: never); ``jit`` forces the compiled (True) or plain Python (False)
    kernel; ``solve`` (0 to 5) the tricks left at which a rollout's end is solved exactly
    (0: never), ``smode`` how the others play there (1: by the policy, 0: against it);
    ``merge`` searches cards that play the same once; ``adapt`` rolls out a seat the
    ``normal`` rules do not explain by its own bolder settings; ``tree`` above 0 searches
    a tree instead of one card deep (information-set Monte Carlo tree search, ``tree``
    descents of it in each sampled deal, ``cexp`` its exploration constant: see
    :func:`lockup.bots.kernel.search`); ``learn`` 1 rolls its own seat out by the policy
    learned from its choices (:func:`lockup.bots._kernel.learned`), 2 every seat, 3 the
    seats the ``normal`` rules do not explain (``see`` comes first); ``see``
    1 rolls its own seat out by a clairvoyant club-aware policy that reads the sampled
    deal (:func:`lockup.bots._kernel.see_card`), 2 every seat, 3 its own seat and those
    the ``normal`` rules do not explain, ``sduck`` the clubs that
    make that policy duck; ``rec`` above 0 chooses the first ``rec`` decisions of its own
    seat in each rollout (``recs=2``: of every seat) by a search of ``recn`` deals of their
    own (recursive PIMC: :func:`lockup.bots._kernel.rec_card`), searched once per state of
    the deciding seat's knowledge with ``rcache`` (2: refined by a deal at each later
    visit); ``memory`` judges whether
    the ``normal`` rules explain a seat from its plays in the whole game so far, not this
    hand's alone; ``gwin`` makes the game term each seat's chance to win the game, played
    forward from the points of self-play (:mod:`lockup.bots.winchance`); ``narrow``
    above 0, with ``rec``, first searches every card flat for ``nshare`` of the time,
    then only the ``narrow`` best of them with ``rec`` for the rest. Further options
    (``risk``, ``clean_last``, ``void_lead``, ``duck``, ``lead_low``, and for its own seat
    ``duckme``, ``riskme``, ``lead_lowme``) set the rollout policy
    (:data:`lockup.bots.kernel.ROLLOUT_POLICY`).
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
        lam: float = DEFAULT_LAM,
        mc_restart: int = 50,
        mc_burn: int = 30,
        mc_steps: int = 4,
        eps: int = 0,
        jit: bool | None = None,
        solve: int = DEFAULT_SOLVE,
        smode: int = 1,
        merge: bool = True,
        adapt: bool = True,
        tree: int = 0,
        cexp: float = 1.0,
        tmode: int = 0,
        learn: int = 0,
        see: int = DEFAULT_SEE,
        sduck: int = 2,
        rec: int = 0,
        recn: int = 8,
        recs: int = 1,
        rcache: int = 0,
        memory: bool = True,
        gwin: bool = False,
        narrow: int = 0,
        nshare: float = 0.25,
        **policy: int,
    ) -> None:
        _check_budget(iterations, time_limit)
        if iterations is None and time_limit is None:
            iterations, time_limit = DEFAULT_ITERATIONS, DEFAULT_TIME_LIMIT
        self.iterations = iterations
        self.time_limit = time_limit
        self.wgame = _check_float("wgame", wgame, 0.0, 100.0)
        self.lam = _check_float("lam", lam, 1e-9, 1.0)
        self.mcmc = (
            _check_int("mc_restart", mc_restart, 1),
            _check_int("mc_burn", mc_burn, 0),
            _check_int("mc_steps", mc_steps, 0),
        )
        self.eps = _check_int("eps", eps, 0)
        self.solve = _check_int("solve", solve, 0)
        if self.solve > 5:
            raise ValueError(f"solve must be from 0 to 5 tricks, not {solve!r}")
        self.smode = _check_int("smode", smode, 0)
        if self.smode > 1:
            raise ValueError(f"smode must be 0 or 1, not {smode!r}")
        self.merge = bool(merge)
        self.adapt = bool(adapt)
        self.tree = _check_int("tree", tree, 0)
        self.cexp = _check_float("cexp", cexp, 0.0, 100.0)
        self.tmode = _check_int("tmode", tmode, 0)
        if self.tmode > 2:
            raise ValueError(f"tmode must be 0, 1 or 2, not {tmode!r}")
        self.learn = _check_int("learn", learn, 0)
        if self.learn > 3:
            raise ValueError(f"learn must be 0, 1, 2 or 3, not {learn!r}")
        self.see = _check_int("see", see, 0)
        if self.see > 3:
            raise ValueError(f"see must be 0, 1, 2 or 3, not {see!r}")
        self.sduck = _check_int("sduck", sduck, 1)
        if self.sduck > 13:
            raise ValueError(f"sduck must be from 1 to 13, not {sduck!r}")
        self.rec = _check_int("rec", rec, 0)
        if self.rec > 13:
            raise ValueError(f"rec must be from 0 to 13 decisions, not {rec!r}")
        self.recn = _check_int("recn", recn, 1)
        if self.recn > 1000:
            raise ValueError(f"recn must be from 1 to 1000 deals, not {recn!r}")
        self.recs = _check_int("recs", recs, 1)
        if self.recs > 2:
            raise ValueError(f"recs must be 1 or 2, not {recs!r}")
        self.rcache = _check_int("rcache", rcache, 0)
        if self.rcache > 2:
            raise ValueError(f"rcache must be 0, 1 or 2, not {rcache!r}")
        self.memory = bool(memory)
        self.gwin = bool(gwin)
        self.narrow = _check_int("narrow", narrow, 0)
        if self.narrow > 13:
            raise ValueError(f"narrow must be from 0 to 13 cards, not {narrow!r}")
        self.nshare = _check_float("nshare", nshare, 0.05, 0.95)
        self._hands_seen = -1
        self._prior = [(0, 0)] * 4
        self._this_hand = [(0, 0)] * 4
        self.jit = jit
        self.policy = check_policy({**ROLLOUT_POLICY, **policy})
        self.rng = random.Random(seed)
        self.last: SearchResult | None = None
        """The search behind the last move (None for a forced card)."""

    def choose(self, view: SeatView) -> Card:
        """The legal card of highest searched value."""
        legal = view.legal_mask
        if legal & (legal - 1) == 0:
            self.last = None
            return (legal & -legal).bit_length() - 1
        return self.play_searched(
            view,
            lambda prior: search(
                view, seed=self.rng.getrandbits(32), prior=prior, **self.search_options()
            ),
        )

    def play_searched(
        self, view: SeatView, searcher: Callable[[list[tuple[int, int]] | None], SearchResult]
    ) -> Card:
        """The best card of ``searcher(prior)``, a search of ``view`` given what ``memory``
        keeps of the others' earlier hands (None when off); keeps this hand's judgement of
        each seat for the next hand and the search as :attr:`last`."""
        prior = self._remember(view) if self.memory else None
        result = searcher(prior)
        if self.memory and result.fit is not None:
            self._this_hand = result.fit
        self.last = result
        return result.best()

    def search_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`~lockup.bots.kernel.search` this bot searches
        with, all but the move's ``seed`` and ``prior`` (a benchmark can search as it does)."""
        return {
            "iterations": self.iterations,
            "time_limit": self.time_limit,
            "wgame": self.wgame,
            "eps": self.eps,
            "jit": self.jit,
            "min_iterations": 8,
            "policy": self.policy,
            "lam": self.lam,
            "mcmc": self.mcmc,
            "solve": self.solve,
            "smode": self.smode,
            "merge": self.merge,
            "adapt": self.adapt,
            "tree": self.tree,
            "cexp": self.cexp,
            "tmode": self.tmode,
            "learn": self.learn,
            "see": self.see,
            "see_duck": self.sduck,
            "rec": (self.rec, self.recn, self.recs),
            "gwin": self.gwin,
            "narrow": self.narrow,
            "narrow_share": self.nshare,
            "rcache": self.rcache,
        }

    def _remember(self, view: SeatView) -> list[tuple[int, int]]:
        """The others' plays the ``normal`` rules failed to explain in the game's earlier
        hands (``memory``): this hand's last judgement is added once the next hand starts;
        a new game starts afresh."""
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
chosen by a search of their own (recursive PIMC), which its time buys (issue 24: +0.11
tricks a hand over the expert at 0.1 s, where the flat search with nine times the deals
tied; docs/bots.md)."""


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
        **options: Any,
    ) -> None:
        if iterations is None and time_limit is None:
            time_limit = MASTER_TIME_LIMIT
        options.setdefault("rec", MASTER_REC)
        super().__init__(seed, iterations=iterations, time_limit=time_limit, **options)


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
