"""The Lockup rules engine: the reference implementation of docs/rules.md (R1 to R16).

The engine is pure: no I/O, no third-party imports, and no randomness that is not
passed in as an argument (a ``random.Random``, or anything with ``random()`` and
``randrange()``). A replay supplies the dealt cards and the lockup discards instead.

Typical use::

    import random
    from lockup.engine import Game, Rules

    rng = random.Random(7)
    game = Game.new(rng, Rules(target=20))
    while not game.is_over:
        if game.phase == "play":
            game.play(rng.choice(game.legal_cards()))
        else:
            game.chance_move(rng)             # R3 the next deal, R10 a lockup discard
    print(game.winner, game.totals)

Seats are 0 South, 1 West, 2 North, 3 East (R1). Cards are ints (see
:mod:`lockup.cards`); sets of cards are bit masks. ``nth_card(mask, u)``, the card of a
mask that ``u`` in [0, 1) picks, is :func:`lockup.playout.nth`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from types import FunctionType
from typing import Any, Final, Literal, NamedTuple, Protocol, TypeVar, get_args

from .cards import (
    CLUBS,
    FULL_DECK,
    JACK,
    KING,
    SUIT_NAMES,
    Card,
    CardMask,
    card_str,
    cards_of,
)
from .playout import count_off as _p_count_off
from .playout import first_unlocked as _p_first_unlocked
from .playout import legal as _p_legal
from .playout import lose as _p_lose
from .playout import nth as nth_card
from .playout import play_out as _p_play_out
from .playout import show_voids as _p_show_voids
from .playout import trick_end as _p_trick_end
from .playout import voids_shown_by as _p_voids_shown_by
from .refusals import message as _refusal_message

SEATS: Final = (0, 1, 2, 3)
SEAT_NAMES = ("South", "West", "North", "East")
"""Seat names in seat order (R1)."""
DEFAULT_PLAYERS = ("You", "Þóra", "Leifur", "Vigdís")
"""The default names: the human South and the computer opponents (R1)."""
TRICKS_PER_HAND: Final = 13

PictureException = Literal["same-rank", "any-club"]
"""The values of the ``picture_exception`` option (R7)."""
LockDiscards = Literal["per-trick", "upfront"]
"""The values of the ``lock_discards`` option (R10)."""

PICTURE_EXCEPTIONS: tuple[PictureException, ...] = get_args(PictureException)
"""``picture_exception`` values, the default first (R7)."""
LOCK_DISCARDS: tuple[LockDiscards, ...] = get_args(LockDiscards)
"""``lock_discards`` values, the default first (R10)."""
TARGETS = tuple(range(10, 55, 5))
"""The allowed ``target`` values (R16)."""


class Phase(StrEnum):
    """What a game waits for. Each member equals its string: ``Phase.PLAY == "play"``."""

    DEAL = "deal"
    """Waiting for the next hand to be dealt (also before the first hand)."""
    DISCARD = "discard"
    """A lockup discard (R10) is due from :attr:`Game.discard_due`."""
    PLAY = "play"
    """A card is due from :attr:`Game.turn`."""
    OVER = "over"
    """The game has its winner (R15)."""


DEAL: Final[Phase] = Phase.DEAL
"""Waiting for the next hand to be dealt (also before the first hand)."""
DISCARD: Final[Phase] = Phase.DISCARD
"""A lockup discard (R10) is due from :attr:`Game.discard_due`."""
PLAY: Final[Phase] = Phase.PLAY
"""A card is due from :attr:`Game.turn`."""
OVER: Final[Phase] = Phase.OVER
"""The game has its winner (R15)."""

# The module's tables and masks are Final so that, compiled (make engine), the hot paths
# read them as C constants and statics rather than module attributes (the masks the
# trick's rules use are lockup.playout's, which the tests check against lockup.cards).
# Each J, Q, K maps to the bit of the club of that rank (R7, same-rank).
_PIC_CLUB_BIT: Final = [
    1 << (CLUBS * 13 + c % 13) if JACK <= c % 13 <= KING else 0 for c in range(52)
]
_RANK: Final = [c % 13 for c in range(52)]
_NEXT_TRICK: Final = "next-trick"
_DECK_RANGE: Final = range(52)
_SUIT: Final = [c // 13 for c in range(52)]
_LEFT: Final = (1, 2, 3, 0)
"""The seat on each seat's left (R1)."""
_CLUBS: Final = 0
assert _CLUBS == CLUBS
# The trick's rules are written once, in lockup.playout (the playout's too), and called by
# their imported names: compiled as one mypyc group, each call is a direct C call.


_C = TypeVar("_C", bound=type)


def _python_class(cls: _C) -> _C:
    """Keep a class a plain Python class when mypyc compiles this module (``make engine``).

    mypyc turns only undecorated (and dataclass) classes into native ones; a native frozen
    dataclass would not unpickle (the server sends views to worker processes) nor keep
    its ``__slots__``. These classes are off the step API's hot path.
    """
    return cls


class RandomSource(Protocol):
    """What the engine needs of a random generator (``random.Random`` fits)."""

    def random(self) -> float: ...

    def randrange(self, stop: int, /) -> int: ...


@_python_class
@dataclass(frozen=True)
class Rules:
    """The rule options of docs/rules.md, with their defaults.

    ``picture_exception``: ``"same-rank"`` or ``"any-club"`` (R7).
    ``lock_discards``: ``"per-trick"`` or ``"upfront"`` (R10).
    ``target``: 10 to 50 in steps of 5 (R16).
    """

    picture_exception: PictureException = "same-rank"
    lock_discards: LockDiscards = "per-trick"
    target: int = 20

    def __post_init__(self) -> None:
        # The options as given, unchecked: compiled code would check their types on reading
        # them as attributes (a TypeError, not the ValueError below).
        given: dict[str, object] = {
            name: getattr(self, name) for name in ("picture_exception", "lock_discards", "target")
        }
        picture, discards, target = given.values()
        if picture not in PICTURE_EXCEPTIONS:
            raise ValueError(
                f"picture_exception must be one of {', '.join(PICTURE_EXCEPTIONS)}, not {picture!r}"
            )
        if discards not in LOCK_DISCARDS:
            raise ValueError(
                f"lock_discards must be one of {', '.join(LOCK_DISCARDS)}, not {discards!r}"
            )
        if isinstance(target, bool) or not isinstance(target, int) or target not in TARGETS:
            raise ValueError(f"target must be 10 to 50 in steps of 5, not {target!r}")

    @property
    def any_club(self) -> bool:
        """Whether any club may replace the led suit under a picture (R7 ``any-club``)."""
        return self.picture_exception == "any-club"

    @property
    def upfront(self) -> bool:
        """Whether a lock's discards all leave when it starts (R10 ``upfront``)."""
        return self.lock_discards == "upfront"

    def to_dict(self) -> dict[str, Any]:
        """The options as written in a record."""
        return {
            "picture_exception": self.picture_exception,
            "lock_discards": self.lock_discards,
            "target": self.target,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Options from a record's ``rules``; a missing option takes its default."""
        if not isinstance(data, dict):
            raise ValueError("rules must be an object")
        unknown = set(data) - {"picture_exception", "lock_discards", "target"}
        if unknown:
            raise ValueError(f"unknown rule option {sorted(unknown)[0]!r}")
        return cls(**data)


@_python_class
@dataclass(frozen=True)
class Refusal:
    """Why a move is refused: a stable ``code``, the ``rule`` and the ``params`` its message
    is worded from; :attr:`reason` is that message in plain English.

    The words, English and French, are the refusal catalogue's (:mod:`lockup.refusals`).
    """

    code: str
    rule: str
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    """What the message is worded from: ``seat``, ``other``, ``suit``, ``card``, ``cards``,
    ``tricks``, ``why``, ``value``, ``count`` (docs/engine.md lists them by code)."""

    @property
    def reason(self) -> str:
        """The refusal in plain English: :func:`lockup.refusals.message` of code and params,
        seats named by compass point."""
        return _refusal_message(self.code, self.params)

    def to_dict(self) -> dict[str, Any]:
        """The refusal as JSON-ready data."""
        return {
            "code": self.code,
            "rule": self.rule,
            "reason": self.reason,
            "params": dict(self.params),
        }


@_python_class
class IllegalMove(ValueError):
    """Raised for a play, discard or deal the rules forbid; the game is left unchanged."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(f"{refusal.reason} ({refusal.rule})")
        self.refusal = refusal
        self.code = refusal.code
        self.rule = refusal.rule
        self.reason = refusal.reason


class Trick(NamedTuple):
    """A completed trick: its ``leader``, the ``plays`` as (seat, card), the ``winner``.

    An empty trick (R12) has no plays and ``winner`` None.
    """

    number: int
    leader: int | None
    plays: tuple[tuple[int, Card], ...]
    winner: int | None
    clubs: int
    lock: int
    """The lock its winner received (R9): ``min(clubs, tricks left)``."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data, cards in record notation: ``number``, ``leader``, ``plays`` as
        ``{"seat", "card"}``, ``winner``, ``clubs`` and ``lock``."""
        return {
            "number": self.number,
            "leader": self.leader,
            "plays": [{"seat": s, "card": card_str(c)} for s, c in self.plays],
            "winner": self.winner,
            "clubs": self.clubs,
            "lock": self.lock,
        }


class ChanceMove(NamedTuple):
    """A move chance makes (:meth:`Game.chance_move`): a hand's deal (R3) or a lockup
    discard (R10)."""

    kind: str
    """``"deal"`` or ``"discard"``."""
    seat: int
    """The hand's dealer, or the seat that loses the card."""
    card: Card
    """The card lost (-1 for a deal)."""
    deal: list[list[Card]] | None
    """The four hands dealt, seat by seat (None for a discard)."""


# A Trick from its six fields at C speed (no NamedTuple.__new__ call), for playouts.
_make_trick: Final = partial(tuple.__new__, Trick)


class VoidShown(NamedTuple):
    """A seat showing, by a card it played, that it holds no card of a suit (R5, R6).

    Leading a club shows an all-club hand (R5): no diamond, heart or spade, one
    :class:`VoidShown` for each suit not shown before. Not following the led suit shows
    that the seat has none of it (R6), unless the card is a club the picture exception
    allowed (R7), which shows nothing. Only the first showing of a seat's void in a suit
    is recorded; a void holds for the rest of the hand (lockup discards only take cards).
    """

    seat: int
    """The seat that showed it."""
    suit: int
    """The suit it lacks (0 clubs to 3 spades, as :mod:`lockup.cards`)."""
    trick: int
    """The trick (0 to 12) in which it played the card that showed it."""
    play: int
    """Where that card is among the cards played this hand: 0 for the hand's first card,
    the index into the plays of :attr:`SeatView.tricks` then :attr:`SeatView.trick`, in
    order (empty tricks hold none). The void is known to every seat from the next play on."""


def _decode_voids(
    raw: list[int], tricks: list[Trick], trick: list[tuple[int, Card]]
) -> list[VoidShown]:
    """The game's compact record of voids shown, ``seat | suit << 2 | trick << 4`` (an int
    below 256, which Python never allocates: the record costs the playout next to
    nothing), as :class:`VoidShown`; the card that showed it is the seat's in that trick
    (``tricks`` before it, ``trick`` the current one)."""
    out = []
    for x in raw:
        seat = x & 3
        number = x >> 4
        play = 0
        for t in tricks[:number]:
            play += len(t.plays)
        plays = tricks[number].plays if number < len(tricks) else trick
        for s, _ in plays:
            if s == seat:
                break
            play += 1
        out.append(VoidShown(seat, (x >> 2) & 3, number, play))
    return out


class HandSummary(NamedTuple):
    """The summary of a finished hand (R14)."""

    number: int
    dealer: int
    points: tuple[int, ...]
    totals: tuple[int, ...]
    times_locked: tuple[int, ...]
    tricks_sat_out: tuple[int, ...]
    lost: tuple[tuple[Card, ...], ...]
    empty_tricks: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data, cards in record notation."""
        return {
            "number": self.number,
            "dealer": self.dealer,
            "points": list(self.points),
            "totals": list(self.totals),
            "times_locked": list(self.times_locked),
            "tricks_sat_out": list(self.tricks_sat_out),
            "lost": [[card_str(c) for c in cs] for cs in self.lost],
            "empty_tricks": self.empty_tricks,
        }


@_python_class
@dataclass
class HandLog:
    """What a record keeps of one hand: dealer, deal (as dealt) and events in order.

    An event is ``("play", seat, card)`` or ``("discard", seat, card)``.
    """

    dealer: int
    deal: list[list[Card]]
    events: list[tuple[str, int, Card]] = field(default_factory=list)


def _mask_of(cards: list[Card]) -> CardMask:
    """The mask of a seat's dealt cards (compiled, a loop of machine-word operations)."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


_PUBLIC_STATE: dict[str, str] = {
    "phase": "What the game waits for: a :class:`Phase`.",
    "totals": "Each seat's game total of the finished hands (R13).",
    "summaries": "A :class:`HandSummary` for each finished hand (R14).",
    "winner": "The winning seat once the game is over (R15), else None.",
    "dealer": "The current hand's dealer (R3).",
    "hand_number": "The current hand, 0 for the first (-1 before the first deal).",
    "points": "Tricks each seat has won this hand (R8, R13).",
    "locks": "Tricks each seat still sits out (R9).",
    "lost": "The cards lockup took from each seat this hand, as masks (R10).",
    "times_locked": "How many times each seat was locked this hand (R14).",
    "sat_out": "How many tricks each seat sat out this hand (R14).",
    "empty_tricks": "Empty tricks this hand (R12).",
    "trick_number": "The current trick, 0 to 12 (13 once the hand is over).",
    "nominal": "The seat that would lead the current trick, locks aside (R11, R12).",
    "leader": "The seat that leads (or led) the current trick.",
    "turn": "The seat whose card is due while the phase is ``play`` (-1 otherwise).",
    "trick": "The current trick's plays so far, as (seat, card).",
    "led_suit": "The suit led to the current trick (-1 before the lead).",
    "best_card": "The card winning the current trick so far (-1 before the lead, R8).",
    "best_seat": "The seat that played :attr:`best_card` (-1 before the lead).",
    "clubs_in_trick": "Clubs in the current trick (R9).",
    "pic_clubs": "The clubs the pictures in the current trick allow under ``same-rank`` (R7).",
    "players_in_trick": "How many seats play the current trick: those not locked (R4).",
    "played": "Every card played to a trick this hand, as a mask.",
    "pending": "The seats lockup discards are due from, in order (R10).",
    "_after_discards": "",
    "tricks": "This hand's completed tricks, as :class:`Trick`.",
    "voids": "For each seat, a 4-bit mask of the suits it has shown it lacks (R5, R6).",
    "_voids_shown": "",
}
"""The state every seat may know (a :class:`SeatView` copies it), with what each is."""

_GAME_SLOTS: Final[dict[str, str]] = {
    "rules": "The game's rule options.",
    "_any_club": "",
    "_upfront": "",
    "hands": "Each seat's cards, as masks (hidden from the other seats).",
    "log": "The hands' deals and events for a record (None with ``record=False``).",
    "_lost_order": "",
    "_legal": "",
    **_PUBLIC_STATE,
}
"""Every field of a :class:`Game`, with what each is (its ``__slots__``)."""


def implementation() -> str:
    """What runs the engine: ``"compiled"`` when this module (the step API:
    :meth:`Game.play`, :meth:`Game.legal_mask`, ...) and its playout (:mod:`lockup.playout`)
    both run the mypyc extensions that ``make engine`` builds, ``"python"`` when both run
    from their sources, ``"mixed"`` otherwise (a build out of date: ``lockup`` warned).
    ``lockup._accel.implementations()`` tells module by module."""
    engine = isinstance(implementation, FunctionType)
    playout = isinstance(_p_play_out, FunctionType)
    if engine and playout:
        return "python"
    return "mixed" if engine or playout else "compiled"


class Game:
    """A game of Lockup: the whole state, every rule, and what each seat may know.

    Create one with :meth:`new` (random first dealer and deal) or ``Game(rules, dealer)``
    followed by :meth:`deal`. Then, while not :attr:`is_over`, either a card is due from
    :attr:`turn` (:meth:`play`), a lockup discard from :attr:`discard_due`
    (:meth:`discard` or :meth:`discard_random`), or the next hand (:meth:`deal`).
    """

    __slots__ = _GAME_SLOTS

    def __init__(
        self, rules: Rules | None = None, dealer: object = 0, *, record: bool = True
    ) -> None:
        """A game before its first deal; ``dealer`` deals the first hand (R3).

        With ``record=False`` the game keeps no event log (faster, for search).
        """
        if dealer not in SEATS:
            raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
        self.rules = rules or Rules()
        self._any_club = self.rules.any_club
        self._upfront = self.rules.upfront
        self.phase: Phase = DEAL
        self.totals = [0, 0, 0, 0]
        self.summaries: list[HandSummary] = []
        self.winner: int | None = None
        self.dealer = SEATS.index(dealer)
        self.hand_number = -1
        self.log: list[HandLog] | None = [] if record else None
        self._reset_hand()

    def _reset_hand(self) -> None:
        self.hands = [0, 0, 0, 0]
        self._legal: CardMask = 0  # what the seat to play may play (R5 to R7), kept current
        self.points = [0, 0, 0, 0]
        self.locks = [0, 0, 0, 0]
        self.lost = [0, 0, 0, 0]
        self._lost_order: list[list[Card]] = [[], [], [], []]
        self.times_locked = [0, 0, 0, 0]
        self.sat_out = [0, 0, 0, 0]
        self.empty_tricks = 0
        self.trick_number = 0
        self.nominal = (self.dealer + 1) % 4
        self.leader = self.nominal
        self.turn = -1
        self.trick: list[tuple[int, Card]] = []
        self.led_suit = -1
        self.best_card = -1
        self.best_seat = -1
        self.clubs_in_trick = 0
        self.pic_clubs = 0
        self.players_in_trick = 0
        self.played = 0
        self.pending: list[int] = []
        self._after_discards: str = PLAY  # or _NEXT_TRICK, once upfront discards are made
        self.tricks: list[Trick] = []
        self.voids = [0, 0, 0, 0]
        self._voids_shown: list[int] = []  # see _decode_voids()

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(cls, rng: RandomSource, rules: Rules | None = None, *, record: bool = True) -> Game:
        """A new game: the first dealer at random and the first hand dealt (R3)."""
        game = cls(rules, rng.randrange(4), record=record)
        game.chance_move(rng)
        return game

    def deal(
        self, cards: Sequence[Sequence[Card]] | None = None, rng: RandomSource | None = None
    ) -> None:
        """Deal the next hand: the given ``cards`` (four lists of 13) or a shuffle by ``rng``.

        Raises :class:`IllegalMove` (R3) for a deal that is not 52 distinct cards, 13 a
        seat, and (R15) after the game's end.
        """
        if self.phase == OVER:
            raise IllegalMove(Refusal("game-over", "R15"))
        if self.phase != DEAL:
            raise IllegalMove(Refusal("hand-in-progress", "R3"))
        if cards is None:
            if rng is None:
                raise ValueError("deal needs either cards or rng")
            dealt = _shuffled_deal(rng)
        else:
            _check_deal(cards)
            dealt = [list(cs) for cs in cards]
        self._deal(dealt)

    def _deal(self, dealt: list[list[Card]]) -> None:
        """Deal the next hand's checked cards (R3)."""
        if self.hand_number >= 0:  # (a new game's state is fresh already)
            self.dealer = (self.dealer + 1) % 4  # R3
            self._reset_hand()
        self.hand_number += 1
        self.hands = [
            _mask_of(dealt[0]),
            _mask_of(dealt[1]),
            _mask_of(dealt[2]),
            _mask_of(dealt[3]),
        ]
        if self.log is not None:
            self.log.append(HandLog(self.dealer, dealt))
        self._start_trick()

    def clone(self) -> Game:
        """An independent copy of the game (the event log is copied too)."""
        g = _blank_game()
        g.rules = self.rules
        g._any_club = self._any_club
        g._upfront = self._upfront
        g.phase = self.phase
        g.totals = self.totals[:]
        g.summaries = self.summaries[:]
        g.winner = self.winner
        g.dealer = self.dealer
        g.hand_number = self.hand_number
        g.hands = self.hands[:]
        g._legal = self._legal
        g.points = self.points[:]
        g.locks = self.locks[:]
        g.lost = self.lost[:]
        g._lost_order = [x[:] for x in self._lost_order]
        g.times_locked = self.times_locked[:]
        g.sat_out = self.sat_out[:]
        g.empty_tricks = self.empty_tricks
        g.trick_number = self.trick_number
        g.nominal = self.nominal
        g.leader = self.leader
        g.turn = self.turn
        g.trick = self.trick[:]
        g.led_suit = self.led_suit
        g.best_card = self.best_card
        g.best_seat = self.best_seat
        g.clubs_in_trick = self.clubs_in_trick
        g.pic_clubs = self.pic_clubs
        g.players_in_trick = self.players_in_trick
        g.played = self.played
        g.pending = self.pending[:]
        g._after_discards = self._after_discards
        g.tricks = self.tricks[:]
        g.voids = self.voids[:]
        g._voids_shown = self._voids_shown[:]
        if self.log is None:
            g.log = None
        else:
            g.log = [HandLog(h.dealer, h.deal, h.events[:]) for h in self.log]
        return g

    # ------------------------------------------------------------------ status

    @property
    def is_over(self) -> bool:
        """True once the game has its winner (R15)."""
        return self.phase == OVER

    @property
    def discard_due(self) -> int | None:
        """The seat a lockup discard is due from (R10), or None."""
        return self.pending[0] if self.phase == DISCARD else None

    @property
    def to_play(self) -> int | None:
        """The seat whose card is due, or None when no card is due."""
        return self.turn if self.phase == PLAY else None

    @property
    def hand_over(self) -> bool:
        """True between hands (a deal is due) and at the game's end."""
        return self.phase in (DEAL, OVER)

    def hand(self, seat: int) -> list[Card]:
        """The cards seat holds, lowest card number first."""
        return cards_of(self.hands[seat])

    def hand_size(self, seat: int) -> int:
        """How many cards seat holds."""
        return self.hands[seat].bit_count()

    def lost_cards(self, seat: int) -> list[Card]:
        """The cards lockup took from seat this hand, in the order they left (R10)."""
        return self._lost_order[seat][:]

    @property
    def voids_shown(self) -> list[VoidShown]:
        """When each of :attr:`voids` was shown this hand, in order (R5, R6): a
        :class:`VoidShown` per seat and suit, at its first showing."""
        return _decode_voids(self._voids_shown, self.tricks, self.trick)

    @property
    def last_trick(self) -> Trick | None:
        """The most recently completed trick of this hand, or None."""
        return self.tricks[-1] if self.tricks else None

    def locked_seats(self) -> list[int]:
        """The seats locked now (R9)."""
        return [s for s in SEATS if self.locks[s]]

    # ------------------------------------------------------------------ legality

    def legal_mask(self, seat: int | None = None) -> CardMask:
        """The cards seat (default: the seat to play) may play now, as a mask; 0 if none."""
        if seat is None or seat == self.turn:
            return self._legal  # 0 unless a card is due
        return 0

    def _legal_now(self) -> CardMask:
        """R5 to R7: what the seat to play may play, worked out from the state by
        :func:`lockup.playout.legal` (the playout's rule too).

        The engine keeps the result in ``_legal`` whenever a card becomes due.
        """
        return _p_legal(self.hands[self.turn], self.led_suit, self.pic_clubs, self._any_club)

    def legal_cards(self, seat: int | None = None) -> list[Card]:
        """The cards seat (default: the seat to play) may play now."""
        return cards_of(self.legal_mask(seat))

    def is_legal(self, card: object, seat: int | None = None) -> bool:
        """Whether seat (default: the seat to play) may play card now."""
        if not isinstance(card, int) or not 0 <= card < 52:
            return False
        return bool((self.legal_mask(seat) >> card) & 1)

    def why_not(self, card: object, seat: int | None = None) -> Refusal | None:
        """None if seat may play card now; otherwise the :class:`Refusal` saying why
        (``not-a-card`` for anything but a card number, R2)."""
        if self.phase == OVER:
            return Refusal("game-over", "R15")
        if self.phase == DEAL:
            return Refusal("hand-over", "R10")
        if seat is None:
            seat = self.turn if self.phase == PLAY else self.pending[0]
        if self.phase == DISCARD:
            return Refusal("discard-due", "R10", {"seat": self.pending[0]})
        if not isinstance(card, int) or not 0 <= card < 52:
            return Refusal("not-a-card", "R2", {"value": repr(card)})
        if self.locks[seat]:
            return Refusal("locked", "R9", {"tricks": self.locks[seat]})
        if seat != self.turn:
            return Refusal("not-your-turn", "R4", {"seat": self.turn})
        hand = self.hands[seat]
        if not (hand >> card) & 1:
            if (self.lost[seat] >> card) & 1:
                why = "lost"
            elif (self.played >> card) & 1 or any(c == card for _, c in self.trick):
                why = "played"
            else:
                why = "absent"
            return Refusal("not-in-hand", "R4", {"card": card_str(card), "why": why})
        if (self.legal_mask(seat) >> card) & 1:
            return None
        suit = _SUIT[card]
        if not self.trick:
            return Refusal("lead-club", "R5")
        led = SUIT_NAMES[self.led_suit]
        if suit == CLUBS and self.pic_clubs:
            # The clubs the exception allows, less any already in the trick (never offered).
            allowed = self.pic_clubs
            for _, c in self.trick:
                allowed &= ~(1 << c)
            return Refusal(
                "picture-rank",
                "R7",
                {
                    "suit": led,
                    "cards": [
                        card_str(CLUBS * 13 + r)
                        for r in range(JACK, KING + 1)
                        if (allowed >> (CLUBS * 13 + r)) & 1
                    ],
                },
            )
        if suit == CLUBS:
            return Refusal("must-follow", "R6", {"suit": led, "club": True})
        return Refusal("must-follow", "R6", {"suit": led})

    # ------------------------------------------------------------------ moves

    def play(self, card: object, seat: int | None = None) -> None:
        """Play card from seat (default: the seat to play). Raises :class:`IllegalMove`,
        with the state unchanged, if the rules forbid it (or ``card`` is not a card)."""
        # _legal is 0 unless a card is due, so this one test covers the phase too.
        if (
            not isinstance(card, int)
            or card < 0
            or not (self._legal >> card) & 1
            or (seat is not None and seat != self.turn)
        ):
            refusal = self.why_not(card, seat)
            if refusal is None:  # pragma: no cover - legal_mask and why_not agree
                raise AssertionError("engine disagrees with itself")
            raise IllegalMove(refusal)
        self._play(card)

    def _play(self, card: Card) -> None:
        """Play a card known to be legal for the seat to play (R4 to R8)."""
        seat = self.turn
        bit = 1 << card
        self.hands[seat] = self.hands[seat] ^ bit
        self.played |= bit
        if self.log is not None:
            self.log[-1].events.append(("play", seat, card))
        trick = self.trick
        suit = _SUIT[card]
        led = self.led_suit
        if suit == led:
            if card > self.best_card:  # R8
                self.best_card = card
                self.best_seat = seat
        else:
            if led >= 0 or suit == _CLUBS:  # (a lead shows a void only if a club, R5)
                suits = _p_voids_shown_by(card, led, self.pic_clubs, self._any_club)  # R5 to R7
                if suits:
                    _p_show_voids(self.voids, self._voids_shown, seat, suits, self.trick_number)
            if led < 0:
                self.led_suit = suit
                self.best_card = card
                self.best_seat = seat
        if suit == _CLUBS:
            self.clubs_in_trick += 1
        pic = _PIC_CLUB_BIT[card]
        if pic:
            self.pic_clubs |= pic
        trick.append((seat, card))
        if len(trick) == self.players_in_trick:
            self._complete_trick()
            return
        locks = self.locks
        nxt = _LEFT[seat]
        if locks[nxt]:  # (the call only where it can change anything)
            nxt = _p_first_unlocked(locks, nxt)  # R4
        self.turn = nxt
        self._legal = self._legal_now()

    def discard(self, card: object, seat: int | None = None) -> None:
        """Remove card from the hand a lockup discard is due from (R10), as a replay does.

        Raises :class:`IllegalMove`, with the state unchanged, if no discard is due, it is
        due from another seat, or the seat does not hold the card.
        """
        if self.phase != DISCARD:
            raise IllegalMove(Refusal("no-discard-due", "R10"))
        due = self.pending[0]
        if seat is not None and seat != due:
            raise IllegalMove(Refusal("wrong-discard-seat", "R10", {"seat": due, "other": seat}))
        if not isinstance(card, int) or not 0 <= card < 52:
            raise IllegalMove(Refusal("not-a-card", "R2", {"value": repr(card)}))
        if not (self.hands[due] >> card) & 1:
            params = {"seat": due, "card": card_str(card), "why": "discard"}
            raise IllegalMove(Refusal("not-in-hand", "R10", params))
        self._discard(card)

    def discard_random(self, rng: RandomSource) -> Card:
        """Make the due lockup discard with a card drawn at random by ``rng`` (R10): the
        :meth:`chance_move` of a discard, its card returned."""
        if self.phase != DISCARD:
            raise IllegalMove(Refusal("no-discard-due", "R10"))
        return self.chance_move(rng).card

    def chance_move(self, rng: RandomSource, *, make: bool = True) -> ChanceMove:
        """The move chance makes now, drawn by ``rng``, and made unless ``make`` is False.

        While a deal is due, the next hand's deal: a uniform shuffle of the deck, 13
        cards a seat (R3). While a lockup discard is due, the card the locked hand loses:
        uniform over its cards, ``nth_card(hand, rng.random())`` (R10), the draw the
        playout makes too. Every random deal and discard is drawn here (the terminal,
        PettingZoo, search, the server); ``make=False`` leaves the game as it is, for a
        caller that makes the move itself (the server stores it first). Raises
        :class:`IllegalMove` while a card is due or once the game is over.
        """
        phase = self.phase
        if phase == DISCARD:
            seat = self.pending[0]
            card = nth_card(self.hands[seat], rng.random())
            if make:
                self._discard(card)
            return ChanceMove("discard", seat, card, None)
        if phase == DEAL:
            dealer = (self.dealer + 1) % 4 if self.hand_number >= 0 else self.dealer
            dealt = _shuffled_deal(rng)
            move = ChanceMove("deal", dealer, -1, [cs[:] for cs in dealt])
            if make:
                self._deal(dealt)
            return move
        if phase == OVER:
            raise IllegalMove(Refusal("game-over", "R15"))
        raise IllegalMove(Refusal("no-discard-due", "R10"))

    def playout(self, rng: RandomSource) -> None:
        """Play the current hand to its end with random legal cards and random discards.

        Exactly what repeated :meth:`discard_random` and ``play(nth_card(legal_mask(),
        rng.random()))`` would do (the tests check it, under every option), only much
        faster for a game without an event log: search rollouts and the benchmark use
        it. Does nothing between hands.
        """
        rand = rng.random
        # Finish a trick or discards under way, step by step; with an event log, all of it.
        while self.phase == DISCARD or (
            self.phase == PLAY and (self.trick or self.log is not None)
        ):
            if self.phase == PLAY:
                self._play(nth_card(self.legal_mask(), rand()))
            else:
                self._discard(nth_card(self.hands[self.pending[0]], rand()))
        if self.phase == PLAY:
            self._playout_from_trick_start(rand)

    def _playout_from_trick_start(self, rand: Any) -> None:
        """The rest of the hand from the lead of a trick (its discards made), by
        :func:`lockup.playout.play_out`: the same steps, in the same order, as _play,
        _discard, _complete_trick, _start_trick and _begin_play."""
        played, number, nominal, leader, n, empty = _p_play_out(
            self.hands,
            self.voids,
            self._voids_shown,
            self.locks,
            self.points,
            self.sat_out,
            self.times_locked,
            self.lost,
            self._lost_order,
            self.tricks,
            _make_trick,
            self._any_club,
            self._upfront,
            self.played,
            self.trick_number,
            self.turn,
            self.players_in_trick,
            rand,
        )
        self.played = played
        self.trick_number = number
        self.nominal = nominal
        self.leader = leader
        self.players_in_trick = n
        self.empty_tricks += empty
        self.trick = []
        self.led_suit = self.best_card = self.best_seat = -1
        self.clubs_in_trick = self.pic_clubs = 0
        self.pending = []
        self.turn = -1
        self._end_hand()

    def _discard(self, card: Card) -> None:
        seat = self.pending.pop(0)
        _p_lose(self.hands, self.lost, self._lost_order, seat, card)
        if self.log is not None:
            self.log[-1].events.append(("discard", seat, card))
        if not self.pending:
            after, self._after_discards = self._after_discards, PLAY
            if after == PLAY:
                self._begin_play()
            else:
                self._start_trick()

    def _start_trick(self) -> None:
        if self.trick_number == TRICKS_PER_HAND:
            self._end_hand()
            return
        locks = self.locks
        if not self._upfront and (locks[0] or locks[1] or locks[2] or locks[3]):
            # R10 per-trick: one card from every locked seat, in seat order
            self.pending = [s for s in range(4) if locks[s]]
            self._after_discards = PLAY
            self.phase = DISCARD
            return
        self._begin_play()

    def _begin_play(self) -> None:
        locks = self.locks
        n = locks.count(0)
        self.players_in_trick = n
        if n == 0:  # R12: everyone locked, an empty trick
            self.empty_tricks += 1
            _p_count_off(locks, self.sat_out)
            self.tricks.append(Trick(self.trick_number, None, (), None, 0, 0))
            self.trick_number += 1
            self._start_trick()
            return
        s = self.nominal
        if locks[s]:  # (the call only where it can change anything)
            s = _p_first_unlocked(locks, s)  # R11, R12
        self.leader = s
        self.turn = s
        self.phase = PLAY
        self._legal = self._legal_now()

    def _complete_trick(self) -> None:
        winner = self.best_seat
        clubs = self.clubs_in_trick
        self.points[winner] = self.points[winner] + 1  # R8, R13
        locks = self.locks
        if locks[0] or locks[1] or locks[2] or locks[3]:
            _p_count_off(locks, self.sat_out)  # R9
        number = self.trick_number
        self.trick_number = number + 1
        lock, self.nominal = _p_trick_end(winner, clubs, number)  # R9, R11
        if lock:
            locks[winner] = lock
            self.times_locked[winner] = self.times_locked[winner] + 1
        self.tricks.append(
            _make_trick((number, self.leader, tuple(self.trick), winner, clubs, lock))
        )
        self.turn = -1
        self._legal = 0
        self.trick = []
        self.led_suit = self.best_card = self.best_seat = -1
        self.clubs_in_trick = self.pic_clubs = 0
        if lock and self._upfront:  # R10 upfront: the whole lock's cards leave now
            self.pending = [winner] * lock
            self._after_discards = _NEXT_TRICK
            self.phase = DISCARD
            return
        self._start_trick()

    def _end_hand(self) -> None:
        totals = self.totals
        for s in range(4):
            totals[s] = totals[s] + self.points[s]
        self.summaries.append(
            HandSummary(
                self.hand_number,
                self.dealer,
                tuple(self.points),
                tuple(totals),
                tuple(self.times_locked),
                tuple(self.sat_out),
                tuple(map(tuple, self._lost_order)),
                self.empty_tricks,
            )
        )
        self.turn = -1
        self._legal = 0
        best = max(totals)
        if best >= self.rules.target and totals.count(best) == 1:  # R15
            self.winner = totals.index(best)
            self.phase = OVER
        else:
            self.phase = DEAL

    # ------------------------------------------------------------------ knowledge

    def view(self, seat: object) -> SeatView:
        """What ``seat`` may know: its own hand and everything public, never another hand."""
        return SeatView.of(self, seat)

    def legal_refusals(self, seat: int) -> dict[Card, Refusal]:
        """For each card seat holds that it may not play now, the refusal."""
        out = {}
        for c in cards_of(self.hands[seat]):
            r = self.why_not(c, seat)
            if r is not None:
                out[c] = r
        return out

    @classmethod
    def from_view(cls, view: SeatView, hands: Sequence[CardMask], *, record: bool = False) -> Game:
        """A full game state agreeing with ``view``, the hidden hands filled in by ``hands``.

        This is how a search determinizes what a seat knows. ``hands[view.seat]`` must be
        the seat's own hand and every hand must have the size the view shows.
        """
        if hands[view.seat] != view.hand_mask:
            raise ValueError("hands[seat] must be the viewer's own hand")
        for s in SEATS:
            if hands[s].bit_count() != view.hand_sizes[s]:
                raise ValueError(f"seat {s} must hold {view.hand_sizes[s]} cards")
        g = _blank_game()
        p = view._state
        g.rules = view.rules
        g._any_club = g.rules.any_club
        g._upfront = g.rules.upfront
        for name in _PUBLIC_STATE:
            v = p[name]
            setattr(g, name, v[:] if isinstance(v, list) else v)
        g.hands = list(hands)
        g._legal = g._legal_now() if g.phase == PLAY else 0
        g._lost_order = [list(x) for x in view.lost_order]
        g.log = [] if record else None
        return g


# A compiled Game is a native class, which keeps no ``__slots__``: its fields are listed
# here all the same (tests compare games field by field).
if "__slots__" not in vars(Game):  # pragma: no cover - only in the compiled engine
    setattr(Game, "__slots__", _GAME_SLOTS)  # noqa: B010 - a native class's attribute

_COMPILED: Final = not isinstance(implementation, FunctionType)
_BLANK_RULES: Final = Rules()


def _blank_game() -> Game:
    """A Game for :meth:`Game.clone` and :meth:`Game.from_view` to fill in every field of:
    ``Game.__new__`` from the source; compiled, where ``__new__`` runs ``__init__`` (with
    a new ``Rules()``), a direct ``__init__`` call, which is faster."""
    if _COMPILED:
        return Game(_BLANK_RULES, 0, record=False)
    return Game.__new__(Game)


def _shuffled_deal(rng: RandomSource) -> list[list[Card]]:
    """A uniform shuffle of the deck by ``rng``, dealt 13 cards a seat (R3)."""
    rand = rng.random
    keys = [rand() for _ in _DECK_RANGE]
    deck = sorted(_DECK_RANGE, key=keys.__getitem__)
    return [deck[13 * s : 13 * s + 13] for s in SEATS]


def _check_deal(cards: Any) -> None:
    def bad(params: dict[str, Any]) -> IllegalMove:
        return IllegalMove(Refusal("bad-deal", "R3", params))

    if not isinstance(cards, list | tuple) or len(cards) != 4:
        raise bad({"why": "seats"})
    seen = 0
    for s, cs in enumerate(cards):
        if not isinstance(cs, list | tuple) or len(cs) != 13:
            n = len(cs) if isinstance(cs, list | tuple) else 0
            raise bad({"why": "count", "seat": s, "count": n})
        for c in cs:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52:
                raise bad({"why": "not-a-card", "value": repr(c)})
            if (seen >> c) & 1:
                raise bad({"why": "twice", "card": card_str(c)})
            seen |= 1 << c
    if seen != FULL_DECK:  # pragma: no cover - 52 distinct cards are the deck
        raise bad({"why": "deck"})


@_python_class
@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may know (a snapshot): its own hand and the public state.

    It holds no other seat's hidden cards, only their number. Bots and the server use
    this and nothing else; :meth:`Game.view` makes one. :meth:`to_dict` gives JSON for a
    client.
    """

    seat: int
    """Whose view this is (R1)."""
    rules: Rules
    """The game's rule options."""
    phase: Phase
    """The game's phase: ``deal``, ``discard``, ``play`` or ``over``."""
    hand_mask: CardMask
    """The seat's own cards, as a mask."""
    hand_sizes: tuple[int, ...]
    """How many cards each seat holds."""
    legal_mask: CardMask
    """The cards the seat may play now (0 unless it is its turn)."""
    turn: int | None
    """The seat to play, or None when no card is due."""
    leader: int
    """The seat that led (or leads) the current trick."""
    trick: tuple[tuple[int, Card], ...]
    """The current trick's plays so far, as (seat, card)."""
    led_suit: int | None
    """The suit led to the current trick, or None before the lead."""
    best_card: Card | None
    """The card winning the current trick so far, or None before the lead (R8)."""
    best_seat: int | None
    """The seat that played :attr:`best_card`, or None before the lead."""
    clubs_in_trick: int
    """Clubs in the current trick so far (R9)."""
    pic_clubs: CardMask
    """The clubs the pictures in the current trick allow under ``same-rank`` (R7)."""
    players_in_trick: int
    """How many seats play the current trick: those not locked (R4)."""
    tricks: tuple[Trick, ...]
    """The completed tricks of this hand."""
    played_mask: CardMask
    """Every card played to a trick this hand (the current one included)."""
    locks: tuple[int, ...]
    """Tricks each seat still sits out (R9)."""
    points: tuple[int, ...]
    """Tricks each seat has taken this hand."""
    totals: tuple[int, ...]
    """Each seat's game total before this hand's points."""
    voids: tuple[int, ...]
    """For each seat, a 4-bit mask of the suits it has shown it lacks (R5, R6)."""
    voids_shown: tuple[VoidShown, ...]
    """When each of :attr:`voids` was shown this hand, in order: which seat, which suit,
    in which trick and by which card played (a :class:`VoidShown` each)."""
    lost_masks: tuple[CardMask, ...]
    """The cards lockup took from each seat this hand (shown to everyone, R10)."""
    lost_order: tuple[tuple[Card, ...], ...]
    """The cards lockup took from each seat this hand, in the order they left (R10)."""
    times_locked: tuple[int, ...]
    """How many times each seat was locked this hand (R14)."""
    sat_out: tuple[int, ...]
    """The tricks each seat sat out this hand (R14)."""
    trick_number: int
    """The current trick, 0 to 12 (13 once the hand is over)."""
    hand_number: int
    """The current hand, 0 for the first."""
    dealer: int
    """The current hand's dealer."""
    winner: int | None
    """The game's winner, once it is over."""
    summaries: tuple[HandSummary, ...]
    """The summaries of the finished hands (R14)."""
    discard_due: int | None
    """The seat a lockup discard is due from, or None."""
    _state: dict[str, Any] = field(repr=False, compare=False)
    """The public state as the game holds it, for :meth:`Game.from_view`."""

    @classmethod
    def of(cls, game: Game, seat: object) -> SeatView:
        """What ``seat`` may know of ``game`` now (same as ``game.view(seat)``)."""
        if seat not in SEATS:
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        seat = SEATS.index(seat)
        st: dict[str, Any] = {}
        for name in _PUBLIC_STATE:
            v = getattr(game, name)
            st[name] = v[:] if isinstance(v, list) else v
        phase = game.phase
        trick = tuple(game.trick)
        return cls(
            seat=seat,
            rules=game.rules,
            phase=phase,
            hand_mask=game.hands[seat],
            hand_sizes=tuple(h.bit_count() for h in game.hands),
            legal_mask=game.legal_mask(seat),
            turn=game.turn if phase == PLAY else None,
            leader=game.leader,
            trick=trick,
            led_suit=game.led_suit if trick and game.led_suit >= 0 else None,
            best_card=game.best_card if trick else None,
            best_seat=game.best_seat if trick else None,
            clubs_in_trick=game.clubs_in_trick,
            pic_clubs=game.pic_clubs,
            players_in_trick=game.players_in_trick,
            tricks=tuple(game.tricks),
            played_mask=game.played,
            locks=tuple(game.locks),
            points=tuple(game.points),
            totals=tuple(game.totals),
            voids=tuple(game.voids),
            voids_shown=tuple(_decode_voids(game._voids_shown, game.tricks, game.trick)),
            lost_masks=tuple(game.lost),
            lost_order=tuple(tuple(x) for x in game._lost_order),
            times_locked=tuple(game.times_locked),
            sat_out=tuple(game.sat_out),
            trick_number=game.trick_number,
            hand_number=game.hand_number,
            dealer=game.dealer,
            winner=game.winner,
            summaries=tuple(game.summaries),
            discard_due=game.pending[0] if phase == DISCARD else None,
            _state=st,
        )

    @property
    def hand(self) -> list[Card]:
        """The seat's own cards, lowest card number first."""
        return cards_of(self.hand_mask)

    @property
    def legal_cards(self) -> list[Card]:
        """The cards the seat may play now, lowest first."""
        return cards_of(self.legal_mask)

    @property
    def unseen_mask(self) -> CardMask:
        """Cards this seat has not seen: in other hands for certain."""
        seen = self.hand_mask | self.played_mask
        for m in self.lost_masks:
            seen |= m
        return FULL_DECK & ~seen

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data for a client: everything this seat may see, cards as ``QD``."""
        last = self.tricks[-1] if self.tricks else None
        playing = self.phase == PLAY
        return {
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "phase": self.phase.value,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "trick_number": self.trick_number,
            "turn": self.turn,
            "leader": self.leader if playing else None,
            "discard_due": self.discard_due,
            "hand": [card_str(c) for c in cards_of(self.hand_mask)],
            "legal": [card_str(c) for c in cards_of(self.legal_mask)],
            "trick": [{"seat": s, "card": card_str(c)} for s, c in self.trick] if playing else [],
            "last_trick": None if last is None else last.to_dict(),
            "hand_sizes": list(self.hand_sizes),
            "locks": list(self.locks),
            "lost": [[card_str(c) for c in cs] for cs in self.lost_order],
            "tricks": list(self.points),
            "times_locked": list(self.times_locked),
            "tricks_sat_out": list(self.sat_out),
            "totals": list(self.totals),
            "summaries": [h.to_dict() for h in self.summaries],
            "winner": self.winner,
            "voids": [[SUIT_NAMES[x] for x in range(4) if (v >> x) & 1] for v in self.voids],
        }
