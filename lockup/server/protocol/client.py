"""Client messages: every frame a client sends, parsed and validated into a typed
message (:func:`parse_client`); anything else raises :class:`ProtocolError` with the
code ``bad-message``, never another exception."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from ...cards import Card, parse_card
from .wire import GAME_ID_MAX, MAX_MESSAGE, MAX_VERSION


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
