"""Game records in the ``lockup-record/1`` format of docs/records.md: read, write, replay.

A record is one JSON document: rules, players, and for every hand its dealer, its deal
and its events (plays and lockup discards) in order. Lockup discards are written in, so
a record replays exactly with no random generator.

- :func:`to_record` / :func:`dumps` write a game (finished or under way).
- :func:`parse_record` checks a document's shape and raises :class:`RecordError`
  (``lockup replay`` exit status 2) for anything that is not a record.
- :func:`replay` plays a parsed record through the engine; it returns a
  :class:`ReplayResult`, which names the first event the rules forbid (exit status 1).
  :func:`replay_steps` is its loop, event by event, for whatever looks at the game
  along the way (the review, the analysis).
- :func:`loads` / :func:`from_record` give back a :class:`~lockup.engine.Game` in the
  identical state, ready to go on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .cards import Card, card_str, parse_card
from .engine import (
    DEFAULT_PLAYERS,
    OVER,
    SEAT_NAMES,
    Game,
    IllegalMove,
    Refusal,
    Rules,
)
from .refusals import message

_HAND_OVER = Refusal("hand-over", "R10")
_GAME_OVER = Refusal("game-over", "R15")

FORMAT = "lockup-record/1"


class RecordError(ValueError):
    """The document is not a ``lockup-record/1`` record (``lockup replay`` exit 2)."""


class IllegalRecord(ValueError):
    """The record is well formed but breaks a rule (``lockup replay`` exit 1)."""

    def __init__(self, hand: int, event: int | None, rule: str, reason: str) -> None:
        super().__init__(f"hand {hand}, event {event}: {reason} ({rule})")
        self.hand = hand
        self.event = event
        self.rule = rule
        self.reason = reason

    def to_dict(self) -> dict[str, Any]:
        """The JSON ``lockup replay`` prints for it."""
        return {
            "status": "illegal",
            "hand": self.hand,
            "event": self.event,
            "rule": self.rule,
            "reason": self.reason,
        }


@dataclass
class ParsedHand:
    """One hand of a parsed record: cards as ints, events as (kind, seat, card)."""

    dealer: int
    deal: list[list[Card]]
    events: list[tuple[str, int, Card]]


@dataclass
class ParsedRecord:
    """A record whose shape has been checked (its rules not yet)."""

    rules: Rules
    players: list[str]
    hands: list[ParsedHand] = field(default_factory=list)


@dataclass
class ReplayResult:
    """The outcome of :func:`replay`: the game as far as it is legal, and the first fault."""

    game: Game
    players: list[str]
    error: IllegalRecord | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON summary ``lockup replay`` prints (docs/records.md)."""
        if self.error is not None:
            return self.error.to_dict()
        return summary(self.game)


def summary(game: Game) -> dict[str, Any]:
    """The replay summary of a game: status, totals, winner and a line per hand.

    For a game under way, ``totals`` include the points of the hand in progress.
    """
    hands = [
        {
            "dealer": h.dealer,
            "points": list(h.points),
            "times_locked": list(h.times_locked),
            "tricks_sat_out": list(h.tricks_sat_out),
            "empty_tricks": h.empty_tricks,
        }
        for h in game.summaries
    ]
    totals = list(game.totals)
    in_hand = game.phase not in ("deal", "over")
    if in_hand:
        hands.append(
            {
                "dealer": game.dealer,
                "points": list(game.points),
                "times_locked": list(game.times_locked),
                "tricks_sat_out": list(game.sat_out),
                "empty_tricks": game.empty_tricks,
            }
        )
        totals = [t + p for t, p in zip(totals, game.points, strict=True)]
    return {
        "status": "finished" if game.phase == OVER else "in-progress",
        "totals": totals,
        "winner": game.winner,
        "hands": hands,
    }


# ---------------------------------------------------------------------- writing


def to_record(game: Game, players: list[str] | tuple[str, ...] | None = None) -> dict[str, Any]:
    """The record of a game (it must have been created with ``record=True``)."""
    if game.log is None:
        raise ValueError("this game keeps no event log (created with record=False)")
    names = list(players) if players is not None else list(DEFAULT_PLAYERS)
    return {
        "format": FORMAT,
        "rules": game.rules.to_dict(),
        "players": names,
        "hands": [
            {
                "dealer": h.dealer,
                "deal": [[card_str(c) for c in cs] for cs in h.deal],
                "events": [{"seat": s, kind: card_str(c)} for kind, s, c in h.events],
            }
            for h in game.log
        ],
    }


def dumps(
    game: Game, players: list[str] | tuple[str, ...] | None = None, *, indent: int | None = None
) -> str:
    """The record of a game as JSON text."""
    return json.dumps(to_record(game, players), ensure_ascii=False, indent=indent)


# ---------------------------------------------------------------------- reading


def _show(value: Any, limit: int = 40) -> str:
    """A short JSON rendering of a (possibly hostile) value for a reason."""
    try:
        text = json.dumps(value)
    except (ValueError, RecursionError):  # pragma: no cover - json.loads output dumps
        text = type(value).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _card(value: Any, where: str) -> Card:
    if not isinstance(value, str):
        raise RecordError(f'{where}: a card must be a string like "QD", not {_show(value)}')
    try:
        return parse_card(value)
    except ValueError:
        raise RecordError(f"{where}: {_show(value)} is not a card") from None


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{where} must be an integer, not {_show(value)}")
    return value


def parse_record(data: Any) -> ParsedRecord:
    """Check that ``data`` (JSON text, bytes or the decoded object) is a record.

    Raises :class:`RecordError` with a plain reason otherwise. Rule breaches (a bad deal,
    an illegal play) are left to :func:`replay`.
    """
    if isinstance(data, bytes | bytearray):
        try:
            data = data.decode("utf-8-sig")  # a byte order mark is tolerated
        except UnicodeDecodeError:
            raise RecordError("the file is not UTF-8 text") from None
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as e:
            raise RecordError(f"not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
        except RecursionError:
            raise RecordError("not a record: the JSON is nested far too deeply") from None
        except ValueError as e:  # an integer of more than 4300 digits, say
            raise RecordError(f"not JSON that can be read: {str(e).split(';')[0]}") from None
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    fmt = data.get("format")
    if fmt != FORMAT:
        raise RecordError(f'unknown format {_show(fmt)}: expected "{FORMAT}"')
    rules_data = data.get("rules", {})
    try:
        rules = Rules.from_dict(rules_data)
    except (TypeError, ValueError) as e:
        raise RecordError(f"rules: {e}") from None
    players = data.get("players", list(DEFAULT_PLAYERS))
    if not (
        isinstance(players, list) and len(players) == 4 and all(isinstance(p, str) for p in players)
    ):
        raise RecordError("players must be a list of four names")
    hands_data = data.get("hands")
    if not isinstance(hands_data, list):
        raise RecordError("hands must be a list")
    record = ParsedRecord(rules, list(players))
    for h, hd in enumerate(hands_data):
        where = f"hands[{h}]"
        if not isinstance(hd, dict):
            raise RecordError(f"{where} must be an object")
        for key in ("dealer", "deal", "events"):
            if key not in hd:
                raise RecordError(f"{where} has no {key!r}")
        dealer = _int(hd["dealer"], f"{where}.dealer")
        if not 0 <= dealer <= 3:
            raise RecordError(f"{where}.dealer must be a seat 0..3, not {dealer}")
        deal_data = hd["deal"]
        if not isinstance(deal_data, list) or not all(isinstance(x, list) for x in deal_data):
            raise RecordError(f"{where}.deal must be a list of four lists of cards")
        deal = [
            [_card(c, f"{where}.deal[{s}][{i}]") for i, c in enumerate(cs)]
            for s, cs in enumerate(deal_data)
        ]
        ev_data = hd["events"]
        if not isinstance(ev_data, list):
            raise RecordError(f"{where}.events must be a list")
        events = []
        for i, ed in enumerate(ev_data):
            ew = f"{where}.events[{i}]"
            if not isinstance(ed, dict):
                raise RecordError(f"{ew} must be an object")
            kinds = [k for k in ("play", "discard") if k in ed]
            if len(kinds) != 1 or set(ed) != {"seat", kinds[0]}:
                raise RecordError(
                    f'{ew} must be {{"seat": s, "play": card}} or {{"seat": s, "discard": card}}'
                )
            seat = _int(ed["seat"], f"{ew}.seat")
            if not 0 <= seat <= 3:
                raise RecordError(f"{ew}.seat must be a seat 0..3, not {seat}")
            events.append((kinds[0], seat, _card(ed[kinds[0]], f"{ew}.{kinds[0]}")))
        record.hands.append(ParsedHand(dealer, deal, events))
    return record


class ReplayStep(NamedTuple):
    """One step of :func:`replay_steps`: an event of the record about to be made, or the
    end of a hand's events (``kind`` ``"end"``, ``seat`` and ``card`` -1)."""

    game: Game
    """The game as it stands before the event (the replay's own, which goes on)."""
    hand: int
    """The hand's index in the record."""
    event: int
    """The event's index in the hand's events (their count at the hand's end)."""
    kind: str
    """``"play"``, ``"discard"`` or ``"end"``."""
    seat: int
    """The seat that plays or loses the card."""
    card: Card
    """The card played or lost."""


def replay_steps(record: ParsedRecord, game: Game | None = None) -> Iterator[ReplayStep]:
    """Play a parsed record through the engine, event by event: the replay loop.

    Yields each event before it is made (then makes it when resumed) and, after each
    hand's events, an ``"end"`` step. ``game`` is the game to replay into (a new one by
    the record's rules and first dealer by default: pass ``Game(..., record=False)`` for
    speed). Raises :class:`IllegalRecord` at the first rule the record breaks (the
    game is left as far as it was legal).
    """
    hands = record.hands
    first_dealer = hands[0].dealer if hands else 0
    if game is None:
        game = Game(record.rules, first_dealer)
    for h, hand in enumerate(hands):
        if game.phase == OVER:
            raise IllegalRecord(
                h, None, "R15", "the game was already over: no hand may follow its end"
            )
        expected = first_dealer if h == 0 else (game.dealer + 1) % 4
        if hand.dealer != expected:
            raise IllegalRecord(
                h,
                None,
                "R3",
                f"the dealer must be {expected} ({SEAT_NAMES[expected]}), left of the previous dealer, "
                f"not {hand.dealer}",
            )
        try:
            game.deal(hand.deal)
        except IllegalMove as bad:
            raise IllegalRecord(h, None, bad.rule, bad.reason) from None
        for e, (kind, seat, card) in enumerate(hand.events):
            yield ReplayStep(game, h, e, kind, seat, card)
            try:
                if game.phase == OVER:
                    raise IllegalMove(_GAME_OVER)
                if game.phase == "deal":
                    raise IllegalMove(_HAND_OVER)
                if kind == "play":
                    game.play(card, seat)
                else:
                    game.discard(card, seat)
            except IllegalMove as err:
                # The refusal in the catalogue's words, seats named by the record's players.
                names = record.players
                why = message(err.code, err.refusal.params, names=names, viewer=seat)
                raise IllegalRecord(h, e, err.rule, f"{names[seat]}: {why}") from None
        if h < len(hands) - 1 and game.phase not in ("deal", "over"):
            raise IllegalRecord(
                h,
                len(hand.events),
                "R15",
                f"the hand stops after {game.trick_number} tricks, but hands are played in "
                f"full: every hand but the last must be played to its 13th trick",
            )
        yield ReplayStep(game, h, len(hand.events), "end", -1, -1)


def replay(record: ParsedRecord) -> ReplayResult:
    """Play a parsed record through the engine (:func:`replay_steps`), stopping at the
    first rule it breaks."""
    hands = record.hands
    game = Game(record.rules, hands[0].dealer if hands else 0)
    try:
        for _ in replay_steps(record, game):
            pass
    except IllegalRecord as err:
        return ReplayResult(game, record.players, err)
    return ReplayResult(game, record.players, None)


def from_record(data: Any) -> Game:
    """The game a record holds, in the identical state, ready to go on.

    Raises :class:`RecordError` or :class:`IllegalRecord`.
    """
    res = replay(parse_record(data))
    if res.error is not None:
        raise res.error
    return res.game


loads = from_record


def players_of(data: Any) -> list[str]:
    """The player names a record holds (the defaults if it names none)."""
    return parse_record(data).players
