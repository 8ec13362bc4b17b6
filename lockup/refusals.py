"""The one catalogue of refusal messages, in English, French and Icelandic.

The engine refuses a move with a stable ``code``, the ``rule`` and ``params`` (see
:class:`lockup.engine.Refusal`); the words come from here, and only from here: the
engine's ``reason`` is :func:`message` in English, the record replay and the terminal
use it, and the page loads the same catalogue (``GET /api/refusals``, :func:`catalogue`)
and formats an ``error`` frame with the same rules in ``lockup/web/static/js/refusals.js``.

Each code has one or more *variants* (``locked``: ``one``, ``two``, ``more``), chosen
by :func:`variant` from the params alone, and each variant a template whose
``{placeholders}`` are params, formatted in the language:

- ``seat``, ``other``: a seat (0 South, 1 West, 2 North, 3 East), named by ``names``
  when given (the players' names), else by its compass point in the language. A message
  about the reader's own seat (``viewer``) takes its ``you`` variant where there is one
  ("Lockup must first take one of your cards.").
- ``suit``: a suit's English name (``"hearts"``), named in the language.
- ``card``: a card code (``"QD"``), named in a sentence ("the queen of diamonds").
- ``cards``: card codes, as a list of short forms ("J♣ or Q♣", "V♣ ou D♣").
- ``more``: ``tricks - 1``, for ``locked``.
- anything else (``count``, ``value``) as it is.

A missing param leaves its placeholder as it is. Messages speak to the player refused
("You do not hold ..."). Pure data and formatting: no I/O, no imports from the package,
so the engine may import it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

LANGS: Final = ("en", "fr", "is")
"""The catalogue's languages; English is the engine's."""

_M = dict[str, dict[str, dict[str, str]]]

# code -> variant -> language -> template
_MESSAGES: Final[_M] = {
    "lead-club": {
        "default": {
            "en": "You may not lead a club while you hold another suit: "
            "lead a club only when your hand is all clubs.",
            "fr": "Vous ne pouvez pas entamer à trèfle tant que vous avez une autre couleur : "
            "on n'entame à trèfle que d'une main qui ne contient que des trèfles.",
        },
    },
    "must-follow": {
        "default": {
            "en": "You hold {suit}: you must follow {suit}.",
            "fr": "Vous avez du {suit} : vous devez fournir à {suit}.",
        },
        "club": {
            "en": "You hold {suit}: you must follow {suit}. "
            "A club may replace it only while a jack, queen or king lies in the trick.",
            "fr": "Vous avez du {suit} : vous devez fournir à {suit}. "
            "Un trèfle ne peut le remplacer que lorsqu'un valet, une dame ou un roi est dans le pli.",
        },
    },
    "picture-rank": {
        "default": {
            "en": "You hold {suit}: you must follow {suit}. The picture exception allows only "
            "the club of a picture's rank in the trick: {cards}.",
            "fr": "Vous avez du {suit} : vous devez fournir à {suit}. L'exception de la figure ne "
            "permet de jouer que le trèfle du rang d'une figure du pli : {cards}.",
        },
        "none": {
            "en": "You hold {suit}: you must follow {suit}. The picture exception allows only "
            "the club of a picture's rank in the trick, and that club is already on the table.",
            "fr": "Vous avez du {suit} : vous devez fournir à {suit}. L'exception de la figure ne "
            "permet de jouer que le trèfle du rang d'une figure du pli, et ce trèfle est déjà "
            "sur la table.",
        },
    },
    "not-your-turn": {
        "default": {
            "en": "It is not your turn: {seat} plays now.",
            "fr": "Ce n'est pas votre tour : c'est à {seat} de jouer.",
        },
        "bare": {
            "en": "It is not your turn.",
            "fr": "Ce n'est pas votre tour.",
        },
    },
    "locked": {
        "one": {
            "en": "You are locked up: you sit out this trick.",
            "fr": "Vous êtes enfermé : vous passez ce pli.",
        },
        "two": {
            "en": "You are locked up: you sit out this trick and the next.",
            "fr": "Vous êtes enfermé : vous passez ce pli et le suivant.",
        },
        "more": {
            "en": "You are locked up: you sit out this trick and {more} more.",
            "fr": "Vous êtes enfermé : vous passez ce pli et les {more} suivants.",
        },
    },
    "not-in-hand": {
        "absent": {
            "en": "You do not hold the {card}.",
            "fr": "Vous n'avez pas cette carte ({card}).",
        },
        "played": {
            "en": "The {card} has already been played.",
            "fr": "Cette carte ({card}) a déjà été jouée.",
        },
        "lost": {
            "en": "You no longer hold the {card}: lockup took it.",
            "fr": "Vous n'avez plus cette carte ({card}) : l'enfermement vous l'a prise.",
        },
        "discard": {
            "en": "{seat} does not hold the {card}, so lockup cannot take it.",
            "fr": "{seat} n'a pas cette carte ({card}) : l'enfermement ne peut pas la prendre.",
        },
    },
    "not-a-card": {
        "default": {
            "en": "{value} is not a card.",
            "fr": "{value} n'est pas une carte.",
        },
    },
    "discard-due": {
        "default": {
            "en": "Lockup must first take a card from {seat}.",
            "fr": "L'enfermement doit d'abord prendre une carte à {seat}.",
        },
        "you": {
            "en": "Lockup must first take one of your cards.",
            "fr": "L'enfermement doit d'abord vous prendre une carte.",
        },
        "bare": {
            "en": "Lockup must first take a card.",
            "fr": "L'enfermement doit d'abord prendre une carte.",
        },
    },
    "wrong-discard-seat": {
        "default": {
            "en": "The lockup discard due now is from {seat}, not {other}.",
            "fr": "C'est à {seat}, et non à {other}, que l'enfermement doit prendre une carte "
            "maintenant.",
        },
    },
    "no-discard-due": {
        "default": {
            "en": "No lockup discard is due now.",
            "fr": "L'enfermement n'a aucune carte à prendre maintenant.",
        },
    },
    "hand-over": {
        "default": {
            "en": "The hand is over: all 13 tricks have been played.",
            "fr": "La main est terminée : les 13 plis ont été joués.",
        },
    },
    "hand-in-progress": {
        "default": {
            "en": "The current hand is not finished yet.",
            "fr": "La main en cours n'est pas encore terminée.",
        },
    },
    "bad-deal": {
        "seats": {
            "en": "A deal gives cards to exactly four seats.",
            "fr": "Une donne distribue des cartes à quatre places exactement.",
        },
        "count": {
            "en": "Every seat gets 13 cards, but {seat} is dealt {count}.",
            "fr": "Chaque place reçoit 13 cartes, mais {seat} en reçoit {count}.",
        },
        "not-a-card": {
            "en": "{value} is not a card.",
            "fr": "{value} n'est pas une carte.",
        },
        "twice": {
            "en": "The {card} is dealt twice.",
            "fr": "Cette carte ({card}) est distribuée deux fois.",
        },
        "deck": {
            "en": "The deal is not the 52 cards of the deck.",
            "fr": "La donne n'est pas faite des 52 cartes du jeu.",
        },
    },
    "game-over": {
        "default": {
            "en": "The game is over.",
            "fr": "La partie est terminée.",
        },
    },
}

# Icelandic, kept together: seats and cards stand where Icelandic keeps them in the
# nominative ("Þóra á leik núna", "Þetta spil ... : tíguldrottning"), and {suit} where the
# accusative singular is also the word's combining form ("Þú átt hjarta", "hjartaás").
_ICELANDIC: Final = {
    "lead-club": {
        "default": "Þú mátt ekki spila út laufi meðan þú átt annan lit: "
        "spilaðu aðeins út laufi þegar höndin er eintómt lauf.",
    },
    "must-follow": {
        "default": "Þú átt {suit}: þú verður að fylgja lit.",
        "club": "Þú átt {suit}: þú verður að fylgja lit. "
        "Lauf má aðeins koma í staðinn meðan gosi, drottning eða kóngur liggur í slagnum.",
    },
    "picture-rank": {
        "default": "Þú átt {suit}: þú verður að fylgja lit. Undanþága mannspila leyfir aðeins "
        "laufið af sama gildi og mannspil í slagnum: {cards}.",
        "none": "Þú átt {suit}: þú verður að fylgja lit. Undanþága mannspila leyfir aðeins "
        "laufið af sama gildi og mannspil í slagnum, og það lauf er þegar á borðinu.",
    },
    "not-your-turn": {
        "default": "Þú átt ekki leik: {seat} á leik núna.",
        "bare": "Þú átt ekki leik.",
    },
    "locked": {
        "one": "Þú ert í lás: þú situr hjá í þessum slag.",
        "two": "Þú ert í lás: þú situr hjá í þessum slag og þeim næsta.",
        "more": "Þú ert í lás: þú situr hjá í þessum slag og {more} í viðbót.",
    },
    "not-in-hand": {
        "absent": "Þetta spil er ekki á hendi þinni: {card}.",
        "played": "Þetta spil hefur þegar verið spilað: {card}.",
        "lost": "Þú ert ekki lengur með þetta spil, lásinn tók það: {card}.",
        "discard": "{seat} er ekki með þetta spil, svo að lásinn getur ekki tekið það: {card}.",
    },
    "not-a-card": {"default": "{value} er ekki spil."},
    "discard-due": {
        "default": "Fyrst verður {seat} að missa spil í lásinn.",
        "you": "Fyrst verður lásinn að taka eitt af spilunum þínum.",
        "bare": "Fyrst verður lásinn að taka spil.",
    },
    "wrong-discard-seat": {
        "default": "Nú á {seat} að missa spil í lásinn, ekki {other}.",
    },
    "no-discard-due": {"default": "Lásinn á ekkert spil að taka núna."},
    "hand-over": {"default": "Gjöfinni er lokið: allir 13 slagirnir hafa verið spilaðir."},
    "hand-in-progress": {"default": "Gjöfinni sem nú stendur er ekki lokið enn."},
    "bad-deal": {
        "seats": "Í gjöf fá nákvæmlega fjögur sæti spil.",
        "count": "Hvert sæti fær 13 spil, en {seat} fær {count}.",
        "not-a-card": "{value} er ekki spil.",
        "twice": "Þetta spil er gefið tvisvar: {card}.",
        "deck": "Gjöfin er ekki 52 spil stokksins.",
    },
    "game-over": {"default": "Leiknum er lokið."},
}
for _code, _variants in _ICELANDIC.items():
    for _v, _text in _variants.items():
        _MESSAGES[_code][_v]["is"] = _text

# Words the placeholders are filled with, in each language.
_WORDS: Final[dict[str, dict[str, Any]]] = {
    "en": {
        "seats": ["South", "West", "North", "East"],
        "suits": {"clubs": "clubs", "diamonds": "diamonds", "hearts": "hearts", "spades": "spades"},
        "ranks": {
            **{r: r for r in "23456789"},
            **{"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"},
        },
        "index": {
            **{r: r for r in "23456789"},
            **{"T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A"},
        },
        "card": "{rank} of {suit}",
        "or": " or ",
        "comma": ", ",
    },
    "fr": {
        "seats": ["Sud", "Ouest", "Nord", "Est"],
        "suits": {"clubs": "trèfle", "diamonds": "carreau", "hearts": "cœur", "spades": "pique"},
        "ranks": {
            **{r: r for r in "23456789"},
            **{"T": "10", "J": "valet", "Q": "dame", "K": "roi", "A": "as"},
        },
        "index": {
            **{r: r for r in "23456789"},
            **{"T": "10", "J": "V", "Q": "D", "K": "R", "A": "A"},
        },
        "card": "{rank} de {suit}",
        "or": " ou ",
        "comma": ", ",
    },
    "is": {
        "seats": ["Suður", "Vestur", "Norður", "Austur"],
        # The accusative singular, which is also the combining form: "spaða", "spaðaás".
        "suits": {"clubs": "lauf", "diamonds": "tígul", "hearts": "hjarta", "spades": "spaða"},
        "ranks": {
            **{"2": "tvistur", "3": "þristur", "4": "fjarki", "5": "fimma", "6": "sexa"},
            **{"7": "sjöa", "8": "átta", "9": "nía", "T": "tía", "J": "gosi"},
            **{"Q": "drottning", "K": "kóngur", "A": "ás"},
        },
        "index": {
            **{r: r for r in "23456789"},
            **{"T": "10", "J": "G", "Q": "D", "K": "K", "A": "Á"},
        },
        "card": "{suit}{rank}",
        "or": " eða ",
        "comma": ", ",
    },
}

_SUIT_OF_LETTER: Final = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
_SYMBOL_OF_LETTER: Final = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_PLACEHOLDER: Final = re.compile(r"\{(\w+)\}")
SEAT_PARAMS: Final = ("seat", "other")
"""The params that are seats, named in a message."""


# The server's own refusals, apart from the engine's: the ``code`` of an ``error`` frame
# on /ws or the ``error`` of a refused HTTP request. The page words each one in its
# language files (lockup/web/static/i18n/*.json) under ``err.<code>`` (the table's
# words), ``room.err.<code>`` (the room forms' words) or the key of :data:`PAGE_KEYS`;
# tests/test_protocol_types.py holds every code to a wording in every language, the
# server's sources to this list, and every ``err.*`` key to a code or a page's own use.
PROTOCOL_CODES: Final[dict[str, str]] = {
    "bad-message": "the message is not one the server understands",
    "too-long": "a chat line is longer than the server takes",
    "stale": "a card or hint for a version the game has moved on from",
    "not-seated": "the page's person does not play the seat (or sits at no table)",
    "no-game": "no such game, or it was reloaded: send hello again",
    "not-your-game": "the game is not the player's",
    "unavailable": "the database (or the bus) cannot be reached just now",
    "server-full": "the server carries as many players as it may: try again in "
    "params.retry_after seconds (HTTP: 503 with Retry-After; a WebSocket: closed 1013)",
    "hint-busy": "a hint is already being worked out, or every hint worker is busy",
    "hint-unavailable": "the hint could not be computed",
    "server-error": "the server failed to handle the request",
    "rate-limited": "too many requests: try again in params.retry_after seconds",
    "too-many-spectators": "the table or the address has as many spectators as allowed",
    "no-room": "no such room, or the link's key is not valid",
    "room-closed": "the room is closed",
    "room-started": "the room's game has started: one may watch",
    "room-full": "every seat of the room is taken: one may watch",
    "seat-taken": "someone sits in that seat already",
    "not-host": "only the room's host may do that",
    "bad-seat": "nobody sits in that seat to remove",
    "game-under-way": "the game is not over yet",
    "too-many-rooms": "the player has as many public rooms open as allowed",
    "name-needed": "quick play needs a display name: the player has none and gave none",
    "quick-only": "a quick-play table's seats are given by quick play only: one may watch",
    "same-address": "someone from the same address or browser sits at that quick-play table",
    "bad-name": "a name given is not valid (1 to 24 characters, a letter or digit that shows,"
    ' not a computer\'s); an account route says which in "why": blank, too-long, reserved',
    "bad-password": 'a new password is too short or too long ("why": short, long, other)',
    "bad-login": "an account's name and password do not match (which of them is not said)",
    "name-taken": "an account has that name, or one that looks like it (by case or by look)",
    "wrong-password": "the current password given to change it is not right",
    "signed-out": "the request has no valid session: a guest (who plays unrated)",
    "signed-in": "the browser is signed in already (or made an account just now)",
    "bad-option": "an option of a new game or room is not valid",
    "bad-request": "the body of the request is not what it must be",
    "bad-record": "an uploaded file is not a record that replays",
    "analysis-busy": "the server is busy with other analyses",
    "no-hand-yet": "no hand of the game is finished yet",
    "unknown-host": "the request's Host is not one the server answers",
    "cross-origin": "a request from a page of another site",
    "bad-content-type": "a body not sent as application/json",
    "too-large": "the request's headers or body are too large",
    "timeout": "the request came too slowly",
    "too-many-connections": "too many connections from one address",
}
"""Every code of the server's own refusals (:func:`server_codes` adds the engine's), with
what it means."""

PAGE_KEYS: Final[dict[str, str]] = {
    "analysis-busy": "review.busy",
    "no-hand-yet": "review.empty",
    "bad-password": "account.err.password.other",
    "bad-login": "account.err.bad-login",
    "name-taken": "account.err.name-taken",
    "wrong-password": "account.err.wrong-password",
    "signed-out": "account.err.signed-out",
    "signed-in": "account.err.signed-in",
}
"""The codes the page words under a key of their own (the review page's, the account
page's), not ``err.<code>``."""


def codes() -> list[str]:
    """Every refusal code the catalogue words."""
    return list(_MESSAGES)


def server_codes() -> list[str]:
    """Every code the server may refuse with: the engine's (:func:`codes`, worded here)
    and the protocol's own (:data:`PROTOCOL_CODES`, worded by the page)."""
    return [*_MESSAGES, *(c for c in PROTOCOL_CODES if c not in _MESSAGES)]


def catalogue() -> dict[str, dict[str, Any]]:
    """The whole catalogue as JSON-ready data, what ``GET /api/refusals`` answers:
    ``{lang: {"messages": {code: {variant: template}}, "words": {...}}}``.

    ``words`` holds ``seats`` (compass points in seat order), ``suits`` (by English
    name), ``ranks`` and ``index`` (by rank letter: a card's name, its short form),
    ``card`` (``"{rank} of {suit}"``), and ``or`` and ``comma`` for lists.
    """
    return {
        lang: {
            "messages": {
                code: {v: texts[lang] for v, texts in variants.items()}
                for code, variants in _MESSAGES.items()
            },
            "words": _WORDS[lang],
        }
        for lang in LANGS
    }


def variant(code: str, params: Mapping[str, Any], viewer: int | None = None) -> str:
    """The variant of ``code``'s message that ``params`` call for (``viewer``: the seat
    reading it, for a ``you`` variant). The page's ``variant`` in js/refusals.js agrees."""
    seat = params.get("seat")
    has_seat = _is_seat(seat)
    if code == "must-follow":
        return "club" if params.get("club") else "default"
    if code == "picture-rank":
        return "default" if params.get("cards") else "none"
    if code == "not-your-turn":
        return "default" if has_seat else "bare"
    if code == "discard-due":
        if not has_seat:
            return "bare"
        return "you" if seat == viewer else "default"
    if code == "locked":
        n = params.get("tricks")
        if not isinstance(n, int) or n <= 1:
            return "one"
        return "two" if n == 2 else "more"
    if code in ("not-in-hand", "bad-deal"):
        why = params.get("why")
        known = _MESSAGES[code]
        if isinstance(why, str) and why in known:
            return why
        return next(iter(known))
    return "default"


def template(
    code: str, params: Mapping[str, Any], lang: str = "en", viewer: int | None = None
) -> str:
    """The template of ``code``'s message for ``params`` in ``lang``.

    Raises ``KeyError`` for a code or language the catalogue does not have.
    """
    if lang not in _WORDS:
        raise KeyError(lang)
    return _MESSAGES[code][variant(code, params, viewer)][lang]


def message(
    code: str,
    params: Mapping[str, Any] | None = None,
    lang: str = "en",
    names: Sequence[str] | None = None,
    viewer: int | None = None,
) -> str:
    """The refusal ``code`` with ``params`` in words, in ``lang`` (``en``, ``fr``, ``is``).

    Seats are named by ``names`` (seat order) when given, else by compass points in the
    language; ``viewer`` is the seat reading it, whose own seat takes a ``you`` variant
    where there is one. Raises ``KeyError`` for an unknown code or language.
    """
    params = params or {}
    text = template(code, params, lang, viewer)
    words = _WORDS[lang]

    def fill(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "more" and isinstance(params.get("tricks"), int):
            return str(params["tricks"] - 1)
        if key not in params:
            return m.group(0)
        value = params[key]
        if key in SEAT_PARAMS and _is_seat(value):
            return names[value] if names is not None else str(words["seats"][value])
        if key == "suit" and isinstance(value, str):
            return str(words["suits"].get(value, value))
        if key == "card" and _is_card(value):
            return card_in_text(value, lang)
        if key == "cards" and isinstance(value, list):
            return or_list([short_card(c, lang) for c in value if _is_card(c)], lang)
        return str(value)

    return _PLACEHOLDER.sub(fill, text)


def placeholders(text: str) -> set[str]:
    """The ``{placeholders}`` of a template."""
    return set(_PLACEHOLDER.findall(text))


def _is_seat(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= 3


def _is_card(code: object) -> bool:
    return (
        isinstance(code, str)
        and len(code) == 2
        and code[0] in _WORDS["en"]["index"]
        and code[1] in _SUIT_OF_LETTER
    )


def card_in_text(code: str, lang: str = "en") -> str:
    """A card's name inside a sentence: ``"queen of diamonds"``, ``"dame de carreau"``."""
    words = _WORDS[lang]
    rank = words["ranks"][code[0]]
    suit = words["suits"][_SUIT_OF_LETTER[code[1]]]
    return str(words["card"]).replace("{rank}", rank).replace("{suit}", suit)


def short_card(code: str, lang: str = "en") -> str:
    """A card's short form: ``"Q♦"``, ``"10♦"``, ``"D♦"`` in French."""
    return str(_WORDS[lang]["index"][code[0]]) + _SYMBOL_OF_LETTER[code[1]]


def or_list(items: Sequence[str], lang: str = "en") -> str:
    """``"a, b or c"`` in ``lang``."""
    words = _WORDS[lang]
    if len(items) <= 1:
        return "".join(items)
    return str(words["comma"]).join(items[:-1]) + str(words["or"]) + items[-1]


def examples() -> list[tuple[str, dict[str, Any]]]:
    """(code, params) for every variant of every code, as the engine sends them (the
    tests and the page's tests format each)."""
    return [
        ("lead-club", {}),
        ("must-follow", {"suit": "diamonds"}),
        ("must-follow", {"suit": "hearts", "club": True}),
        ("picture-rank", {"suit": "hearts", "cards": ["JC", "KC"]}),
        ("picture-rank", {"suit": "spades", "cards": []}),
        ("not-your-turn", {"seat": 1}),
        ("not-your-turn", {}),
        ("locked", {"tricks": 1}),
        ("locked", {"tricks": 2}),
        ("locked", {"tricks": 4}),
        ("not-in-hand", {"card": "QD", "why": "absent"}),
        ("not-in-hand", {"card": "TH", "why": "played"}),
        ("not-in-hand", {"card": "AS", "why": "lost"}),
        ("not-in-hand", {"card": "2C", "why": "discard", "seat": 3}),
        ("not-a-card", {"value": "'ZZ'"}),
        ("discard-due", {"seat": 2}),
        ("discard-due", {}),
        ("wrong-discard-seat", {"seat": 0, "other": 1}),
        ("no-discard-due", {}),
        ("hand-over", {}),
        ("hand-in-progress", {}),
        ("bad-deal", {"why": "seats"}),
        ("bad-deal", {"why": "count", "seat": 3, "count": 12}),
        ("bad-deal", {"why": "not-a-card", "value": "52"}),
        ("bad-deal", {"why": "twice", "card": "KH"}),
        ("bad-deal", {"why": "deck"}),
        ("game-over", {}),
    ]
