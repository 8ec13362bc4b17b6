"""A room in memory: its keys, options, seating and current game, and its ``room`` frames.

Every page of a room gets ``room`` frames (seats, names, who is connected and for how long
a computer waits for them, spectators, the host, the phase, the rematch); they are
snapshots, not versioned events, sent at once after a change of seats or phase and at
most every :data:`PRESENCE_EVERY` seconds for presence alone, so that many spectators
coming and going never flood the table (the spectators' frame, the same for each of
them, is built once).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from typing import Any, Protocol

from ..protocol import room_frame
from ..session import GameSession
from .options import RoomOptions
from .seating import PLAYING, Seating

PRESENCE_EVERY = 0.25
"""Seconds between two ``room`` frames that only say who is connected or watching."""


class RoomMember(Protocol):
    """A page in a room (the WebSocket connection). Its :attr:`seat` is what it is sent
    (set by the room from the seating, never by the page)."""

    seat: int
    player: str | None

    def send(self, frame: str | bytes) -> None:
        """Queue a frame (JSON text, or its UTF-8 bytes)."""

    def close(self, code: int) -> None:
        """Close the page's connection (it reconnects)."""


def loop_time() -> float:
    """The running event loop's clock."""
    return asyncio.get_running_loop().time()


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 2)


class Room:
    """One room in memory: its keys, options, seating and current game."""

    def __init__(
        self,
        room_id: str,
        invite: str,
        watch: str,
        options: RoomOptions,
        seating: Seating,
        game_id: str | None,
    ) -> None:
        self.id = room_id
        self.invite = invite
        self.watch = watch
        self.options = options
        self.seating = seating
        self.game_id = game_id
        self.session: GameSession | None = None
        self.lock = asyncio.Lock()
        self._presence: asyncio.TimerHandle | None = None
        self._last_sent = 0.0
        self._host_timer: asyncio.TimerHandle | None = None
        self._start_timer: asyncio.TimerHandle | None = None
        """A quick table's start, due at its start time."""

    @property
    def status(self) -> str:
        """The phase: ``open``, ``playing``, ``over`` or ``closed``."""
        return self.seating.status

    @property
    def host(self) -> str:
        """The host's player token."""
        return self.seating.host

    @property
    def members(self) -> list[RoomMember]:
        """The room's open pages."""
        return list(self.seating.pages)  # type: ignore[arg-type]

    def seat_of(self, player: str | None) -> int | None:
        """The seat ``player`` sits at now, or None."""
        return self.seating.seat_of(player)

    def may_watch(self, key: str | None) -> bool:
        """Whether ``key`` opens the room to a spectator: the watch key, or the invite
        (a latecomer with the invite watches); any key for a public room."""
        return self.options.public or self._matches(key, self.watch) or self.may_join(key)

    def may_join(self, invite: str | None) -> bool:
        """Whether ``invite`` lets a person take a seat (anyone, for a public room)."""
        return self.options.public or self._matches(invite, self.invite)

    @staticmethod
    def _matches(key: str | None, secret: str) -> bool:
        return key is not None and secrets.compare_digest(key.encode(), secret.encode())

    def _game_seats(self) -> bool:
        """Whether the seats are the game's now (a game under way at this table)."""
        session = self.session
        return self.status == PLAYING and session is not None and session.id == self.game_id

    def _left(self) -> list[int]:
        """The seats of the room's game, under way or just over, whose person abandoned
        it (they rank last in it)."""
        session = self.session
        if session is None or session.id != self.game_id:
            return []
        return sorted(session.abandoned_seats)

    def snapshot(self, viewer: str | None) -> dict[str, Any]:
        """The room as ``viewer`` (a player token) may see it: links only for people
        seated, nobody's token."""
        seating = self.seating
        you = seating.seat_of(viewer)
        seats = []
        for i, sitter in enumerate(seating.seats):
            entry: dict[str, Any] = {
                "seat": i,
                "name": sitter.name if sitter else None,
                "level": self.options.levels[i],
                "takeover_in": None,
            }
            if self._game_seats():
                assert self.session is not None
                who = self.session.seats[i]
                entry["kind"] = "person" if who.kind == "human" else "computer"
                entry["name"] = self.session.names[i]
                entry["connected"] = who.kind == "human" and self.session.connected(i)
                entry["away"] = who.away
                entry["takeover_in"] = self.session.takeover_in(i)
                entry["pending"] = False
            else:
                # Playing while the game is still being made (its first write under
                # way): the seats nobody took are the computers'.
                entry["kind"] = (
                    "person" if sitter else "computer" if self.status == PLAYING else "empty"
                )
                entry["connected"] = sitter is not None and seating.present(sitter.player)
                entry["away"] = False
                entry["pending"] = sitter is not None and sitter.pending_until is not None
            seats.append(entry)
        out: dict[str, Any] = {
            "id": self.id,
            "status": self.status,
            "host": seating.host_seat(),
            "you": you,
            "seats": seats,
            "watchers": seating.watchers(),
            "options": self.options.to_dict(),
            "game": self.game_id,
            "rematch": sorted(seating.rematch),
            "rematch_waiting": seating.awaited(loop_time()),
            "starts_in": _rounded(seating.starts_in(time.time())),
            "left": self._left(),
        }
        if you is not None:
            out["invite"] = self.invite
            out["watch"] = self.watch
        return out

    def broadcast(self) -> None:
        """Send every page of the room its ``room`` frame now (the spectators' frame, the
        same for each of them, is built once)."""
        if self._presence is not None:
            self._presence.cancel()
            self._presence = None
        with contextlib.suppress(RuntimeError):  # no running loop: nothing is waiting
            self._last_sent = loop_time()
        frames: dict[int | None, str] = {}
        for member in self.members:
            seat = self.seating.seat_of(member.player)
            text = frames.get(seat)
            if text is None:
                text = frames[seat] = room_frame(self.snapshot(member.player))
            member.send(text)

    def presence_changed(self) -> None:
        """Someone connected, left or started watching: a ``room`` frame soon, at most
        one every :data:`PRESENCE_EVERY` seconds."""
        if self._presence is not None:
            return
        wait = self._last_sent + PRESENCE_EVERY - loop_time()
        if wait <= 0:
            self.broadcast()
            return

        def send() -> None:
            self._presence = None
            self.broadcast()

        self._presence = asyncio.get_running_loop().call_later(wait, send)

    def _stored_options(self) -> dict[str, Any]:
        """The options as stored: a quick table's start time with them (wall-clock
        seconds), so that a process taking the room over still starts it on time."""
        out = self.options.to_dict()
        if self.seating.starts_at is not None:
            out["starts_at"] = self.seating.starts_at
        return out

    def to_row(self) -> dict[str, Any]:
        """The room's row in the store."""
        seats = [
            {"player": s.player, "name": s.name, "tag": s.tag, "browser": s.browser}
            | ({"pending_until": s.pending_until} if s.pending_until is not None else {})
            if s
            else {"player": None, "name": None}
            for s in self.seating.seats
        ]
        return {
            "id": self.id,
            "invite": self.invite,
            "watch": self.watch,
            "host": self.seating.host,
            "options": json.dumps(self._stored_options()),
            "seats": json.dumps(seats, ensure_ascii=False),
            "game_id": self.game_id,
            "status": self.status,
            "public": self.options.public,
        }
