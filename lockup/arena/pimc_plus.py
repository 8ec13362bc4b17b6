"""``pimc+``: a stronger plain PIMC, the expert's second sparring partner.

Like :mod:`lockup.arena.pimc` it is written apart from :mod:`lockup.bots` (no code of the
expert is shared), and it reuses ``pimc``'s deal sampler (:class:`~lockup.arena.pimc.DealSampler`:
uniform among the deals that agree with its view) and hand simulator
(:func:`~lockup.arena.pimc.playout`). Four things differ:

1. **A game-aware value.** A playout is valued by its tricks this hand plus ``wgame``
   times the chance to win the game (R15, R16) with the totals it ends the hand with:
   1 or 0 when the hand ends the game (a sole leader at or over the target), otherwise a
   rough estimate, :func:`win_chance`: a softmax over the four totals, scaled by the
   spread the scores still have to grow (``SPREAD`` tricks times the square root of the
   hands left, about ``(target - leader) / TRICKS_PER_HAND + 1``). A card that lets an
   opponent reach the target alone is worth ``wgame`` less; one that makes it the winner
   ``wgame`` more.
2. **A club-aware playout** (:func:`club_aware`). Winning a trick that holds clubs locks
   the winner up (R9): it sits out tricks and loses cards at random (R10). In the
   imagined deal every hand is known, so a seat about to win a trick counts the clubs
   already in it plus the later seats of the trick that could still drop one (void in the
   led suit with a club, or holding a picture club the table allows, R7); it takes the
   trick, with the cheapest card no later seat beats, only when that count is below
   ``duck`` (default 2: a point is worth a one-trick lock). Otherwise it sheds an allowed
   club, ducks with its highest losing card, or, forced to win, sheds its top card. On
   lead it cashes the top of a suit nobody beats and nobody can club (the longest such
   suit), else leads low from its shortest suit; void, it throws its highest club, else
   the lowest card of its shortest suit.
3. **Common random numbers.** The candidate cards of one deal are played out on the same
   deal with the same random stream (the lockup discards), so their differences carry
   less noise than their values.
4. **Early pruning.** From ``prune_after`` deals on, every ``PRUNE_EVERY`` deals, a
   candidate whose per-deal difference from the current best candidate has a mean more
   than ``prune`` standard errors below zero is dropped: the deals left go to the cards
   still in contention. ``prune=0`` keeps every card.

Budget: ``time_limit`` seconds a move (default 0.1) and/or ``iterations`` deals a move,
whichever ends first; with ``iterations`` alone and a seed it is deterministic.
"""

from __future__ import annotations

import math
import random
import time
from functools import partial
from typing import Final

from ..bots.base import Bot
from ..cards import Card, cards_of
from ..engine import SeatView
from .pimc import _HI, _LO, _PIC, _POP, CLUBM, DEFAULT_TIME_LIMIT, NONCLUB, DealSampler, playout

DEFAULT_WGAME: Final = 5.0
"""Weight of the game term in tricks: winning the game is worth that many tricks."""
DEFAULT_DUCK: Final = 2
"""Clubs (in the trick, or that later seats can still drop on it) that make a seat duck."""
DEFAULT_PRUNE: Final = 3.0
"""Standard errors below the best at which a candidate is dropped."""
DEFAULT_PRUNE_AFTER: Final = 16
"""Deals before the first pruning."""
PRUNE_EVERY: Final = 8
"""Deals between prunings."""
TRICKS_PER_HAND: Final = 3.2
"""A seat's mean tricks a hand (13 tricks, a few empty, shared by four)."""
SPREAD: Final = 1.4
"""Logistic scale of one hand's score difference between two seats, in tricks (a normal
spread of about 2.3 tricks between two seats' hands, as a logistic)."""


def win_chance(totals: list[int], me: int, target: int) -> float:
    """The chance seat ``me`` wins the game from these totals after a hand (see the module).

    Exact when the hand ends the game (R15); otherwise a softmax of the totals with scale
    ``SPREAD * sqrt(hands left)``, the hands left estimated from the leader's distance to
    the target.
    """
    lead = max(totals)
    if lead >= target and totals.count(lead) == 1:
        return 1.0 if totals[me] == lead else 0.0
    hands_left = max(1.0, (target - lead) / TRICKS_PER_HAND + 1.0)
    scale = SPREAD * math.sqrt(hands_left)
    weights = [math.exp((t - lead) / scale) for t in totals]
    return weights[me] / sum(weights)


def _later(locks: list[int], turn: int, left: int) -> list[int]:
    """The seats that play to the current trick after ``turn`` (``left`` of them)."""
    out: list[int] = []
    s = turn
    while len(out) < left:
        s = (s + 1) % 4
        if not locks[s]:
            out.append(s)
    return out


def _beaten(hands: list[int], seats: list[int], suit: int, rank: int) -> bool:
    """True if one of ``seats`` holds a card of ``suit`` above ``rank``."""
    shift = 13 * suit
    return any(((hands[s] >> shift) & 8191) >> (rank + 1) for s in seats)


def _droppers(hands: list[int], seats: list[int], suit: int, pic: int, any_club: bool) -> int:
    """How many of ``seats`` could drop a club on a trick of ``suit`` (not clubs) whose
    picture-club bits are ``pic``: void in the suit with a club, or an allowed club (R7)."""
    n = 0
    shift = 13 * suit
    for s in seats:
        h = hands[s]
        cl = h & CLUBM
        if cl and (not (h >> shift) & 8191 or (pic and (any_club or cl & pic))):
            n += 1
    return n


def _shortest_low(hand: int) -> int:
    """The lowest card of its shortest non-club suit (the hand holds one)."""
    pick = -1
    key = 1 << 20
    for su in (1, 2, 3):
        x = (hand >> (13 * su)) & 8191
        if x:
            k = _POP[x] * 16 + _LO[x]
            if k < key:
                key = k
                pick = 13 * su + _LO[x]
    return pick


def club_aware(
    duck: int,
    hands: list[int],
    locks: list[int],
    turn: int,
    ntr: int,
    npl: int,
    led: int,
    best: int,
    clubs: int,
    pic: int,
    any_club: bool,
) -> int:
    """The club-aware playout policy's card for ``turn`` (see the module's description);
    the arguments after ``duck`` are those of :data:`lockup.arena.pimc.Policy`."""
    hand = hands[turn]
    later = _later(locks, turn, npl - ntr - 1)
    if ntr == 0:
        nc = hand & NONCLUB
        if not nc:
            return _LO[hand & CLUBM]
        pick = -1
        key = -1
        for su in (1, 2, 3):
            x = (nc >> (13 * su)) & 8191
            if x and _POP[x] > key:
                top = 13 * su + _HI[x]
                if not _beaten(hands, later, su, _HI[x]) and (
                    _droppers(hands, later, su, _PIC[top], any_club) < duck
                ):
                    key = _POP[x]
                    pick = top
        return pick if pick >= 0 else _shortest_low(nc)
    shift = 13 * led
    fx = (hand >> shift) & 8191
    if not fx:
        cl = hand & CLUBM
        return _HI[cl] if cl else _shortest_low(hand)
    br = best - shift
    below = fx & ((1 << br) - 1)
    above = fx >> (br + 1) << (br + 1)
    allowed = hand & (CLUBM if any_club else pic) if pic and led else 0
    if above and led:
        # The cheapest card that no later seat beats, if any, and whether to take it.
        win = above
        while win and _beaten(hands, later, led, _LO[win]):
            win &= win - 1
        if win:
            card = shift + _LO[win]
            if clubs + _droppers(hands, later, led, pic | _PIC[card], any_club) < duck:
                return card
    if allowed:
        return _HI[allowed]
    if below:
        return shift + _HI[below]
    if clubs and not _beaten(hands, later, led, _HI[fx]):
        return shift + _HI[fx]  # forced to take a club trick: shed the top card
    return shift + _LO[fx]


class PIMCPlusBot(Bot):
    """``pimc`` made stronger (see the module's description).

    Options: ``time_limit`` seconds a move (default
    :data:`~lockup.arena.pimc.DEFAULT_TIME_LIMIT` when no budget is given),
    ``iterations`` deals a move (with both, whichever ends first; at least one deal),
    ``wgame`` the game term's weight in tricks (0: tricks only), ``duck`` the clubs that
    make a playout seat duck (1 to 13), ``prune`` the standard errors of early pruning
    (0: none) and ``prune_after`` the deals before it starts.
    """

    name = "pimc+"

    def __init__(
        self,
        seed: int | None = None,
        *,
        time_limit: float | None = None,
        iterations: int | None = None,
        wgame: float = DEFAULT_WGAME,
        duck: int = DEFAULT_DUCK,
        prune: float = DEFAULT_PRUNE,
        prune_after: int = DEFAULT_PRUNE_AFTER,
    ) -> None:
        if time_limit is not None and (
            isinstance(time_limit, bool)
            or not isinstance(time_limit, int | float)
            or not 0 < time_limit <= 60
        ):
            raise ValueError(
                f"time_limit must be a number of seconds in (0, 60], not {time_limit!r}"
            )
        for name, value, low, high in (
            ("iterations", iterations, 1, None),
            ("duck", duck, 1, 13),
            ("prune_after", prune_after, 2, None),
        ):
            if value is None and name == "iterations":
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or value < low
                or (high is not None and value > high)
            ):
                span = f"from {low} to {high}" if high is not None else f"of at least {low}"
                raise ValueError(f"{name} must be a whole number {span}, not {value!r}")
        for name, x in (("wgame", wgame), ("prune", prune)):
            if isinstance(x, bool) or not isinstance(x, int | float) or not 0 <= x <= 100:
                raise ValueError(f"{name} must be a number from 0 to 100, not {x!r}")
        if time_limit is None and iterations is None:
            time_limit = DEFAULT_TIME_LIMIT
        self.time_limit = time_limit
        self.iterations = iterations
        self.wgame = float(wgame)
        self.duck = duck
        self.prune = float(prune)
        self.prune_after = prune_after
        self.rng = random.Random(seed)
        self.deals = 0
        """Deals sampled for the last move."""
        self.pruned: list[Card] = []
        """The cards pruned during the last move, in the order they were dropped."""
        self.means: dict[Card, float] = {}
        """Each candidate's mean value over the deals it was played in (last move)."""

    def choose(self, view: SeatView) -> Card:
        """The legal card of highest mean value among those not pruned."""
        start = time.perf_counter()
        legal = view.legal_mask
        self.pruned = []
        self.means = {}
        if legal & (legal - 1) == 0:
            self.deals = 0
            return legal.bit_length() - 1
        me = view.seat
        others = [s for s in range(4) if s != me]
        sampler = DealSampler.of(view)
        cands = cards_of(legal)
        alive = list(range(len(cands)))
        values: list[list[float]] = [[] for _ in cands]
        led = -1 if view.led_suit is None else view.led_suit
        best = -1 if view.best_card is None else view.best_card
        bseat = -1 if view.best_seat is None else view.best_seat
        trick = (len(view.trick), view.players_in_trick, led, best, bseat)
        clubs, pic = view.clubs_in_trick, view.pic_clubs
        locks0, points0 = list(view.locks), list(view.points)
        tn = view.trick_number
        any_club = view.rules.picture_exception == "any-club"
        upfront = view.rules.lock_discards == "upfront"
        totals, target, wgame = view.totals, view.rules.target, self.wgame
        deadline = start + self.time_limit if self.time_limit is not None else None
        cap = self.iterations if self.iterations is not None else 1 << 40
        rng = self.rng
        sim = random.Random()
        policy = partial(club_aware, self.duck)
        deals = 0
        while deals < cap:
            hidden = sampler.sample(rng)
            hands0 = [0, 0, 0, 0]
            hands0[me] = view.hand_mask
            for k in range(3):
                hands0[others[k]] = hidden[k]
            stream = rng.getrandbits(32)
            for j in alive:
                hands = hands0[:]
                points = points0[:]
                sim.seed(stream)  # common random numbers: one stream for every card
                ntr, npl, led, best, bseat = trick
                playout(
                    hands, locks0[:], points, tn, ntr, npl, led, best, bseat, clubs, pic,
                    me, cands[j], any_club, upfront, sim, policy,
                )  # fmt: skip
                value = float(points[me])
                if wgame:
                    ends = [totals[s] + points[s] for s in range(4)]
                    value += wgame * win_chance(ends, me, target)
                values[j].append(value)
            deals += 1
            if (
                self.prune
                and len(alive) > 1
                and deals >= self.prune_after
                and (deals - self.prune_after) % PRUNE_EVERY == 0
            ):
                alive = self._prune(alive, values, cands)
            if deadline is not None and time.perf_counter() >= deadline - 0.002:
                break
        self.deals = deals
        self.means = {cands[j]: sum(v) / len(v) for j, v in enumerate(values) if v}
        i = max(alive, key=lambda k: (sum(values[k]), -cands[k]))
        return cands[i]

    def _prune(self, alive: list[int], values: list[list[float]], cands: list[Card]) -> list[int]:
        """The candidates kept: those not clearly worse than the best so far (paired
        differences over the same deals, more than ``prune`` standard errors below 0)."""
        top = max(alive, key=lambda k: (sum(values[k]), -cands[k]))
        ref = values[top]
        n = len(ref)
        keep = []
        for j in alive:
            if j == top:
                keep.append(j)
                continue
            diffs = [a - b for a, b in zip(values[j], ref, strict=True)]
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            if mean + self.prune * math.sqrt(var / n) < 0:
                self.pruned.append(cands[j])
            else:
                keep.append(j)
        return keep
