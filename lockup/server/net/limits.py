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
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("lockup.server")


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


PRIORITY_STEP = 1.0
"""Seconds of waiting one step of :class:`Slots` priority is worth: a new game's creation
(priority 2) waits at most about two seconds behind the moves of games under way."""


class Slots:
    """At most ``n`` holders at once. Waiters go by priority (lower first) and by how long
    they have waited: a step of priority counts as ``step`` seconds, so a waiter of
    priority 2 goes before the priority-0 waiters that came more than ``2 * step`` seconds
    after it. Under any load a lower priority waits longer, never forever."""

    def __init__(self, n: int, step: float = PRIORITY_STEP) -> None:
        self._free = n
        self.step = step
        self._waiters: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def acquire(self, priority: int = 0) -> None:
        """Wait for a slot."""
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        due = loop.time() + priority * self.step  # its place: when it came, less its rank
        heapq.heappush(self._waiters, (due, next(self._order), fut))
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


TOKEN_BUCKET = """
local rate_per = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local got = redis.call('HMGET', KEYS[1], 'tokens', 'last')
local tokens = tonumber(got[1]) or burst
local last = tonumber(got[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - last) / rate_per)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = (1 - tokens) * rate_per
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'last', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst * rate_per) + 1)
return tostring(wait)
"""
"""The token bucket of :class:`RateLimiter` as a Redis script: one hash per key (tokens,
last), Redis's own clock, expiring once full again."""


class SharedRateLimiter:
    """:class:`RateLimiter`'s token buckets kept in Redis, so several server processes
    count one client's requests together. Redis unreachable: the process's own buckets
    count meanwhile (a limit per process rather than none)."""

    def __init__(self, rate: Rate, redis: Any, name: str) -> None:
        self.rate = rate
        self.redis = redis
        self.name = name
        self.local = RateLimiter(rate)
        self._script = redis.register_script(TOKEN_BUCKET)

    async def take(self, key: str) -> float:
        """Spend one request of ``key``: 0.0 if allowed, else the seconds until it would be."""
        if self.rate.unlimited:
            return 0.0
        try:
            wait = await self._script(
                keys=[f"lockup:rate:{self.name}:{key}"], args=[self.rate.per, self.rate.burst]
            )
            return float(wait)
        except Exception as e:  # redis.exceptions.RedisError, OSError
            log.warning("redis: rate limit %s uncounted there (%r); counting here", self.name, e)
            return self.local.take(key)


@dataclass
class Limits:
    """What one client may ask (see docs/server.md, "Limits")."""

    messages: Rate = field(default_factory=lambda: Rate(60, 1 / 6))
    """Messages per connection: 60 at once, then 6 a second."""
    hints: Rate = field(default_factory=lambda: Rate(6, 5.0))
    """Hints per player: 6 at once, then one every 5 seconds."""
    new_games_player: Rate = field(default_factory=lambda: Rate(10, 6.0))
    """New games per player: 10 at once, then one every 6 seconds."""
    new_games_address: Rate = field(default_factory=lambda: Rate(30, 2.0))
    """New games per client address: 30 at once, then one every 2 seconds."""
    chat: Rate = field(default_factory=lambda: Rate(5, 3.0))
    """Chat lines and reactions per player: 5 at once, then one every 3 seconds."""
    hellos_connection: Rate = field(default_factory=lambda: Rate(10, 2.0))
    """``hello`` per connection (a page says it on (re)connecting, and after a gap at most
    every 2 seconds): 10 at once, then one every 2 seconds. Off with ``messages`` off."""
    hellos_address: Rate = field(default_factory=lambda: Rate(120, 0.1))
    """``hello`` per client address (a household or an office behind one address): 120 at
    once, then 10 a second. Off with ``new_games_address`` off (a load test from one
    address)."""
    seats_player: Rate = field(default_factory=lambda: Rate(10, 6.0))
    """Seats taken or given up in rooms (``join``, ``leave``) per player: 10 at once, then
    one every 6 seconds."""
    seats_address: Rate = field(default_factory=lambda: Rate(30, 2.0))
    """The same per client address: 30 at once, then one every 2 seconds."""
    names_player: Rate = field(default_factory=lambda: Rate(5, 12.0))
    """Display names set (``POST /api/profile``) per player: 5 at once, then one every 12
    seconds."""
    names_address: Rate = field(default_factory=lambda: Rate(30, 2.0))
    """The same per client address: 30 at once, then one every 2 seconds."""
    quick_player: Rate = field(default_factory=lambda: Rate(10, 6.0))
    """Quick-play requests (``POST /api/quickplay``) per player: 10 at once, then one
    every 6 seconds."""
    quick_address: Rate = field(default_factory=lambda: Rate(20, 3.0))
    """The same per client address: 20 at once, then one every 3 seconds."""
    signups_address: Rate = field(default_factory=lambda: Rate(10, 360.0))
    """Accounts made (``POST /api/account/signup``) per client address: 10 at once, then
    one every 6 minutes."""
    logins_address: Rate = field(default_factory=lambda: Rate(30, 10.0))
    """Sign-in attempts (``POST /api/account/login``, and the current password given to
    change it) per client address: 30 at once, then one every 10 seconds."""
    logins_name: Rate = field(default_factory=lambda: Rate(10, 30.0))
    """The same per account name (by its key, whoever tries it): 10 at once, then one
    every 30 seconds."""
    public_rooms_player: int = 2
    """Public rooms one player may hold open at once (0: no cap)."""
    public_rooms_address: int = 3
    """Public rooms one client address may hold open at once (0: no cap)."""
    public_room_hold: float = 3600.0
    """How long (seconds) an open public room counts against its host and address after it
    was made or last changed (a room left open and forgotten stops counting)."""
    lobby_per_address: int = 2
    """The lobby shows at most this many rooms made from one address (the newest)."""
    lobby_size: int = 50
    """The lobby shows at most this many rooms."""
    spectators_room: int = 100
    """Spectators of one room at once (0: no cap)."""
    spectators_address: int = 16
    """Spectators from one client address at once, all rooms together (0: no cap)."""
