"""The trick, written once: the rules of a trick as typed functions over ints and masks,
and the engine's playout built on them.

:class:`lockup.engine.Game` (the checked step API) and :func:`play_out` (the playout that
search and the benchmark lean on) make every decision of a trick by the same functions:
what may be played (:func:`legal`, R5 to R7), which voids a card shows (:func:`voids_shown_by`,
R5 to R7), what a completed trick leaves (:func:`trick_end`, R9, R11), the count off the
locks (:func:`count_off`, R9, R12), who leads (:func:`first_unlocked`, R11, R12) and which
card a random draw picks (:func:`nth`, R3, R10). They are kept apart from
:mod:`lockup.engine` so that they can be compiled: every name here is typed, it imports
nothing but the standard library's typing, and it works on plain lists and ints. ``make
engine`` (which ``make test``, ``make run`` and ``make bench`` call) compiles it with mypyc
into a C extension next to this file; without a compiler the same source runs as Python,
with the same results. :func:`lockup.engine.implementation` says which is in use.

It is pure in the engine's sense (no I/O, randomness only from ``rand``) and the playout
does exactly what the checked step-by-step API does, draw for draw: the tests play the
same hands both ways under every rule option and compare every field of the state.
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
    engine draws this way: :meth:`lockup.engine.Game.chance_move` (the deal's shuffle
    aside), the playout, and ``lockup.engine.nth_card``, which is this function; the
    search kernel (``lockup.bots._kernel``) picks the same k-th lowest card from its
    own 32-bit generator (``u = r / 2**32``).
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


def legal(hand: int, led: int, pic: int, any_club: bool) -> int:
    """R5 to R7: the cards of ``hand`` its seat may play to the current trick, as a mask.

    ``led`` is the suit led (-1: the seat leads), ``pic`` the clubs the trick's pictures
    allow under ``same-rank`` (club bits J, Q, K: the engine's ``pic_clubs``), ``any_club``
    the R7 option ``any-club``.
    """
    if led < 0:
        return hand & NON_CLUB_MASK or hand  # R5: a club only from an all-club hand
    follow = hand & CLUB_MASK << 13 * led
    if not follow:  # R6: void in the led suit
        return hand
    if pic:  # R7: a picture on the table lets a club stand in
        return follow | (hand & (CLUB_MASK if any_club else pic))
    return follow


def voids_shown_by(card: int, led: int, pic: int, any_club: bool) -> int:
    """R5 to R7: the suits (a 4-bit mask) that playing ``card`` shows its seat lacks.

    Leading a club (``led`` -1) shows an all-club hand (R5); not following the led suit
    shows a void in it (R6), unless the card is a club a picture allowed (R7).
    """
    suit = _SUIT[card]
    if led < 0:
        return 0b1110 if suit == CLUBS else 0
    if suit == led or (suit == CLUBS and pic and (any_club or (pic >> card) & 1)):
        return 0
    return 1 << led


def show_voids(voids: list[int], shown: list[int], seat: int, suits: int, number: int) -> None:
    """Record that ``seat`` has shown, in trick ``number``, that it lacks ``suits``.

    ``voids`` are the seats' 4-bit masks; ``shown`` gets ``seat | suit << 2 | number << 4``
    for each suit not shown before (the engine's compact record, R5, R6).
    """
    new = suits & ~voids[seat]
    if new:
        voids[seat] |= new
        for suit in range(4):
            if (new >> suit) & 1:
                shown.append(seat | suit << 2 | number << 4)


def trick_end(winner: int, clubs: int, number: int) -> tuple[int, int]:
    """R9, R11: what trick ``number`` (0 to 12), won by ``winner`` with ``clubs`` clubs in
    it, leaves: the winner's lock (0 for none) and the seat that would lead next."""
    if clubs:
        return min(clubs, TRICKS_PER_HAND - 1 - number), (winner + 1) % 4
    return 0, winner


def count_off(locks: list[int], sat_out: list[int]) -> None:
    """R9, R12: a trick is complete (an empty one too): one off every lock, and one more
    trick sat out for each seat that was locked."""
    for s in range(4):
        if locks[s]:
            locks[s] -= 1
            sat_out[s] += 1


def first_unlocked(locks: list[int], seat: int) -> int:
    """R11, R12: the first seat clockwise from ``seat`` (itself included) not locked."""
    while locks[seat]:
        seat = (seat + 1) % 4
    return seat


def lose(
    hands: list[int], lost: list[int], lost_order: list[list[int]], seat: int, card: int
) -> None:
    """R10: ``card`` leaves ``seat``'s hand to lockup (``lost`` and ``lost_order`` get it)."""
    hands[seat] ^= 1 << card
    lost[seat] |= 1 << card
    lost_order[seat].append(card)


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
    a card shows (R5, R6), as the engine records it; ``tricks`` gets ``make_trick(...)``
    for each trick. Every card is ``nth(legal(...), rand())`` and every lockup discard
    ``nth(hand, rand())``, in the order the step API makes them. Returns ``(played,
    number, nominal, leader, n, empty_tricks)``: the mask of cards played, the trick
    count (13), the seat that would lead next, the leader of the last trick played, how
    many seats played it, and how many empty tricks (R12) the playout added.
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
        clubs = 0
        pic = 0
        while True:
            hand = hands[turn]
            card = nth(legal(hand, led, pic, any_club), rand())
            suit = _SUIT[card]
            if suit == led:
                if card > best:  # R8
                    best = card
                    best_seat = turn
            else:
                suits = voids_shown_by(card, led, pic, any_club)
                if suits:
                    show_voids(voids, voids_shown, turn, suits, number)
                if led < 0:
                    led = suit
                    best = card
                    best_seat = turn
            if suit == CLUBS:
                clubs += 1
            pic |= _PIC_CLUB_BIT[card]
            bit = 1 << card
            hands[turn] = hand ^ bit
            played |= bit
            trick.append((turn, card))
            if len(trick) == n:
                break
            turn = first_unlocked(locks, (turn + 1) % 4)
        # ---- the trick is complete (R8, R9, R11, R13)
        points[best_seat] += 1
        count_off(locks, sat_out)
        lock, nominal = trick_end(best_seat, clubs, number)
        if lock:
            locks[best_seat] = lock
            times_locked[best_seat] += 1
        tricks.append(make_trick((number, leader, tuple(trick), best_seat, clubs, lock)))
        number += 1
        if lock and upfront:  # R10 upfront: the lock's cards leave at once
            for _ in range(lock):
                lose(hands, lost, lost_order, best_seat, nth(hands[best_seat], rand()))
        # ---- the next trick's start (R10 per-trick discards, R12 empty tricks)
        while True:
            if number == TRICKS_PER_HAND:
                break
            if locks[0] or locks[1] or locks[2] or locks[3]:
                if not upfront:
                    for s in range(4):
                        if locks[s]:
                            lose(hands, lost, lost_order, s, nth(hands[s], rand()))
                n = locks.count(0)
                if n == 0:  # R12: everyone locked, an empty trick
                    empty += 1
                    count_off(locks, sat_out)
                    tricks.append(make_trick((number, None, (), None, 0, 0)))
                    number += 1
                    continue
            else:
                n = 4
            turn = first_unlocked(locks, nominal)
            break
        if number == TRICKS_PER_HAND:
            return played, number, nominal, leader, n, empty
