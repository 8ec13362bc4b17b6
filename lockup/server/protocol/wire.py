"""The wire's types and constants: every server frame, event and view, the client
messages as sent, and the HTTP answers the page reads, as TypedDicts.

scripts/gen_types.py turns this module into lockup/web/static/js/types.js; a test holds
the two equal, and the builders of :mod:`.frames` return these shapes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypedDict

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


class AbandonEvent(TypedDict):
    """The person at ``seat`` abandoned it, for good (the computer plays it to the end of
    the game): ``why`` ``timeouts`` (their turn timer ran out too often), ``gone`` (gone the
    whole grace at a rated table) or ``left`` (they left the game)."""

    kind: Literal["abandon"]
    seat: int
    why: Literal["timeouts", "gone", "left"]


MoveEvent = DealEvent | PlayEvent | DiscardEvent | TrickEvent | HandEvent | OverEvent
"""The events a move makes (a deal, a card, a lockup discard and what they end)."""
NoteEvent = ChatEvent | ReactEvent | AwayEvent | SeatEvent | AbandonEvent
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
    """A seat of a room as its pages see it; ``pending``: a quick-play seat given to a
    person whose page has not opened the table yet (it counts once it has, and is a
    computer's if it has not by the start)."""

    seat: int
    name: str | None
    level: str
    takeover_in: float | None
    kind: Literal["person", "computer", "empty"]
    connected: bool
    away: bool
    pending: bool


class RoomOptionsJSON(TypedDict):
    """A room's options (``RoomOptions.to_dict()``)."""

    target: int
    picture_exception: str
    lock_discards: str
    levels: list[str]
    grace: float
    turn_timer: float
    public: bool
    rated: bool
    quick: bool


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
    starts_in: float | None
    """A quick-play table still open: seconds until its game starts, as of the moment
    the snapshot was sent; null otherwise."""
    left: list[int]
    """The seats of the room's game (under way, or the one just over) whose person
    abandoned it: a computer played them on, and they rank last in it."""
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


class QuickPlayAnswer(TypedDict):
    """The answer of ``POST /api/quickplay``: the quick table and seat the person now has,
    the table's invite link (the room page; they sit there already), and seconds until
    its game starts (0: started)."""

    room: str
    seat: int
    invite: str
    starts_in: float


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


class LeaderboardEntry(TypedDict):
    """A row of ``GET /api/leaderboard``: a person (by their account's name, never their
    token; listed once past their provisional games) or a computer level; ``rating`` is the
    number shown (``mu - 3 sigma``, docs/ratings.md)."""

    rank: int
    name: str | None
    rating: float
    mu: float
    sigma: float
    games: int
    kind: Literal["person", "computer"]
    level: NotRequired[str]
    you: bool


class Leaderboard(TypedDict):
    """The answer of ``GET /api/leaderboard``; ``min_games``: the rated games a person
    needs to be listed (their rating is provisional before)."""

    players: list[LeaderboardEntry]
    min_games: int


class RatingChange(TypedDict):
    """A rated game the player sat at (``GET /api/ratings/me``): the shown rating before
    and after it and the change; ``abandoned``: they abandoned or left it and were ranked
    last; all None when they sat out (``rated`` false: a game rated before leaving counted)."""

    game: str
    date: str
    seat: int
    rated: bool
    sat_out: bool
    abandoned: bool
    before: float | None
    after: float | None
    change: float | None
    mu: float | None
    sigma: float | None


class MyRating(TypedDict):
    """The answer of ``GET /api/ratings/me``: the player's rating now (None before their
    first rated game), their rank on the leaderboard (None while ``provisional``: fewer
    than ``min_games`` rated games), whether they play as a ``guest`` (no account: never
    rated), and their rated games, oldest first."""

    rating: float | None
    mu: float | None
    sigma: float | None
    games: int
    rank: int | None
    provisional: bool
    guest: bool
    min_games: int
    history: list[RatingChange]


class GameRating(TypedDict):
    """The answer of ``GET /api/ratings/game/{id}`` for a player who sat at the game:
    whether it rates them (``rated``; once over, ``done`` when the change is stored) or
    ``why`` not (``guest``, ``unrated``, ``no-room``, ``rematch``, ``shared``,
    ``few-accounts``); ``last``: they abandoned it and rank last; the shown rating
    ``before`` and ``after`` and the ``change`` once done; ``provisional``: their rating is
    still provisional."""

    game: str
    seat: int
    rated: bool
    why: str | None
    done: bool
    last: bool
    before: float | None
    after: float | None
    change: float | None
    provisional: bool
