"""The deal sampler (lockup/bots/sampling.py) against brute force.

A consistent deal gives each other seat exactly its hand size of the unseen cards and no
card of a suit it has shown it lacks (R5, R6). The count must be exact, and each sampler,
the ``random.Random`` one (OpenSpiel) and the kernel's (plain Python and numba), must draw
every consistent deal with the same chance: a chi-square test over all the deals of small
positions, with a fixed seed and enough draws that a biased sampler fails it (checked
below on two deliberately biased ones).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from lockup.bots import kernel as K
from lockup.bots.sampling import (
    DealTables,
    count_deals,
    deal_tables,
    draw,
    sample_hidden_hands,
)
from lockup.cards import cards_of
from lockup.engine import Game, Rules, SeatView

needs_numba = pytest.mark.skipif(not K.jit_available(), reason="numba is not installed")

Deal = tuple[int, int, int, int]


def brute_force(seat: int, unseen: int, sizes: list[int], voids: list[int]) -> list[Deal]:
    """Every consistent deal, by trying every owner for every unseen card."""
    others = [s for s in range(4) if s != seat]
    cards = cards_of(unseen)
    out = []
    for owners in itertools.product(others, repeat=len(cards)):
        hands = [0, 0, 0, 0]
        for c, s in zip(cards, owners, strict=True):
            if (voids[s] >> (c // 13)) & 1:
                break
            hands[s] |= 1 << c
        else:
            if all(hands[s].bit_count() == sizes[s] for s in others):
                out.append((hands[0], hands[1], hands[2], hands[3]))
    return out


def chi_square_ok(counts: Counter[Deal], deals: list[Deal], n: int) -> bool:
    """Whether ``n`` draws tallied in ``counts`` pass a chi-square test of uniformity over
    ``deals`` at the 0.1% level (critical value by Wilson-Hilferty), no other deal drawn."""
    if set(counts) - set(deals):
        return False
    k = len(deals)
    if k == 1:
        return True
    expected = n / k
    stat = sum((counts[d] - expected) ** 2 / expected for d in deals)
    df = k - 1
    z = 3.09  # the 99.9% point of the standard normal
    critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return stat < critical


def small_positions(seed: int, n: int, max_unseen: int = 8) -> Iterator[SeatView]:
    """Views late in hands (few unseen cards), at least one other seat with a void shown."""
    rng = random.Random(seed)
    rules = [Rules(), Rules(picture_exception="any-club", lock_discards="upfront")]
    got = 0
    g = 0
    while got < n:
        game = Game.new(rng, rules[g % 2], record=False)
        g += 1
        while game.phase not in ("deal", "over"):
            if game.discard_due is not None:
                game.discard_random(rng)
                continue
            view = game.view(game.turn)
            unseen = view.unseen_mask.bit_count()
            if 3 <= unseen <= max_unseen and any(view.voids[s] for s in range(4) if s != view.seat):
                yield view
                got += 1
                break
            game.play(rng.choice(game.legal_cards()))


def hand_sizes(view: SeatView) -> list[int]:
    return list(view.hand_sizes)


# Positions by hand, including voids in two suits and a seat that must take a whole suit.
HANDMADE = [
    # seat, unseen, sizes, voids
    (0, 0b111 | (0b11 << 13) | (0b11 << 26), [0, 3, 2, 2], [0, 0b0010, 0b0001, 0]),
    (1, (0b111 << 13) | (0b11 << 26) | 0b11, [2, 0, 3, 2], [0b0101, 0, 0b0010, 0b1000]),
    (2, (0b1111 << 39) | (0b11 << 13), [3, 2, 0, 1], [0b0110, 0b1000, 0, 0]),
    (3, 0b111 | (0b111 << 26), [2, 2, 2, 0], [0b1100, 0b0001, 0b1000, 0]),
]


@pytest.mark.parametrize("seat,unseen,sizes,voids", HANDMADE)
def test_counts_are_exact(seat: int, unseen: int, sizes: list[int], voids: list[int]) -> None:
    assert count_deals(seat, unseen, sizes, voids) == len(brute_force(seat, unseen, sizes, voids))


def test_counts_are_exact_in_random_small_positions() -> None:
    rng = random.Random(3)
    zero = 0
    for _ in range(150):
        seat = rng.randrange(4)
        cards = rng.sample(range(52), rng.randrange(0, 8))
        unseen = sum(1 << c for c in cards)
        others = [s for s in range(4) if s != seat]
        sizes = [0, 0, 0, 0]
        for _c in cards:
            sizes[rng.choice(others)] += 1
        voids = [rng.randrange(16) if rng.random() < 0.6 else 0 for _ in range(4)]
        expected = len(brute_force(seat, unseen, sizes, voids))
        assert count_deals(seat, unseen, sizes, voids) == expected
        if expected == 0:
            zero += 1
            with pytest.raises(ValueError):
                sample_hidden_hands(seat, unseen=unseen, sizes=sizes, voids=voids, rng=rng)
    assert zero > 5  # some positions have no consistent deal


def test_bad_hand_sizes_are_refused() -> None:
    with pytest.raises(ValueError):
        deal_tables(0, 0b111, [0, 1, 1, 0], [0, 0, 0, 0])


Sampler = Callable[[DealTables, random.Random], list[int]]


def run_sampler(sampler: Sampler, seed: int) -> list[bool]:
    """For each handmade position: whether ``sampler`` passes the uniformity test."""
    rng = random.Random(seed)
    out = []
    for seat, unseen, sizes, voids in HANDMADE:
        deals = brute_force(seat, unseen, sizes, voids)
        tables = deal_tables(seat, unseen, sizes, voids)
        n = 400 * len(deals)
        counts: Counter[Deal] = Counter()
        for _ in range(n):
            h = sampler(tables, rng)
            counts[(h[0], h[1], h[2], h[3])] += 1
        out.append(chi_square_ok(counts, deals, n))
    return out


def test_the_random_sampler_is_uniform() -> None:
    assert run_sampler(draw, seed=11) == [True] * len(HANDMADE)


def _splits_uniform(tables: DealTables, rng: random.Random) -> list[int]:
    """Biased: each suit's split among the seats picked uniformly among the feasible ones
    (not weighted by how many deals each allows)."""
    while True:
        out = [0, 0, 0, 0]
        left = list(tables.caps)
        for su in range(4):
            n = tables.suit_n[su]
            splits = [
                (x0, x1, n - x0 - x1)
                for x0 in range(n + 1)
                for x1 in range(n - x0 + 1)
                if all(
                    x <= left[k] and not (x and (tables.voids[k] >> su) & 1)
                    for k, x in enumerate((x0, x1, n - x0 - x1))
                )
            ]
            if not splits:
                break
            split = rng.choice(splits)
            cs = tables.suit_cards[13 * su : 13 * su + n]
            rng.shuffle(cs)
            i = 0
            for k, x in enumerate(split):
                for c in cs[i : i + x]:
                    out[tables.seats[k]] |= 1 << c
                i += x
                left[k] -= x
        else:
            if not any(left):
                return out


def _slightly_skewed(tables: DealTables, rng: random.Random) -> list[int]:
    """Biased a little: a deal giving the first other seat the lowest unseen card is drawn
    again one time in five."""
    low = min(c for c in tables.suit_cards if c) if any(tables.suit_cards) else 0
    out = draw(tables, rng)
    if out[tables.seats[0]] >> low & 1 and rng.random() < 0.2:
        out = draw(tables, rng)
    return out


@pytest.mark.parametrize("biased", [_splits_uniform, _slightly_skewed])
def test_the_test_fails_a_biased_sampler(biased: Sampler) -> None:
    assert not all(run_sampler(biased, seed=11))


def test_small_positions_from_play_are_sampled_uniformly() -> None:
    rng = random.Random(5)
    for view in small_positions(seed=21, n=5, max_unseen=7):
        sizes = hand_sizes(view)
        voids = list(view.voids)
        deals = brute_force(view.seat, view.unseen_mask, sizes, voids)
        assert count_deals(view.seat, view.unseen_mask, sizes, voids) == len(deals)
        n = 150 * len(deals)
        counts = Counter(
            tuple(
                sample_hidden_hands(
                    view.seat, unseen=view.unseen_mask, sizes=sizes, voids=voids, rng=rng
                )
            )
            for _ in range(n)
        )
        assert chi_square_ok(counts, deals, n)  # type: ignore[arg-type]


@pytest.mark.parametrize("jit", [False, pytest.param(True, marks=needs_numba)])
def test_the_kernels_sampler_is_uniform(jit: bool) -> None:
    """The search kernel's own draw (xorshift generator, float counts) from the same tables."""
    for view in small_positions(seed=31, n=4, max_unseen=7):
        pos = K.Position(view, seed=9, jit=jit)
        km = pos.km
        deals = brute_force(view.seat, view.unseen_mask, hand_sizes(view), list(view.voids))
        n = 150 * len(deals)
        det = K.to_array(km, [0] * km.STATE_SIZE)
        scratch = K.to_array(km, [0] * 13)
        counts: Counter[Deal] = Counter()
        for _ in range(n):
            det[:] = pos.base
            km.sample_hidden(det, pos.tables, scratch)
            pos.base[km.I_RNG] = det[km.I_RNG]
            hands = [0 if s == view.seat else int(det[s]) for s in range(4)]
            counts[(hands[0], hands[1], hands[2], hands[3])] += 1
        assert chi_square_ok(counts, deals, n)
