"""What each viewer of a game may see, and the events a move makes, as the wire's types.

:func:`public_view` is built from the game's public state alone (never from a seat's
view): it reads the hands only to count them. :func:`spectator_view` is the public view
with the keys a seat's view adds left empty, :func:`seat_view` a seat's own. The tests
hold the public view equal to the public parts of every seat's view, and free of any
card a seat holds.

:class:`Views` makes the same views as JSON text, for the frames of each move: the public
part once per move, then each viewer's own (its seat, hand and legal cards) added to it;
what changes once a trick or a hand (the rules, the last trick, the hands' summaries) is
encoded once, when it changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import orjson

from ..cards import SUIT_NAMES, Card, card_str, cards_of
from ..engine import DISCARD, PLAY, Game, Trick
from .protocol import (
    SPECTATOR,
    DealEvent,
    HandSummary,
    LastTrick,
    MoveEvent,
    PlayEvent,
    PublicView,
    RulesJSON,
    TrickPlay,
    View,
)


def _plays(plays: tuple[tuple[int, Card], ...] | list[tuple[int, Card]]) -> list[TrickPlay]:
    return [{"seat": s, "card": card_str(c)} for s, c in plays]


def _last_trick(t: Trick) -> LastTrick:
    return {
        "number": t.number,
        "leader": t.leader,
        "plays": _plays(t.plays),
        "winner": t.winner,
        "clubs": t.clubs,
        "lock": t.lock,
    }


def public_view(game: Game) -> PublicView:
    """What anyone may know of ``game`` now: everything but the cards in the hands (of
    which only their number)."""
    phase = game.phase
    playing = phase == PLAY
    last = game.tricks[-1] if game.tricks else None
    return {
        "rules": cast(RulesJSON, game.rules.to_dict()),
        "phase": phase.value,
        "hand_number": game.hand_number,
        "dealer": game.dealer,
        "trick_number": game.trick_number,
        "turn": game.turn if playing else None,
        "leader": game.leader if playing else None,
        "discard_due": game.pending[0] if phase == DISCARD else None,
        "trick": _plays(game.trick) if playing else [],
        "last_trick": None if last is None else _last_trick(last),
        "hand_sizes": [game.hand_size(s) for s in range(4)],
        "locks": list(game.locks),
        "lost": [[card_str(c) for c in game.lost_cards(s)] for s in range(4)],
        "tricks": list(game.points),
        "times_locked": list(game.times_locked),
        "tricks_sat_out": list(game.sat_out),
        "totals": list(game.totals),
        "summaries": [cast(HandSummary, h.to_dict()) for h in game.summaries],
        "winner": game.winner,
        "voids": [[SUIT_NAMES[x] for x in range(4) if (v >> x) & 1] for v in game.voids],
    }


def spectator_view(game: Game) -> View:
    """What a spectator sees: :func:`public_view`, with no seat, no hand, no legal card."""
    return {"seat": None, **public_view(game), "hand": [], "legal": []}


def seat_view(game: Game, seat: int) -> View:
    """What ``seat`` (or :data:`SPECTATOR`) may see of ``game`` now."""
    if seat == SPECTATOR:
        return spectator_view(game)
    return cast(View, game.view(seat).to_dict())


def move_events(
    game: Game,
    kind: str,
    seat: int,
    card: Card,
    *,
    by_computer: bool,
    tricks_before: int,
    summaries_before: int,
    was_over: bool,
) -> list[MoveEvent]:
    """The events of one move just made on ``game``: the ``deal``, ``play`` or
    ``discard`` itself, then each trick it ended, the hand it ended, the game's end.

    ``by_computer``: a computer chose a person's card (the ``play`` says ``by``);
    ``tricks_before``, ``summaries_before``, ``was_over``: the game before the move
    (``tricks_before`` 0 for a deal).
    """
    first: MoveEvent
    if kind == "deal":
        deal: DealEvent = {"kind": "deal", "hand": game.hand_number, "dealer": game.dealer}
        first = deal
    elif kind == "play":
        play: PlayEvent = {"kind": "play", "seat": seat, "card": card_str(card)}
        if by_computer:
            play["by"] = "computer"
        first = play
    elif kind == "discard":
        first = {"kind": "discard", "seat": seat, "card": card_str(card)}
    else:
        raise ValueError(f"not a move: {kind!r}")
    events: list[MoveEvent] = [first]
    for t in game.tricks[tricks_before:]:
        events.append({"kind": "trick", "winner": t.winner, "clubs": t.clubs, "lock": t.lock})
    if len(game.summaries) > summaries_before:
        summary = cast(HandSummary, game.summaries[-1].to_dict())
        events.append({"kind": "hand", "summary": summary})
    if game.is_over and not was_over:
        assert game.winner is not None
        events.append({"kind": "over", "winner": game.winner})
    return events


_CARD_JSON = [orjson.dumps(card_str(c)) for c in range(52)]
"""Each card's JSON text (``b'"QD"'``), by card number."""

_VOIDS_JSON = [orjson.dumps([SUIT_NAMES[x] for x in range(4) if (v >> x) & 1]) for v in range(16)]
"""Each 4-bit mask of suits shown lacking, as the JSON list of their names."""

_PLAYED_JSON = [
    [orjson.Fragment(b'{"seat":%d,"card":%b}' % (s, _CARD_JSON[c])) for c in range(52)]
    for s in range(4)
]
"""Each seat's card in a trick as its JSON object (``{"seat":1,"card":"QD"}``)."""


def _list_json(cards: Iterable[Card]) -> bytes:
    """The JSON list of ``cards``, in their order."""
    return b"[" + b",".join([_CARD_JSON[c] for c in cards]) + b"]"


def _cards_json(mask: int) -> bytes:
    """The JSON list of the cards of ``mask``, lowest first."""
    return _list_json(cards_of(mask))


class Views:
    """The views of one game as JSON text (UTF-8 bytes), each equal to :func:`seat_view`'s.

    :meth:`public` encodes what everyone sees of the game now, once for all the viewers of
    a move; :meth:`of` adds a viewer's own part to it. The rules, the last trick and the
    summaries of the finished hands are kept encoded until they change."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._rules = orjson.Fragment(orjson.dumps(game.rules.to_dict()))
        self._last: tuple[int, int, orjson.Fragment] = (-2, -1, orjson.Fragment(b"null"))
        self._summaries: tuple[int, orjson.Fragment] = (0, orjson.Fragment(b"[]"))

    def _last_trick(self) -> orjson.Fragment:
        g = self.game
        tricks = g.tricks
        hand, count, text = self._last
        if hand != g.hand_number or count != len(tricks):
            text = orjson.Fragment(orjson.dumps(_last_trick(tricks[-1]) if tricks else None))
            self._last = (g.hand_number, len(tricks), text)
        return text

    def _summaries_json(self) -> orjson.Fragment:
        summaries = self.game.summaries
        count, text = self._summaries
        if count != len(summaries):
            text = orjson.Fragment(orjson.dumps([h.to_dict() for h in summaries]))
            self._summaries = (len(summaries), text)
        return text

    def public(self) -> bytes:
        """The members of :func:`public_view` now, as JSON text without its braces."""
        g = self.game
        phase = g.phase
        playing = phase == PLAY
        lost = g.lost
        out = orjson.dumps(
            {
                "rules": self._rules,
                "phase": phase.value,
                "hand_number": g.hand_number,
                "dealer": g.dealer,
                "trick_number": g.trick_number,
                "turn": g.turn if playing else None,
                "leader": g.leader if playing else None,
                "discard_due": g.pending[0] if phase == DISCARD else None,
                "trick": [_PLAYED_JSON[s][c] for s, c in g.trick] if playing else [],
                "last_trick": self._last_trick(),
                "hand_sizes": [h.bit_count() for h in g.hands],
                "locks": g.locks,
                "lost": [
                    orjson.Fragment(_list_json(g.lost_cards(s) if lost[s] else ()))
                    for s in range(4)
                ],
                "tricks": g.points,
                "times_locked": g.times_locked,
                "tricks_sat_out": g.sat_out,
                "totals": g.totals,
                "summaries": self._summaries_json(),
                "winner": g.winner,
                "voids": [orjson.Fragment(_VOIDS_JSON[v]) for v in g.voids],
            }
        )
        return out[1:-1]

    def of(self, viewer: int, public: bytes) -> bytes:
        """The view of ``viewer`` (a seat, or :data:`SPECTATOR`) as JSON text, from
        :meth:`public` made just before."""
        if viewer == SPECTATOR:
            return b'{"seat":null,%b,"hand":[],"legal":[]}' % public
        g = self.game
        hand = _cards_json(g.hands[viewer])
        legal = _cards_json(g.legal_mask(viewer))
        return b'{"seat":%d,%b,"hand":%b,"legal":%b}' % (viewer, public, hand, legal)

    def of_all(self, viewers: Iterable[int]) -> dict[int, bytes]:
        """The view of each of ``viewers`` now, the public part encoded once."""
        public = self.public()
        return {v: self.of(v, public) for v in viewers}
