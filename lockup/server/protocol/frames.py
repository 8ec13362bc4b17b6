"""Server frames: every frame the server sends is built here, each one a TypedDict of
:mod:`.wire`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

import orjson

from ...cards import Card
from .client import ProtocolError
from .wire import (
    ApiError,
    Clock,
    ClockMessage,
    ErrorMessage,
    EventMessage,
    GameEvent,
    HintMessage,
    NoteEvent,
    NoticeMessage,
    RoomMessage,
    RoomSnapshot,
    SeatInfo,
    StateMessage,
    SyncedMessage,
    View,
)


def to_json(obj: Any) -> str:
    """Compact JSON text of a frame (orjson: several times faster than :mod:`json`)."""
    return orjson.dumps(obj).decode()


def to_bytes(obj: Any) -> bytes:
    """Compact JSON text of a frame, encoded (UTF-8): what a game's event frames are made
    of, kept and sent without decoding (:func:`event_bytes`)."""
    return orjson.dumps(obj)


def error_message(
    code: str,
    reason: str,
    version: int | None,
    rule: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> ErrorMessage:
    """An ``error`` message."""
    return {
        "type": "error",
        "code": code,
        "rule": rule,
        "reason": reason,
        "params": dict(params or {}),
        "version": version,
    }


def error_frame(
    code: str,
    reason: str,
    version: int | None,
    rule: str | None = None,
    params: dict[str, Any] | None = None,
) -> str:
    """The JSON text of an ``error`` message."""
    return to_json(error_message(code, reason, version, rule, params))


def error_of(e: ProtocolError, version: int | None) -> str:
    """The ``error`` frame of a refused message."""
    return error_frame(e.code, e.reason, version, e.rule, e.params)


def api_error(code: str, reason: str, params: Mapping[str, Any] | None = None) -> ApiError:
    """The JSON body of a refused HTTP request (``{"error", "reason"}``, and ``params``
    when there are any)."""
    body: ApiError = {"error": code, "reason": reason}
    if params:
        body["params"] = dict(params)
    return body


def api_error_of(e: ProtocolError) -> ApiError:
    """The JSON body of an HTTP request refused with ``e``."""
    return api_error(e.code, e.reason, e.params)


def state_message(
    version: int,
    players: Sequence[str],
    seats: Sequence[Mapping[str, Any]],
    view: Mapping[str, Any],
    clock: Mapping[str, Any] | None = None,
) -> StateMessage:
    """A full snapshot for one seat (or a spectator): ``state``."""
    frame: StateMessage = {
        "type": "state",
        "version": version,
        "players": list(players),
        "seats": [cast(SeatInfo, dict(x)) for x in seats],
        "view": cast(View, view),
    }
    if clock is not None:
        frame["clock"] = cast(Clock, clock)
    return frame


def state_frame(
    version: int,
    players: Sequence[str],
    seats: Sequence[Mapping[str, Any]],
    view: Mapping[str, Any],
    clock: Mapping[str, Any] | None = None,
) -> str:
    """The JSON text of :func:`state_message`."""
    return to_json(state_message(version, players, seats, view, clock))


def skip_frame(version: int) -> str:
    """An event this viewer may not see (a spectator and the players' chat): its version
    only, so that the viewer's versions stay consecutive (a :class:`SkipMessage`)."""
    return f'{{"type":"skip","version":{version}}}'


def skip_bytes(version: int) -> bytes:
    """:func:`skip_frame` as UTF-8 bytes."""
    return b'{"type":"skip","version":%d}' % version


def clock_message(version: int, clock: Mapping[str, Any] | None) -> ClockMessage:
    """A person's turn timer started: ``{"seat", "seconds", "limit"}`` (unversioned)."""
    return {"type": "clock", "version": version, "clock": cast(Clock | None, clock)}


def clock_frame(version: int, clock: Mapping[str, Any] | None) -> str:
    """The JSON text of :func:`clock_message`."""
    return to_json(clock_message(version, clock))


RELAY_DOWN: Literal["relay-down"] = "relay-down"
"""The ``notice`` of a page whose game another process plays while the processes cannot
reach each other (Redis is down): its frames wait until they can."""


def synced_frame(version: int) -> str:
    """The answer to a ``hello`` whose page missed nothing: it is up to date at
    ``version`` (so a reconnected page knows its game is back)."""
    frame: SyncedMessage = {"type": "synced", "version": version}
    return to_json(frame)


def notice_frame(notice: Literal["relay-down"] | None) -> str:
    """A ``notice``: a passing fault the page shows until the next notice (``None``: it
    ended)."""
    frame: NoticeMessage = {"type": "notice", "notice": notice}
    return to_json(frame)


def room_message(room: Mapping[str, Any]) -> RoomMessage:
    """A room as one viewer may see it (unversioned: each one replaces the last)."""
    return {"type": "room", "room": cast(RoomSnapshot, room)}


def room_frame(room: Mapping[str, Any]) -> str:
    """The JSON text of :func:`room_message`."""
    return to_json(room_message(room))


def event_frame(version: int, event_json: str, view_json: str) -> str:
    """One event with the seat's view after it (both already JSON text): an
    :class:`EventMessage` (``event`` a :data:`GameEvent`, ``view`` a :class:`View`)."""
    return f'{{"type":"event","version":{version},"event":{event_json},"view":{view_json}}}'


def event_bytes(version: int, event_json: bytes, view_json: bytes) -> bytes:
    """:func:`event_frame` of parts already encoded (UTF-8 bytes), as bytes: a game's event
    frames are built once, kept and sent as they are."""
    return b'{"type":"event","version":%d,"event":%b,"view":%b}' % (version, event_json, view_json)


def event_message(version: int, event: GameEvent, view: View) -> EventMessage:
    """An ``event`` message as data (what :func:`event_frame` writes as text)."""
    return {"type": "event", "version": version, "event": event, "view": view}


def note_event(kind: str, seat: int, data: Mapping[str, Any]) -> NoteEvent:
    """The event of a note (``chat``, ``react``, ``takeover``, ``reclaim``, ``seat``,
    ``abandon``) by ``seat`` with ``data``; raises ``ValueError`` for another kind."""
    if kind not in NOTE_KINDS:
        raise ValueError(f"not a note: {kind!r}")
    return cast(NoteEvent, {"kind": kind, "seat": seat, **data})


NOTE_KINDS = ("chat", "react", "takeover", "reclaim", "seat", "abandon")
"""The kinds of :data:`NoteEvent`."""


def hint_message(version: int, values: Mapping[Card, float]) -> HintMessage:
    """The expert's value of each legal card, best first: ``hint``."""
    from ...cards import card_str

    ranked = sorted(values.items(), key=lambda kv: -kv[1])
    return {
        "type": "hint",
        "version": version,
        "values": [{"card": card_str(c), "value": round(float(v), 3)} for c, v in ranked],
        "best": card_str(ranked[0][0]) if ranked else None,
        "unit": "tricks",
    }


def hint_frame(version: int, values: Mapping[Card, float]) -> str:
    """The JSON text of :func:`hint_message`."""
    return to_json(hint_message(version, values))
