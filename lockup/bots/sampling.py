"""Dealing the cards a seat has not seen, uniformly among the deals consistent with its view.

A seat knows its own hand, every card played, every card lockup took (R10: shown to
everyone), each seat's hand size and the suits each seat has shown it lacks (R5, R6,
:attr:`lockup.engine.SeatView.voids`). The unseen cards are in the other three hands; a
*consistent deal* gives each of those seats exactly its hand size and no card of a suit it
has shown it lacks. This module counts those deals and draws one uniformly; it is the
project's one copy of that rule:

- :func:`deal_counts` is the counting table, suit by suit, that both samplers draw from;
- :func:`sample_hidden_hands` draws with a ``random.Random`` (the OpenSpiel adapter,
  :mod:`lockup.openspiel_game`);
- :func:`lockup.bots._kernel.sample_hidden` draws with the search kernel's own generator,
  from the same table (:class:`lockup.bots.kernel.Position` builds it with
  :func:`deal_tables`).

The draw goes suit by suit (clubs first): it picks how many of the suit's unseen cards
each of the three seats gets, with probability proportional to the number of consistent
deals of all the suits that remain, then which cards, by a shuffle of the suit's cards.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from math import comb
from typing import NamedTuple

from ..cards import SUIT_MASKS, CardMask, cards_of

BINOM: tuple[float, ...] = tuple(float(comb(n, k)) for n in range(15) for k in range(15))
"""``BINOM[15*n + k]``: n choose k for n, k up to 14, as floats (0 when k > n)."""


def dp_index(suit: int, a: int, b: int) -> int:
    """Where :func:`deal_counts` keeps the count for suits ``suit..3`` when the first two
    seats still take ``a`` and ``b`` cards: ``(suit*14 + a)*14 + b``."""
    return (suit * 14 + a) * 14 + b


@lru_cache(maxsize=1 << 14)
def _deal_counts(
    caps: tuple[int, int, int], voids: tuple[int, int, int], suit_n: tuple[int, int, int, int]
) -> tuple[int, ...]:
    dp = [0] * (5 * 14 * 14)
    dp[dp_index(4, 0, 0)] = 1
    rest = 0
    for su in range(3, -1, -1):
        n = suit_n[su]
        rest += n
        v0 = (voids[0] >> su) & 1
        v1 = (voids[1] >> su) & 1
        v2 = (voids[2] >> su) & 1
        for a in range(min(caps[0], rest) + 1):
            for b in range(min(caps[1], rest - a) + 1):
                if rest - a - b > caps[2]:
                    continue
                total = 0
                for x0 in range(min(n, a) + 1):
                    if x0 and v0:
                        break
                    for x1 in range(min(n - x0, b) + 1):
                        if x1 and v1:
                            break
                        if n - x0 - x1 and v2:
                            continue
                        f = dp[dp_index(su + 1, a - x0, b - x1)]
                        if f:
                            total += comb(n, x0) * comb(n - x0, x1) * f
                dp[dp_index(su, a, b)] = total
    return tuple(dp)


def deal_counts(caps: Sequence[int], voids: Sequence[int], suit_n: Sequence[int]) -> list[int]:
    """The counting table of consistent deals, exact.

    ``caps`` are the three other seats' hand sizes (at most 13 each, summing to the unseen
    cards), ``voids`` their 4-bit masks of suits shown lacking, ``suit_n[su]`` the unseen
    cards of suit ``su``. Entry :func:`dp_index` ``(su, a, b)`` is the number of ways to deal
    the unseen cards of suits ``su..3`` when the first seat still takes ``a`` cards, the
    second ``b`` and the third the rest, no seat getting a suit it lacks; entry
    ``dp_index(0, caps[0], caps[1])`` is the number of consistent deals.
    """
    return list(
        _deal_counts(
            (caps[0], caps[1], caps[2]),
            (voids[0] & 15, voids[1] & 15, voids[2] & 15),
            (suit_n[0], suit_n[1], suit_n[2], suit_n[3]),
        )
    )


class DealTables(NamedTuple):
    """What a sampler needs to deal the unseen cards to the three other seats."""

    seats: list[int]
    """The three other seats, in seat order."""
    caps: list[int]
    """Their hand sizes."""
    voids: list[int]
    """Their 4-bit masks of suits shown lacking."""
    suit_cards: list[int]
    """``suit_cards[13*su + i]``: the i-th unseen card of suit ``su`` (52 entries)."""
    suit_n: list[int]
    """Unseen cards of each suit."""
    dp: list[int]
    """:func:`deal_counts` of the above."""

    @property
    def total(self) -> int:
        """The number of consistent deals."""
        return self.dp[dp_index(0, self.caps[0], self.caps[1])]


def deal_tables(
    seat: int, unseen: CardMask, sizes: Sequence[int], voids: Sequence[int]
) -> DealTables:
    """The tables for dealing ``unseen`` to the seats other than ``seat``.

    ``sizes`` and ``voids`` are given for all four seats (as
    :attr:`lockup.engine.SeatView.hand_sizes` and :attr:`~lockup.engine.SeatView.voids`).
    Raises :class:`ValueError` when the other hands cannot hold exactly the unseen cards.
    """
    others = [s for s in range(4) if s != seat]
    caps = [sizes[s] for s in others]
    if sum(caps) != unseen.bit_count() or not all(0 <= c <= 13 for c in caps):
        raise ValueError(f"{unseen.bit_count()} unseen cards cannot fill hands of {caps} cards")
    suit_cards = [0] * 52
    suit_n = [0] * 4
    for su in range(4):
        cs = cards_of(unseen & SUIT_MASKS[su])
        suit_n[su] = len(cs)
        suit_cards[13 * su : 13 * su + len(cs)] = cs
    vs = [voids[s] & 15 for s in others]
    return DealTables(others, caps, vs, suit_cards, suit_n, deal_counts(caps, vs, suit_n))


def count_deals(seat: int, unseen: CardMask, sizes: Sequence[int], voids: Sequence[int]) -> int:
    """How many deals of ``unseen`` to the other seats agree with ``sizes`` and ``voids``."""
    return deal_tables(seat, unseen, sizes, voids).total


def draw(tables: DealTables, rng: random.Random) -> list[CardMask]:
    """One deal from ``tables``, each consistent deal with the same chance; four masks, the
    viewing seat's 0. Raises :class:`ValueError` when no deal is consistent."""
    if not tables.total:
        raise ValueError("no deal of the unseen cards agrees with the voids shown")
    out = [0, 0, 0, 0]
    s0, s1, s2 = tables.seats
    v0, v1, v2 = tables.voids
    dp = tables.dp
    a, b = tables.caps[0], tables.caps[1]
    for su in range(4):
        n = tables.suit_n[su]
        r = rng.randrange(dp[dp_index(su, a, b)])
        pick0 = pick1 = -1
        acc = 0
        for x0 in range(min(n, a) + 1):
            if x0 and (v0 >> su) & 1:
                break
            for x1 in range(min(n - x0, b) + 1):
                if x1 and (v1 >> su) & 1:
                    break
                if n - x0 - x1 and (v2 >> su) & 1:
                    continue
                f = dp[dp_index(su + 1, a - x0, b - x1)]
                acc += comb(n, x0) * comb(n - x0, x1) * f
                if acc > r:
                    pick0, pick1 = x0, x1
                    break
            if pick0 >= 0:
                break
        cs = tables.suit_cards[13 * su : 13 * su + n]
        rng.shuffle(cs)
        for c in cs[:pick0]:
            out[s0] |= 1 << c
        for c in cs[pick0 : pick0 + pick1]:
            out[s1] |= 1 << c
        for c in cs[pick0 + pick1 :]:
            out[s2] |= 1 << c
        a -= pick0
        b -= pick1
    return out


def sample_hidden_hands(
    seat: int,
    *,
    unseen: CardMask,
    sizes: Sequence[int],
    voids: Sequence[int],
    rng: random.Random,
) -> list[CardMask]:
    """The other seats' hidden hands, drawn uniformly among the consistent deals.

    ``unseen`` are the cards ``seat`` has not seen (in other hands for certain), ``sizes``
    every seat's hand size and ``voids`` every seat's 4-bit mask of suits it has shown it
    lacks (``SeatView.voids``). Returns four masks (``seat``'s entry is 0). Exact: each
    consistent deal has the same chance. Raises ValueError if no deal is consistent.
    """
    return draw(deal_tables(seat, unseen, sizes, voids), rng)
