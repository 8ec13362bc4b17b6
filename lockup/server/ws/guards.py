"""What every connection together may ask: rates per player and address, public rooms and
spectators per address (:class:`Guards`)."""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from ..net.limits import Limits, Rate, RateLimiter, SharedRateLimiter
from ..protocol import (
    SPECTATOR,
    ProtocolError,
)
from .connection import Connection


class Guards:
    """The rate limiters of one server, shared by every connection and request; with
    ``redis`` (an asyncio Redis client), counted in Redis across the server processes
    (:class:`~lockup.server.net.limits.SharedRateLimiter`)."""

    def __init__(self, limits: Limits, redis: Any = None) -> None:
        self.limits = limits

        def limiter(rate: Rate, name: str) -> RateLimiter | SharedRateLimiter:
            if redis is None:
                return RateLimiter(rate)
            return SharedRateLimiter(rate, redis, name)

        self.hints = limiter(limits.hints, "hints")
        self.chat = limiter(limits.chat, "chat")
        self.new_games_player = limiter(limits.new_games_player, "games-player")
        self.new_games_address = limiter(limits.new_games_address, "games-address")
        # A load test from one address turns the limits per address off (and per
        # connection with the message rate): these follow them.
        per_address = not limits.new_games_address.unlimited
        off = Rate(0, 0.0)
        self.hellos_address = limiter(
            limits.hellos_address if per_address else off, "hellos-address"
        )
        self._hellos_connection = limits.hellos_connection if not limits.messages.unlimited else off
        self._hellos: weakref.WeakKeyDictionary[Connection, RateLimiter] = (
            weakref.WeakKeyDictionary()
        )
        self.seats_player = limiter(limits.seats_player, "seats-player")
        self.seats_address = limiter(limits.seats_address if per_address else off, "seats-address")
        self.names_player = limiter(limits.names_player, "names-player")
        self.names_address = limiter(limits.names_address if per_address else off, "names-address")
        self.quick_player = limiter(limits.quick_player, "quick-player")
        self.quick_address = limiter(limits.quick_address if per_address else off, "quick-address")
        self.signups_address = limiter(
            limits.signups_address if per_address else off, "signups-address"
        )
        self.logins_address = limiter(
            limits.logins_address if per_address else off, "logins-address"
        )
        self.logins_name = limiter(limits.logins_name, "logins-name")
        self.public_rooms_address = limits.public_rooms_address if per_address else 0
        self._room_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._spectators: dict[str, weakref.WeakSet[Connection]] = {}
        """Spectator connections by ``room:<id>`` and ``address:<host>``."""

    def public_rooms(self, tag: str) -> asyncio.Lock:
        """Held while a public room of the address whose tag is ``tag`` is counted, made
        and tagged, so that requests at once from one address cannot pass its cap together
        (in this process)."""
        lock = self._room_locks.get(tag)
        if lock is None:
            lock = self._room_locks[tag] = asyncio.Lock()
        return lock

    async def hello(self, conn: Connection, address: str) -> float:
        """Spend one ``hello`` of ``conn`` from ``address``: 0.0 if allowed, else the
        seconds until it would be."""
        bucket = self._hellos.get(conn)
        if bucket is None:
            bucket = self._hellos[conn] = RateLimiter(self._hellos_connection, max_keys=1)
        return max(bucket.take(""), await _take(self.hellos_address, address))

    async def seat_change(self, player: str | None, address: str) -> None:
        """Spend one seat taken or given up (``join``, ``leave``); raises ``rate-limited``."""
        await self._spend_both(self.seats_player, self.seats_address, player, address, "seats")

    async def quick(self, player: str, address: str) -> None:
        """Spend one quick-play request (``POST /api/quickplay``); raises ``rate-limited``."""
        await self._spend_both(
            self.quick_player, self.quick_address, player, address, "quick-play requests"
        )

    async def signup(self, address: str) -> None:
        """Spend one account made from ``address``; raises ``rate-limited``."""
        await self.spend(self.signups_address, address, "new accounts from your address")

    async def login(self, name_key: str, address: str) -> None:
        """Spend one sign-in attempt at the account name whose key is ``name_key`` from
        ``address``; raises ``rate-limited``."""
        await self._spend_both(
            self.logins_name, self.logins_address, name_key, address, "sign-in attempts"
        )

    async def name_change(self, player: str, address: str) -> None:
        """Spend one display name set; raises ``rate-limited``."""
        await self._spend_both(
            self.names_player, self.names_address, player, address, "name changes"
        )

    async def _spend_both(
        self,
        by_player: RateLimiter | SharedRateLimiter,
        by_address: RateLimiter | SharedRateLimiter,
        player: str | None,
        address: str,
        what: str,
    ) -> None:
        wait = max(await _take(by_address, address), await _take(by_player, player or ""))
        if wait > 0:
            raise rate_limited(what, wait)

    def watch(self, conn: Connection, room_id: str, address: str) -> None:
        """Count ``conn`` a spectator of room ``room_id`` from ``address``; raises
        ``too-many-spectators`` while the room or the address has its cap of them."""
        limits = self.limits
        caps = (
            (f"room:{room_id}", limits.spectators_room, "This table has"),
            (f"address:{address}", limits.spectators_address, "Your address has"),
        )
        for key, cap, who in caps:
            live = self._live_spectators(key)
            if cap and conn not in live and len(live) >= cap:
                raise ProtocolError(
                    "too-many-spectators",
                    f"{who} as many spectators as the server allows ({cap}): try again later.",
                    params={"limit": cap},
                )
        for key, _, _ in caps:
            self._spectators.setdefault(key, weakref.WeakSet()).add(conn)

    def _live_spectators(self, key: str) -> weakref.WeakSet[Connection]:
        """The connections still watching under ``key`` (those gone, seated or elsewhere
        since are dropped)."""
        found = self._spectators.get(key)
        if found is None:
            return weakref.WeakSet()
        room_id = key.removeprefix("room:") if key.startswith("room:") else None
        for conn in list(found):
            room = conn.room
            members = getattr(room, "members", None)
            if (
                conn._closed
                or room is None
                or conn.seat != SPECTATOR
                or (room_id is not None and room.id != room_id)
                or (members is not None and conn not in members)
            ):
                found.discard(conn)
        if not found:
            del self._spectators[key]
        return found

    async def new_game(self, player: str, address: str) -> None:
        """Spend one new game of ``player`` at ``address``; raises ``rate-limited``."""
        wait = max(
            await _take(self.new_games_address, address),
            await _take(self.new_games_player, player),
        )
        if wait > 0:
            raise rate_limited("new games", wait)

    @staticmethod
    async def spend(limiter: RateLimiter | SharedRateLimiter, key: str | None, what: str) -> None:
        """Spend one request of ``key`` (a player) from ``limiter``; raises ``rate-limited``
        saying ``what`` there were too many of."""
        wait = await _take(limiter, key or "")
        if wait > 0:
            raise rate_limited(what, wait)


async def _take(limiter: RateLimiter | SharedRateLimiter, key: str) -> float:
    if isinstance(limiter, SharedRateLimiter):
        return await limiter.take(key)
    return limiter.take(key)


def rate_limited(what: str, wait: float) -> ProtocolError:
    """A ``rate-limited`` error saying when to try again."""
    seconds = max(1, round(wait + 0.5))
    return ProtocolError(
        "rate-limited",
        f"Too many {what}: try again in {seconds} s.",
        params={"retry_after": seconds},
    )
