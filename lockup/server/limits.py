"""What one client may ask of the server: rate limits, and slots with priorities.

:class:`RateLimiter` is a token bucket per key (a player, an address, a connection) with a
bounded number of keys, so a flood of new keys costs bounded memory. :class:`Slots` is a
semaphore whose waiters are served by priority, so moves of games in play go before the
first moves of games just created.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Rate:
    """``burst`` requests at once, then one every ``per`` seconds; ``per`` 0: no limit."""

    burst: int
    per: float

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``"BURST/SECONDS"``: BURST requests at once, refilled at BURST per SECONDS
        seconds (``"10/60"``: ten at once, then one every six seconds); ``"0"``: no limit."""
        if text.strip() in ("0", "off", "none"):
            return cls(0, 0.0)
        try:
            burst_s, seconds_s = text.split("/")
            burst, seconds = int(burst_s), float(seconds_s)
        except ValueError:
            raise ValueError(f"a rate is BURST/SECONDS such as 10/60, or 0; not {text!r}") from None
        if burst < 1 or not seconds > 0:
            raise ValueError(f"a rate needs BURST >= 1 and SECONDS > 0, not {text!r}")
        return cls(burst, seconds / burst)

    @property
    def unlimited(self) -> bool:
        """Whether this rate lets everything through."""
        return self.per <= 0

    def __str__(self) -> str:
        if self.unlimited:
            return "0"
        return f"{self.burst}/{self.burst * self.per:g}"


class RateLimiter:
    """Token buckets by key; the least recently used keys are forgotten past ``max_keys``
    (a forgotten key starts again with a full bucket)."""

    def __init__(
        self,
        rate: Rate,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.max_keys = max_keys
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> float:
        """Spend one request of ``key``: 0.0 if allowed, else the seconds until it would be."""
        rate = self.rate
        if rate.unlimited:
            return 0.0
        now = self._clock()
        tokens, last = self._buckets.pop(key, (float(rate.burst), now))
        tokens = min(float(rate.burst), tokens + (now - last) / rate.per)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) * rate.per
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return wait

    def __len__(self) -> int:
        return len(self._buckets)


class Slots:
    """At most ``n`` holders at once; waiters go by priority (lower first), then in order."""

    def __init__(self, n: int) -> None:
        self._free = n
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def acquire(self, priority: int = 0) -> None:
        """Wait for a slot."""
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (priority, next(self._order), fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()  # it was handed the slot just as it was cancelled
            raise

    def release(self) -> None:
        """Give a slot back: to the first waiter by priority, or to the pool."""
        while self._waiters:
            _, _, fut = heapq.heappop(self._waiters)
            if not fut.done():
                fut.set_result(None)
                return
        self._free += 1

    def hold(self, priority: int = 0) -> _Hold:
        """``async with slots.hold(priority):``."""
        return _Hold(self, priority)


class _Hold:
    def __init__(self, slots: Slots, priority: int) -> None:
        self.slots = slots
        self.priority = priority

    async def __aenter__(self) -> None:
        await self.slots.acquire(self.priority)

    async def __aexit__(self, *exc: object) -> None:
        self.slots.release()
