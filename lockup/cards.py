"""Cards, suits and ranks of the 52-card deck (docs/rules.md R2), as small integers.

A card is an ``int`` from 0 to 51: ``suit * 13 + rank``, where rank 0 is the two
and rank 12 the ace, and suits are ordered clubs, diamonds, hearts, spades.
A set of cards (a hand, the cards played) is an ``int`` bit mask with bit ``card``
set for each card in it, which keeps the engine fast.

Notation follows the record format (docs/records.md): ``QD`` is the queen of diamonds and ``TD`` the ten.
:func:`parse_card` also reads ``10D``, lower case and the suit symbols (``q♦``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

Card = int
"""A card: ``suit * 13 + rank`` (0..51)."""

CardMask = int
"""A set of cards as a bit mask over card numbers."""

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_LETTERS = "23456789TJQKA"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JACK, QUEEN, KING, ACE = 9, 10, 11, 12

FULL_DECK: CardMask = (1 << 52) - 1
"""Every card."""

SUIT_MASKS: tuple[CardMask, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in SUITS)
"""``SUIT_MASKS[suit]`` holds the 13 cards of that suit."""

CLUB_MASK: CardMask = SUIT_MASKS[CLUBS]
NON_CLUB_MASK: CardMask = FULL_DECK & ~CLUB_MASK


def card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (0 = two .. 12 = ace) and ``suit``."""
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise ValueError(f"no card of rank {rank} and suit {suit}")
    return suit * 13 + rank


def suit_of(c: Card) -> int:
    """The suit of a card (0 clubs, 1 diamonds, 2 hearts, 3 spades)."""
    return c // 13


def rank_of(c: Card) -> int:
    """The rank of a card (0 = two .. 12 = ace)."""
    return c % 13


def is_picture(c: Card) -> bool:
    """True for a jack, queen or king (R7)."""
    return JACK <= c % 13 <= KING


def card_str(c: Card) -> str:
    """The two-character record form: ``QD``, ``TD``, ``2C``."""
    return RANK_LETTERS[c % 13] + SUIT_LETTERS[c // 13]


def card_symbol(c: Card) -> str:
    """The form for people: ``Q♦``, ``10♦``."""
    return RANK_NAMES[c % 13] + SUIT_SYMBOLS[c // 13]


_SUIT_READ = {
    "C": 0,
    "D": 1,
    "H": 2,
    "S": 3,
    "♣": 0,
    "♦": 1,
    "♥": 2,
    "♠": 3,
    "♧": 0,
    "♢": 1,
    "♡": 2,
    "♤": 3,
}


def parse_card(text: object) -> Card:
    """Read a card: ``QD``, ``TD``, ``10D``, ``q♦``, ``10♦``.

    Raises :class:`ValueError` for anything that is not one of the 52 cards.
    """
    if not isinstance(text, str):
        raise ValueError(f"a card is a string, not {type(text).__name__}")
    t = text.strip().upper()
    if len(t) < 2:
        raise ValueError(f"not a card: {text!r}")
    rank_part, suit_part = t[:-1], t[-1]
    suit = _SUIT_READ.get(suit_part)
    if rank_part == "10":
        rank_part = "T"
    if suit is None or len(rank_part) != 1 or rank_part not in RANK_LETTERS:
        raise ValueError(f"not a card: {text!r}")
    return suit * 13 + RANK_LETTERS.index(rank_part)


def mask_of(cards: Iterable[Card]) -> CardMask:
    """The bit mask of some cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: CardMask) -> list[Card]:
    """The cards of a mask, lowest card number first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def iter_cards(mask: CardMask) -> Iterator[Card]:
    """Iterate the cards of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: CardMask) -> int:
    """How many cards a mask holds."""
    return mask.bit_count()


def sort_for_display(cards: Iterable[Card]) -> list[Card]:
    """A hand sorted as players like it: suits alternating colour (♠ ♥ ♣ ♦), high to low."""
    order = {SPADES: 0, HEARTS: 1, CLUBS: 2, DIAMONDS: 3}
    return sorted(cards, key=lambda c: (order[c // 13], -(c % 13)))


def format_cards(cards: Iterable[Card]) -> str:
    """Cards for people, separated by spaces: ``A♠ 10♦ 2♣``."""
    return " ".join(card_symbol(c) for c in cards)


DECK: tuple[Card, ...] = tuple(range(52))
"""All 52 cards in card-number order."""
