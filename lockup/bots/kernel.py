"""The expert's search, from a :class:`~lockup.engine.SeatView` to a value per legal card.

:func:`search` runs information-set Monte Carlo by determinized sampling (PIMC): it deals
the cards the seat has not seen to the other seats among the deals that agree with
everything the seat knows (cards played, lost cards, hand sizes, voids shown), uniformly
or weighted by how well each deal explains the other seats' plays (:func:`history`),
plays each legal card in every sampled deal and rolls the hand out: by the ``normal``
level's rules, or (``greedy``) for the searching seat and the seats those rules do not
explain by the greedy policy of the arena's ``pimc-greedy``; ``rec`` searches the seat's
first decisions of each rollout again (recursive PIMC).

The work is done by :mod:`lockup.bots._kernel`, compiled by numba when it is installed
(``cache=True``: the first run on a machine compiles for 10-20 s, later processes load
the cache in about a second) and run as plain Python otherwise, or when the environment
variable ``LOCKUP_NO_JIT=1`` is set. Both give identical results for the same seed and
iteration count; numba is only faster (about 100 times).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

from ..cards import Card, cards_of
from ..engine import SeatView
from . import _kernel as _plain
from .sampling import BINOM, deal_tables

_jit_module: ModuleType | None = None
_jit_failed = False


def _load_jit() -> ModuleType | None:
    """The numba-compiled copy of the kernel, or None where numba is missing or broken."""
    global _jit_module, _jit_failed
    if _jit_module is not None or _jit_failed:
        return _jit_module
    try:
        import numba  # noqa: F401
    except ImportError:
        _jit_failed = True
        return None
    name = __name__.rsplit(".", 1)[0] + "._kernel_jit"
    spec = importlib.util.spec_from_file_location(name, _plain.__file__)
    if spec is None or spec.loader is None:  # pragma: no cover - the file is ours
        _jit_failed = True
        return None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except Exception:  # pragma: no cover - a broken numba install: fall back
        sys.modules.pop(name, None)
        _jit_failed = True
        return None
    _jit_module = mod
    return mod


def kernel(jit: bool | None = None) -> ModuleType:
    """The kernel module: compiled if ``jit`` (or by default where numba is available)."""
    if jit is False or (jit is None and os.environ.get("LOCKUP_NO_JIT") == "1"):
        return _plain
    mod = _load_jit()
    if mod is None:
        if jit:
            raise RuntimeError("numba is not available: install it or use jit=False")
        return _plain
    return mod


def jit_available() -> bool:
    """Whether the compiled kernel can be used."""
    return _load_jit() is not None


def to_array(km: ModuleType, values: list[Any], dtype: str = "int64") -> Any:
    """``values`` as the kernel ``km`` wants them: a list (plain) or a numpy array (numba)."""
    if km is _plain:
        return list(values)
    import numpy as np

    return np.array(values, dtype=dtype)


class Tables(NamedTuple):
    """Everything :func:`lockup.bots._kernel.pimc` and :func:`~lockup.bots._kernel.fit` read
    besides the position and scratch space, in one argument: lists for the plain kernel,
    numpy arrays for the compiled one (numba takes a named tuple of arrays and numbers).

    The first seven are the deal sampler's (:func:`lockup.bots._kernel.sample_hidden`,
    from :func:`lockup.bots.sampling.deal_tables`), the next five the other seats' past
    plays (:func:`lockup.bots._kernel.likelihood`, from :func:`history`), then the search's
    candidates and value, then its accumulators and scratch (written to).
    """

    seats: Any
    """The three other seats."""
    caps: Any
    """Their hand sizes."""
    voids: Any
    """Their 4-bit masks of suits shown lacking."""
    suit_cards: Any
    """``suit_cards[13*su + i]``: the unseen cards of suit ``su``."""
    suit_n: Any
    """How many unseen cards of each suit."""
    dp: Any
    """The sampler's counting table (:func:`lockup.bots.sampling.deal_counts`), as floats."""
    binom: Any
    """``binom[15*n + k]``: n choose k (:data:`lockup.bots.sampling.BINOM`)."""
    hist: Any
    """One row of kernel state per past play of another seat (see :func:`history`)."""
    hist_add: Any
    """Per row: the cards that seat held then beyond its hand now."""
    hist_card: Any
    """Per row: the card it played."""
    n_hist: int
    """Rows of ``hist`` in use."""
    lams: Any
    """Per seat: the weight of a deal for each of its plays the deal fails to explain."""
    model: int
    """Seats (a bit each) whose plays the greedy policy explains, not the ``normal`` rules."""
    me: int
    """The searching seat."""
    cards: Any
    """The candidate cards."""
    n_cards: int
    """How many."""
    totals: Any
    """Game totals before this hand."""
    target: int
    """The game's target (R16)."""
    wgame: float
    """Weight of the game term of :func:`lockup.bots._kernel.utility`."""
    use_chain: int
    """1 to sample deals by the Metropolis chain, 0 for independent uniform draws."""
    value: Any
    """Accumulated utility per candidate."""
    tricks: Any
    """Accumulated tricks per candidate."""
    weight: Any
    """``[deals sampled, the chain's current likelihood]``."""
    sums: Any
    """Scratch for :func:`lockup.bots._kernel.rec_card`: its summed values, by card (52)."""


DEFAULT_POLICY = {"risk": 600, "duck": 1, "lead_low": 0}
"""The settings of the rule-based policy (:func:`lockup.bots._kernel.policy`): ``risk``
the club risk worth taking for a trick, in thousandths, ``duck`` the clubs in a trick
that make a seat duck, ``lead_low`` 1 to lead low from the shortest suit when no master
is worth cashing (0: the top of the longest suit, as the tips say). These are the
``normal`` level's (its ``risk`` option sets the first) and the rollouts'."""

MCMC = (50, 30, 4)
"""The sampling chain's settings: a fresh chain every this many deals, the swaps before
its first deal, the swaps between deals (see :func:`search`)."""


def check_policy(options: dict[str, Any]) -> dict[str, int]:
    """Validated policy settings (see :data:`DEFAULT_POLICY`); raises :class:`ValueError`."""
    out = dict(DEFAULT_POLICY)
    for k, v in options.items():
        if k not in DEFAULT_POLICY:
            raise ValueError(f"unknown policy option {k!r}")
        if isinstance(v, bool):
            v = int(v)
        if not isinstance(v, int):
            raise ValueError(f"{k} must be a whole number, not {v!r}")
        lo, hi = {"risk": (0, 1000), "duck": (1, 13), "lead_low": (0, 1)}[k]
        if not lo <= v <= hi:
            raise ValueError(f"{k} must be from {lo} to {hi}, not {v!r}")
        out[k] = v
    return out


def view_state(
    view: SeatView, km: ModuleType, policy: dict[str, int], *, seed: int = 1
) -> list[int]:
    """The kernel state of ``view``'s position: the seat's own hand, the others' empty."""
    st = [0] * km.STATE_SIZE
    _set_params(st, view, km, policy)
    me = view.seat
    st[km.I_HAND + me] = view.hand_mask
    for i in range(4):
        st[km.I_LOCK + i] = view.locks[i]
        st[km.I_PTS + i] = view.points[i]
    st[km.I_TN] = view.trick_number
    st[km.I_NOM] = view.leader
    st[km.I_LEADER] = view.leader
    st[km.I_TURN] = me
    st[km.I_NPL] = view.players_in_trick
    st[km.I_NTR] = len(view.trick)
    st[km.I_LED] = -1 if view.led_suit is None else view.led_suit
    st[km.I_BEST] = -1 if view.best_card is None else view.best_card
    st[km.I_BSEAT] = -1 if view.best_seat is None else view.best_seat
    st[km.I_CLUBS] = view.clubs_in_trick
    st[km.I_PIC] = view.pic_clubs
    st[km.I_PLAYED] = view.played_mask
    voids = 0
    for i in range(4):
        voids |= (view.voids[i] & 15) << (4 * i)
    st[km.I_VOIDS] = voids
    st[km.I_RNG] = (seed & 0xFFFFFFFF) or 0x9E3779B9
    return st


def _set_params(st: list[int], view: SeatView, km: ModuleType, policy: dict[str, int]) -> None:
    st[km.I_ANY] = int(view.rules.picture_exception == "any-club")
    st[km.I_UPF] = int(view.rules.lock_discards == "upfront")
    st[km.I_DUCK] = policy["duck"]
    st[km.I_RISK] = policy["risk"]
    st[km.I_LEADLOW] = policy["lead_low"]
    for i in range(4):
        st[km.I_TOT + i] = view.totals[i]
    st[km.I_TARGET] = view.rules.target
    lost = 0
    for m in view.lost_masks:
        lost |= m
    st[km.I_LOST] = lost


def _set_trick(st: list[int], km: ModuleType, trick: Sequence[tuple[int, Card]]) -> None:
    """A past trick's fields from its plays so far: led suit, best card and seat, clubs,
    picture clubs (for :func:`history`'s positions, which no view describes; the position
    at hand takes them from its :class:`~lockup.engine.SeatView`)."""
    led = best = bseat = -1
    clubs = pic = 0
    for seat, c in trick:
        if led < 0:
            led = c // 13
        if c // 13 == led and c > best:
            best, bseat = c, seat
        if c < 13:
            clubs += 1
        if 9 <= c % 13 <= 11:
            pic |= 1 << (c % 13)
    st[km.I_NTR] = len(trick)
    st[km.I_LED] = led
    st[km.I_BEST] = best
    st[km.I_BSEAT] = bseat
    st[km.I_CLUBS] = clubs
    st[km.I_PIC] = pic


def history(
    view: SeatView, km: ModuleType, policy: dict[str, int]
) -> tuple[list[list[int]], list[int], list[int]]:
    """The other seats' plays this hand, for :func:`lockup.bots._kernel.likelihood`.

    For each: the public state before it (hands empty), the cards its seat held then
    beyond its hand now, and the card played. The cards held then are those it played
    since and those a lockup discard took from it later (R10: each discard leaves at the
    start of a trick the seat sits out, or all at the lock's start with ``upfront``; the
    view gives the order they left, :attr:`~lockup.engine.SeatView.lost_order`).
    """
    me = view.seat
    upfront = view.rules.lock_discards == "upfront"
    base = [0] * km.STATE_SIZE
    _set_params(base, view, km, policy)
    losses: list[list[int]] = [[], [], [], []]
    spans: list[tuple[int, int, int]] = []  # (seat, first trick sat out, last)
    for tr in view.tricks:
        if tr.winner is not None and tr.lock:
            spans.append((tr.winner, tr.number + 1, tr.number + tr.lock))
            for k in range(tr.lock):
                losses[tr.winner].append(tr.number + 1 if upfront else tr.number + 1 + k)
    # Each card lost, with the trick it left at the start of: the seat's losses in order,
    # as many as have happened (a lock may reach past the trick at hand).
    gone: list[list[tuple[int, int]]] = [
        list(zip(losses[i], view.lost_order[i], strict=False)) for i in range(4)
    ]
    tricks = [(tr.number, list(tr.plays), tr.winner) for tr in view.tricks if tr.plays]
    tricks.append((view.trick_number, list(view.trick), None))
    rows: list[list[int]] = []
    who: list[tuple[int, int]] = []
    cards: list[int] = []
    points = [0, 0, 0, 0]
    played = 0
    voids = 0  # the voids shown before the play at hand (the engine's record: R5, R6, R7)
    shown = view.voids_shown
    next_void = 0
    index = 0  # the play at hand, counted from the hand's first card
    for number, plays, winner in tricks:
        locks = [0, 0, 0, 0]
        for seat, first, last in spans:
            if first <= number <= last:
                locks[seat] = last - number + 1
        trick: list[tuple[int, Card]] = []
        for seat, c in plays:
            while next_void < len(shown) and shown[next_void].play < index:
                v = shown[next_void]
                voids |= 1 << (4 * v.seat + v.suit)
                next_void += 1
            if seat != me:
                row = list(base)
                for i in range(4):
                    row[km.I_LOCK + i] = locks[i]
                    row[km.I_PTS + i] = points[i]
                row[km.I_TN] = number
                row[km.I_TURN] = seat
                row[km.I_NPL] = sum(1 for x in locks if x == 0)
                _set_trick(row, km, trick)
                row[km.I_PLAYED] = played
                row[km.I_VOIDS] = voids
                lost = 0
                for i in range(4):
                    for at, c_lost in gone[i]:
                        if at <= number:
                            lost |= 1 << c_lost
                row[km.I_LOST] = lost
                rows.append(row)
                who.append((seat, number))
                cards.append(c)
            trick.append((seat, c))
            index += 1
            played |= 1 << c
        if winner is not None:
            points[winner] += 1
    adds = []
    for d, (seat, number) in enumerate(who):
        held = 0
        for e in range(d, len(who)):
            if who[e][0] == seat:
                held |= 1 << cards[e]
        for at, c_lost in gone[seat]:
            if at > number:
                held |= 1 << c_lost
        adds.append(held)
    return rows, adds, cards


def interchangeable(view: SeatView) -> dict[Card, Card]:
    """For each legal card of ``view``, the card that stands for it in a search: cards of
    one suit with no card between them that another seat may still play (an unseen card,
    or the best card of the trick) play the same, and the highest of such a run stands for
    the run. Pictures (J, Q, K: they open R7's exception) stand for themselves."""
    live = view.unseen_mask
    led = -1
    best = -1
    for _, c in view.trick:
        if led < 0:
            led = c // 13
        if c // 13 == led and c > best:
            best = c
    if best >= 0:
        live |= 1 << best
    kept = _plain.distinct(None, view.legal_mask, live)
    out: dict[Card, Card] = {}
    for c in cards_of(view.legal_mask):
        r = c
        while not (kept >> r) & 1:
            r += 1
        out[c] = r
    return out


FIT_CHAINS = 3
"""Chains run to judge how well the ``normal`` rules explain each seat's plays, ..."""
FIT_STEPS = 100
"""... swaps in each, ..."""
FIT_MIN_PLAYS = 4
"""... plays with a choice a seat must have made to be judged, ..."""
FIT_TOLERANCE = 0.15
"""... and the share of them the rules may fail to explain before they are ignored."""

GREEDY_LAM = 0.3
"""The weight of a deal for each play of a seat the ``normal`` rules do not explain that
the greedy policy would not make, given the deal: ``pimc-greedy`` plays the policy's card
in 62% of its choices (the rules' in 38%, a random card's chance 30%)."""


@dataclass
class SearchResult:
    """What :func:`search` found: per candidate card, its mean value and mean tricks."""

    cards: list[Card]
    value: list[float]
    """Mean utility: tricks this hand plus the game term (see :func:`search`)."""
    tricks: list[float]
    """Mean tricks the seat ends this hand with, had it played that card."""
    iterations: int
    """Deals sampled."""
    hands: int
    """Hands simulated (rollouts): iterations times candidate cards."""
    seconds: float
    fit: list[tuple[int, int]] | None = None
    """Per seat, this hand's (plays with a choice, plays the ``normal`` rules would not
    make) in the deal that explains the seat best (None: not judged)."""

    def best(self) -> Card:
        """The card of highest value (the lowest card number on ties)."""
        i = max(range(len(self.cards)), key=lambda k: (self.value[k], -self.cards[k]))
        return self.cards[i]


class Position:
    """A seat's view turned into the kernel's arrays, ready for :meth:`run`.

    The arguments are those of :func:`search`. Raises :class:`ValueError` when no card is
    due from the view's seat.
    """

    def __init__(
        self,
        view: SeatView,
        *,
        seed: int,
        wgame: float = 0.0,
        jit: bool | None = None,
        lam: float = 1.0,
        merge: bool = False,
        greedy: bool = False,
        rec: int = 0,
        prior: Sequence[tuple[int, int]] | None = None,
    ) -> None:
        if view.turn != view.seat or view.legal_mask == 0:
            raise ValueError(f"no card is due from seat {view.seat} now")
        km = kernel(jit)
        self.km = km
        self.view = view
        me = view.seat
        self.me = me
        pol = check_policy({})
        st = view_state(view, km, pol, seed=seed)
        st[km.I_MC_RESTART], st[km.I_MC_BURN], st[km.I_MC_STEPS] = MCMC
        st[km.I_GREEDY] = (1 << me) if greedy else 0
        st[km.I_REC] = rec
        self.base = to_array(km, st)
        rows, adds, played = history(view, km, pol) if lam != 1.0 else ([], [], [])
        n_hist = len(rows)
        if not rows:
            rows, adds, played = [[0] * km.STATE_SIZE], [0], [0]
        hist: Any
        if km is _plain:
            hist = rows
        else:
            import numpy as np

            hist = np.array(rows, dtype=np.int64)
        deal = deal_tables(me, view.unseen_mask, view.hand_sizes, view.voids)
        if not deal.total:  # pragma: no cover - defensive
            deal = deal_tables(me, view.unseen_mask, view.hand_sizes, (0, 0, 0, 0))
        self.all_cards = cards_of(view.legal_mask)
        self.rep = interchangeable(view) if merge else {c: c for c in self.all_cards}
        """For each legal card, the card searched for it (itself, or one that plays the
        same: see :func:`interchangeable`)."""
        self.cards = sorted(set(self.rep.values()))
        n = len(self.cards)
        self.lam = float(lam)
        self.tables = Tables(
            seats=to_array(km, deal.seats),
            caps=to_array(km, deal.caps),
            voids=to_array(km, deal.voids),
            suit_cards=to_array(km, deal.suit_cards),
            suit_n=to_array(km, deal.suit_n),
            dp=to_array(km, [float(x) for x in deal.dp], "float64"),
            binom=to_array(km, list(BINOM), "float64"),
            hist=hist,
            hist_add=to_array(km, adds),
            hist_card=to_array(km, played),
            n_hist=n_hist,
            lams=to_array(km, [self.lam] * 4, "float64"),
            model=0,
            me=me,
            cards=to_array(km, self.cards),
            n_cards=n,
            totals=to_array(km, list(view.totals)),
            target=view.rules.target,
            wgame=float(wgame),
            use_chain=int(self.lam < 1.0 and n_hist > 0),
            value=to_array(km, [0.0] * n, "float64"),
            tricks=to_array(km, [0.0] * n, "float64"),
            weight=to_array(km, [0.0, 1.0], "float64"),
            sums=to_array(km, [0.0] * 52, "float64"),
        )
        n_rows = 4 + (2 if rec else 0)
        if km is _plain:
            self.work: Any = [[0] * km.STATE_SIZE for _ in range(n_rows)]
        else:
            import numpy as np

            self.work = np.zeros((n_rows, km.STATE_SIZE), dtype=np.int64)
        self.iterations = 0
        self.hands = 0
        self.greedy = greedy
        self.fit: list[tuple[int, int]] = []
        """Per seat (plays with a choice, plays the ``normal`` rules would not make), in the
        sampled deal that explains that seat best."""
        if self.tables.use_chain or (prior is not None and self.lam < 1.0):
            self._fit_model(prior)

    @property
    def lams(self) -> Any:
        """Per seat, the weight of a deal for each of that seat's plays it fails to explain
        (1: the seat's plays are not used)."""
        return self.tables.lams

    @property
    def use_chain(self) -> int:
        """1 when deals come from the Metropolis chain (see :func:`search`)."""
        return int(self.tables.use_chain)

    def _fit_model(self, prior: Sequence[tuple[int, int]] | None) -> None:
        """Trust the model of each other seat only as far as it explains its plays: a seat
        whose plays the ``normal`` rules often would not make is not weighed by them.
        ``prior`` adds, per seat, (plays with a choice, plays the rules would not make)
        from earlier hands of the game."""
        km = self.km
        self.fit = [(0, 0)] * 4
        model = 0
        if self.tables.use_chain:
            mis = to_array(km, [0] * (4 * FIT_CHAINS))
            dec = to_array(km, [0] * (4 * FIT_CHAINS))
            km.fit(self.base, self.work, self.tables, FIT_CHAINS, FIT_STEPS, mis, dec)
            # Per seat, the chain that explains it best: a fair model has a deal that fits.
            self.fit = [
                min(
                    ((int(dec[4 * c + s]), int(mis[4 * c + s])) for c in range(FIT_CHAINS)),
                    key=lambda x: x[1] / max(x[0], 1),
                )
                for s in range(4)
            ]
        for s in range(4):
            n, m = self.fit[s]
            if prior is not None and s != self.me:
                n, m = n + prior[s][0], m + prior[s][1]
            if n >= FIT_MIN_PLAYS and m > FIT_TOLERANCE * n:
                self.lams[s] = 1.0
                if self.greedy:  # not a normal player: rolled out greedily, as itself,
                    self.base[km.I_GREEDY] |= 1 << s
                    if s != self.me and self.lam < 1.0:  # and its plays weighed by it
                        self.lams[s] = GREEDY_LAM
                        model |= 1 << s
        if self.tables.use_chain or model:
            chain = any(self.lams[s] < 1.0 for s in range(4)) and self.tables.n_hist > 0
            self.tables = self.tables._replace(use_chain=int(chain), model=model)

    def run(self, iterations: int) -> None:
        """Sample ``iterations`` more deals (results accumulate)."""
        if iterations <= 0:
            return
        self.hands += self.km.pimc(self.base, self.work, self.tables, iterations)
        self.iterations += iterations

    def result(self, seconds: float = 0.0) -> SearchResult:
        """Means over the deals sampled so far."""
        t = self.tables
        at = {c: i for i, c in enumerate(self.cards)}
        idx = [at[self.rep[c]] for c in self.all_cards]
        n = float(t.weight[0]) or 1.0
        return SearchResult(
            cards=list(self.all_cards),
            value=[float(t.value[i]) / n for i in idx],
            tricks=[float(t.tricks[i]) / n for i in idx],
            iterations=self.iterations,
            hands=int(self.hands),
            seconds=seconds,
            fit=list(self.fit) if self.fit else None,
        )


def search(
    view: SeatView,
    *,
    iterations: int | None = None,
    time_limit: float | None = None,
    seed: int = 0,
    wgame: float = 0.0,
    jit: bool | None = None,
    min_iterations: int = 1,
    lam: float = 1.0,
    merge: bool = False,
    greedy: bool = False,
    rec: int = 0,
    prior: Sequence[tuple[int, int]] | None = None,
) -> SearchResult:
    """Evaluate every legal card of ``view`` (its seat must be to play).

    Budget: ``iterations`` sampled deals, or as many as fit in ``time_limit`` seconds (at
    least ``min_iterations``), or whichever ends first when both are given. With an
    iteration budget only, the result depends only on the view and ``seed``. ``wgame``
    weighs the game term of the utility (0: tricks only). ``lam`` below 1 samples deals
    from a Metropolis chain (:data:`MCMC`) that discounts each past play of another seat
    a deal fails to explain by ``lam``, a seat whose plays the ``normal`` rules often fail
    to explain not counted (its ``lam`` set to 1), or with ``greedy`` weighed by the greedy
    policy instead (by :data:`GREEDY_LAM`); ``prior`` is, per seat, (plays with a
    choice, plays the rules would not make) in earlier hands of the game, added to this
    hand's for that judgement (:attr:`SearchResult.fit` gives this hand's). ``merge``
    searches interchangeable cards once (:func:`interchangeable`). Rollouts play every
    seat by the ``normal`` rules (:data:`DEFAULT_POLICY`); with ``greedy``, the searching
    seat and every seat the rules fail to explain play the greedy policy
    (:func:`lockup.bots._kernel.greedy_card`). ``rec`` above 0: in each
    rollout, the searching seat's first ``rec`` decisions are chosen by a small search of
    their own over deals that seat cannot tell apart
    (:func:`lockup.bots._kernel.rec_card`: recursive PIMC, one level).
    """
    if iterations is None and time_limit is None:
        raise ValueError("give iterations or time_limit")
    if iterations is not None and iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive, not {time_limit!r}")
    start = time.perf_counter()
    pos = Position(
        view,
        seed=seed,
        wgame=wgame,
        jit=jit,
        lam=lam,
        merge=merge,
        greedy=greedy,
        rec=rec,
        prior=prior,
    )
    deadline = None if time_limit is None else start + time_limit
    _spend(pos, start, deadline, iterations, min_iterations)
    return pos.result(time.perf_counter() - start)


def _spend(
    pos: Position, start: float, deadline: float | None, cap: int | None, min_iterations: int
) -> None:
    """Run ``pos`` for ``cap`` deals, or until ``deadline`` (at least ``min_iterations``),
    whichever ends first (:func:`search`'s budget)."""
    if deadline is None:
        assert cap is not None
        pos.run(cap)
        return
    limit = cap if cap is not None else 1 << 40
    first = pos.iterations
    pos.run(min(max(1, min_iterations), limit))
    while pos.iterations - first < limit:
        now = time.perf_counter()
        if now >= deadline - 0.001:
            break
        # Size the next batch to about a quarter of the time left, from the rate so far.
        rate = (pos.iterations - first) / max(now - start, 1e-6)
        step = int(rate * (deadline - now) * 0.25)
        step = max(1, min(step, limit - (pos.iterations - first)))
        pos.run(step)
