"""Rooms in the store: a room's row written and read back, the lobby's entries, and the
players' display names (the statements :class:`~.service.RoomService` runs)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from ...engine import DEFAULT_PLAYERS
from ..store import players_table, rooms_table
from .options import RoomOptions
from .room import Room, loop_time
from .seating import Seating, Sitter

LOBBY_OPTIONS = ("target", "picture_exception", "lock_discards", "levels", "turn_timer")
"""The options the lobby shows of each room."""


def _now() -> datetime:
    return datetime.now(UTC)


def op_save(room: Room, *, new: bool = False) -> Callable[[Connection], None]:
    """The write of ``room`` as it is now (a new row if ``new``)."""
    row = room.to_row()

    def op(conn: Connection) -> None:
        now = _now()
        if new:
            conn.execute(rooms_table.insert().values(**row, created_at=now, updated_at=now))
        else:
            conn.execute(
                update(rooms_table).where(rooms_table.c.id == room.id).values(**row, updated_at=now)
            )

    return op


def op_read(room_id: str) -> Callable[[Connection], Any]:
    """The read of room ``room_id``'s row (None if there is none)."""

    def read(conn: Connection) -> Any:
        return conn.execute(select(rooms_table).where(rooms_table.c.id == room_id)).first()

    return read


def from_row(row: Any) -> Room:
    """A room as stored (everyone seated counts as away until a page opens)."""
    stored = json.loads(row.options)
    options = RoomOptions.from_dict(stored)
    sitters = [
        Sitter(
            d["player"],
            d.get("name") or DEFAULT_PLAYERS[i],
            d.get("tag"),
            d.get("browser"),
            d.get("pending_until"),
        )
        if d.get("player")
        else None
        for i, d in enumerate(json.loads(row.seats))
    ]
    seating = Seating(
        row.host,
        sitters,
        row.status,
        grace=options.grace,
        now=loop_time(),
        quick=options.quick,
        starts_at=stored.get("starts_at"),
    )
    return Room(row.id, row.invite, row.watch, options, seating, row.game_id)


def lobby_entry(row: Any) -> dict[str, Any]:
    """A public room's entry in the lobby: its host's name, how many are seated, its
    options."""
    seats = json.loads(row.seats)
    options = json.loads(row.options)
    host = next((s.get("name") for s in seats if s.get("player") == row.host), None)
    return {
        "room": row.id,
        "host": host,
        "seated": sum(1 for s in seats if s.get("player")),
        "options": {k: options[k] for k in LOBBY_OPTIONS},
    }


def op_name(player: str) -> Callable[[Connection], str | None]:
    """The read of the display name ``player`` chose (None: none)."""

    def read(conn: Connection) -> str | None:
        name: str | None = conn.execute(
            select(players_table.c.name).where(players_table.c.id == player)
        ).scalar_one_or_none()
        return name

    return read


def op_set_name(player: str, name: str) -> Callable[[Connection], None]:
    """The write of ``name`` as ``player``'s display name."""

    def op(conn: Connection) -> None:
        done = conn.execute(
            update(players_table).where(players_table.c.id == player).values(name=name)
        ).rowcount
        if not done:
            conn.execute(players_table.insert().values(id=player, name=name, created_at=_now()))

    return op
