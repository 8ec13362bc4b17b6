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
from ..engine import DISCARD, PLAY, Game, Phase, Trick
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

_PUBLIC = (
    b'"phase":%b,"trick_number":%d,"turn":%b,"leader":%b,"discard_due":%b,"trick":[%b],'
    b'"hand_sizes":[%d,%d,%d,%d],"voids":[%b,%b,%b,%b],"lost":%b,%b'
)
"""The members of a public view that change at every move, then the lost cards and the
members that change only between tricks (:meth:`Views.public`)."""

_PHASE_JSON = {phase: orjson.dumps(phase.value) for phase in Phase}
"""Each phase's JSON text."""


def _int_json(n: int | None) -> bytes:
    """An int, or null, as JSON text."""
    return b"null" if n is None else b"%d" % n


_NO_LOST = b"[[],[],[],[]]"
"""The ``lost`` of a hand in which nobody has lost a card yet."""

_PLAYED_BYTES = [
    [b'{"seat":%d,"card":%b}' % (s, _CARD_JSON[c]) for c in range(52)] for s in range(4)
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
    a move; :meth:`of` adds a viewer's own part to it. What changes only when a trick or a
    hand ends (the scores, the locks, the last trick, the rules and the summaries), the
    lost cards and each list of cards are kept encoded, keyed by what they show, until it
    changes."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._rules = orjson.dumps(game.rules.to_dict())
        self._between: tuple[tuple[int, int, int], bytes] = ((-1, -1, -1), b"")
        self._lost: tuple[tuple[int, ...], bytes] = ((0, 0, 0, 0), _NO_LOST)
        self._summaries: tuple[int, orjson.Fragment] = (0, orjson.Fragment(b"[]"))
        self._cards: dict[int, bytes] = {}

    def _between_tricks(self) -> bytes:
        """The members that change only when a trick or a hand ends, as JSON text
        without braces, kept until one of them changes."""
        g = self.game
        tricks = g.tricks
        # The engine changes them only as a trick ends (an empty one too) or a hand is
        # dealt or ends, each of which adds a trick, a hand or a summary.
        key = (g.hand_number, len(tricks), len(g.summaries))
        known, text = self._between
        if key != known:
            text = orjson.dumps(
                {
                    "hand_number": g.hand_number,
                    "dealer": g.dealer,
                    "last_trick": _last_trick(tricks[-1]) if tricks else None,
                    "locks": g.locks,
                    "tricks": g.points,
                    "times_locked": g.times_locked,
                    "tricks_sat_out": g.sat_out,
                    "totals": g.totals,
                    "summaries": self._summaries_json(),
                    "winner": g.winner,
                }
            )[1:-1]
            text = b'"rules":%b,%b' % (self._rules, text)
            self._between = (key, text)
        return text

    def _summaries_json(self) -> orjson.Fragment:
        """The finished hands' summaries, kept until another hand ends."""
        summaries = self.game.summaries
        count, text = self._summaries
        if count != len(summaries):
            text = orjson.Fragment(orjson.dumps([h.to_dict() for h in summaries]))
            self._summaries = (len(summaries), text)
        return text

    def _lost_json(self) -> bytes:
        """The ``lost`` member's value: each seat's lost cards in the order they were lost,
        kept until another is lost."""
        g = self.game
        key = tuple(g.lost)
        known, text = self._lost
        if key != known:
            text = b"[" + b",".join([_list_json(g.lost_cards(s)) for s in range(4)]) + b"]"
            self._lost = (key, text)
        return text

    def _list(self, mask: int) -> bytes:
        """The JSON list of the cards of ``mask``, lowest first (kept: a hand, or the
        cards legal in it, is shown at every move until it changes)."""
        text = self._cards.get(mask)
        if text is None:
            if len(self._cards) >= 64:
                self._cards.clear()
            text = self._cards[mask] = _cards_json(mask)
        return text

    def public(self) -> bytes:
        """The members of :func:`public_view` now, as JSON text without its braces."""
        g = self.game
        phase = g.phase
        playing = phase == PLAY
        h = g.hands
        v = g.voids
        return _PUBLIC % (
            _PHASE_JSON[phase],
            g.trick_number,
            _int_json(g.turn) if playing else b"null",
            _int_json(g.leader) if playing else b"null",
            _int_json(g.pending[0]) if phase == DISCARD else b"null",
            b",".join([_PLAYED_BYTES[s][c] for s, c in g.trick]) if playing else b"",
            h[0].bit_count(),
            h[1].bit_count(),
            h[2].bit_count(),
            h[3].bit_count(),
            _VOIDS_JSON[v[0]],
            _VOIDS_JSON[v[1]],
            _VOIDS_JSON[v[2]],
            _VOIDS_JSON[v[3]],
            self._lost_json(),
            self._between_tricks(),
        )

    def of(self, viewer: int, public: bytes) -> bytes:
        """The view of ``viewer`` (a seat, or :data:`SPECTATOR`) as JSON text, from
        :meth:`public` made just before."""
        if viewer == SPECTATOR:
            return b'{"seat":null,%b,"hand":[],"legal":[]}' % public
        g = self.game
        hand = self._list(g.hands[viewer])
        legal = self._list(g.legal_mask(viewer))
        return b'{"seat":%d,%b,"hand":%b,"legal":%b}' % (viewer, public, hand, legal)

    def of_all(self, viewers: Iterable[int]) -> dict[int, bytes]:
        """The view of each of ``viewers`` now, the public part encoded once."""
        public = self.public()
        return {v: self.of(v, public) for v in viewers}
