"""The engine's playout: the rest of a hand with random legal cards and random discards.

This is the loop search and the benchmark lean on, kept apart from :mod:`lockup.engine`
so that it can be compiled: every name here is typed, it imports nothing but the
standard library's typing, and it works on plain lists and ints. ``make engine`` (which
``make test``, ``make run`` and ``make bench`` call) compiles it with mypyc into a C
extension next to this file; without a compiler the same source runs as Python, with
the same results. :func:`lockup.engine.implementation` says which is in use.

It is pure in the engine's sense (no I/O, randomness only from ``rand``) and does
exactly what the checked step-by-step API does, draw for draw: the tests play the same
hands both ways under every rule option and compare every field of the state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

CLUBS: Final = 0
TRICKS_PER_HAND: Final = 13
CLUB_MASK: Final = 0x1FFF
NON_CLUB_MASK: Final = ((1 << 52) - 1) ^ 0x1FFF
SUIT_MASKS: Final = (0x1FFF, 0x1FFF << 13, 0x1FFF << 26, 0x1FFF << 39)

# Each J, Q, K (ranks 9 to 11) maps to the bit of the club of that rank (R7, same-rank).
_PIC_CLUB_BIT: Final = [1 << (c % 13) if 9 <= c % 13 <= 11 else 0 for c in range(52)]
_SUIT: Final = [c // 13 for c in range(52)]
# For each 13-bit set of ranks, the ranks in it (a uniform pick within one suit).
_RANKS_OF: Final = [[r for r in range(13) if (m >> r) & 1] for m in range(1 << 13)]


def nth(mask: int, u: float) -> int:
    """The card of a non-empty mask picked by ``u`` in [0, 1): the ``int(u * n)``-th lowest
    of its n cards.

    With ``u = rng.random()`` this draws a card uniformly. Every random choice of the
    engine draws this way: :meth:`lockup.engine.Game.discard_random`, the playout, and
    ``lockup.engine.nth_card``, which is this function.
    """
    k = int(u * mask.bit_count())
    base = 0
    while True:  # suit by suit, a table lookup each
        ranks = _RANKS_OF[mask & 0x1FFF]
        n = len(ranks)
        if k < n:
            return base + ranks[k]
        k -= n
        mask >>= 13
        base += 13


def play_out(
    hands: list[int],
    voids: list[int],
    voids_shown: list[int],
    locks: list[int],
    points: list[int],
    sat_out: list[int],
    times_locked: list[int],
    lost: list[int],
    lost_order: list[list[int]],
    tricks: list[Any],
    make_trick: Callable[[tuple[Any, ...]], Any],
    any_club: bool,
    upfront: bool,
    played: int,
    number: int,
    turn: int,
    n: int,
    rand: Callable[[], float],
) -> tuple[int, int, int, int, int, int]:
    """Play the hand to its end from the lead of trick ``number`` (its discards made).

    ``turn`` leads, ``n`` seats play the trick; the lists are the game's own and are
    updated in place: ``voids_shown`` gets ``seat | suit << 2 | trick << 4`` for each void
    a card shows (R5, R6), as the engine records it; ``tricks`` gets ``make_trick(...)`` for each trick. Returns ``(played, number, nominal, leader, n, empty_tricks)``:
    the mask of cards played, the trick count (13), the seat that would lead next, the
    leader of the last trick played, how many seats played it, and how many empty
    tricks (R12) the playout added.
    """
    nominal = turn
    leader = turn
    empty = 0
    while True:
        # ---- one trick, from its lead (R4 to R8)
        leader = turn
        trick: list[tuple[int, int]] = []
        led = -1
        best = -1
        best_seat = -1
        led_shift = 0
        clubs = 0
        pic = 0
        while True:
            hand = hands[turn]
            follow = (hand >> led_shift) & 0x1FFF if trick else 0
            bit = 0
            if follow and not (pic and hand & (CLUB_MASK if any_club else pic)):
                # R6, the common case: a card of the led suit, and no picture club (R7)
                # that could stand in for it.
                ranks = _RANKS_OF[follow]
                card = led_shift + ranks[int(rand() * len(ranks))]
                bit = 1 << card
                if card > best:
                    best = card
                    best_seat = turn
                if not led:  # clubs were led (R5)
                    clubs += 1
            else:
                if not trick:
                    legal = hand & NON_CLUB_MASK or hand  # R5
                elif follow:
                    legal = hand & (SUIT_MASKS[led] | (CLUB_MASK if any_club else pic))
                else:
                    legal = hand  # R6: void in the led suit
                card = nth(legal, rand())
                bit = 1 << card
                suit = _SUIT[card]
                if not trick:
                    led = suit
                    led_shift = 13 * suit
                    best = card
                    best_seat = turn
                    if suit == CLUBS and voids[turn] & 0b1110 != 0b1110:
                        # R5: an all-club hand shows it
                        for x in range(1, 4):
                            if not (voids[turn] >> x) & 1:
                                voids_shown.append(turn | x << 2 | number << 4)
                        voids[turn] |= 0b1110
                elif suit == led:
                    if card > best:
                        best = card
                        best_seat = turn
                elif not (suit == CLUBS and pic and (any_club or pic & bit)):
                    # R6: did not follow, without R7's excuse
                    v = voids[turn]
                    if not (v >> led) & 1:
                        voids[turn] = v | 1 << led
                        voids_shown.append(turn | led << 2 | number << 4)
                if suit == CLUBS:
                    clubs += 1
            pic |= _PIC_CLUB_BIT[card]
            hands[turn] = hand ^ bit
            played |= bit
            trick.append((turn, card))
            if len(trick) == n:
                break
            turn = (turn + 1) % 4
            while locks[turn]:
                turn = (turn + 1) % 4
        # ---- the trick is complete (R8, R9, R11, R13)
        points[best_seat] += 1
        if locks[0] or locks[1] or locks[2] or locks[3]:
            for s in range(4):
                if locks[s]:
                    locks[s] -= 1
                    sat_out[s] += 1
        lock = 0
        if clubs:
            lock = min(clubs, TRICKS_PER_HAND - 1 - number)
            if lock:
                locks[best_seat] = lock
                times_locked[best_seat] += 1
            nominal = (best_seat + 1) % 4
        else:
            nominal = best_seat
        tricks.append(make_trick((number, leader, tuple(trick), best_seat, clubs, lock)))
        number += 1
        if lock and upfront:  # R10 upfront: the lock's cards leave at once
            for _ in range(lock):
                c = nth(hands[best_seat], rand())
                hands[best_seat] ^= 1 << c
                lost[best_seat] |= 1 << c
                lost_order[best_seat].append(c)
        # ---- the next trick's start (R10 per-trick discards, R12 empty tricks)
        while True:
            if number == TRICKS_PER_HAND:
                break
            if locks[0] or locks[1] or locks[2] or locks[3]:
                if not upfront:
                    for s in range(4):
                        if locks[s]:
                            c = nth(hands[s], rand())
                            hands[s] ^= 1 << c
                            lost[s] |= 1 << c
                            lost_order[s].append(c)
                n = locks.count(0)
                if n == 0:  # R12: everyone locked, an empty trick
                    empty += 1
                    for s in range(4):
                        locks[s] -= 1
                        sat_out[s] += 1
                    tricks.append(make_trick((number, None, (), None, 0, 0)))
                    number += 1
                    continue
            else:
                n = 4
            turn = nominal
            while locks[turn]:
                turn = (turn + 1) % 4
            break
        if number == TRICKS_PER_HAND:
            return played, number, nominal, leader, n, empty
