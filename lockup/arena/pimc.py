"""``pimc``: a plain determinized Monte Carlo player, the expert's sparring partner.

It is written apart from the expert on purpose: no code of
:mod:`lockup.bots` is shared, so that it measures the expert from outside. Each move:

1. **Deals**: the cards it has not seen are dealt to the other three seats, uniformly
   among all deals that agree with its view (their hand sizes, no card of a suit a seat
   has shown it lacks): an exact count of the deals by how many cards of each suit each
   seat gets, then a shuffle within suits. No weighting by the others' plays.
2. **Playouts**: in each deal, every legal card is played and the hand played out by a
   simple greedy policy for all four seats (below), lockup discards at random; the
   candidate cards of one deal share their random stream.
3. **Value**: its tricks at the end of the hand, plus ``bonus`` when the hand ends the
   game with it the winner (R15). It plays the card of highest mean value.

The greedy policy: lead the highest non-club card (of the longest suit on ties); follow
a trick holding clubs with the highest card that loses; throw a club allowed by the
picture exception (R7) unless it is the last seat and can take a clean trick; win a
clean trick when it can (cheaply from the last seat, with its highest card otherwise);
void, throw its highest club, or else its lowest card of its shortest suit.

It is plain Python; the random lockup discards use the compiled engine's card pick
(:func:`lockup.playout.nth`). Budget: ``time_limit`` seconds a move (default 0.1) and/or
``iterations`` deals a move.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Final

from ..bots.base import Bot
from ..cards import Card, cards_of
from ..engine import SeatView
from ..playout import nth

CLUBM: Final = 0x1FFF
NONCLUB: Final = ((1 << 52) - 1) ^ CLUBM
_HI: Final = [x.bit_length() - 1 for x in range(8192)]
_LO: Final = [(x & -x).bit_length() - 1 for x in range(8192)]
_POP: Final = [x.bit_count() for x in range(8192)]
_PIC: Final = [1 << (c % 13) if 9 <= c % 13 <= 11 else 0 for c in range(52)]
_BINOM: Final = [[0] * 14 for _ in range(14)]
for _n in range(14):
    _BINOM[_n][0] = 1
    for _k in range(1, _n + 1):
        _BINOM[_n][_k] = _BINOM[_n - 1][_k - 1] + (_BINOM[_n - 1][_k] if _k < _n else 0)

DEFAULT_TIME_LIMIT = 0.1
DEFAULT_BONUS = 2.0

Policy = Callable[[list[int], list[int], int, int, int, int, int, int, int, bool], int]
"""A playout policy other than the greedy one: called as ``policy(hands, locks, turn,
ntr, npl, led, best, clubs, pic, any_club)`` with the whole (imagined) deal and the trick
under way as :func:`playout` keeps them, it answers a legal card of ``hands[turn]``."""


def _greedy(
    hand: int, ntr: int, led: int, best: int, clubs: int, pic: int, last: bool, any_club: bool
) -> int:
    """The greedy policy's card for a hand (see the module's description)."""
    if ntr == 0:
        nc = hand & NONCLUB
        if not nc:
            return _LO[hand & CLUBM]
        pick = -1
        key = -1
        for su in (1, 2, 3):
            x = (nc >> (13 * su)) & 8191
            if x:
                k = _HI[x] * 16 + _POP[x]
                if k > key:
                    key = k
                    pick = 13 * su + _HI[x]
        return pick
    shift = 13 * led
    fx = (hand >> shift) & 8191
    if not fx:
        cl = hand & CLUBM
        if cl:
            return _HI[cl]
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
    br = best - shift
    below = fx & ((1 << br) - 1)
    above = fx >> (br + 1) << (br + 1)
    allowed = hand & (CLUBM if any_club else pic) if pic and led else 0
    if clubs:
        if below:
            return shift + _HI[below]
        if allowed:
            return _HI[allowed]
        return shift + _LO[fx]
    if allowed and not (last and above):
        return _HI[allowed]
    if above:
        return shift + (_LO[above] if last else _HI[above])
    return shift + _LO[fx]


def playout(
    hands: list[int],
    locks: list[int],
    points: list[int],
    tn: int,
    ntr: int,
    npl: int,
    led: int,
    best: int,
    bseat: int,
    clubs: int,
    pic: int,
    turn: int,
    card: int,
    any_club: bool,
    upfront: bool,
    rnd: random.Random,
    policy: Policy | None = None,
) -> None:
    """Play ``card`` for ``turn``, then the rest of the hand greedily (R4-R13), or by
    ``policy`` when one is given.

    The current trick has ``ntr`` of its ``npl`` cards (led suit ``led``, best card
    ``best`` by ``bseat``, ``clubs`` clubs, picture-club bits ``pic``); ``hands``,
    ``locks`` and ``points`` are updated in place.
    """
    rand = rnd.random
    while True:
        if card < 0:
            if policy is None:
                card = _greedy(hands[turn], ntr, led, best, clubs, pic, ntr == npl - 1, any_club)
            else:
                card = policy(hands, locks, turn, ntr, npl, led, best, clubs, pic, any_club)
        hands[turn] ^= 1 << card
        suit = card // 13
        if ntr == 0:
            led = suit
            best = card
            bseat = turn
        elif suit == led and card > best:
            best = card
            bseat = turn
        if suit == 0:
            clubs += 1
        pic |= _PIC[card]
        ntr += 1
        card = -1
        if ntr < npl:
            turn = (turn + 1) % 4
            while locks[turn]:
                turn = (turn + 1) % 4
            continue
        # The trick is complete (R8, R9, R11).
        points[bseat] += 1
        for s in range(4):
            if locks[s]:
                locks[s] -= 1
        tn += 1
        nom = bseat
        if clubs:
            nom = (bseat + 1) % 4
            lock = min(clubs, 13 - tn)
            if lock:
                locks[bseat] = lock
                if upfront:
                    for _ in range(lock):
                        hands[bseat] ^= 1 << nth(hands[bseat], rand())
        # The next trick's start (R10, R12).
        while True:
            if tn == 13:
                return
            n = 4
            for s in range(4):
                if locks[s]:
                    n -= 1
                    if not upfront:
                        hands[s] ^= 1 << nth(hands[s], rand())
            if n:
                break
            for s in range(4):
                locks[s] -= 1
            tn += 1
        turn = nom
        while locks[turn]:
            turn = (turn + 1) % 4
        ntr = 0
        npl = n
        led = best = bseat = -1
        clubs = pic = 0


class DealSampler:
    """Deals of the unseen cards to three seats, uniform among those respecting voids.

    ``caps`` are the seats' hand sizes, ``voids`` their 4-bit masks of suits shown lacking.
    """

    def __init__(self, unseen: int, caps: list[int], voids: list[int]) -> None:
        self.caps = caps
        self.suit_cards = [cards_of(unseen & (CLUBM << (13 * su))) for su in range(4)]
        if not self._count(voids):  # defensive: inconsistent voids, ignore them
            self._count([0, 0, 0])

    @classmethod
    def of(cls, view: SeatView) -> DealSampler:
        """The sampler of the deals ``view`` allows the other three seats (in seat order)."""
        others = [s for s in range(4) if s != view.seat]
        return cls(
            view.unseen_mask,
            [view.hand_sizes[s] for s in others],
            [view.voids[s] & 15 for s in others],
        )

    def _count(self, voids: list[int]) -> bool:
        """Count the deals suit by suit; ``self.choices[su][(a, b)]`` lists, for the first
        two seats still taking ``a`` and ``b`` cards from suits ``su..3``, each split of
        suit ``su`` (x0, x1) with the number of deals it leads to."""
        n = [len(c) for c in self.suit_cards]
        count: list[dict[tuple[int, int], int]] = [{} for _ in range(5)]
        count[4][(0, 0)] = 1
        self.choices: list[dict[tuple[int, int], list[tuple[int, int, int]]]] = [
            {} for _ in range(4)
        ]
        rest = 0
        c0, c1, c2 = self.caps
        for su in range(3, -1, -1):
            k = n[su]
            rest += k
            v0, v1, v2 = ((v >> su) & 1 for v in voids)
            for a in range(min(c0, rest) + 1):
                for b in range(min(c1, rest - a) + 1):
                    if rest - a - b > c2:
                        continue
                    splits = []
                    total = 0
                    for x0 in range(0 if v0 else min(k, a), -1, -1):
                        for x1 in range(0 if v1 else min(k - x0, b), -1, -1):
                            if k - x0 - x1 and v2:
                                continue
                            f = count[su + 1].get((a - x0, b - x1), 0)
                            if f:
                                w = _BINOM[k][x0] * _BINOM[k - x0][x1] * f
                                splits.append((x0, x1, w))
                                total += w
                    if total:
                        count[su][(a, b)] = total
                        self.choices[su][(a, b)] = splits
        return count[0].get((c0, c1), 0) > 0

    def sample(self, rnd: random.Random) -> list[int]:
        """Three hands (masks), for the seats in the order given."""
        hands = [0, 0, 0]
        a, b = self.caps[0], self.caps[1]
        for su in range(4):
            splits = self.choices[su][(a, b)]
            i = 0
            if len(splits) > 1:
                r = rnd.random() * sum(w for _, _, w in splits)
                last = len(splits) - 1
                while i < last:
                    r -= splits[i][2]
                    if r < 0:
                        break
                    i += 1
            x0, x1 = splits[i][0], splits[i][1]
            cs = self.suit_cards[su][:]
            rnd.shuffle(cs)
            for c in cs[:x0]:
                hands[0] |= 1 << c
            for c in cs[x0 : x0 + x1]:
                hands[1] |= 1 << c
            for c in cs[x0 + x1 :]:
                hands[2] |= 1 << c
            a -= x0
            b -= x1
        return hands


class PlainPIMCBot(Bot):
    """A plain determinized Monte Carlo search (see the module's description).

    Options: ``time_limit`` seconds a move (default :data:`DEFAULT_TIME_LIMIT` when no
    budget is given), ``iterations`` deals a move (with both, whichever ends first; at
    least one deal), ``bonus`` the value of winning the game in tricks.
    """

    name = "pimc"

    def __init__(
        self,
        seed: int | None = None,
        *,
        time_limit: float | None = None,
        iterations: int | None = None,
        bonus: float = DEFAULT_BONUS,
    ) -> None:
        if time_limit is not None and not (
            isinstance(time_limit, int | float) and not isinstance(time_limit, bool)
        ):
            raise ValueError(f"time_limit must be a number of seconds, not {time_limit!r}")
        if time_limit is not None and not 0 < time_limit <= 60:
            raise ValueError(f"time_limit must be in (0, 60], not {time_limit!r}")
        if iterations is not None and (
            isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1
        ):
            raise ValueError(f"iterations must be a whole number of at least 1, not {iterations!r}")
        if isinstance(bonus, bool) or not isinstance(bonus, int | float) or not 0 <= bonus <= 100:
            raise ValueError(f"bonus must be a number from 0 to 100, not {bonus!r}")
        if time_limit is None and iterations is None:
            time_limit = DEFAULT_TIME_LIMIT
        self.time_limit = time_limit
        self.iterations = iterations
        self.bonus = float(bonus)
        self.rng = random.Random(seed)
        self.deals = 0
        """Deals sampled for the last move."""

    def choose(self, view: SeatView) -> Card:
        """The legal card of highest mean value over the sampled deals."""
        start = time.perf_counter()
        legal = view.legal_mask
        if legal & (legal - 1) == 0:
            self.deals = 0
            return legal.bit_length() - 1
        me = view.seat
        others = [s for s in range(4) if s != me]
        sampler = DealSampler.of(view)
        cands = cards_of(legal)
        sums = [0.0] * len(cands)
        led = -1 if view.led_suit is None else view.led_suit
        best = -1 if view.best_card is None else view.best_card
        bseat = -1 if view.best_seat is None else view.best_seat
        clubs = view.clubs_in_trick
        pic = view.pic_clubs
        locks0 = list(view.locks)
        points0 = list(view.points)
        npl = view.players_in_trick
        ntr = len(view.trick)
        tn = view.trick_number
        rules = view.rules
        any_club = rules.picture_exception == "any-club"
        upfront = rules.lock_discards == "upfront"
        totals = view.totals
        target = rules.target
        bonus = self.bonus
        deadline = start + self.time_limit if self.time_limit is not None else None
        cap = self.iterations if self.iterations is not None else 1 << 40
        rng = self.rng
        sim = random.Random()
        deals = 0
        while deals < cap:
            hidden = sampler.sample(rng)
            hands0 = [0, 0, 0, 0]
            hands0[me] = view.hand_mask
            for k in range(3):
                hands0[others[k]] = hidden[k]
            stream = rng.getrandbits(32)
            for j, card in enumerate(cands):
                hands = hands0[:]
                points = points0[:]
                sim.seed(stream)
                playout(
                    hands, locks0[:], points, tn, ntr, npl, led, best, bseat, clubs, pic,
                    me, card, any_club, upfront, sim,
                )  # fmt: skip
                value = float(points[me])
                if bonus:
                    mine = totals[me] + points[me]
                    rest = max(totals[s] + points[s] for s in others)
                    if mine >= target and mine > rest:
                        value += bonus
                sums[j] += value
            deals += 1
            if deadline is not None and time.perf_counter() >= deadline - 0.002:
                break
        self.deals = deals
        i = max(range(len(cands)), key=lambda k: (sums[k], -cands[k]))
        return cands[i]
