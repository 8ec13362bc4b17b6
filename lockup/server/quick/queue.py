"""Which quick-play table is open, and where each person asked to sit: in memory for one
process (:class:`MemoryQueue`), in Redis for several (:class:`RedisQueue`).

The queue holds one *open table* at a time: its room id, invite key and start time, for
as long as it takes people (until its start time at most). Asking to sit is
:meth:`~QuickQueue.claim` with a table of one's own in hand (an id chosen beforehand): the
open table if there is one, else one's own becomes the open table, in one atomic step,
so that people asking at the same moment, at any process, are sent to one table. A table
that takes nobody more (started, closed, or found full) is dropped with
:meth:`~QuickQueue.drop`, only if it is still the open one.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

OPEN_KEY = "lockup:quick:open"
"""The Redis key of the open table (JSON of :class:`Table`), expiring at its start time."""
SEAT_PREFIX = "lockup:quick:seat:"
"""The Redis key of the table a player was last seated at by quick play (its id)."""
SEAT_TTL = 6 * 3600.0
"""Seconds the queue remembers the table a player was seated at (a game's length, and
more)."""
MAX_SEATS = 100_000
"""Players remembered by :class:`MemoryQueue` at most (the oldest are forgotten first)."""

DROP = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
"""Delete the open table only if it is still the one named (compare and delete)."""
FORGET = DROP
"""Delete a player's remembered table only if it is still the one named."""


@dataclass(frozen=True)
class Table:
    """A quick table as the queue knows it: its room, its invite key, its start time
    (wall-clock seconds)."""

    room: str
    invite: str
    starts_at: float

    def to_json(self) -> str:
        """The table as the queue stores it."""
        return json.dumps({"room": self.room, "invite": self.invite, "starts_at": self.starts_at})

    @classmethod
    def from_json(cls, text: str) -> Table:
        """A table as stored."""
        data = json.loads(text)
        return cls(str(data["room"]), str(data["invite"]), float(data["starts_at"]))


class QuickQueue(Protocol):
    """The quick-play queue (see the module)."""

    async def peek(self) -> Table | None:
        """The open table, or None."""

    async def claim(self, mine: Table) -> Table:
        """The open table if there is one, else ``mine`` made the open table (until its
        start time), in one step."""

    async def drop(self, room: str) -> None:
        """Stop sending people to table ``room`` (if it is the open one)."""

    async def remember(self, player: str, room: str) -> None:
        """``player`` sits at quick table ``room``."""

    async def seated(self, player: str) -> str | None:
        """The quick table ``player`` was last seated at, or None."""

    async def forget(self, player: str, room: str) -> None:
        """``player`` no longer sits at quick table ``room`` (their seat was freed): forget
        it, if it is still the table remembered for them."""


class MemoryQueue:
    """The queue of one server process."""

    def __init__(self, clock: Any = time.time) -> None:
        self._clock = clock
        self._open: Table | None = None
        self._seats: OrderedDict[str, tuple[str, float]] = OrderedDict()

    async def peek(self) -> Table | None:
        table = self._open
        if table is not None and table.starts_at <= self._clock():
            self._open = table = None
        return table

    async def claim(self, mine: Table) -> Table:
        table = await self.peek()  # no await point before the open table is set
        if table is None:
            self._open = table = mine
        return table

    async def drop(self, room: str) -> None:
        if self._open is not None and self._open.room == room:
            self._open = None

    async def remember(self, player: str, room: str) -> None:
        self._seats.pop(player, None)
        self._seats[player] = (room, self._clock() + SEAT_TTL)
        while len(self._seats) > MAX_SEATS:
            self._seats.popitem(last=False)

    async def seated(self, player: str) -> str | None:
        found = self._seats.get(player)
        if found is None or found[1] <= self._clock():
            return None
        return found[0]

    async def forget(self, player: str, room: str) -> None:
        found = self._seats.get(player)
        if found is not None and found[0] == room:
            del self._seats[player]


class RedisQueue:
    """The queue shared by several server processes, in Redis (``redis``: an asyncio
    client with ``decode_responses``). The open table is one key set only if absent
    (``SET NX PX``, expiring at the table's start time) and dropped by a compare and
    delete, both atomic in Redis."""

    def __init__(self, redis: Any, clock: Any = time.time) -> None:
        self.redis = redis
        self._clock = clock
        self._drop = redis.register_script(DROP)
        self._forget = redis.register_script(FORGET)

    async def peek(self) -> Table | None:
        text = await self.redis.get(OPEN_KEY)
        return None if text is None else Table.from_json(text)

    async def claim(self, mine: Table) -> Table:
        ttl_ms = max(1, int((mine.starts_at - self._clock()) * 1000))
        text = mine.to_json()
        # SET NX GET: set if absent, and the value found either way, in one command.
        found = await self.redis.set(OPEN_KEY, text, nx=True, px=ttl_ms, get=True)
        if found is not None:
            return Table.from_json(found)
        return mine

    async def drop(self, room: str) -> None:
        text = await self.redis.get(OPEN_KEY)
        if text is not None and Table.from_json(text).room == room:
            await self._drop(keys=[OPEN_KEY], args=[text])

    async def remember(self, player: str, room: str) -> None:
        await self.redis.set(SEAT_PREFIX + player, room, ex=int(SEAT_TTL))

    async def seated(self, player: str) -> str | None:
        found: str | None = await self.redis.get(SEAT_PREFIX + player)
        return found

    async def forget(self, player: str, room: str) -> None:
        await self._forget(keys=[SEAT_PREFIX + player], args=[room])
