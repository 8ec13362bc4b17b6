"""Finding English on a page shown in another language (the word walk's checker).

A page's visible words are collected in the browser (:data:`VISIBLE_TEXT_JS`): each
visible element's ``innerText``, its ``placeholder``, ``title``, ``aria-label`` and
``alt``, a button's ``value``, every option of a visible ``<select>`` and the document's
title. :func:`english_leaks` then flags, in French or Icelandic:

- a string that is exactly an English catalogue message ("Settings") that the language
  words otherwise;
- a fragment of an English catalogue message (``lockup/web/static/i18n/en.json``, split
  at its ``{placeholders}``, two words or more) whose translation differs;
- an English give-away word (:data:`GIVEAWAYS`), matched as a whole word;
- a file input the browser draws itself (its button and words are the browser's);
- in every language, a catalogue key shown as text (``room.title``: a message missing).

Each finding names the smallest element that shows it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

CATALOGUES = Path(__file__).parent.parent / "lockup" / "web" / "static" / "i18n"

GIVEAWAYS = (
    "the", "and", "you", "your", "game", "games", "card", "cards", "trick", "tricks",
    "play", "plays", "playing", "played", "waiting", "player", "players", "computer",
    "computers", "friends", "with", "wins", "won", "hand", "hands", "turn", "rating",
    "rated", "rank", "history", "statistics", "leaderboard", "settings", "new", "join",
    "leave", "seat", "seats", "empty", "here", "watch", "hint", "send", "close", "back",
    "next", "sign", "account", "password", "level", "review", "rules", "lost", "locked",
    "opponents", "result", "this", "what", "who", "how", "for", "not", "yet",
)  # fmt: skip
"""English words that never belong in the French or Icelandic page (none is a French or
Icelandic word; "points", "score" and "chat" are French as well, so they are left out)."""

VISIBLE_TEXT_JS = """() => {
  const out = [];
  const desc = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) return s + '#' + el.id;
    if (el.classList.length) s += '.' + [...el.classList].slice(0, 2).join('.');
    return s;
  };
  const path = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.documentElement && parts.length < 4; e = e.parentElement) {
      parts.unshift(desc(e));
      if (e.id) break;
    }
    return parts.join(' > ');
  };
  const visible = (el) => el.getClientRects().length > 0
    && el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  for (const el of document.body.querySelectorAll('*')) {
    if (['SCRIPT', 'STYLE', 'TEMPLATE', 'NOSCRIPT', 'OPTION'].includes(el.tagName)) continue;
    if (!visible(el)) continue;
    const where = path(el);
    if (el.tagName === 'SELECT') {
      for (const o of el.options) out.push([where, 'option', o.textContent]);
    } else if (el.tagName !== 'TEXTAREA' && el.tagName !== 'INPUT') {
      const text = el.innerText;
      if (text && text.trim()) out.push([where, 'text', text]);
    }
    for (const a of ['placeholder', 'title', 'aria-label', 'alt']) {
      const v = el.getAttribute(a);
      if (v) out.push([where, a, v]);
    }
    if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type) && el.value)
      out.push([where, 'value', el.value]);
    // A file input shows the browser's own words (this Chromium's are English).
    const box = el.getBoundingClientRect();
    if (el.tagName === 'INPUT' && el.type === 'file' && box.width > 2 && box.height > 2)
      out.push([where, 'native', 'Choose File No file chosen']);
  }
  out.push(['document', 'title', document.title]);
  return out;
}"""


@dataclass(frozen=True)
class Entry:
    """One visible string: where it is (an element's path), what it is, its text."""

    where: str
    what: str
    text: str


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The page's messages in ``lang``."""
    data: dict[str, str] = json.loads((CATALOGUES / f"{lang}.json").read_text("utf-8"))
    return data


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]+(?:'[a-z]+)?", text)


@cache
def english_fragments(lang: str) -> list[tuple[str, str, re.Pattern[str]]]:
    """``(fragment, key, pattern)`` for each English fragment of two or more words that
    the ``lang`` catalogue does not use itself."""
    en, other = catalogue("en"), catalogue(lang)
    own = "\0".join(" ".join(v.split()) for v in other.values())
    out: dict[str, tuple[str, str, re.Pattern[str]]] = {}
    for key, message in en.items():
        if other.get(key) == message:
            continue
        for piece in re.split(r"\{\w+\}", message):
            piece = " ".join(piece.split()).strip(" ,.:;·–—-()!?\"'…")
            if len(_words(piece)) < 2 or piece in own or piece in out:
                continue
            pattern = re.compile(r"(?<!\w)" + re.escape(piece) + r"(?!\w)")
            out[piece] = (piece, key, pattern)
    return sorted(out.values(), key=lambda f: -len(f[0]))


@cache
def english_messages(lang: str) -> dict[str, str]:
    """English messages with no placeholder that ``lang`` words otherwise (one word
    included: "Settings"), each with its key; an element showing exactly one is English."""
    en, other = catalogue("en"), catalogue(lang)
    own = {" ".join(v.split()) for v in other.values()}
    out: dict[str, str] = {}
    for key, message in en.items():
        text = " ".join(message.split())
        if (
            "{" not in text
            and other.get(key) != message
            and text not in own
            and re.search(r"[A-Za-z]{2}", text)
        ):
            out.setdefault(text, key)
    return out


@cache
def _giveaway_pattern() -> re.Pattern[str]:
    return re.compile(r"(?<![\w'])(" + "|".join(GIVEAWAYS) + r")(?![\w'])", re.IGNORECASE)


@cache
def _own_giveaways(lang: str) -> re.Pattern[str] | None:
    """The parts of ``lang``'s messages that hold a give-away word on purpose (a command,
    "lockup play"): they are not English on the page."""
    pieces = {
        " ".join(piece.split())
        for message in catalogue(lang).values()
        for piece in re.split(r"\{\w+\}", message)
        if _giveaway_pattern().search(piece)
    }
    if not pieces:
        return None
    return re.compile("|".join(map(re.escape, sorted(pieces, key=len, reverse=True))))


@cache
def _key_pattern() -> re.Pattern[str]:
    keys = sorted(catalogue("en"), key=len, reverse=True)
    bases = {re.sub(r"_(zero|one|two|few|many|other)$", "", k) for k in keys if "." in k}
    return re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(bases))) + r")(?![\w.])")


def entries(raw: list[list[str]], names: tuple[str, ...] = ()) -> list[Entry]:
    """The page's strings, whitespace collapsed, ``names`` (players' names) blanked out."""
    out = []
    for where, what, text in raw:
        text = " ".join(text.split())
        for name in names:
            text = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", "·", text)
        if text:
            out.append(Entry(where, what, text))
    return out


def _smallest(found: list[Entry]) -> Entry:
    return min(found, key=lambda e: (len(e.text), e.what != "text"))


def english_leaks(raw: list[list[str]], lang: str, names: tuple[str, ...] = ()) -> list[str]:
    """What of a page's strings is English (or a bare catalogue key) in ``lang``: one line
    per finding, with the smallest element that shows it and its text."""
    shown = entries(raw, names)
    everything = "\0".join(sorted({e.text for e in shown if e.what != "native"}))
    found: dict[str, str] = {}

    def locate(pattern: re.Pattern[str], label: str) -> None:
        nonlocal everything
        for m in pattern.finditer(everything):
            what = m.group(0)
            if what.lower() in found:
                continue
            exact = re.compile(r"(?<![\w'])" + re.escape(what) + r"(?![\w'])")
            where = _smallest([e for e in shown if exact.search(e.text)] or shown)
            found[what.lower()] = (
                f"{label} {what!r} in {where.where} [{where.what}]: {where.text[:160]!r}"
            )
        # A fragment found is not looked at again for give-away words.
        everything = pattern.sub("\0", everything)

    locate(_key_pattern(), "catalogue key")
    if lang != "en":
        messages = english_messages(lang)
        for e in shown:
            if e.what == "native":
                found[e.where] = f"the browser's own English in {e.where}: {e.text!r}"
            if e.text in messages and e.text.lower() not in found:
                found[e.text.lower()] = (
                    f"English ({messages[e.text]}) {e.text!r} in {e.where} [{e.what}]"
                )
        for piece, key, pattern in english_fragments(lang):
            if piece in everything:
                locate(pattern, f"English ({key})")
        own = _own_giveaways(lang)
        if own is not None:
            everything = own.sub("\0", everything)
        locate(_giveaway_pattern(), "English word")
    return list(found.values())


def format_leaks(leaks: dict[str, list[str]]) -> str:
    """The findings of a walk, page by page."""
    lines = []
    for page, found in leaks.items():
        lines += [f"{page}: {x}" for x in found]
    return "\n".join(lines)


def collect(page: Any) -> list[list[str]]:
    """The visible strings of a Playwright page (see :data:`VISIBLE_TEXT_JS`)."""
    raw: list[list[str]] = page.evaluate(VISIBLE_TEXT_JS)
    return raw
