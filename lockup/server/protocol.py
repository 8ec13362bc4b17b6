"""The wire protocol of docs/web-protocol.md, in one place.

Every frame a client sends is parsed and validated here into a typed message
(:func:`parse_client`), and every frame the server sends is built here, each one typed
below (the ``*Message`` TypedDicts, :data:`ServerMessage`): the page's JSDoc types,
``lockup/web/static/js/types.js``, are generated from them (``scripts/gen_types.py``). Whatever a
client sends, parsing either returns a message or raises :class:`ProtocolError` with the
code ``bad-message``: never another exception. The same goes for the options of a new
game (:func:`parse_options`, for ``POST /api/games``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired, TypedDict, cast

import orjson

from ..cards import Card, parse_card
from ..engine import Rules

MAX_MESSAGE = 4096
"""The longest client message accepted, in characters."""
MAX_VERSION = 2**53
"""Versions are JSON numbers a page can hold exactly."""
GAME_ID_MAX = 32
"""The longest game id."""
OPTION_KEYS = ("target", "picture_exception", "lock_discards", "level")
"""The options of a new game (``POST /api/games``)."""

PONG = '{"type":"pong"}'
"""The answer to ``ping`` (a :class:`PongMessage`)."""
UNAVAILABLE = "unavailable"
"""The error code of a request the server cannot serve because its database (or the bus
between its processes) cannot be reached just now; nothing changed, try again."""
UNAVAILABLE_REASON = (
    "Saving is paused: the server cannot reach its database just now. Nothing you played "
    "is lost, and the game comes back by itself."
)
CLOSE_RESTART = 1012
"""The close code of a page whose game moved (its process stops, or another took it over):
reconnect at once."""
CLOSE_TRY_LATER = 1013
"""The close code of a page whose game cannot be served just now (the database is down):
reconnect with back-off; the page says saving is paused."""
SPECTATOR = -1
"""The seat a spectator's page gets the events of: it sees only what is public."""


# ---------------------------------------------------------------------- the wire's types
#
# What travels, as TypedDicts: every server frame (``type``), the events and views inside
# them, the client messages as sent, and the HTTP answers the page reads. The generator
# (scripts/gen_types.py) turns them into lockup/web/static/js/types.js; a test holds the
# two equal, and the builders below return these shapes.

CardCode = Annotated[str, "CardCode"]
"""A record code: rank letter and suit letter (``"QD"``, ``"TD"``)."""
Phase = Literal["deal", "discard", "play", "over"]


class RulesJSON(TypedDict):
    """A game's rule options (``Rules.to_dict()``)."""

    target: int
    picture_exception: str
    lock_discards: str


class TrickPlay(TypedDict):
    """One card of a trick, or of the table."""

    seat: int
    card: CardCode


class LastTrick(TypedDict):
    """The last completed trick of the hand."""

    number: int
    leader: int | None
    plays: list[TrickPlay]
    winner: int | None
    clubs: int
    lock: int


class HandSummary(TypedDict):
    """A finished hand (``engine.HandSummary.to_dict()``)."""

    number: int
    dealer: int
    points: list[int]
    totals: list[int]
    times_locked: list[int]
    tricks_sat_out: list[int]
    lost: list[list[CardCode]]
    empty_tricks: int


class PublicView(TypedDict):
    """What everyone may know of a game: the fields every seat's view shares."""

    rules: RulesJSON
    phase: Phase
    hand_number: int
    dealer: int
    trick_number: int
    turn: int | None
    leader: int | None
    discard_due: int | None
    trick: list[TrickPlay]
    last_trick: LastTrick | None
    hand_sizes: list[int]
    locks: list[int]
    lost: list[list[CardCode]]
    tricks: list[int]
    times_locked: list[int]
    tricks_sat_out: list[int]
    totals: list[int]
    summaries: list[HandSummary]
    winner: int | None
    voids: list[list[str]]


class View(PublicView):
    """A seat's view (``SeatView.to_dict()``), or a spectator's (``seat`` None, no
    ``hand``, no ``legal``): the public fields and the viewer's own cards."""

    seat: int | None
    hand: list[CardCode]
    legal: list[CardCode]


PRIVATE_VIEW_KEYS = ("seat", "hand", "legal")
"""The keys of a :class:`View` that only its seat may know (the rest is public)."""


class SeatInfo(TypedDict):
    """Who plays a seat (``Seat.public()``): never their token."""

    kind: Literal["human", "bot"]
    level: str | None
    away: bool


class Clock(TypedDict):
    """A person's turn timer: the seat, seconds left, the limit."""

    seat: int
    seconds: float
    limit: float


class DealEvent(TypedDict):
    kind: Literal["deal"]
    hand: int
    dealer: int


class PlayEvent(TypedDict):
    kind: Literal["play"]
    seat: int
    card: CardCode
    by: NotRequired[Literal["computer"]]
    """Present when a computer played for a person."""


class DiscardEvent(TypedDict):
    kind: Literal["discard"]
    seat: int
    card: CardCode


class TrickEvent(TypedDict):
    kind: Literal["trick"]
    winner: int | None
    clubs: int
    lock: int


class HandEvent(TypedDict):
    kind: Literal["hand"]
    summary: HandSummary


class OverEvent(TypedDict):
    kind: Literal["over"]
    winner: int


class ChatEvent(TypedDict):
    kind: Literal["chat"]
    seat: int
    text: str


class ReactEvent(TypedDict):
    kind: Literal["react"]
    seat: int
    reaction: str


class AwayEvent(TypedDict):
    """A computer takes over a person's seat (``takeover``), or the person takes it back
    (``reclaim``); ``level``: the computer's."""

    kind: Literal["takeover", "reclaim"]
    seat: int
    level: str | None


class SeatEvent(TypedDict):
    """A computer takes a removed person's seat for good."""

    kind: Literal["seat"]
    seat: int
    by: Literal["computer"]
    name: str


MoveEvent = DealEvent | PlayEvent | DiscardEvent | TrickEvent | HandEvent | OverEvent
"""The events a move makes (a deal, a card, a lockup discard and what they end)."""
NoteEvent = ChatEvent | ReactEvent | AwayEvent | SeatEvent
"""The events that are not moves (rooms)."""
GameEvent = MoveEvent | NoteEvent


class StateMessage(TypedDict):
    type: Literal["state"]
    version: int
    players: list[str]
    seats: list[SeatInfo]
    view: View
    clock: NotRequired[Clock]


class EventMessage(TypedDict):
    type: Literal["event"]
    version: int
    event: GameEvent
    view: View


class SkipMessage(TypedDict):
    """An event this viewer may not see: its version only."""

    type: Literal["skip"]
    version: int


class ErrorMessage(TypedDict):
    """A refusal: ``code`` one of :func:`lockup.refusals.server_codes`."""

    type: Literal["error"]
    code: str
    rule: str | None
    reason: str
    params: dict[str, Any]
    version: int | None


class HintValue(TypedDict):
    card: CardCode
    value: float


class HintMessage(TypedDict):
    type: Literal["hint"]
    version: int
    values: list[HintValue]
    best: CardCode | None
    unit: Literal["tricks"]


class PongMessage(TypedDict):
    type: Literal["pong"]


class SyncedMessage(TypedDict):
    type: Literal["synced"]
    version: int


class NoticeMessage(TypedDict):
    """A passing fault (``relay-down``), or None once it ended."""

    type: Literal["notice"]
    notice: Literal["relay-down"] | None


class ClockMessage(TypedDict):
    type: Literal["clock"]
    version: int
    clock: Clock | None


class RoomSeat(TypedDict):
    """A seat of a room as its pages see it."""

    seat: int
    name: str | None
    level: str
    takeover_in: float | None
    kind: Literal["person", "computer", "empty"]
    connected: bool
    away: bool


class RoomOptionsJSON(TypedDict):
    """A room's options (``RoomOptions.to_dict()``)."""

    target: int
    picture_exception: str
    lock_discards: str
    levels: list[str]
    grace: float
    turn_timer: float
    public: bool


class RoomSnapshot(TypedDict):
    """A room as one viewer may see it: its links only for the people seated."""

    id: str
    status: Literal["open", "playing", "over", "closed"]
    host: int | None
    you: int | None
    seats: list[RoomSeat]
    watchers: int
    options: RoomOptionsJSON
    game: str | None
    rematch: list[int]
    rematch_waiting: list[int]
    invite: NotRequired[str]
    watch: NotRequired[str]


class RoomMessage(TypedDict):
    type: Literal["room"]
    room: RoomSnapshot


ServerMessage = (
    StateMessage
    | EventMessage
    | SkipMessage
    | ErrorMessage
    | HintMessage
    | PongMessage
    | SyncedMessage
    | NoticeMessage
    | ClockMessage
    | RoomMessage
)
"""Every frame the server sends on ``/ws``."""


class HelloMessage(TypedDict):
    type: Literal["hello"]
    game: NotRequired[str | None]
    since: NotRequired[int]
    room: NotRequired[str | None]
    watch: NotRequired[str | None]


class PlayMessage(TypedDict):
    type: Literal["play"]
    card: CardCode
    version: int


class HintRequest(TypedDict):
    type: Literal["hint"]
    version: int


class PingMessage(TypedDict):
    type: Literal["ping"]


class ChatMessage(TypedDict):
    type: Literal["chat"]
    text: str


class ReactMessage(TypedDict):
    type: Literal["react"]
    reaction: str


class StartMessage(TypedDict):
    type: Literal["start"]


class RematchMessage(TypedDict):
    type: Literal["rematch"]


class RemoveMessage(TypedDict):
    type: Literal["remove"]
    seat: int


ClientJSON = (
    HelloMessage
    | PlayMessage
    | HintRequest
    | PingMessage
    | ChatMessage
    | ReactMessage
    | StartMessage
    | RematchMessage
    | RemoveMessage
)
"""Every message a page sends, as JSON (:func:`parse_client` makes a
:data:`ClientMessage` of it)."""


class GameInfo(TypedDict):
    """The answer of ``GET /api/game`` and ``POST /api/games``."""

    game: str
    seat: int | None
    version: int
    level: str | None


class ApiError(TypedDict):
    """The body of a refused HTTP request: ``error`` one of
    :func:`lockup.refusals.server_codes`."""

    error: str
    reason: str
    params: NotRequired[dict[str, Any]]


class TargetChoice(TypedDict):
    default: int
    choices: list[int]


class NameChoice(TypedDict):
    default: str
    choices: list[str]


class RuleChoices(TypedDict):
    target: TargetChoice
    picture_exception: NameChoice
    lock_discards: NameChoice


class SecondsRange(TypedDict):
    """Seconds a room option may be: ``min`` to ``max``, ``off`` when 0 turns it off."""

    default: float
    min: float
    max: float
    off: bool


class RoomLimits(TypedDict):
    """The limits of rooms the page must know: the reactions, the longest chat line and
    name, the grace period's and the turn timer's ranges."""

    reactions: list[str]
    max_chat: int
    max_name: int
    grace: SecondsRange
    turn_timer: SecondsRange


class Options(TypedDict):
    """The answer of ``GET /api/options``."""

    levels: list[str]
    default_level: str
    rules: RuleChoices
    room: RoomLimits


class ProtocolError(Exception):
    """A refused client message: becomes an ``error`` frame; nothing has changed.

    ``code`` is stable (the engine's refusal codes and the protocol's own), ``reason`` is
    plain English, ``rule`` the docs/rules.md id of an engine refusal, ``params`` what a
    translation fills in.
    """

    def __init__(
        self, code: str, reason: str, rule: str | None = None, params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.rule = rule
        self.params = params or {}


def bad(reason: str) -> ProtocolError:
    """A ``bad-message`` error."""
    return ProtocolError("bad-message", reason)


# ---------------------------------------------------------------------- client messages


@dataclass(frozen=True)
class Hello:
    """Join (or rejoin) a game: ``game`` None for the player's current one; ``since`` the
    last version the page has (0: none). ``room``: join a room's table instead (as its
    seated person, or as a spectator with the room's ``watch`` key)."""

    game: str | None
    since: int
    room: str | None = None
    watch: str | None = None


@dataclass(frozen=True)
class Play:
    """Play ``card`` on the state of ``version``."""

    card: Card
    version: int


@dataclass(frozen=True)
class Hint:
    """Ask the expert for the value of each legal card at ``version``."""

    version: int


@dataclass(frozen=True)
class Ping:
    """Keep-alive."""


@dataclass(frozen=True)
class Chat:
    """A line of table chat (rooms' seated players)."""

    text: str


@dataclass(frozen=True)
class React:
    """A quick reaction, one of :data:`REACTIONS`."""

    reaction: str


@dataclass(frozen=True)
class Start:
    """The host starts the room's game."""


@dataclass(frozen=True)
class Rematch:
    """A seated person wants another game at the same table."""


@dataclass(frozen=True)
class Remove:
    """The host removes the person at ``seat``: a computer takes it."""

    seat: int


ClientMessage = Hello | Play | Hint | Ping | Chat | React | Start | Rematch | Remove

MAX_CHAT = 200
"""The longest chat line, in characters."""
REACTIONS = ("👍", "👏", "😮", "😂", "😬", "🙏")
"""The quick reactions."""


def loads(text: str | bytes) -> Any:
    """JSON text to Python, or ``bad-message``: bad JSON, lone surrogates, nesting deeper
    than 1024 and numbers out of range are all refused the same way."""
    try:
        return orjson.loads(text)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        raise bad("The message is not JSON.") from None


def _version(msg: dict[str, Any], key: str = "version") -> int:
    v = msg.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_VERSION:
        raise bad(f'"{key}" must be the version the page shows (a whole number).')
    return v


def _card(value: Any) -> Card:
    if not isinstance(value, str) or not 1 <= len(value) <= 4:
        raise bad('"card" must be a card code such as "QD".')
    try:
        return parse_card(value)
    except ValueError:
        raise ProtocolError(
            "bad-message", f"{safe_text(value)!r} is not a card.", params={"card": safe_text(value)}
        ) from None


def safe_text(value: str, limit: int = 20) -> str:
    """``value`` cut to ``limit`` characters, with anything JSON cannot carry replaced."""
    return value[:limit].encode("utf-8", "replace").decode("utf-8")


def parse_client(text: str | bytes | None) -> ClientMessage:
    """One WebSocket frame from a page, validated; raises ``bad-message`` otherwise."""
    if text is None or isinstance(text, bytes):
        raise bad("Messages are JSON text frames.")
    if len(text) > MAX_MESSAGE:
        raise bad("The message is too long.")
    msg = loads(text)
    if not isinstance(msg, dict):
        raise bad('A message is a JSON object with a "type".')
    kind = msg.get("type")
    if kind == "ping":
        return Ping()
    if kind == "play":
        return Play(_card(msg.get("card")), _version(msg))
    if kind == "hint":
        return Hint(_version(msg))
    if kind == "hello":
        since = msg.get("since", 0)
        if since is None:
            since = 0
        if isinstance(since, bool) or not isinstance(since, int) or not 0 <= since <= MAX_VERSION:
            raise bad('"since" must be the last version the page has, or 0.')
        game = msg.get("game")
        if game is not None and (not isinstance(game, str) or not 1 <= len(game) <= GAME_ID_MAX):
            raise bad('"game" must be a game id as /api/game gives it.')
        room = msg.get("room")
        if room is not None and (not isinstance(room, str) or not 1 <= len(room) <= GAME_ID_MAX):
            raise bad('"room" must be a room id.')
        watch = msg.get("watch")
        if watch is not None and (not isinstance(watch, str) or len(watch) > 64):
            raise bad('"watch" must be the key of a watch link.')
        return Hello(game, since, room, watch)
    if kind == "chat":
        text = msg.get("text")
        if not isinstance(text, str):
            raise bad('"text" must be the line to say.')
        text = clean_text(text, MAX_CHAT + 1)
        if not text:
            raise bad("An empty line is not sent.")
        if len(text) > MAX_CHAT:
            raise ProtocolError(
                "too-long",
                f"A chat line is at most {MAX_CHAT} characters.",
                params={"max": MAX_CHAT},
            )
        return Chat(text)
    if kind == "react":
        reaction = msg.get("reaction")
        if reaction not in REACTIONS:
            raise bad(f'"reaction" must be one of {" ".join(REACTIONS)}.')
        return React(str(reaction))
    if kind == "start":
        return Start()
    if kind == "rematch":
        return Rematch()
    if kind == "remove":
        seat = msg.get("seat")
        if isinstance(seat, bool) or seat not in (0, 1, 2, 3):
            raise bad('"seat" must be 0 to 3.')
        return Remove(int(seat))
    shown = safe_text(kind) if isinstance(kind, str) else type(kind).__name__
    raise bad(
        f"Unknown message type {shown!r}: hello, play, hint, ping, chat, react, start, "
        "rematch or remove."
    )


def clean_text(text: str, limit: int) -> str:
    """``text`` with control characters and surrounding space removed, white space
    folded, cut to ``limit`` characters (the page shows it as text, never as HTML)."""
    kept = "".join(ch if ch.isprintable() else " " for ch in text[: limit * 4])
    return " ".join(kept.split())[:limit]


# ---------------------------------------------------------------------- new-game options


class OptionError(ValueError):
    """A new game's options are not valid; ``str()`` says why in plain words."""


def parse_options(data: Any, levels: list[str], default_level: str) -> tuple[Rules, str]:
    """The rules and bot level of ``POST /api/games``'s body; raises :class:`OptionError`."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise OptionError("the body must be a JSON object of options")
    unknown = sorted(set(data) - set(OPTION_KEYS))
    if unknown:
        raise OptionError(
            f"unknown option {safe_text(str(unknown[0]))!r}: the options are "
            f"{', '.join(OPTION_KEYS)}"
        )
    level = data.get("level", default_level)
    if not isinstance(level, str) or level not in levels:
        shown = safe_text(level) if isinstance(level, str) else level
        raise OptionError(f"level must be one of {', '.join(levels)}, not {shown!r}"[:200])
    try:
        rules = Rules(**{k: v for k, v in data.items() if k != "level"})
    except (TypeError, ValueError) as e:
        raise OptionError(safe_text(str(e), 200)) from None
    return rules, level


def options_document(levels: list[str], default_level: str) -> Options:
    """``GET /api/options``: what a new game may choose, with the defaults, and the limits
    of rooms (:func:`room_limits`)."""
    from ..engine import LOCK_DISCARDS, PICTURE_EXCEPTIONS, TARGETS

    d = Rules()
    return {
        "levels": levels,
        "default_level": default_level,
        "rules": {
            "target": {"default": d.target, "choices": sorted(TARGETS)},
            "picture_exception": {
                "default": d.picture_exception,
                "choices": list(PICTURE_EXCEPTIONS),
            },
            "lock_discards": {"default": d.lock_discards, "choices": list(LOCK_DISCARDS)},
        },
        "room": room_limits(),
    }


def room_limits() -> RoomLimits:
    """The limits of rooms, as ``GET /api/options`` serves them to the page (its
    room-core.js holds the same, tied by a test, for what it draws before they come)."""
    from .rooms.options import GRACE_RANGE, MAX_NAME, TIMER_RANGE, RoomOptions

    d = RoomOptions()
    return {
        "reactions": list(REACTIONS),
        "max_chat": MAX_CHAT,
        "max_name": MAX_NAME,
        "grace": {"default": d.grace, "min": GRACE_RANGE[0], "max": GRACE_RANGE[1], "off": False},
        "turn_timer": {
            "default": d.turn_timer,
            "min": TIMER_RANGE[0],
            "max": TIMER_RANGE[1],
            "off": True,
        },
    }


# ---------------------------------------------------------------------- server frames


def to_json(obj: Any) -> str:
    """Compact JSON text of a frame (orjson: several times faster than :mod:`json`)."""
    return orjson.dumps(obj).decode()


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


def event_message(version: int, event: GameEvent, view: View) -> EventMessage:
    """An ``event`` message as data (what :func:`event_frame` writes as text)."""
    return {"type": "event", "version": version, "event": event, "view": view}


def note_event(kind: str, seat: int, data: Mapping[str, Any]) -> NoteEvent:
    """The event of a note (``chat``, ``react``, ``takeover``, ``reclaim``, ``seat``)
    by ``seat`` with ``data``; raises ``ValueError`` for another kind."""
    if kind not in NOTE_KINDS:
        raise ValueError(f"not a note: {kind!r}")
    return cast(NoteEvent, {"kind": kind, "seat": seat, **data})


NOTE_KINDS = ("chat", "react", "takeover", "reclaim", "seat")
"""The kinds of :data:`NoteEvent`."""


def hint_message(version: int, values: Mapping[Card, float]) -> HintMessage:
    """The expert's value of each legal card, best first: ``hint``."""
    from ..cards import card_str

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
