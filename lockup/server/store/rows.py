"""What the store hands out and refuses: rows, leases, errors, a game's record."""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ...record import FORMAT

log = logging.getLogger("lockup.server")


BATCH = 500
"""At most this many ids in one ``IN (...)`` (SQLite allows a few hundred bound values in old
versions) and one purge transaction."""


class StoreError(RuntimeError):
    """The database cannot be opened or written; the message says why in plain words."""


class LeaseLost(StoreError):
    """A write was refused: the lease it was made under has been taken over by another
    process (its fence moved on), so this process no longer owns the game."""


def process_id() -> str:
    """A name for this server process that no other process, here or on another host,
    has ever had: host, pid and a random part."""
    return f"{socket.gethostname()[:48]}:{os.getpid()}:{secrets.token_hex(6)}"


@dataclass(frozen=True)
class Lease:
    """A lease this process holds: its key, owner and fence (see :data:`leases_table`).

    A write made under a lease (``Store.write(..., lease=...)``) checks in its own
    transaction that the row still has this owner and fence, and is refused with
    :class:`LeaseLost` otherwise, so a process that lost a game (paused, partitioned, its
    lease expired and taken over) can never write into it again.
    """

    key: str
    owner: str
    fence: int


@dataclass(frozen=True)
class ActionRow:
    """One stored action: ``kind`` is ``deal``, ``play`` or ``discard``."""

    seq: int
    kind: str
    seat: int
    data: str
    version: int
    actor: str | None = None
    """``person`` or ``computer`` for a play, None for the server's deals and discards."""


@dataclass(frozen=True)
class GameRow:
    """A stored game's header: rules, names and seats as decoded JSON."""

    id: str
    rules: dict[str, Any]
    players: list[str]
    seats: list[dict[str, Any]]
    winner: int | None
    room_id: str | None = None
    events_version: int = 0
    """The version of the game's last stored event that is not a move (0: none)."""
    abandoned: tuple[int, ...] = ()
    """The seats whose person abandoned the game (an ``abandon`` event at the seat)."""


def record_of(game: GameRow, actions: Sequence[ActionRow]) -> dict[str, Any]:
    """The ``lockup-record/1`` document a game's stored rows make."""
    hands: list[dict[str, Any]] = []
    for a in actions:
        if a.kind == "deal":
            hands.append({"dealer": a.seat, "deal": json.loads(a.data), "events": []})
        elif not hands:
            raise StoreError(f"game {game.id}: a {a.kind} before the first deal")
        else:
            hands[-1]["events"].append({"seat": a.seat, a.kind: a.data})
    return {"format": FORMAT, "rules": game.rules, "players": game.players, "hands": hands}


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(t: datetime) -> datetime:
    """A stored time with its zone (SQLite gives times back naive, in UTC)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def _chunks(items: Sequence[str], size: int = BATCH) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
