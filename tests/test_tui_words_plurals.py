"""Every sentence of the terminal with a count, for the counts 0, 1, 2, 5, 21 and 101, in
English, French and Icelandic.

The plural category of each count in each language and the noun of each category are
written here (CLDR's rules, as a person reads them), not taken from lockup/tui/words.py.
The seats, the score, the status line's clock, a trick won with clubs and a room that
waits are read where the terminal shows them (a table app fed views and frames); the
quick table's countdown and ``lockup login``'s wait, which no frame can bring to every
count, from the sentence the terminal says.
"""

from __future__ import annotations

import asyncio
import copy
import io
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from rich.console import Console

from lockup.engine import Rules
from lockup.tui import words
from lockup.tui.app import TableApp
from lockup.tui.local import LocalGame
from lockup.tui.login import _refusal
from lockup.tui.remote import RemoteDriver

COUNTS = (0, 1, 2, 5, 21, 101)

CATEGORY = {
    # English: one for 1. French: one for 0 and 1. Icelandic: one for 1, 21, 31, 101, …
    # (a last digit 1, but not 11).
    "en": {0: "other", 1: "one", 2: "other", 5: "other", 21: "other", 101: "other"},
    "fr": {0: "one", 1: "one", 2: "other", 5: "other", 21: "other", 101: "other"},
    "is": {0: "other", 1: "one", 2: "other", 5: "other", 21: "one", 101: "one"},
}

# What the person reads for a count, per sentence, language and category: "{n}" stands for
# the count.
EXPECTED: dict[str, dict[str, dict[str, str]]] = {
    "seat.cards": {
        "en": {"one": "{n} card", "other": "{n} cards"},
        "fr": {"one": "{n} carte", "other": "{n} cartes"},
        "is": {"one": "{n} spil", "other": "{n} spil"},
    },
    "seat.won": {
        "en": {"one": "{n} won", "other": "{n} won"},
        "fr": {"one": "{n} pli", "other": "{n} plis"},
        "is": {"one": "{n} slagur", "other": "{n} slagir"},
    },
    "seat.locked": {
        "en": {"one": "locked {n} trick", "other": "locked {n} tricks"},
        "fr": {"one": "passe {n} pli", "other": "passe {n} plis"},
        "is": {"one": "í lás {n} slag", "other": "í lás {n} slagi"},
    },
    "score.title": {
        "en": {"one": "Score · to {n}", "other": "Score · to {n}"},
        "fr": {"one": "Score · en {n} point", "other": "Score · en {n} points"},
        "is": {"one": "Staðan · upp í {n} stig", "other": "Staðan · upp í {n} stig"},
    },
    "status.clock": {
        "en": {"one": "your turn · {n} s", "other": "your turn · {n} s"},
        "fr": {"one": "à vous de jouer · {n} s", "other": "à vous de jouer · {n} s"},
        "is": {"one": "þú átt leik · {n} s", "other": "þú átt leik · {n} s"},
    },
    "say.trickLock": {
        "en": {
            "one": "Bo wins the trick and is locked up for {n} trick (R9).",
            "other": "Bo wins the trick and is locked up for {n} tricks (R9).",
        },
        "fr": {
            "one": "Bo remporte le pli : enfermement pour {n} pli (R9).",
            "other": "Bo remporte le pli : enfermement pour {n} plis (R9).",
        },
        "is": {
            "one": "Bo fær slaginn og fer í lás í {n} slag (R9).",
            "other": "Bo fær slaginn og fer í lás í {n} slagi (R9).",
        },
    },
    "say.trickLock.you": {
        "en": {
            "one": "You win the trick and are locked up for {n} trick (R9).",
            "other": "You win the trick and are locked up for {n} tricks (R9).",
        },
        "fr": {
            "one": "Vous remportez le pli : enfermement pour {n} pli (R9).",
            "other": "Vous remportez le pli : enfermement pour {n} plis (R9).",
        },
        "is": {
            "one": "Þú færð slaginn og ferð í lás í {n} slag (R9).",
            "other": "Þú færð slaginn og ferð í lás í {n} slagi (R9).",
        },
    },
    "say.waitHost": {
        "en": {
            "one": "{n} person at the table. Press s",
            "other": "{n} people at the table. Press s",
        },
        "fr": {
            "one": "{n} personne à la table. Appuyez sur s",
            "other": "{n} personnes à la table. Appuyez sur s",
        },
        "is": {
            "one": "{n} spilari er við borðið. Ýttu á s",
            "other": "{n} spilarar eru við borðið. Ýttu á s",
        },
    },
    "say.waitGuest": {
        "en": {
            "one": "{n} person at the table. Waiting for the host",
            "other": "{n} people at the table. Waiting for the host",
        },
        "fr": {
            "one": "{n} personne à la table. En attente du lancement",
            "other": "{n} personnes à la table. En attente du lancement",
        },
        "is": {
            "one": "{n} spilari er við borðið. Beðið eftir",
            "other": "{n} spilarar eru við borðið. Beðið eftir",
        },
    },
    "quick.wait": {
        "en": {"one": "empty seats in {n} s", "other": "empty seats in {n} s"},
        "fr": {"one": "places vides dans {n} s", "other": "places vides dans {n} s"},
        "is": {"one": "auðu sætin eftir {n} s", "other": "auðu sætin eftir {n} s"},
    },
    "quick.waitOne": {
        "en": {"one": "the empty seat in {n} s", "other": "the empty seat in {n} s"},
        "fr": {"one": "la place vide dans {n} s", "other": "la place vide dans {n} s"},
        "is": {"one": "auða sætið eftir {n} s", "other": "auða sætið eftir {n} s"},
    },
    "login.wait": {
        "en": {"one": "try again in {n} s", "other": "try again in {n} s"},
        "fr": {"one": "réessayez dans {n} s", "other": "réessayez dans {n} s"},
        "is": {"one": "reyndu aftur eftir {n} s", "other": "reyndu aftur eftir {n} s"},
    },
}


def expected(sentence: str, lang: str, n: int) -> str:
    return EXPECTED[sentence][lang][CATEGORY[lang][n]].replace("{n}", str(n))


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """The language is the process's: every test leaves it English."""
    yield
    words.set_language("en")


def plain(widget: Any) -> str:
    """What a panel shows, as text (wide enough for no sentence to wrap)."""
    console = Console(width=100, file=io.StringIO(), record=True)
    console.print(widget.content)
    return console.export_text()


class Offline(RemoteDriver):
    """A server's table whose frames the test gives by hand."""

    async def start(self) -> None:
        return None


BASE_VIEW = LocalGame.new(Rules(target=10), level="random", seed=3).view_dict()


def view_with(n: int) -> dict[str, Any]:
    """The person's view with ``n`` for every count the table shows: West holds ``n``
    cards, has won ``n`` tricks and sits out ``n`` more; the target is ``n``; it is
    the person's turn."""
    view = copy.deepcopy(BASE_VIEW)
    view["hand_sizes"][1] = n
    view["tricks"][1] = n
    view["locks"][1] = n
    view["rules"]["target"] = n
    view["turn"] = 0
    view["legal"] = list(view["hand"])
    return view


def rendered(lang: str) -> dict[str, dict[int, str]]:
    """Each count sentence, for each count, as the terminal shows it in ``lang``."""
    words.set_language(lang)
    seen: dict[str, dict[int, str]] = {sentence: {} for sentence in EXPECTED}
    driver = Offline("http://127.0.0.1:9/room/R?invite=K")
    app = TableApp(driver)

    async def run() -> None:
        async with app.run_test(size=(100, 35)) as pilot:
            driver.players = ["You", "Bo", "Cy", "Dee"]
            for n in COUNTS:
                driver._show(view_with(n))
                app.show_clock(0, n - 0.5)
                await pilot.pause()
                west = plain(app.query_one("#left"))
                for sentence in ("seat.cards", "seat.won", "seat.locked"):
                    seen[sentence][n] = west
                seen["score.title"][n] = plain(app.query_one("#score"))
                seen["status.clock"][n] = plain(app.query_one("#status"))
                driver._event({"kind": "trick", "winner": 1, "lock": n})
                seen["say.trickLock"][n] = app.message
                driver._event({"kind": "trick", "winner": 0, "lock": n})
                seen["say.trickLock.you"][n] = app.message
                for you, sentence in ((0, "say.waitHost"), (1, "say.waitGuest")):
                    seats = [{"seat": i, "kind": "person", "name": f"P{i}"} for i in range(n)]
                    room = {"status": "open", "host": 0, "you": you, "seats": seats}
                    driver._room(room)
                    seen[sentence][n] = app.message
                await pilot.pause()

    asyncio.run(run())
    # A lock of 0 tricks is none: no badge on the seat, no lock said; the sentences.
    seen["seat.locked"][0] = words.tr("seat.locked", n=0)
    seen["say.trickLock"][0] = words.tr("say.trickLock", name="Bo", n=0)
    seen["say.trickLock.you"][0] = words.tr("say.trickLock", name=words.tr("you"), n=0)
    for n in COUNTS:
        names = "Ann (you), Bo"
        seen["quick.wait"][n] = words.tr("quick.wait", names=names, n=n)
        seen["quick.waitOne"][n] = words.tr("quick.waitOne", names=names, n=n)
        wait = httpx.Response(429, json={"error": "rate-limited", "params": {"retry_after": n}})
        # lockup login says at least 1 s; 0 is the sentence itself.
        seen["login.wait"][n] = _refusal("x", wait) if n else words.tr("login.wait", n=n)
    return seen


def test_the_test_knows_every_count_sentence_of_the_terminal() -> None:
    sentences = {s.removesuffix(".you") for s in EXPECTED}
    for lang in words.LANGS:
        assert words.counted(lang) == sorted(sentences), lang


@pytest.mark.parametrize("lang", ["en", "fr", "is"])
def test_every_count_sentence_for_0_1_2_5_21_101(lang: str) -> None:
    seen = rendered(lang)
    wrong = []
    for sentence in EXPECTED:
        for n in COUNTS:
            want = expected(sentence, lang, n)
            if want not in " ".join(seen[sentence][n].split()):  # as one line
                wrong.append(f"{sentence} n={n}: wanted {want!r} in {seen[sentence][n]!r}")
    assert wrong == []


def test_the_forms_reported_wrong_are_gone() -> None:
    """ "1 cards" on a seat, and a lock "for 1" without its noun."""
    seen = rendered("en")
    assert "1 card ·" in seen["seat.cards"][1] and "1 cards" not in seen["seat.cards"][1]
    assert seen["say.trickLock"][1] == "Bo wins the trick and is locked up for 1 trick (R9)."
    assert seen["say.trickLock.you"][2] == (
        "You win the trick and are locked up for 2 tricks (R9)."
    )
