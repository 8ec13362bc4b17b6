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
from collections.abc import Coroutine
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
SAME_PLACE = "same-address"
"""A join's refusal of a person whose address or browser sits at the table already: they
get a table of their own."""
FORWARD_TIMEOUT = 0.4
"""Seconds quick play waits for the process that has the open table to answer a join (or
a look at a seat) forwarded to it: one that does not answer in time (it died, and its
lease has not run out yet) is given up, the table dropped from the queue, and the person
seated at another table, so that quick play answers within a second. A join that was
only slow leaves a seat its person never opens, freed after
:data:`~lockup.server.rooms.seating.PENDING_WAIT`."""
LAST_CALL = 2.0
"""Seconds before a table's start when quick play stops seating people there: a seat's
page must have time to open the table before the start frees the seats nobody opened."""


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

    async def alive(self, owner: str) -> bool:
        """Whether process ``owner`` still beats (its heartbeat key is set)."""

    async def ask(
        self,
        owner: str,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        timeout: float,
    ) -> tuple[int, dict[str, Any]]:
        """``owner``'s answer (status, JSON) to a request of the person asking, marked as
        quick play's own; raises :class:`TimeoutError` past ``timeout`` seconds."""

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
        rooms.on_quick_freed = self._freed

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

    async def play(
        self,
        player: str,
        elsewhere: Elsewhere,
        *,
        tag: str | None = None,
        browser: str | None = None,
    ) -> Seated:
        """Seat ``player`` at a quick table: the one they sit at already (not finished),
        the open one, or a new one opened for them (one of their own when someone from
        their address ``tag`` or browser ``browser`` sits at the open one). Raises
        :class:`ProtocolError` (the limits of the process that seats them)."""
        known = await self.queue.seated(player)
        if known is not None:
            found = await self._still_seated(player, known, elsewhere)
            if found is not None:
                return found
        async with self._one_at_a_time:
            return await self._seat(player, elsewhere, tag, browser)

    async def _seat(
        self, player: str, elsewhere: Elsewhere, tag: str | None, browser: str | None
    ) -> Seated:
        """Seat ``player`` at the open table, or at a new one (one person of this process
        at a time)."""
        last_call = min(LAST_CALL, self.wait / 2)
        for _ in range(ATTEMPTS):
            table = await self.queue.peek()
            if table is not None and table.starts_at - time.time() < last_call:
                await self.queue.drop(table.room)  # too late to sit down there
                continue
            if table is None:
                mine = self._new_table()
                async with self.rooms.making(mine.room):
                    table = await self.queue.claim(mine)
                    if table == mine:
                        return await self._open(player, mine, tag, browser)
            try:
                seated = await self._join(player, table, elsewhere, tag, browser)
            except OwnedElsewhere:  # another process loaded it just now: ask it next time
                continue
            except _SamePlace:
                return await self._own_table(player, tag, browser)
            if seated is not None:
                await self.queue.remember(player, seated.room)
                return seated
            await self.queue.drop(table.room)
        raise ProtocolError("server-error", "No quick-play table could be found: try again.")

    def _new_table(self) -> Table:
        return Table(new_room_id(), new_key(), time.time() + self.wait)

    async def _own_table(self, player: str, tag: str | None, browser: str | None) -> Seated:
        """A table of ``player``'s own, outside the queue: someone from their address or
        browser sits at the open one (nobody holds two seats of one quick table)."""
        mine = self._new_table()
        async with self.rooms.making(mine.room):
            return await self._open(player, mine, tag, browser)

    async def _open(
        self, player: str, table: Table, tag: str | None, browser: str | None
    ) -> Seated:
        """Make ``table`` (claimed in the queue, or of the person's own) with ``player`` at
        South."""
        try:
            room = await self.rooms.create(
                player,
                self.options(),
                None,
                room_id=table.room,
                invite=table.invite,
                starts_at=table.starts_at,
                tag=tag,
                browser=browser,
            )
        except BaseException:
            await self.queue.drop(table.room)
            raise
        await self.queue.remember(player, room.id)
        return Seated(room.id, 0, room.invite, _left(table.starts_at))

    async def _join(
        self,
        player: str,
        table: Table,
        elsewhere: Elsewhere,
        tag: str | None,
        browser: str | None,
    ) -> Seated | None:
        """Seat ``player`` at ``table`` (None: it takes nobody more, or its process does
        not answer; raises :class:`_SamePlace`)."""
        owner = await elsewhere.owner(table.room)
        if owner is not None:
            if not await elsewhere.alive(owner):
                return None
            path = f"/api/rooms/{table.room}/join"
            try:
                status, body = await elsewhere.ask(
                    owner, "POST", path, {"invite": table.invite}, FORWARD_TIMEOUT
                )
            except TimeoutError:
                log.warning("quick table %s: its process %s did not answer", table.room, owner)
                return None
            if status == 200:
                left = body.get("starts_in", _left(table.starts_at))
                return Seated(table.room, int(body["seat"]), table.invite, float(left or 0.0))
            if body.get("error") in TAKES_NOBODY:
                return None
            if body.get("error") == SAME_PLACE:
                raise _SamePlace
            raise _refusal(status, body)
        room = await self.rooms.get(table.room)
        if room is None:
            return None
        await elsewhere.spend_seat()
        try:
            seat = await self.rooms.join(
                room, player, table.invite, None, None, tag=tag, browser=browser
            )
        except ProtocolError as e:
            if e.code in TAKES_NOBODY:
                return None
            if e.code == SAME_PLACE:
                raise _SamePlace from None
            raise
        starts_in = room.seating.starts_in(time.time())
        return Seated(room.id, seat, room.invite, 0.0 if starts_in is None else starts_in)

    async def _still_seated(self, player: str, room_id: str, elsewhere: Elsewhere) -> Seated | None:
        """The seat ``player`` has at quick table ``room_id`` if its game is not finished
        (open or playing), else None (also when its process does not answer)."""
        try:
            owner = await elsewhere.owner(room_id)
            if owner is not None:
                if not await elsewhere.alive(owner):
                    return None
                status, body = await elsewhere.ask(
                    owner, "GET", f"/api/rooms/{room_id}", None, FORWARD_TIMEOUT
                )
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
        except (OwnedElsewhere, TimeoutError):
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

        self._background(drop())

    def _freed(self, room_id: str, players: list[str]) -> None:
        """Quick table ``room_id`` freed the pending seats of ``players`` (their page never
        opened it): the queue forgets that they sit there, in the background."""

        async def forget() -> None:
            for player in players:
                try:
                    await self.queue.forget(player, room_id)
                except Exception as e:  # they are found not seated there anyway
                    log.warning("quick table %s: could not forget a seat: %r", room_id, e)

        self._background(forget())

    def _background(self, job: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._dropping.add(task)
        task.add_done_callback(self._dropping.discard)


class _SamePlace(Exception):
    """The open table refused a person whose address or browser sits there already."""


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
