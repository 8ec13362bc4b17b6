"""Each seat's chance to win the game, as the expert's option ``gwin`` values a hand.

Lockup is won by the first sole leader at the target (R15), not by tricks: near the end
a point is worth far more to the leader than to the trailer. :func:`win_chances` gives,
for the game totals before a hand, every seat's chance to win for every way that hand's
points can fall (:func:`lockup.bots._kernel.win_table`): it plays the rest of the game
forward :data:`SIMS` times, each later hand's points drawn from :data:`HAND_POINTS`, the
hands of self-play ``bench/winchance.py`` recorded, handed to the seats in a random order.
A table depends only on the totals and the target, so it is computed once a hand and
kept (:data:`CACHE_SIZE` tables).
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType
from typing import Any

from .kernel import kernel, to_array

SIMS = 64
"""Continuations of the game played forward for each way a hand's points can fall."""
CACHE_SIZE = 16
"""Tables kept: one a hand, per kernel (compiled or plain)."""

HAND_POINTS: tuple[tuple[int, int, int, int, int], ...] = (
    (4, 4, 3, 2, 4607),
    (5, 3, 3, 2, 3218),
    (5, 4, 3, 1, 2722),
    (4, 3, 3, 3, 2370),
    (5, 4, 2, 2, 2030),
    (6, 3, 2, 2, 945),
    (6, 4, 2, 1, 772),
    (4, 4, 4, 1, 668),
    (6, 3, 3, 1, 619),
    (5, 5, 2, 1, 575),
    (6, 4, 3, 0, 279),
    (5, 4, 4, 0, 259),
    (7, 3, 2, 1, 211),
    (5, 5, 3, 0, 193),
    (6, 5, 2, 0, 149),
    (6, 5, 1, 1, 125),
    (7, 2, 2, 2, 68),
    (7, 3, 3, 0, 50),
    (7, 4, 1, 1, 46),
    (7, 4, 2, 0, 42),
    (7, 5, 1, 0, 16),
    (8, 2, 2, 1, 11),
    (6, 6, 1, 0, 9),
    (7, 6, 0, 0, 4),
    (8, 3, 1, 1, 4),
    (8, 4, 1, 0, 4),
    (8, 3, 2, 0, 2),
    (8, 5, 0, 0, 2),
)
"""The hands of 20,000 hands of self-play of the learned policy (whole games, target 20;
``python bench/winchance.py --hands 20000 --seed 1``): each four seats' points, sorted high
to low, and how often they fell."""


def _pool(km: ModuleType) -> tuple[Any, Any]:
    """:data:`HAND_POINTS` as the kernel reads it: the points row by row, and the running
    total of the rows' counts."""
    pool: list[int] = []
    cum: list[int] = []
    total = 0
    for *pts, count in HAND_POINTS:
        pool.extend(pts)
        total += count
        cum.append(total)
    return to_array(km, pool), to_array(km, cum)


def compute_table(
    km: ModuleType, totals: tuple[int, ...], target: int, sims: int, seed: int
) -> Any:
    """The table of :func:`win_chances` with ``sims`` continuations drawn from generator
    state ``seed`` (nonzero), computed afresh."""
    pool, cum = _pool(km)
    hands = target // 2 + 8
    rng = [0] * km.STATE_SIZE
    rng[km.I_RNG] = seed
    out = to_array(km, [0.0] * (4 * km.P4), "float64")
    km.win_table(
        pool,
        cum,
        to_array(km, list(totals)),
        target,
        sims,
        hands,
        to_array(km, rng),
        to_array(km, [0] * (2 * sims * hands)),
        to_array(km, [0, 0, 0, 0]),
        out,
    )
    return out


@lru_cache(maxsize=CACHE_SIZE)
def _table(km: ModuleType, totals: tuple[int, ...], target: int) -> Any:
    return compute_table(km, totals, target, SIMS, 1 + (hash_totals(totals, target) & 0x7FFFFFFF))


def hash_totals(totals: tuple[int, ...], target: int) -> int:
    """The generator's seed for a table: fixed by the totals and the target, so the same
    position always gets the same table."""
    h = target
    for t in totals:
        h = (h * 1000003 + t + 1) & 0xFFFFFFFF
    return h


def win_chances(km: ModuleType | None, totals: tuple[int, ...], target: int) -> Any:
    """Every seat's chance to win the game after this hand, for totals ``totals`` before
    it: ``table[seat * P4 + k]`` for the hand's points ``(p0, p1, p2, p3)`` at
    ``k = ((p0 * 14 + p1) * 14 + p2) * 14 + p3`` (:data:`lockup.bots._kernel.P4`), as
    ``km`` (the kernel: :func:`lockup.bots.kernel.kernel` by default) reads arrays."""
    return _table(km if km is not None else kernel(), tuple(totals), int(target))
