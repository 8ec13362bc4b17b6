"""Rooms: friends at one table, computers in the empty seats.

A room has a host, four seats and options (the rules, a computer level per seat, the grace
period before a computer plays for a person who left, a turn timer, public or not). People
join with the room's invite link (anyone may join a public room from the lobby) and pick a
seat; the host starts the game, and the seats still empty are computers. The game itself
is a :class:`~lockup.server.session.GameSession` like any other: the room only says who
sits where and how the table goes on without its people. Spectators watch with the room's
watch link, and see only what is public.

Every page of a room gets ``room`` frames (seats, names, who is connected, spectators,
the host, the status); they are snapshots, not versioned events. The room's games send
their versioned events as usual.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from ..engine import DEFAULT_PLAYERS, Rules
from .protocol import OptionError, ProtocolError, clean_text, room_frame, safe_text
from .session import SPECTATOR, GameService, GameSession, Seat, TableOptions
from .store import players_table, rooms_table

log = logging.getLogger("lockup.server")

MAX_NAME = 24
"""The longest display name."""
ROOM_KEYS = (
    "target",
    "picture_exception",
    "lock_discards",
    "levels",
    "grace",
    "turn_timer",
    "public",
    "name",
)
"""The options of ``POST /api/rooms``."""
GRACE_RANGE = (5.0, 600.0)
TIMER_RANGE = (5.0, 300.0)


class RoomMember(Protocol):
    """A page in a room (the WebSocket connection)."""

    seat: int
    player: str | None

    def send(self, text: str) -> None:
        """Queue a frame."""

    def close(self, code: int) -> None:
        """Close the page's connection (it reconnects)."""


@dataclass
class RoomOptions:
    """A room's options: the rules, a computer level per seat, the grace period before a
    computer plays for a person who left (seconds), a turn timer (seconds, 0: none), and
    whether the lobby lists it."""

    rules: Rules = field(default_factory=Rules)
    levels: list[str] = field(default_factory=lambda: ["normal"] * 4)
    grace: float = 45.0
    turn_timer: float = 0.0
    public: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON for the store and the pages."""
        return {
            **self.rules.to_dict(),
            "levels": self.levels,
            "grace": self.grace,
            "turn_timer": self.turn_timer,
            "public": self.public,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoomOptions:
        """Options as stored."""
        rules = Rules(
            picture_exception=data["picture_exception"],
            lock_discards=data["lock_discards"],
            target=data["target"],
        )
        return cls(rules, list(data["levels"]), data["grace"], data["turn_timer"], data["public"])


def parse_room_options(
    data: Any, levels: list[str], default_level: str
) -> tuple[RoomOptions, str | None]:
    """The options of ``POST /api/rooms`` and the host's display name; raises
    :class:`OptionError` saying what is wrong."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise OptionError("the body must be a JSON object of options")
    unknown = sorted(set(data) - set(ROOM_KEYS))
    if unknown:
        raise OptionError(
            f"unknown option {safe_text(str(unknown[0]))!r}: the options are {', '.join(ROOM_KEYS)}"
        )
    try:
        rules = Rules(
            **{k: data[k] for k in ("target", "picture_exception", "lock_discards") if k in data}
        )
    except (TypeError, ValueError) as e:
        raise OptionError(safe_text(str(e), 200)) from None
    chosen = data.get("levels", default_level)
    if isinstance(chosen, str):
        chosen = [chosen] * 4
    if (
        not isinstance(chosen, list)
        or len(chosen) not in (3, 4)
        or not all(isinstance(x, str) and x in levels for x in chosen)
    ):
        raise OptionError(f"levels must be a level or a list of 3 or 4 of {', '.join(levels)}")
    if len(chosen) == 3:  # the seats other than the host's
        chosen = [default_level, *chosen]

    def number(key: str, default: float, low: float, high: float, zero_ok: bool) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise OptionError(f"{key} must be a number of seconds")
        value = float(value)
        if not (low <= value <= high or (zero_ok and value == 0)):
            off = " or 0 for none" if zero_ok else ""
            raise OptionError(f"{key} must be {low:g} to {high:g} seconds{off}")
        return value

    grace = number("grace", 45.0, *GRACE_RANGE, zero_ok=False)
    timer = number("turn_timer", 0.0, *TIMER_RANGE, zero_ok=True)
    public = data.get("public", False)
    if not isinstance(public, bool):
        raise OptionError("public must be true or false")
    name = data.get("name")
    if name is not None:
        name = check_name(name)
    return RoomOptions(rules, list(chosen), grace, timer, public), name


def check_name(name: Any) -> str:
    """A display name, cleaned; raises :class:`OptionError` for none or a bad one."""
    if not isinstance(name, str):
        raise OptionError("a name is text")
    cleaned = clean_text(name, MAX_NAME + 1)
    if not cleaned:
        raise OptionError("a name needs a letter or two")
    if len(cleaned) > MAX_NAME:
        raise OptionError(f"a name is at most {MAX_NAME} characters")
    return cleaned


@dataclass
class RoomSeat:
    """A seat of a room: the person sitting there (token and name), or nobody."""

    player: str | None = None
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON for the store."""
        return {"player": self.player, "name": self.name}


class Room:
    """One room in memory: the stored room, plus its pages and the rematch votes."""

    def __init__(
        self,
        room_id: str,
        invite: str,
        watch: str,
        host: str,
        options: RoomOptions,
        seats: list[RoomSeat],
        game_id: str | None,
        status: str,
    ) -> None:
        self.id = room_id
        self.invite = invite
        self.watch = watch
        self.host = host
        self.options = options
        self.seats = seats
        self.game_id = game_id
        self.status = status
        """``open`` (people take seats), ``playing``, ``over`` (a rematch may start)."""
        self.members: set[RoomMember] = set()
        self.rematch: set[int] = set()
        self.session: GameSession | None = None
        self.lock = asyncio.Lock()

    def seat_of(self, player: str | None) -> int | None:
        """The seat ``player`` sits at, or None."""
        if player is None:
            return None
        return next((i for i, s in enumerate(self.seats) if s.player == player), None)

    def may_watch(self, key: str | None) -> bool:
        """Whether ``key`` opens the room to a spectator (any key for a public room)."""
        return self.options.public or (
            key is not None and secrets.compare_digest(key.encode(), self.watch.encode())
        )

    def may_join(self, invite: str | None) -> bool:
        """Whether ``invite`` lets a person take a seat (anyone, for a public room)."""
        return self.options.public or (
            invite is not None and secrets.compare_digest(invite.encode(), self.invite.encode())
        )

    def snapshot(self, viewer: str | None) -> dict[str, Any]:
        """The room as ``viewer`` (a player token) may see it: links only for people
        seated, nobody's token."""
        session = self.session
        you = self.seat_of(viewer)
        seats = []
        for i, seat in enumerate(self.seats):
            entry: dict[str, Any] = {"seat": i, "name": seat.name, "level": self.options.levels[i]}
            if session is not None:
                who = session.seats[i]
                entry["kind"] = "person" if who.kind == "human" else "computer"
                entry["name"] = session.names[i]
                entry["connected"] = who.kind == "human" and session.connected(i)
                entry["away"] = who.away
            else:
                entry["kind"] = "person" if seat.player else "empty"
                entry["connected"] = seat.player is not None and any(
                    m.seat == i for m in self.members
                )
                entry["away"] = False
            seats.append(entry)
        watchers = sum(1 for m in self.members if m.seat == SPECTATOR)
        out: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "host": self.seat_of(self.host),
            "you": you,
            "seats": seats,
            "watchers": watchers,
            "options": self.options.to_dict(),
            "game": self.game_id,
            "rematch": sorted(self.rematch),
        }
        if you is not None:
            out["invite"] = self.invite
            out["watch"] = self.watch
        return out

    def broadcast(self) -> None:
        """Send every page of the room its ``room`` frame."""
        for member in list(self.members):
            member.send(room_frame(self.snapshot(member.player)))

    def to_row(self) -> dict[str, Any]:
        """The room's row in the store."""
        return {
            "id": self.id,
            "invite": self.invite,
            "watch": self.watch,
            "host": self.host,
            "options": json.dumps(self.options.to_dict()),
            "seats": json.dumps([s.to_dict() for s in self.seats], ensure_ascii=False),
            "game_id": self.game_id,
            "status": self.status,
            "public": self.options.public,
        }


def _now() -> datetime:
    return datetime.now(UTC)


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
        games.on_load = self._attach_loaded
        games.on_lost_room = self._lost
        games.on_forget_room_game = self._release_if_idle

    def _lost(self, room_id: str) -> None:
        """Another process took the room over: drop this copy; its pages reconnect."""
        room = self.rooms.pop(room_id, None)
        if room is None:
            return
        for member in list(room.members):
            member.close(1012)
        room.members.clear()

    # ------------------------------------------------------------------ store

    def _op_save(self, room: Room, *, new: bool = False) -> Callable[[Connection], None]:
        row = room.to_row()

        def op(conn: Connection) -> None:
            now = _now()
            if new:
                conn.execute(rooms_table.insert().values(**row, created_at=now, updated_at=now))
            else:
                conn.execute(
                    update(rooms_table)
                    .where(rooms_table.c.id == room.id)
                    .values(**row, updated_at=now)
                )

        return op

    async def _save(self, room: Room, *, new: bool = False) -> None:
        """Store the room, under its lease when several processes share the database."""
        leases = self.games.leases
        lease = leases.held.get(f"room:{room.id}") if leases is not None else None
        await self.store.write(self._op_save(room, new=new), lease=lease)

    async def get(self, room_id: Any, *, live: bool = True) -> Room | None:
        """The room ``room_id`` (loaded from the store if need be), or None; ``live``: with
        its game in memory too."""
        if not isinstance(room_id, str) or not 1 <= len(room_id) <= 16:
            return None
        room = self.rooms.get(room_id)
        if room is not None:
            if live:
                await self._live(room)
            return room

        def read(conn: Connection) -> Any:
            return conn.execute(select(rooms_table).where(rooms_table.c.id == room_id)).first()

        leases = self.games.leases
        if leases is not None:  # raises OwnedElsewhere while another process has it
            await leases.acquire(f"room:{room_id}")
        row = await self.store.read(read)
        if row is None:
            if leases is not None:
                leases.release_soon(f"room:{room_id}")
            return None
        room = self.rooms.get(room_id)  # loaded meanwhile
        if room is not None:
            return room
        room = Room(
            row.id,
            row.invite,
            row.watch,
            row.host,
            RoomOptions.from_dict(json.loads(row.options)),
            [RoomSeat(d.get("player"), d.get("name")) for d in json.loads(row.seats)],
            row.game_id,
            row.status,
        )
        self.rooms[room_id] = room
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

    async def lobby(self, limit: int = 50) -> list[dict[str, Any]]:
        """Public rooms people may still join, newest first."""

        def read(conn: Connection) -> Any:
            return conn.execute(
                select(rooms_table.c.id, rooms_table.c.seats, rooms_table.c.options)
                .where(rooms_table.c.public.is_(True), rooms_table.c.status == "open")
                .order_by(rooms_table.c.created_at.desc())
                .limit(limit)
            ).all()

        out = []
        for row in await self.store.read(read):
            seats = json.loads(row.seats)
            options = json.loads(row.options)
            out.append(
                {
                    "room": row.id,
                    "host": seats[0].get("name"),
                    "seated": sum(1 for s in seats if s.get("player")),
                    "options": {
                        k: options[k]
                        for k in (
                            "target",
                            "picture_exception",
                            "lock_discards",
                            "levels",
                            "turn_timer",
                        )
                    },
                }
            )
        return out

    # ------------------------------------------------------------------ names

    async def name_of(self, player: str) -> str | None:
        """The display name ``player`` chose, or None."""

        def read(conn: Connection) -> Any:
            return conn.execute(
                select(players_table.c.name).where(players_table.c.id == player)
            ).scalar_one_or_none()

        name: str | None = await self.store.read(read)
        return name

    async def set_name(self, player: str, name: str) -> None:
        """Keep ``name`` as ``player``'s display name."""

        def op(conn: Connection) -> None:
            done = conn.execute(
                update(players_table).where(players_table.c.id == player).values(name=name)
            ).rowcount
            if not done:
                conn.execute(players_table.insert().values(id=player, name=name, created_at=_now()))

        await self.store.write(op)

    # ------------------------------------------------------------------ rooms

    async def create(self, host: str, options: RoomOptions, name: str | None) -> Room:
        """A new room with ``host`` at South."""
        if name is not None:
            await self.set_name(host, name)
        else:
            name = await self.name_of(host) or DEFAULT_PLAYERS[0]
        room = Room(
            secrets.token_urlsafe(9),
            secrets.token_urlsafe(18),
            secrets.token_urlsafe(18),
            host,
            options,
            [RoomSeat(host, name), RoomSeat(), RoomSeat(), RoomSeat()],
            None,
            "open",
        )
        if self.games.leases is not None:
            await self.games.leases.acquire(f"room:{room.id}")
        await self._save(room, new=True)
        self.rooms[room.id] = room
        return room

    async def join(
        self, room: Room, player: str, invite: str | None, seat: Any, name: str | None
    ) -> int:
        """Seat ``player`` (at ``seat``, or the first free one); the seat they have if they
        sit there already. Raises :class:`ProtocolError`."""
        if room.seat_of(player) is None and not room.may_join(invite):
            raise no_room()
        async with room.lock:
            mine = room.seat_of(player)
            if mine is not None:
                if name is not None and room.seats[mine].name != name:
                    room.seats[mine].name = name
                    await self._save(room)
                    room.broadcast()
                return mine
            if room.status != "open":
                raise ProtocolError(
                    "room-started", "The game has started: you may watch it.", params={}
                )
            free = [i for i, s in enumerate(room.seats) if s.player is None]
            if seat is None:
                if not free:
                    raise ProtocolError("room-full", "Every seat is taken: you may watch.")
                seat = free[0]
            if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
                raise ProtocolError("bad-message", '"seat" must be 0 to 3.')
            if seat not in free:
                raise ProtocolError(
                    "seat-taken", "Someone sits there already.", params={"seat": seat}
                )
            if name is None:
                name = await self.name_of(player) or DEFAULT_PLAYERS[seat]
            room.seats[seat] = RoomSeat(player, name)
            await self._save(room)
        room.broadcast()
        return int(seat)

    async def leave(self, room: Room, player: str) -> None:
        """``player`` gives up their seat (before the game starts; the host cannot)."""
        async with room.lock:
            seat = room.seat_of(player)
            if seat is None or room.status != "open":
                return
            if player == room.host:
                raise ProtocolError("host-stays", "The host keeps their seat.")
            room.seats[seat] = RoomSeat()
            await self._save(room)
        room.broadcast()

    async def start(self, room: Room, player: str | None) -> GameSession:
        """The host starts the game: the empty seats are computers."""
        if player != room.host:
            raise ProtocolError("not-host", "Only the host starts the game.")
        async with room.lock:
            if room.status == "playing":
                raise ProtocolError("room-started", "The game has started.")
            session = await self._new_game(room)
        room.broadcast()
        for member in list(room.members):
            self._enter(room, member, 0)
        return session

    async def _new_game(self, room: Room) -> GameSession:
        """A new game at the room's table (call holding ``room.lock``)."""
        seats: list[Seat] = []
        names: list[str] = []
        for i, rs in enumerate(room.seats):
            level = room.options.levels[i]
            if rs.player is not None:
                seats.append(Seat("human", player=rs.player, level=level))
                names.append(rs.name or DEFAULT_PLAYERS[i])
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
        room.game_id = session.id
        room.session = session
        room.status = "playing"
        room.rematch.clear()
        await self._save(room)
        return session

    async def rematch(self, room: Room, player: str | None) -> GameSession | None:
        """A seated person wants another game; once every person has, it starts."""
        seat = room.seat_of(player)
        if seat is None:
            raise ProtocolError("not-seated", "Only the people at the table play again.")
        async with room.lock:
            if room.status != "over":
                raise ProtocolError("game-under-way", "The game is not over yet.")
            room.rematch.add(seat)
            people = {i for i, s in enumerate(room.seats) if s.player is not None}
            session = None
            if people <= room.rematch:
                session = await self._new_game(room)
        room.broadcast()
        if session is not None:
            for member in list(room.members):
                self._enter(room, member, 0)
        return session

    async def remove(self, room: Room, player: str | None, seat: int) -> None:
        """The host removes the person at ``seat``: a computer takes the seat for good."""
        if player != room.host:
            raise ProtocolError("not-host", "Only the host removes someone.")
        async with room.lock:
            target = room.seats[seat]
            if target.player is None or target.player == room.host:
                raise ProtocolError("bad-seat", "Nobody to remove there.", params={"seat": seat})
            removed = target.player
            room.seats[seat] = RoomSeat()
            await self._save(room)
            session = room.session
            if session is not None and room.status == "playing":
                await session.replace_by_computer(seat, DEFAULT_PLAYERS[seat] if seat else "South")
        for member in list(room.members):
            if member.player == removed:
                member.seat = SPECTATOR
        room.broadcast()
        if session is not None:
            for member in list(room.members):
                if member.player == removed:
                    self._enter(room, member, 0)

    # ------------------------------------------------------------------ pages

    def connect(self, room: Room, member: RoomMember, since: int) -> None:
        """A page joins the room: its ``room`` frame, then the game's state or events."""
        room.members.add(member)
        member.send(room_frame(room.snapshot(member.player)))
        self._enter(room, member, since)
        room.broadcast()

    def disconnect(self, room: Room, member: RoomMember) -> None:
        """A page leaves the room; a room nobody is in leaves memory (it stays stored)."""
        room.members.discard(member)
        if room.session is not None:
            room.session.leave(member)
        room.broadcast()
        if not room.members and self.rooms.get(room.id) is room:
            del self.rooms[room.id]
            self._release_if_idle(room.id)

    def _release_if_idle(self, room_id: str) -> None:
        """Several processes: give the room's lease back once neither the room nor its
        game is in memory here (the next page of it may land on any process)."""
        leases = self.games.leases
        if leases is None or room_id in self.rooms:
            return
        if any(s.room_id == room_id for s in self.games.sessions.values()):
            return
        leases.release_soon(f"room:{room_id}")

    def _enter(self, room: Room, member: RoomMember, since: int) -> None:
        """Subscribe ``member`` to the room's game at its seat (or as a spectator)."""
        session = room.session
        if session is None:
            return
        before: GameSession | None = getattr(member, "session", None)
        if before is not None and before is not session:
            before.leave(member)
        session.leave(member)
        if member.seat != SPECTATOR and session.seats[member.seat].kind != "human":
            member.seat = SPECTATOR
        session.join(member, since)
        setter = getattr(member, "set_session", None)
        if setter is not None:
            setter(session)

    def _attach(self, room: Room, session: GameSession) -> None:
        """Make ``session`` the room's game: its table options, spectators, presence."""
        session.table = TableOptions(grace=room.options.grace, turn_timer=room.options.turn_timer)
        session.open_to_spectators()
        session.room_id = room.id

        def changed(s: GameSession) -> None:
            if s.game.is_over and room.status == "playing" and room.session is s:
                room.status = "over"
                asyncio.get_running_loop().create_task(self._save_quietly(room))
            room.broadcast()

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
            if session.game.is_over and room.status == "playing":
                room.status = "over"
        session.start_graces()
