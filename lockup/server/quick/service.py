"""Quick play: seat a person at the open quick table, or open one (:class:`QuickPlay`).

A quick table is a room (``quick``, ``rated``, not public, the server's default level in
every seat) that the room service starts on its own once full or at its start time. The
queue (:mod:`.queue`) says which table is open; the room itself may live in another
process (several processes), reached through an :class:`Elsewhere` the HTTP route
provides (the process that has the room answers, as for a room's own join).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Protocol

from ..cluster.leases import OwnedElsewhere
from ..protocol import ProtocolError
from ..rooms import OPEN, PLAYING, RoomOptions, RoomService
from ..rooms.service import new_key, new_room_id
from .queue import QuickQueue, Table

log = logging.getLogger("lockup.server")

ATTEMPTS = 20
"""Tables tried for one person before giving up (each one found full, started or gone
is dropped from the queue, so the next attempt finds another or opens one). People of
one process are seated one at a time, so only people asking at other processes at the
same moment can fill a table under someone's feet."""
TAKES_NOBODY = frozenset({"room-started", "room-full", "room-closed", "no-room"})
"""A join's refusals that mean the table takes nobody more."""


@dataclass(frozen=True)
class Seated:
    """Where quick play seated a person: the room, the seat, its invite key, and seconds
    until its game starts (0: started)."""

    room: str
    seat: int
    invite: str
    starts_in: float


class Elsewhere(Protocol):
    """Rooms another process has (several processes), as the route reaches them."""

    async def owner(self, room_id: str) -> str | None:
        """The process that has room ``room_id`` if another one has it, else None (this
        process answers)."""

    async def ask(
        self, owner: str, method: str, path: str, body: dict[str, Any] | None
    ) -> tuple[int, dict[str, Any]]:
        """``owner``'s answer (status, JSON) to a request of the person asking."""

    async def spend_seat(self) -> None:
        """Spend one seat taken of the person asking (raises ``rate-limited``), as a
        room's join does."""


class QuickPlay:
    """Seats people at quick tables: ``wait`` seconds from a table's first person to its
    start, ``level`` the computers' level, ``grace`` the seconds a person may be gone
    before a computer plays for them, ``turn_timer`` the seconds a person has for a card
    before a computer plays it."""

    def __init__(
        self,
        rooms: RoomService,
        queue: QuickQueue,
        wait: float,
        level: str,
        grace: float = 45.0,
        turn_timer: float = 30.0,
    ) -> None:
        self.rooms = rooms
        self.queue = queue
        self.wait = wait
        self.level = level
        self.grace = grace
        self.turn_timer = turn_timer
        self._dropping: set[asyncio.Task[None]] = set()
        self._one_at_a_time = asyncio.Lock()
        rooms.on_quick_closed = self._closed

    def options(self) -> RoomOptions:
        """A quick table's options: rated, not listed, the server's level everywhere, the
        server's quick-play grace and turn timer."""
        return RoomOptions(
            levels=[self.level] * 4,
            grace=self.grace,
            turn_timer=self.turn_timer,
            public=False,
            rated=True,
            quick=True,
        )

    async def play(self, player: str, elsewhere: Elsewhere) -> Seated:
        """Seat ``player`` at a quick table: the one they sit at already (not finished),
        the open one, or a new one opened for them. Raises :class:`ProtocolError` (the
        limits of the process that seats them)."""
        known = await self.queue.seated(player)
        if known is not None:
            found = await self._still_seated(player, known, elsewhere)
            if found is not None:
                return found
        async with self._one_at_a_time:
            return await self._seat(player, elsewhere)

    async def _seat(self, player: str, elsewhere: Elsewhere) -> Seated:
        """Seat ``player`` at the open table, or at a new one (one person of this process
        at a time)."""
        for _ in range(ATTEMPTS):
            table = await self.queue.peek()
            if table is None:
                mine = Table(new_room_id(), new_key(), time.time() + self.wait)
                async with self.rooms.making(mine.room):
                    table = await self.queue.claim(mine)
                    if table == mine:
                        return await self._open(player, mine)
            try:
                seated = await self._join(player, table, elsewhere)
            except OwnedElsewhere:  # another process loaded it just now: ask it next time
                continue
            if seated is not None:
                await self.queue.remember(player, seated.room)
                return seated
            await self.queue.drop(table.room)
        raise ProtocolError("server-error", "No quick-play table could be found: try again.")

    async def _open(self, player: str, table: Table) -> Seated:
        """Make ``table`` (claimed in the queue) with ``player`` at South."""
        try:
            room = await self.rooms.create(
                player,
                self.options(),
                None,
                room_id=table.room,
                invite=table.invite,
                starts_at=table.starts_at,
            )
        except BaseException:
            await self.queue.drop(table.room)
            raise
        await self.queue.remember(player, room.id)
        return Seated(room.id, 0, room.invite, _left(table.starts_at))

    async def _join(self, player: str, table: Table, elsewhere: Elsewhere) -> Seated | None:
        """Seat ``player`` at ``table`` (None: it takes nobody more)."""
        owner = await elsewhere.owner(table.room)
        if owner is not None:
            status, body = await elsewhere.ask(
                owner, "POST", f"/api/rooms/{table.room}/join", {"invite": table.invite}
            )
            if status == 200:
                return Seated(table.room, int(body["seat"]), table.invite, _left(table.starts_at))
            if body.get("error") in TAKES_NOBODY:
                return None
            raise _refusal(status, body)
        room = await self.rooms.get(table.room)
        if room is None:
            return None
        await elsewhere.spend_seat()
        try:
            seat = await self.rooms.join(room, player, table.invite, None, None)
        except ProtocolError as e:
            if e.code in TAKES_NOBODY:
                return None
            raise
        starts_in = room.seating.starts_in(time.time())
        return Seated(room.id, seat, room.invite, 0.0 if starts_in is None else starts_in)

    async def _still_seated(self, player: str, room_id: str, elsewhere: Elsewhere) -> Seated | None:
        """The seat ``player`` has at quick table ``room_id`` if its game is not finished
        (open or playing), else None."""
        try:
            owner = await elsewhere.owner(room_id)
            if owner is not None:
                status, body = await elsewhere.ask(owner, "GET", f"/api/rooms/{room_id}", None)
                if status != 200:
                    return None
                you, state, invite = body.get("you"), body.get("status"), body.get("invite")
                starts_in = body.get("starts_in")
            else:
                room = await self.rooms.get(room_id)
                if room is None:
                    return None
                you, state, invite = room.seat_of(player), room.status, room.invite
                starts_in = room.seating.starts_in(time.time())
        except OwnedElsewhere:
            return None
        if you is None or state not in (OPEN, PLAYING) or not isinstance(invite, str):
            return None
        return Seated(room_id, int(you), invite, float(starts_in or 0.0))

    def _closed(self, room_id: str) -> None:
        """A quick table took nobody more: dropped from the queue in the background."""

        async def drop() -> None:
            try:
                await self.queue.drop(room_id)
            except Exception as e:  # it expires at its start time anyway
                log.warning("quick table %s: could not leave the queue: %r", room_id, e)

        task = asyncio.get_running_loop().create_task(drop())
        self._dropping.add(task)
        task.add_done_callback(self._dropping.discard)


def _left(starts_at: float) -> float:
    return round(max(0.0, starts_at - time.time()), 2)


def _refusal(status: int, body: dict[str, Any]) -> ProtocolError:
    """Another process's refusal, as this process's own."""
    params: dict[str, Any] = {"status": status}
    if "retry_after" in body:
        params["retry_after"] = body["retry_after"]
    return ProtocolError(
        str(body.get("error") or "server-error"), str(body.get("reason") or ""), params=params
    )
