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


class ProtocolError(Exception):
    """A refused client message: becomes an ``error`` frame; nothing has changed.

    ``code`` is stable (the engine's refusal codes and the protocol's own), ``reason`` is
    plain English, ``rule`` the RULES.md id of an engine refusal, ``params`` what a
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
    last version the page has (0: none)."""

    game: str | None
    since: int


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


ClientMessage = Hello | Play | Hint | Ping


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
        return Hello(game, since)
    shown = safe_text(kind) if isinstance(kind, str) else type(kind).__name__
    raise bad(f"Unknown message type {shown!r}: hello, play, hint or ping.")


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
    version: int, players: list[str], seats: list[dict[str, Any]], view: dict[str, Any]
) -> str:
    """A full snapshot for one seat: ``state``."""
    return to_json(
        {"type": "state", "version": version, "players": players, "seats": seats, "view": view}
    )


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
