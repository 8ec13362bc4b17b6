"""Rooms in the server: the stored room, its pages, and its games.

A :class:`Room` holds a :class:`~.seating.Seating` (who sits where, the phase, the host,
the open pages) and the room's current game, a
:class:`~lockup.server.session.GameSession` like any other. :class:`RoomService` makes
each change to the seating under the room's lock, stores it (the seating is put back
as it was if storing fails), then brings every page in line with it: a page whose
person's seat changed gets a new ``state`` for what it may see now
(:meth:`RoomService._sync`).

The room's games send their versioned events as usual; the rooms' own ``room`` frames
are :class:`~.room.Room`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from ...engine import DEFAULT_PLAYERS
from ..protocol import ProtocolError, room_frame
from ..session import GameService, GameSession, Seat, TableOptions
from . import rows
from .options import RoomOptions
from .room import Room, RoomMember, loop_time
from .seating import (
    CLOSED,
    OPEN,
    OVER,
    PENDING_WAIT,
    PLAYING,
    RELOAD_WAIT,
    SPECTATOR,
    Seating,
    Sitter,
)

log = logging.getLogger("lockup.server")


def _now() -> datetime:
    return datetime.now(UTC)


def new_room_id() -> str:
    """A new room's id (72 random bits)."""
    return secrets.token_urlsafe(9)


def new_key() -> str:
    """A new invite or watch key (144 random bits)."""
    return secrets.token_urlsafe(18)


def _pending(quick: bool) -> float | None:
    """A new quick table's first seat waits :data:`~.seating.PENDING_WAIT` seconds for its
    person's page (see :class:`~.seating.Sitter`); a room's counts at once."""
    return time.time() + PENDING_WAIT if quick else None


def no_room() -> ProtocolError:
    """The one answer to a room id that does not exist or a key that does not open it, so
    that guessing learns nothing."""
    return ProtocolError("no-room", "There is no such room, or the link is not valid.")


class RoomService:
    """Creates, finds, fills and starts rooms; keeps them in memory while used."""

    def __init__(self, games: GameService) -> None:
        self.games = games
        self.store = games.store
        self.rooms: dict[str, Room] = {}
        self._making: dict[str, asyncio.Future[None]] = {}
        """Rooms being made under an id chosen beforehand (:meth:`making`)."""
        self.on_quick_closed: Callable[[str], None] | None = None
        """Told the id of a quick table that takes nobody more (it started or closed)."""
        self.on_quick_freed: Callable[[str, list[str]], None] | None = None
        """Told the id of a quick table and the people whose pending seats it freed."""
        games.on_load = self._attach_loaded
        games.on_lost_room = self._lost
        games.on_forget_room_game = self._release_if_idle

    def _lost(self, room_id: str) -> None:
        """Another process took the room over: drop this copy; its pages reconnect."""
        room = self.rooms.pop(room_id, None)
        if room is None:
            return
        for member in room.members:
            member.close(1012)
        room.seating.pages.clear()

    # ------------------------------------------------------------------ store

    async def _save(self, room: Room, *, new: bool = False) -> None:
        """Store the room, under its lease when several processes share the database."""
        leases = self.games.leases
        lease = leases.held.get(f"room:{room.id}") if leases is not None else None
        await self.store.write(rows.op_save(room, new=new), lease=lease)

    @contextlib.contextmanager
    def _undo_on_error(self, room: Room) -> Iterator[None]:
        """Put the seating back as it was if the change fails (storing it, say)."""
        s = room.seating
        kept = (copy.deepcopy(s.seats), s.host, s.status, set(s.rematch), dict(s.away_since))
        try:
            yield
        except BaseException:
            s.seats, s.host, s.status, s.rematch, s.away_since = kept
            raise

    async def get(self, room_id: Any, *, live: bool = True) -> Room | None:
        """The room ``room_id`` (loaded from the store if need be), or None; ``live``: with
        its game in memory too."""
        if not isinstance(room_id, str) or not 1 <= len(room_id) <= 16:
            return None
        making = self._making.get(room_id)
        if making is not None:  # being made here: wait for it rather than read no row
            await asyncio.shield(making)
        room = self.rooms.get(room_id)
        if room is None:
            leases = self.games.leases
            if leases is not None:  # raises OwnedElsewhere while another process has it
                await leases.acquire(f"room:{room_id}")
            row = await self.store.read(rows.op_read(room_id))
            if row is None:
                if leases is not None:
                    leases.release_soon(f"room:{room_id}")
                return None
            room = self.rooms.get(room_id)  # loaded meanwhile by another page
            if room is None:
                room = self.rooms[room_id] = rows.from_row(row)
                self._watch_start(room)  # a quick table taken over still starts on time
        if live:
            await self._live(room)
        return room

    async def _live(self, room: Room) -> None:
        """Make sure the room's game is in memory (it leaves when nobody uses it)."""
        if room.game_id is None or (room.session is not None and not room.session.closed):
            return
        room.session = await self.games.get(room.game_id)
        if room.session is not None:
            self._attach(room, room.session)

    async def lobby(self, limit: int = 50, per_address: int = 2) -> list[dict[str, Any]]:
        """Public rooms people may still join, newest first: ``limit`` at most, and at
        most ``per_address`` made from one address."""
        return [rows.lobby_entry(row) for row in await self.store.lobby_rows(limit, per_address)]

    # ------------------------------------------------------------------ names

    async def name_of(self, player: str) -> str | None:
        """The display name ``player`` chose, or None."""
        name: str | None = await self.store.read(rows.op_name(player))
        return name

    async def set_name(self, player: str, name: str) -> None:
        """Keep ``name`` as ``player``'s display name."""
        await self.store.write(rows.op_set_name(player, name))

    # ------------------------------------------------------------------ seats

    async def create(
        self,
        host: str,
        options: RoomOptions,
        name: str | None,
        *,
        room_id: str | None = None,
        invite: str | None = None,
        starts_at: float | None = None,
        tag: str | None = None,
        browser: str | None = None,
    ) -> Room:
        """A new room with ``host`` at South (``room_id`` and ``invite``: chosen
        beforehand, see :meth:`making`; ``starts_at``: a quick table's start time,
        wall-clock seconds; ``tag`` and ``browser``: where the host sat down from, see
        :class:`~.seating.Sitter`)."""
        if name is not None:
            await self.set_name(host, name)
        else:
            name = await self.name_of(host) or DEFAULT_PLAYERS[0]
        seating = Seating(
            host,
            [Sitter(host, name, tag, browser, _pending(options.quick)), None, None, None],
            OPEN,
            grace=options.grace,
            now=loop_time(),
            quick=options.quick,
            starts_at=starts_at,
        )
        room = Room(
            room_id or new_room_id(),
            invite or new_key(),
            new_key(),
            options,
            seating,
            None,
        )
        leases = self.games.leases
        if leases is not None and f"room:{room.id}" not in leases.held:
            await leases.acquire(f"room:{room.id}")
        await self._save(room, new=True)
        self.rooms[room.id] = room
        self._watch_start(room)
        return room

    @contextlib.asynccontextmanager
    async def making(self, room_id: str) -> AsyncIterator[None]:
        """Hold ``room_id`` while a room of that id may be made (:meth:`create` with
        it): its lease taken (several processes; raises ``OwnedElsewhere``), and
        :meth:`get` of it waiting until the block ends. The lease is given back if no
        room was made."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._making[room_id] = fut
        leases = self.games.leases
        try:
            if leases is not None:
                await leases.acquire(f"room:{room_id}")
            yield
        finally:
            self._making.pop(room_id, None)
            fut.set_result(None)
            if leases is not None and room_id not in self.rooms:
                leases.release_soon(f"room:{room_id}")

    async def join(
        self,
        room: Room,
        player: str,
        invite: str | None,
        seat: Any,
        name: str | None,
        *,
        tag: str | None = None,
        browser: str | None = None,
    ) -> int:
        """Seat ``player`` (at ``seat``, or the first free one); the seat they have if they
        sit there already (``tag``, ``browser``: where they sat down from, see
        :class:`~.seating.Sitter`). Raises :class:`ProtocolError`."""
        if room.seat_of(player) is None and not room.may_join(invite):
            raise no_room()
        stored = await self.name_of(player) if name is None else None
        async with room.lock:
            seating = room.seating
            mine = seating.seat_of(player)
            if mine is not None:
                sitter = seating.seats[mine]
                if name is None or (sitter is not None and sitter.name == name):
                    return mine
            with self._undo_on_error(room):
                taken = seating.join(
                    player,
                    name or "",
                    seat,
                    loop_time(),
                    tag=tag,
                    browser=browser,
                    wall=time.time(),
                )
                sitter = seating.seats[taken]
                if sitter is not None and not sitter.name:
                    sitter.name = stored or DEFAULT_PLAYERS[taken]
                await self._save(room)
        self._sync(room)
        room.broadcast()
        if room.seating.start_due(time.time()):  # a quick table's fourth person
            await self._start_quick(room)
        else:
            self._watch_start(room)  # a quick table: the new pending seat's time
        return taken

    async def leave(self, room: Room, player: str) -> bool:
        """``player`` gives up their seat (``open`` or between games); the host passes
        on, and a room nobody is left in closes. During a game at a rated table (a quick
        table, or a rated room) they leave the game: they have abandoned their seat (an
        ``abandon`` event, why ``left``), the computer plays it to the end, and they may sit
        elsewhere; True then. Elsewhere a game under way is refused ``game-under-way``."""
        abandoned = False
        async with room.lock:
            seating = room.seating
            if room.status == PLAYING and room.options.rated:
                seat = seating.seat_of(player)
                if seat is not None and room._game_seats():
                    # The game first: the person's pages watch before anything says so.
                    assert room.session is not None
                    await room.session.leave_game(player)
                with self._undo_on_error(room):
                    seating.abandon(player)
                    await self._save(room)
                abandoned = True
            else:
                with self._undo_on_error(room):
                    seating.leave(player)
                    await self._save(room)
                await self._rematch_if_ready(room)
        self._after_seats(room)
        return abandoned

    async def _free_abandoned(self, room: Room, session: GameSession, player: str) -> None:
        """A person abandoned their seat in the room's game (out of time too often, or gone
        the whole grace at a rated table): they hold no seat at the table any more."""
        try:
            # The room in memory now (it may have left memory and come back meanwhile).
            found = await self.get(room.id, live=False)
            if found is None:
                return
            room = found
            async with room.lock:
                if room.game_id != session.id or room.status != PLAYING:
                    return
                if room.seating.seat_of(player) is None:
                    return  # left already
                with self._undo_on_error(room):
                    room.seating.abandon(player)
                    await self._save(room)
        except Exception as e:  # the game's seat is the computer's all the same
            log.error("room %s: an abandoned seat could not be freed: %r", room.id, e)
            return
        self._after_seats(room)

    async def remove(self, room: Room, player: str | None, seat: int) -> None:
        """The host removes the person at ``seat``: their seat is empty (a computer's in
        a game under way) and their pages watch."""
        async with room.lock:
            room.seating.removable(player, seat)  # refused: nothing changes
            session = room.session
            if session is not None and room._game_seats():
                # The game first: the person's pages watch before anything says so.
                await session.replace_by_computer(seat, DEFAULT_PLAYERS[seat] if seat else "South")
            with self._undo_on_error(room):
                room.seating.remove(player, seat)
                await self._save(room)
            await self._rematch_if_ready(room)
        self._after_seats(room)

    def _after_seats(self, room: Room) -> None:
        """After a change of seats: every page in line, the room sent, the host timer."""
        self._sync(room)
        room.broadcast()
        self._watch_host(room)
        if room.seating.quick and room.status == CLOSED:
            self._quick_closed(room)
            self._forget_if_unseen(room)

    # ------------------------------------------------------------------ quick tables

    def _watch_start(self, room: Room) -> None:
        """A quick table still open: start it at its start time (at once if that has
        passed, as for a table taken over from a process that stopped)."""
        if room._start_timer is not None:
            room._start_timer.cancel()
            room._start_timer = None
        starts_in = room.seating.quick_wake(time.time())  # its start, or a pending seat's end
        if starts_in is None:
            return
        loop = asyncio.get_running_loop()

        def due() -> None:
            room._start_timer = None
            current = self.rooms.get(room.id)  # the copy in memory now, if reloaded
            if current is not None:
                loop.create_task(self._start_quick(current))

        # The loop's clock is not the wall clock the start time is in, and a timer may
        # fire a little early: a table found not yet due is watched again (below).
        room._start_timer = loop.call_later(max(starts_in, 0.02), due)

    async def _start_quick(self, room: Room) -> None:
        """A quick table's own step: free the pending seats whose time has come (a table
        nobody is left at closes), then start its game if it is due: full, or its start
        time come; the empty seats are computers."""
        freed: list[str] = []
        session = None
        try:
            async with room.lock:
                wall = time.time()
                with self._undo_on_error(room):
                    freed = room.seating.free_unconnected(wall)
                    if room.seating.start_quick(wall):
                        session = await self._new_game(room)
                    elif freed:
                        await self._save(room)
                if session is None and room.status == OPEN and self.rooms.get(room.id) is room:
                    self._watch_start(room)  # woken early, or a seat freed: the next step
        except Exception as e:  # the database: tried again shortly
            log.error("room %s: the quick table could not start: %r", room.id, e)
            loop = asyncio.get_running_loop()
            room._start_timer = loop.call_later(1.0, lambda: self._watch_start(room))
            return
        if freed and self.on_quick_freed is not None:
            self.on_quick_freed(room.id, freed)
        if session is None:
            if freed:
                self._after_seats(room)
            return
        if room._start_timer is not None:
            room._start_timer.cancel()
            room._start_timer = None
        self._after_game(room, session)
        self._quick_closed(room)
        self._forget_if_unseen(room)

    def _forget_if_unseen(self, room: Room) -> None:
        """A room no page has open leaves memory (it stays stored), as when the last
        page closes."""
        if not room.seating.pages and self.rooms.get(room.id) is room:
            del self.rooms[room.id]
            self._release_if_idle(room.id)

    def _quick_closed(self, room: Room) -> None:
        """A quick table takes nobody more: the queue stops sending people there."""
        if room._start_timer is not None:
            room._start_timer.cancel()
            room._start_timer = None
        if self.on_quick_closed is not None:
            self.on_quick_closed(room.id)

    # ------------------------------------------------------------------ games

    async def start(self, room: Room, player: str | None) -> GameSession:
        """The host starts the game: the empty seats are computers."""
        async with room.lock:
            with self._undo_on_error(room):
                room.seating.start(player)
                session = await self._new_game(room)
        self._after_game(room, session)
        return session

    async def rematch(self, room: Room, player: str | None) -> GameSession | None:
        """A seated person wants another game; once every present person has, it starts."""
        async with room.lock:
            with self._undo_on_error(room):
                ready = room.seating.vote_rematch(player, loop_time())
                session = await self._new_game(room) if ready else None
        if session is None:
            room.broadcast()
        else:
            self._after_game(room, session)
        return session

    async def _rematch_if_ready(self, room: Room) -> None:
        """Start the next game if the last vote awaited is no longer needed (call holding
        ``room.lock``)."""
        if not room.seating.rematch_ready(loop_time()):
            return
        with self._undo_on_error(room):
            room.seating.start_rematch_if_ready(loop_time())
            session = await self._new_game(room)
        self._after_game(room, session)

    def _after_game(self, room: Room, session: GameSession) -> None:
        """A new game at the table: pages moved to it, a computer waits only what is left
        of the grace for a person already away."""
        room.broadcast()
        for member in room.members:
            self._enter(room, member, 0)
        now = loop_time()
        waits = {}
        for seat, sitter in enumerate(room.seating.seats):
            if sitter is not None and not session.connected(seat):
                waits[seat] = max(
                    0.0, room.options.grace - room.seating.away_for(sitter.player, now)
                )
        session.start_graces(waits)

    async def _new_game(self, room: Room) -> GameSession:
        """A new game at the room's table (call holding ``room.lock``)."""
        seats: list[Seat] = []
        names: list[str] = []
        for i, sitter in enumerate(room.seating.seats):
            level = room.options.levels[i]
            if sitter is not None:
                seats.append(
                    Seat(
                        "human",
                        player=sitter.player,
                        level=level,
                        tag=sitter.tag,
                        browser=sitter.browser,
                    )
                )
                names.append(sitter.name or DEFAULT_PLAYERS[i])
            else:
                seats.append(Seat("bot", level=level))
                names.append(DEFAULT_PLAYERS[i] if i else "South")
        session = await self.games.new_game_at(
            seats,
            names,
            room.options.rules,
            [],  # a room's game is reached through the room, not a person's own table at /
            room_id=room.id,
            prepare=lambda s: self._attach(room, s),
        )
        before = room.game_id, room.session
        room.game_id = session.id
        room.session = session
        try:
            await self._save(room)
        except BaseException:
            room.game_id, room.session = before
            raise
        return session

    # ------------------------------------------------------------------ pages

    def connect(self, room: Room, member: RoomMember, since: int) -> None:
        """A page joins the room (admitted by the caller): its ``room`` frame, then the
        game's state or events for what its person may see."""
        if room.seating.open_page(member, member.player):  # a quick-play seat counts now
            asyncio.get_running_loop().create_task(self._page_came(room))
        member.seat = self._view(room, member)
        member.send(room_frame(room.snapshot(member.player)))
        self._enter(room, member, since)
        room.presence_changed()
        self._watch_host(room)

    async def _page_came(self, room: Room) -> None:
        """A quick-play seat's page opened the table: the seat counts (stored), and a
        table every seat of which counts starts."""
        await self._save_quietly(room)
        await self._start_quick(room)

    def disconnect(self, room: Room, member: RoomMember) -> None:
        """A page leaves the room; a room nobody is in leaves memory (it stays stored)."""
        if member not in room.seating.pages:
            return
        room.seating.close_page(member, loop_time())
        if room.session is not None:
            room.session.leave(member)
        if room.status == OVER:
            # Once this person has been gone the time of a reload, their vote is no
            # longer awaited: the rematch may start then, or the pages say so.
            loop = asyncio.get_running_loop()
            loop.call_later(
                RELOAD_WAIT + 0.05, lambda: loop.create_task(self._rematch_quietly(room))
            )
        room.presence_changed()
        self._watch_host(room)
        if room.seating.starts_in(time.time()) is None:  # a quick table waits to start
            self._forget_if_unseen(room)

    async def _rematch_quietly(self, room: Room) -> None:
        """Start the rematch if no vote is awaited any more; else tell the pages whose
        vote still is."""
        try:
            async with room.lock:
                if room.status != OVER:
                    return
                await self._rematch_if_ready(room)
        except Exception as e:  # the votes stay; the next vote or page tries again
            log.error("room %s: the rematch could not start: %r", room.id, e)
        if room.status == OVER:
            room.broadcast()

    def _view(self, room: Room, member: RoomMember) -> int:
        """The seat whose view ``member`` gets now: its person's seat if they play it in
        the room's game (or there is none yet), else :data:`SPECTATOR`."""
        seat = room.seating.view_of(member)
        session = room.session
        if seat != SPECTATOR and session is not None and session.seat_of(member.player) != seat:
            return SPECTATOR
        return seat

    def _sync(self, room: Room) -> None:
        """Bring every page in line with the seating: a page whose view changed gets the
        game afresh for what it may see now."""
        for member in room.members:
            view = self._view(room, member)
            if view != member.seat:
                if room.session is not None:
                    room.session.leave(member)
                member.seat = view
                self._enter(room, member, 0)

    def _enter(self, room: Room, member: RoomMember, since: int) -> None:
        """Subscribe ``member`` to the room's game at the seat it may see now."""
        session = room.session
        member.seat = self._view(room, member)
        if session is None:
            return
        before: GameSession | None = getattr(member, "session", None)
        if before is not None and before is not session:
            before.leave(member)
        session.leave(member)
        session.join(member, since)
        setter = getattr(member, "set_session", None)
        if setter is not None:
            setter(session)

    def _watch_host(self, room: Room) -> None:
        """Pass the host on once they have been away the grace (someone present can then
        start, remove or be asked); checked again when it is due."""
        if room._host_timer is not None:
            room._host_timer.cancel()
            room._host_timer = None
        due = room.seating.host_passes_at()
        if due is None:
            return
        loop = asyncio.get_running_loop()

        def check() -> None:
            room._host_timer = None
            if self.rooms.get(room.id) is room:
                loop.create_task(self._pass_host(room))

        room._host_timer = loop.call_later(max(0.0, due - loop.time()), check)

    async def _pass_host(self, room: Room) -> None:
        async with room.lock:
            try:
                with self._undo_on_error(room):
                    if not room.seating.pass_host_if_due(loop_time()):
                        return
                    await self._save(room)
            except Exception as e:
                log.error("room %s: the host could not be passed on: %r", room.id, e)
                return
        room.broadcast()
        self._watch_host(room)

    def _release_if_idle(self, room_id: str) -> None:
        """Several processes: give the room's lease back once neither the room nor its
        game is in memory here (the next page of it may land on any process)."""
        leases = self.games.leases
        if leases is None or room_id in self.rooms:
            return
        if any(s.room_id == room_id for s in self.games.sessions.values()):
            return
        leases.release_soon(f"room:{room_id}")

    def _attach(self, room: Room, session: GameSession) -> None:
        """Make ``session`` the room's game: its table options, spectators, presence."""
        session.table = TableOptions(
            grace=room.options.grace,
            turn_timer=room.options.turn_timer,
            rated=room.options.rated,
        )
        session.open_to_spectators()
        session.room_id = room.id

        def abandoned(s: GameSession, player: str) -> None:
            asyncio.get_running_loop().create_task(self._free_abandoned(room, s, player))

        session.on_abandon = abandoned

        def changed(s: GameSession) -> None:
            if s.game.is_over and room.status == PLAYING and room.session is s:
                room.seating.game_over()
                asyncio.get_running_loop().create_task(self._save_quietly(room))
                room.broadcast()
            else:
                room.presence_changed()

        session.on_change = changed

    async def _save_quietly(self, room: Room) -> None:
        try:
            await self._save(room)
        except Exception as e:  # the status is rebuilt from the game on load
            log.error("room %s: could not be saved: %r", room.id, e)

    async def _attach_loaded(self, session: GameSession) -> None:
        """A room's game loaded from the store (after a restart): attach it to its room."""
        room = await self.get(session.room_id, live=False)  # the game is being loaded
        if room is None:
            return
        self._attach(room, session)
        if room.game_id == session.id:
            room.session = session
            if session.game.is_over:
                room.seating.game_over()
        session.start_graces()
