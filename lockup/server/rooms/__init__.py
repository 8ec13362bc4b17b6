"""Rooms: friends at one table, computers in the empty seats.

A room has a host, four seats and options (the rules, a computer level per seat, the grace
period before a computer plays for a person who left, a turn timer, public or not). People
join with the room's invite link (anyone may join a public room from the lobby) and pick a
seat; the host starts the game, and the seats still empty are computers. The game itself
is a :class:`~lockup.server.session.GameSession` like any other: the room only says who
sits where and how the table goes on without its people. Spectators watch with the room's
watch link (or, once the game has started, its invite), and see only what is public.

- :mod:`.options`: a room's options and display names, checked.
- :mod:`.seating`: who sits where, the room's phases and its pages, as one state machine
  with no I/O; what every page sees and may do is worked out from it.
- :mod:`.room`: one room in memory and the ``room`` frames its pages get.
- :mod:`.service`: rooms in the server: stored and loaded, their pages and games.
"""

from .options import (
    GRACE_RANGE,
    MAX_NAME,
    ROOM_KEYS,
    TIMER_RANGE,
    RoomOptions,
    check_name,
    parse_room_options,
)
from .room import PRESENCE_EVERY, Room, RoomMember
from .seating import CLOSED, OPEN, OVER, PLAYING, RELOAD_WAIT, SPECTATOR, Seating, Sitter
from .service import RoomService, no_room

__all__ = [
    "CLOSED",
    "GRACE_RANGE",
    "MAX_NAME",
    "OPEN",
    "OVER",
    "PLAYING",
    "PRESENCE_EVERY",
    "RELOAD_WAIT",
    "ROOM_KEYS",
    "SPECTATOR",
    "TIMER_RANGE",
    "Room",
    "RoomMember",
    "RoomOptions",
    "RoomService",
    "Seating",
    "Sitter",
    "check_name",
    "no_room",
    "parse_room_options",
]
