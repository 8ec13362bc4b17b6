"""Names people go by: what a name may be, and when two names are the same.

Every name a person chooses (an account's, a display name at a table) goes through
:func:`clean_name`: characters that draw nothing are taken out, and what is left must
show a letter or a digit, must not be a computer's (Þóra, Leifur, Vigdís, a level such as
"Expert", anything called a computer) and is at most :data:`MAX_NAME` characters.

Two names are the same when their keys (:func:`name_key`) are: the confusable skeleton of
Unicode Technical Standard #39, taken with case folded, so "Ann", "ANN" and "Аnn" (with a
Cyrillic А) are one name. The skeleton's prototypes come from the Unicode confusables
data that the ``confusable-homoglyphs`` package ships (:func:`prototypes`).
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Iterable

MAX_NAME = 24
"""The longest name, in characters."""

MAX_KEY = 160
"""The longest key the store keeps (``accounts.name_key``)."""

MAX_MARKS = 2
"""Combining marks kept on one letter (more pile up over the lines around the name)."""

BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Characters that are letters or symbols to Unicode but draw nothing: the Hangul fillers
(Default_Ignorable_Code_Point, though of category Lo) and the blank Braille pattern."""

_DROPPED = frozenset({"Cf", "Cs", "Co", "Cn"})
"""Categories taken out of a name: format characters (zero-width spaces and joiners,
direction marks), surrogates, private use and unassigned code points."""

_SPACES = frozenset({"Cc", "Zs", "Zl", "Zp"})
"""Categories read as a plain space: controls (tabs, new lines) and separators."""

_MARKS = frozenset({"Mn", "Mc", "Me"})


class BadName(ValueError):
    """A name refused: ``code`` is ``blank``, ``too-long`` or ``reserved``; the message
    says why in English."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code


def clean_name(text: object, limit: int = MAX_NAME) -> str:
    """``text`` as a name: invisible characters out, spaces folded; raises :class:`BadName`
    for a name that shows no letter or digit, is longer than ``limit`` or is a computer's."""
    if not isinstance(text, str):
        raise BadName("blank", "a name is text")
    name = visible_text(text[: limit * 8])
    if not any(unicodedata.category(ch)[0] in "LN" for ch in name):
        raise BadName("blank", "a name needs a letter or a digit that shows")
    if len(name) > limit:
        raise BadName("too-long", f"a name is at most {limit} characters")
    if reserved(name):
        raise BadName(
            "reserved", "that name is the game's own (a computer's, a level's): choose another"
        )
    return name


def visible_text(text: str) -> str:
    """``text`` without the characters that draw nothing (:data:`BLANK_LETTERS`, format
    characters, controls read as spaces), without combining marks that have no letter or
    pile up past :data:`MAX_MARKS` on one (counted decomposed: "é" is a letter and a
    mark), spaces folded and trimmed; NFC."""
    out: list[str] = []
    marks = MAX_MARKS  # none kept before the first letter
    for ch in unicodedata.normalize("NFD", text):
        cat = unicodedata.category(ch)
        if ch in BLANK_LETTERS or cat in _SPACES:
            out.append(" ")
            marks = MAX_MARKS
        elif cat in _DROPPED:
            continue
        elif cat in _MARKS:
            if marks < MAX_MARKS:
                out.append(ch)
                marks += 1
        else:
            out.append(ch)
            marks = 0
    return unicodedata.normalize("NFC", " ".join("".join(out).split()))


@functools.cache
def prototypes() -> dict[str, str]:
    """Each confusable character's prototype (TR39's ``confusables.txt``), from the data
    of ``confusable-homoglyphs``.

    That package keeps each line ``source → prototype`` of the Unicode file in both
    directions, so a character's list holds its prototype if it is a source (a source maps
    to one prototype, and a prototype is never a source), or else the sources of which it
    is the prototype. A character with one entry whose entry has one entry back is a line
    seen once: its source is the key stored first (the package writes the file in the
    order of the lines, the source before the prototype). Marks of direction the package
    leaves around right-to-left characters are not part of them.
    """
    from confusable_homoglyphs.confusables import confusables_data

    data: dict[str, list[dict[str, str]]] = confusables_data
    order = {key: i for i, key in enumerate(data)}
    found: dict[str, str] = {}
    for raw, entries in data.items():
        source = _bare(raw)
        if len(source) != 1 or len(entries) != 1:
            continue  # a sequence (only ever a prototype), or the prototype of several
        target_raw = entries[0]["c"]
        target = _bare(target_raw)
        back = data.get(target_raw)
        if (
            len(target) == 1
            and back is not None
            and len(back) == 1
            and _bare(back[0]["c"]) == source
            and order[raw] > order[target_raw]
        ):
            continue  # the prototype of a line seen once
        found[source] = target
    return found


def _bare(text: str) -> str:
    return text.replace("\u200e", "").replace("\u200f", "")


def skeleton(text: str) -> str:
    """The TR39 skeleton of ``text``: NFD, each character by its prototype, NFD again."""
    table = prototypes()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def name_key(name: str) -> str:
    """The key that makes two names one: the skeleton of the name in capitals, case
    folded, and its skeleton again (so that the look-alikes of capitals and of small
    letters are both found, whatever case each name is written in).

    "Ann", "ANN", "Аnn" (Cyrillic А) and "ΑΝΝ" (Greek) have one key; so do "Ian" and
    "lan", "B0b" and "Bob", "rnike" and "Mike"."""
    text = visible_text(name)
    return skeleton(skeleton(text.upper()).casefold())


def _compact(key: str) -> str:
    """A key without its marks, spaces and punctuation: "Þ ó-r a!" reads as "Þora"."""
    return "".join(ch for ch in key if unicodedata.category(ch)[0] in "LN")


def reserved(name: str) -> bool:
    """Whether ``name`` passes for a computer: the computers' names, a level's name in any
    language of the page, a word for computer in it, or words that are all such names."""
    key = name_key(name)
    whole, words, computer = _reserved()
    if _compact(key) in whole:
        return True
    found = set(_words(key))
    return bool(found & computer) or (bool(found) and found <= words)


@functools.cache
def _reserved() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Compact keys of (whole reserved names, reserved one-word names, words for a
    computer)."""
    from ...bots.registry import LEVELS
    from ...engine import DEFAULT_PLAYERS

    names: set[str] = {*DEFAULT_PLAYERS, *LEVELS, "computer", "bot"}
    computer_words: set[str] = {"computer", "bot", "bots"}
    for messages in _page_messages():
        for key, text in messages.items():
            if key.startswith("level.") or key in ("you", "lb.you"):
                names.add(text.split("(")[0])
            elif key == "lb.computer":
                computer_words.add(text)
    whole = frozenset(_compact(name_key(n)) for n in names) - {""}
    words = {w for n in names if len(ws := _words(name_key(n))) == 1 for w in ws}
    computer = frozenset(w for c in computer_words for w in _words(name_key(c)))
    return whole, frozenset(words) | computer, computer


def _words(key: str) -> list[str]:
    """The words of a key (runs of letters, digits and their marks), compact: anything
    else (spaces, punctuation, symbols) parts them."""
    runs = "".join(ch if unicodedata.category(ch)[0] in "LNM" else " " for ch in key)
    return [w for w in (_compact(x) for x in runs.split()) if w]


def _page_messages() -> Iterable[dict[str, str]]:
    """The page's messages in each of its languages (what it calls levels, computers and
    the player)."""
    from ...web import STATIC_DIR

    for path in sorted((STATIC_DIR / "i18n").glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            yield {str(k): str(v) for k, v in data.items() if isinstance(v, str)}
