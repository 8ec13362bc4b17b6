"""Arena statistics: means with Student-t 95% confidence intervals over duplicate sets.

A duplicate set (one sequence of deals played four times, the bots rotated through the
seats) is the independent unit: every figure is first computed per set (a bot's tricks
per hand over the set's four games, its share of the set's four games won), and the
estimate is the mean of those per-set values, with the interval
``mean ± t(0.975, n - 1) · sd / √n`` over the n sets. Paired differences take, per set,
one bot's value minus another's (or minus the mean of several), so the deals' luck,
shared by both, cancels before the interval is computed.

No third-party imports: the t quantile comes from the regularized incomplete beta
function (a continued fraction), good to about 1e-10.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(ln_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p for Student's t with ``df`` degrees of freedom."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be between 0 and 1")
    if df <= 0:
        raise ValueError("df must be positive")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


@dataclass(frozen=True)
class Estimate:
    """A mean over ``n`` independent units with its 95% interval (None for n < 2, or when
    every unit gave the same value)."""

    mean: float
    lo: float | None
    hi: float | None
    n: int

    @property
    def ci95(self) -> list[float] | None:
        """``[lo, hi]``, or None when there are fewer than two units or no spread."""
        if self.lo is None or self.hi is None:
            return None
        return [self.lo, self.hi]

    @property
    def clear_of_zero(self) -> bool:
        """True when the interval lies wholly above or wholly below zero."""
        return self.lo is not None and self.hi is not None and (self.lo > 0 or self.hi < 0)


def mean_ci(values: Sequence[float], level: float = 0.95) -> Estimate:
    """The mean of ``values`` and its Student-t confidence interval at ``level``; no
    interval (None) for fewer than two values, or for values all the same (to rounding):
    their spread of zero would give an interval of zero width, "clear of zero" on a few
    sets that happened to agree."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = math.fsum(values) / n
    if n < 2:
        return Estimate(mean, None, None, n)
    if max(values) - min(values) <= 1e-9 * max(1.0, abs(mean)):
        # all the same but for rounding (6/23 and 12/46 need not be the same float)
        return Estimate(mean, None, None, n)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(0.5 + level / 2.0, n - 1) * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half, n)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) by linear interpolation, None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    i = int(math.floor(pos))
    j = min(i + 1, len(xs) - 1)
    return xs[i] + (xs[j] - xs[i]) * (pos - i)
