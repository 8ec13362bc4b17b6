"""The wire protocol of docs/web-protocol.md, in one place.

Every frame a client sends is parsed and validated here into a typed message
(:func:`parse_client`), and every frame the server sends is built here. Whatever a
client sends, parsing either returns a message or raises :class:`ProtocolError` with the
code ``bad-message``: never another exception. The same goes for the options of a new
game (:func:`parse_options`, for ``POST /api/games``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
"""The answer to ``ping``."""
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


def options_document(levels: list[str], default_level: str) -> dict[str, Any]:
    """``GET /api/options``: what a new game may choose, with the defaults."""
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
    }


# ---------------------------------------------------------------------- server frames


def to_json(obj: Any) -> str:
    """Compact JSON text of a frame (orjson: several times faster than :mod:`json`)."""
    return orjson.dumps(obj).decode()


def error_frame(
    code: str,
    reason: str,
    version: int | None,
    rule: str | None = None,
    params: dict[str, Any] | None = None,
) -> str:
    """The JSON text of an ``error`` message."""
    return to_json(
        {
            "type": "error",
            "code": code,
            "rule": rule,
            "reason": reason,
            "params": params or {},
            "version": version,
        }
    )


def error_of(e: ProtocolError, version: int | None) -> str:
    """The ``error`` frame of a refused message."""
    return error_frame(e.code, e.reason, version, e.rule, e.params)


def state_frame(
    version: int,
    players: list[str],
    seats: list[dict[str, Any]],
    view: dict[str, Any],
    clock: dict[str, Any] | None = None,
) -> str:
    """A full snapshot for one seat (or a spectator): ``state``."""
    frame = {"type": "state", "version": version, "players": players, "seats": seats}
    frame["view"] = view
    if clock is not None:
        frame["clock"] = clock
    return to_json(frame)


def skip_frame(version: int) -> str:
    """An event this viewer may not see (a spectator and the players' chat): its version
    only, so that the viewer's versions stay consecutive."""
    return f'{{"type":"skip","version":{version}}}'


def clock_frame(version: int, clock: dict[str, Any] | None) -> str:
    """A person's turn timer started: ``{"seat", "seconds", "limit"}`` (unversioned)."""
    return to_json({"type": "clock", "version": version, "clock": clock})


RELAY_DOWN = "relay-down"
"""The ``notice`` of a page whose game another process plays while the processes cannot
reach each other (Redis is down): its frames wait until they can."""


def synced_frame(version: int) -> str:
    """The answer to a ``hello`` whose page missed nothing: it is up to date at
    ``version`` (so a reconnected page knows its game is back)."""
    return to_json({"type": "synced", "version": version})


def notice_frame(notice: str | None) -> str:
    """A ``notice``: a passing fault the page shows until the next notice (``None``: it
    ended)."""
    return to_json({"type": "notice", "notice": notice})


def room_frame(room: dict[str, Any]) -> str:
    """A room as one viewer may see it (unversioned: each one replaces the last)."""
    return to_json({"type": "room", "room": room})


def event_frame(version: int, event_json: str, view_json: str) -> str:
    """One event with the seat's view after it (both already JSON text): ``event``."""
    return f'{{"type":"event","version":{version},"event":{event_json},"view":{view_json}}}'


def hint_frame(version: int, values: dict[Card, float]) -> str:
    """The expert's value of each legal card, best first: ``hint``."""
    from ..cards import card_str

    ranked = sorted(values.items(), key=lambda kv: -kv[1])
    return to_json(
        {
            "type": "hint",
            "version": version,
            "values": [{"card": card_str(c), "value": round(float(v), 3)} for c, v in ranked],
            "best": card_str(ranked[0][0]) if ranked else None,
            "unit": "tricks",
        }
    )
