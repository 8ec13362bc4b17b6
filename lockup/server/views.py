"""What each viewer of a game may see, and the events a move makes, as the wire's types.

:func:`public_view` is built from the game's public state alone (never from a seat's
view): it reads the hands only to count them. :func:`spectator_view` is the public view
with the keys a seat's view adds left empty, :func:`seat_view` a seat's own. The tests
hold the public view equal to the public parts of every seat's view, and free of any
card a seat holds.
"""

from __future__ import annotations

from typing import cast

from ..cards import SUIT_NAMES, Card, card_str
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
