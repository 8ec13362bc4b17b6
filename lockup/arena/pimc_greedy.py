"""``pimc-greedy``: a plain PIMC with a greedy playout, the expert's third sparring partner.

It is written apart from the expert (no code of :mod:`lockup.bots`) and apart from the
other partners (:mod:`lockup.arena.pimc`, :mod:`lockup.arena.pimc_plus`), from a short
description of a plain PIMC kept outside the project, and from nothing more. The rules
are the engine's: what may be played (:func:`lockup.playout.legal`, R5 to R7), what a
trick leaves (:func:`~lockup.playout.trick_end`, R9, R11), the count off the locks
(:func:`~lockup.playout.count_off`, R9, R12), who leads (:func:`~lockup.playout.first_unlocked`)
and which card a lockup discard takes (:func:`~lockup.playout.nth`, R10); the voids a seat
has shown are the engine's record (:attr:`lockup.engine.SeatView.voids`). Each move:

1. **Deals.** It samples uniformly among the deals consistent with what its seat knows:
   its own hand, the cards played and lost, the hand sizes, and the voids shown (a seat
   that did not follow suit, unless it played a club the picture exception allowed, R7;
   a seat that led a club lacks diamonds, hearts and spades, R5). The suits some seat
   lacks are split exactly, by counting the deals each split allows (:class:`Sampler`);
   the other unseen cards are then dealt by a shuffle.
2. **Search.** Every legal card is played on the same sample with the same playout seed
   (the lockup discards). Interchangeable cards are searched once: same suit, no live
   card between them (one another seat may still play, or one in the trick), not a
   picture (:func:`interchangeable`). After every :data:`PRUNE_EVERY` samples, a card
   whose paired mean difference to the best card, plus :data:`PRUNE_SE` standard
   errors, is below zero is dropped. When one card is left, it answers.
3. **Playout**, the same policy for all four seats (:func:`greedy_card`): leading, a card
   higher than every other card left in its suit if it holds one, else the lowest card
   of its longest suit; following, it takes the trick while the trick holds at most
   :data:`TAKE_CLUBS` clubs (the cheapest winning card when last to play, else its top
   card of the suit); when it cannot or will not win, a club the picture exception
   allows (R7), else it ducks with its lowest card of the suit; void in the led suit,
   its lowest club, else its lowest card. Locks, discards and empty tricks are the
   engine's (R9, R10, R12). Played alone against three ``normal`` (each hand dealt four
   times, the policy in each seat), this reading of the description makes +0.48 tricks
   a hand (the description says +0.50); ducking with the highest card that loses
   instead makes -0.30.
4. **Value.** Its tricks this hand, plus :data:`GAME_BONUS` if the game ends after the
   hand with this seat the sole leader (R15), minus it if another seat wins.

Pure CPython. Budget: ``time_limit`` seconds a move (default 0.1) and/or ``iterations``
samples a move, whichever ends first; with ``iterations`` alone and a seed it is
deterministic.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from functools import cache
from typing import Final

from ..bots.base import Bot
from ..cards import CLUBS, Card, cards_of, is_picture, rank_of, suit_of
from ..engine import SeatView
from ..playout import count_off, first_unlocked, legal, nth, trick_end

DEFAULT_TIME_LIMIT: Final = 0.1
"""Seconds a move when no budget is given."""
PRUNE_EVERY: Final = 40
"""Samples between two prunings."""
PRUNE_SE: Final = 2.5
"""A card is dropped when its paired mean difference to the best, plus this many
standard errors, is below zero."""
TAKE_CLUBS: Final = 2
"""A playout seat takes a trick only while it holds at most this many clubs."""
GAME_BONUS: Final = 2.0
"""Added to a playout's value when the hand makes this seat the game's winner,
subtracted when it makes another seat the winner (R15)."""
TRICKS: Final = 13
"""Tricks in a hand (R10)."""

_CLUBS_MASK: Final = 0x1FFF
_PIC: Final = [1 << rank_of(c) if is_picture(c) else 0 for c in range(52)]
"""For each card, the bit of the club of its rank when it is a picture (R7, ``same-rank``:
a jack on the table allows the J of clubs), else 0."""
_SUIT: Final = [suit_of(c) for c in range(52)]


def _low(m: int) -> int:
    """The lowest card of a non-empty mask."""
    return (m & -m).bit_length() - 1


def _lowest_rank(m: int) -> int:
    """The card of lowest rank of a non-empty mask (the lowest suit on a tie)."""
    pick = -1
    for su in range(4):
        x = (m >> (13 * su)) & _CLUBS_MASK
        if x:
            c = 13 * su + _low(x)
            if pick < 0 or c % 13 < pick % 13:
                pick = c
    return pick


def greedy_card(
    hands: list[int],
    turn: int,
    ntr: int,
    npl: int,
    led: int,
    best: int,
    clubs: int,
    pic: int,
    any_club: bool,
) -> int:
    """The playout policy's card for seat ``turn`` (see the module's description).

    ``hands`` is the whole (imagined) deal; the trick under way has ``ntr`` of its ``npl``
    cards, led suit ``led`` (-1 before the lead), best card ``best``, ``clubs`` clubs and
    the picture-club bits ``pic`` (R7). Ties: among the suits it could cash a master of,
    or the longest ones, the lowest suit (diamonds, hearts, spades, then clubs).
    """
    hand = hands[turn]
    lg = legal(hand, led if ntr else -1, pic, any_club)
    if lg & (lg - 1) == 0:
        return lg.bit_length() - 1
    if ntr == 0:
        left = hands[0] | hands[1] | hands[2] | hands[3]
        pick = -1
        pick_n = -1
        long_su = -1
        long_n = -1
        for su in (1, 2, 3, 0):
            x = (lg >> (13 * su)) & _CLUBS_MASK
            if not x:
                continue
            n = x.bit_count()
            top = x.bit_length() - 1
            # A master: no card left in its suit (in any hand) is higher.
            if not ((left >> (13 * su)) & _CLUBS_MASK) >> (top + 1) and n > pick_n:
                pick = 13 * su + top
                pick_n = n
            if n > long_n:
                long_n = n
                long_su = su
        if pick >= 0:
            return pick
        return 13 * long_su + _low((lg >> (13 * long_su)) & _CLUBS_MASK)
    shift = 13 * led
    follow = (hand >> shift) & _CLUBS_MASK
    if not follow:  # void in the led suit: its lowest club, else its lowest card
        cl = hand & _CLUBS_MASK
        return (cl & -cl).bit_length() - 1 if cl else _lowest_rank(hand)
    br = best - shift
    above = follow >> (br + 1) << (br + 1)
    if above and clubs <= TAKE_CLUBS:
        if ntr == npl - 1:
            return (
                shift + (above & -above).bit_length() - 1
            )  # last to play: the cheapest winning card
        return shift + follow.bit_length() - 1  # its top card
    r7 = lg & _CLUBS_MASK if led != CLUBS else 0
    if r7:  # it cannot or will not win: a club the picture exception allows
        return _low(r7)
    return shift + _low(follow)  # duck: its lowest card of the suit


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
    rand: random.Random,
) -> None:
    """Play ``card`` for seat ``turn`` (-1: the policy's card), then the rest of the hand by
    :func:`greedy_card` for every seat, in the engine's order: the same cards and the same
    random lockup discards as the engine's step API given the same ``rand`` (the tests
    check it). ``tn`` is the trick number; the trick under way has ``ntr`` of its ``npl``
    cards (led suit ``led``, best card ``best`` played by ``bseat``, ``clubs`` clubs,
    picture-club bits ``pic``). ``hands``, ``locks`` and ``points`` are updated in place.
    """
    draw = rand.random
    sat_out = [0, 0, 0, 0]  # count_off's tally, not needed here
    while True:
        if card < 0:
            card = greedy_card(hands, turn, ntr, npl, led, best, clubs, pic, any_club)
        hands[turn] ^= 1 << card
        suit = _SUIT[card]
        if ntr == 0:
            led = suit
            best = card
            bseat = turn
        elif suit == led and card > best:  # R8
            best = card
            bseat = turn
        if suit == CLUBS:
            clubs += 1
        pic |= _PIC[card]
        ntr += 1
        card = -1
        if ntr < npl:
            turn = (turn + 1) & 3
            if locks[turn]:  # (the call only where it can change anything)
                turn = first_unlocked(locks, turn)
            continue
        # The trick is complete (R8, R9, R11, R13).
        points[bseat] += 1
        if locks[0] or locks[1] or locks[2] or locks[3]:
            count_off(locks, sat_out)
        lock, nominal = trick_end(bseat, clubs, tn)
        tn += 1
        if lock:
            locks[bseat] = lock
            if upfront:  # R10 upfront: the lock's cards leave at once
                for _ in range(lock):
                    hands[bseat] ^= 1 << nth(hands[bseat], draw())
        # The next trick's start (R10 per-trick discards, R12 empty tricks).
        while True:
            if tn == TRICKS:
                return
            npl = 4
            if locks[0] or locks[1] or locks[2] or locks[3]:
                if not upfront:
                    for s in range(4):
                        if locks[s]:
                            hands[s] ^= 1 << nth(hands[s], draw())
                npl = locks.count(0)
                if npl == 0:  # everyone locked: an empty trick
                    count_off(locks, sat_out)
                    tn += 1
                    continue
            turn = first_unlocked(locks, nominal) if locks[nominal] else nominal
            break
        ntr = 0
        led = best = bseat = -1
        clubs = pic = 0


def game_value(totals: list[int], me: int, target: int) -> float:
    """:data:`GAME_BONUS` if ``totals`` (after the hand) end the game with ``me`` the sole
    leader, minus it if another seat is, else 0 (R15)."""
    top = max(totals)
    if top < target or totals.count(top) != 1:
        return 0.0
    return GAME_BONUS if totals[me] == top else -GAME_BONUS


@cache
def _ways(n: int, caps: tuple[int, int, int]) -> int:
    """The ways to deal ``n`` distinct cards to three seats taking ``caps`` of them."""
    a, b, c = caps
    if min(caps) < 0 or a + b + c != n:
        return 0
    return math.comb(n, a) * math.comb(n - a, b)


class Sampler:
    """Deals of the ``unseen`` cards of seat ``seat`` to the other three seats, uniform
    among the consistent ones: each seat gets its hand size (``sizes``, by seat) and no
    card of a suit it has shown it lacks (``voids``, 4-bit masks by seat).

    The suits some other seat lacks are split first, each split drawn with probability
    proportional to the deals it allows; the cards of the other suits are then dealt to
    the places left by a shuffle. Raises :class:`ValueError` when no deal is consistent.
    """

    def __init__(self, seat: int, unseen: int, sizes: Sequence[int], voids: Sequence[int]) -> None:
        self.seats = [s for s in range(4) if s != seat]
        lacking = [voids[s] & 15 for s in self.seats]
        caps = [sizes[s] for s in self.seats]
        self.split: list[tuple[list[Card], tuple[bool, bool, bool]]] = []
        self.free: list[Card] = []
        for su in range(4):
            cards = cards_of(unseen & (_CLUBS_MASK << (13 * su)))
            lacks = tuple(bool((v >> su) & 1) for v in lacking)
            if any(lacks) and cards:
                self.split.append((cards, (lacks[0], lacks[1], lacks[2])))
            else:
                self.free.extend(cards)
        self._options: dict[tuple[int, int, int, int], list[tuple[tuple[int, int, int], int]]] = {}
        self.caps = (caps[0], caps[1], caps[2])
        self.total = self._count(0, self.caps)
        if not self.total:
            raise ValueError("no deal agrees with these hand sizes and voids")

    @classmethod
    def of(cls, view: SeatView) -> Sampler:
        """The sampler of the deals ``view``'s seat cannot tell apart (the voids are the
        engine's record of those shown: :attr:`lockup.engine.SeatView.voids`)."""
        return cls(view.seat, view.unseen_mask, view.hand_sizes, view.voids)

    def _count(self, i: int, caps: tuple[int, int, int]) -> int:
        """The deals of the split suits from the ``i``-th on and of the free cards, the
        three seats still taking ``caps`` cards."""
        if i == len(self.split):
            return _ways(len(self.free), caps)
        return sum(w for _, w in self._splits(i, caps))

    def _splits(self, i: int, caps: tuple[int, int, int]) -> list[tuple[tuple[int, int, int], int]]:
        """Each way (x0, x1, x2) the ``i``-th split suit can fall to the three seats, still
        taking ``caps`` cards, with the deals it allows (counted once, then kept)."""
        key = (i, *caps)
        got = self._options.get(key)
        if got is not None:
            return got
        cards, lacks = self.split[i]
        n = len(cards)
        got = []
        for x0 in range((0 if lacks[0] else min(n, caps[0])) + 1):
            for x1 in range((0 if lacks[1] else min(n - x0, caps[1])) + 1):
                x2 = n - x0 - x1
                if (x2 and lacks[2]) or x2 > caps[2]:
                    continue
                w = self._count(i + 1, (caps[0] - x0, caps[1] - x1, caps[2] - x2))
                if w:
                    got.append(((x0, x1, x2), w * math.comb(n, x0) * math.comb(n - x0, x1)))
        self._options[key] = got
        return got

    def sample(self, rng: random.Random) -> list[int]:
        """Three hands (masks), for the other seats in seat order."""
        hands = [0, 0, 0]
        caps = self.caps
        for i, (cards, _) in enumerate(self.split):
            options = self._splits(i, caps)
            r = rng.random() * sum(w for _, w in options)
            k = 0
            while k < len(options) - 1:
                r -= options[k][1]
                if r < 0:
                    break
                k += 1
            x = options[k][0]
            deck = cards[:]
            rng.shuffle(deck)
            at = 0
            for s in range(3):
                for c in deck[at : at + x[s]]:
                    hands[s] |= 1 << c
                at += x[s]
            caps = (caps[0] - x[0], caps[1] - x[1], caps[2] - x[2])
        deck = self.free[:]
        rng.shuffle(deck)
        at = 0
        for s in range(3):
            for c in deck[at : at + caps[s]]:
                hands[s] |= 1 << c
            at += caps[s]
        return hands


def interchangeable(view: SeatView) -> dict[Card, Card]:
    """For each legal card of ``view``, the card searched for it: the lowest of its run of
    interchangeable cards (same suit, no live card between them, neither a picture: R7).
    A live card is one another seat may still play (unseen) or one in the trick."""
    live = view.unseen_mask
    for _, c in view.trick:
        live |= 1 << c
    out: dict[Card, Card] = {}
    prev = -1
    for c in cards_of(view.legal_mask):
        if (
            prev >= 0
            and _SUIT[prev] == _SUIT[c]
            and not is_picture(prev)
            and not is_picture(c)
            and not live & (((1 << c) - 1) ^ ((2 << prev) - 1))
        ):
            out[c] = out[prev]
        else:
            out[c] = c
        prev = c
    return out


class GreedyPIMCBot(Bot):
    """A plain PIMC with a greedy playout (see the module's description).

    Options: ``time_limit`` seconds a move (default :data:`DEFAULT_TIME_LIMIT` when no
    budget is given) and ``iterations`` samples a move (with both, whichever ends first;
    at least one sample).
    """

    name = "pimc-greedy"

    def __init__(
        self,
        seed: int | None = None,
        *,
        time_limit: float | None = None,
        iterations: int | None = None,
    ) -> None:
        if time_limit is not None and (
            isinstance(time_limit, bool)
            or not isinstance(time_limit, int | float)
            or not 0 < time_limit <= 60
        ):
            raise ValueError(
                f"time_limit must be a number of seconds in (0, 60], not {time_limit!r}"
            )
        if iterations is not None and (
            isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1
        ):
            raise ValueError(f"iterations must be a whole number of at least 1, not {iterations!r}")
        if time_limit is None and iterations is None:
            time_limit = DEFAULT_TIME_LIMIT
        self.time_limit = time_limit
        self.iterations = iterations
        self.rng = random.Random(seed)
        self.samples = 0
        """Samples (deals) of the last move."""
        self.means: dict[Card, float] = {}
        """The last move's mean value of each card searched (pruned ones included)."""
        self.pruned: list[Card] = []
        """The cards the last move dropped, in order."""

    def choose(self, view: SeatView) -> Card:
        """The searched card of highest mean value (the lowest card on a tie)."""
        start = time.perf_counter()
        self.samples = 0
        self.means = {}
        self.pruned = []
        legal_mask = view.legal_mask
        if legal_mask & (legal_mask - 1) == 0:
            return legal_mask.bit_length() - 1
        cands = sorted(set(interchangeable(view).values()))
        if len(cands) == 1:
            return cands[0]
        me = view.seat
        sampler = Sampler.of(view)
        seats = sampler.seats
        led = -1 if view.led_suit is None else view.led_suit
        best = -1 if view.best_card is None else view.best_card
        bseat = -1 if view.best_seat is None else view.best_seat
        ntr, npl = len(view.trick), view.players_in_trick
        clubs, pic, tn = view.clubs_in_trick, view.pic_clubs, view.trick_number
        locks0, points0 = list(view.locks), list(view.points)
        any_club = view.rules.picture_exception == "any-club"
        upfront = view.rules.lock_discards == "upfront"
        totals, target = view.totals, view.rules.target
        deadline = None if self.time_limit is None else start + self.time_limit
        cap = self.iterations if self.iterations is not None else 1 << 40
        rng = self.rng
        sim = random.Random()
        values: list[list[float]] = [[] for _ in cands]
        alive = list(range(len(cands)))
        n = 0
        while n < cap and len(alive) > 1:
            hidden = sampler.sample(rng)
            deal = [0, 0, 0, 0]
            deal[me] = view.hand_mask
            for k in range(3):
                deal[seats[k]] = hidden[k]
            seed = rng.getrandbits(32)
            for j in alive:
                hands = deal[:]
                points = points0[:]
                sim.seed(seed)
                playout(
                    hands, locks0[:], points, tn, ntr, npl, led, best, bseat, clubs, pic,
                    me, cands[j], any_club, upfront, sim,
                )  # fmt: skip
                ends = [totals[s] + points[s] for s in range(4)]
                values[j].append(points[me] + game_value(ends, me, target))
            n += 1
            if n % PRUNE_EVERY == 0:
                alive = self._prune(alive, values, cands)
            if deadline is not None and time.perf_counter() >= deadline - 0.002:
                break
        self.samples = n
        self.means = {cands[j]: sum(v) / len(v) for j, v in enumerate(values) if v}
        return cands[max(alive, key=lambda k: (sum(values[k]), -cands[k]))]

    def _prune(self, alive: list[int], values: list[list[float]], cands: list[Card]) -> list[int]:
        """The cards kept: every card but those whose paired mean difference to the best
        so far, plus :data:`PRUNE_SE` standard errors, is below zero."""
        top = max(alive, key=lambda k: (sum(values[k]), -cands[k]))
        ref = values[top]
        n = len(ref)
        keep = []
        for j in alive:
            if j != top:
                diffs = [a - b for a, b in zip(values[j], ref, strict=True)]
                mean = sum(diffs) / n
                var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
                if mean + PRUNE_SE * math.sqrt(var / n) < 0:
                    self.pruned.append(cands[j])
                    continue
            keep.append(j)
        return keep
