"""``lockup play --lang fr|is``: the terminal table in French and Icelandic, driven by
Textual's pilot.

The language comes from ``--lang``, else the environment (``LC_ALL``, ``LC_MESSAGES``,
``LANG``), else English; every English sentence of lockup/tui/words.py has its French and
Icelandic ones with the same placeholders, and every sentence with a count its form for
each plural category of the language; refusals come from the catalogue in the language
with the table's names.
"""

from __future__ import annotations

import asyncio
import io
import string
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from lockup.cli import main
from lockup.tui import words
from lockup.tui.app import HelpScreen, TableApp
from lockup.tui.driver import Driver
from lockup.tui.local import LocalDriver


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """The language is the process's: every test leaves it English."""
    yield
    words.set_language("en")


def plain(widget: Any) -> str:
    """What a Static shows, as text."""
    console = Console(width=100, file=io.StringIO(), record=True)
    console.print(widget.content)
    return console.export_text()


def fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def english_of(key: str) -> str:
    """The English sentence a form of another language stands for: the same key, else
    the English ``_other`` form of its count, else the sentence about someone else."""
    en = words._TEXTS["en"]
    base = key.removesuffix(".you") if key.endswith(".you") else key
    for candidate in (key, key.replace(".you_", "_"), base):
        if candidate in en:
            return en[candidate]
        stem = candidate.rsplit("_", 1)[0]
        if f"{stem}_other" in en:
            return en[f"{stem}_other"]
    raise AssertionError(f"{key}: no English sentence")


@pytest.mark.parametrize("lang", ["fr", "is"])
def test_every_sentence_has_its_translation_with_the_same_placeholders(lang: str) -> None:
    assert words.sentences(lang) == words.sentences("en")
    for key in words.keys(lang):
        text = words._TEXTS[lang][key]
        en = english_of(key)
        assert text.strip(), key
        assert ":" not in "".join(fields(text)), key  # no English agreement needed
        mine = {f.split(":")[0] for f in fields(text)}
        theirs = {f.split(":")[0] for f in fields(en)}
        if ".you" in key:  # the person's sentence may leave the name out ("Vous gagnez")
            assert mine <= theirs, key
        else:  # English formats some names ("{name:says wins}"); the field names agree
            assert mine == theirs, key


@pytest.mark.parametrize("lang", ["en", "fr", "is"])
def test_every_count_has_a_form_for_each_plural_category(lang: str) -> None:
    counted = words.counted("en")
    assert words.counted(lang) == counted
    categories = {"en": ["one", "other"], "fr": ["many", "one", "other"], "is": ["one", "other"]}
    assert sorted(words.plural_categories(lang)) == categories[lang]
    for base in counted:
        for category in categories[lang]:
            assert f"{base}_{category}" in words.keys(lang), (base, category)
            if f"{base}.you_other" in words.keys(lang):  # the person's own forms too
                assert f"{base}.you_{category}" in words.keys(lang), (base, category)


@pytest.mark.parametrize(
    "env, lang",
    [
        ({}, "en"),
        ({"LANG": "is_IS.UTF-8"}, "is"),
        ({"LANG": "en_GB.UTF-8", "LC_ALL": "is_IS.UTF-8"}, "is"),
        ({"LANG": "is_IS.UTF-8", "LC_ALL": "C.UTF-8"}, "en"),
        ({"LC_MESSAGES": "is", "LANG": "fr_FR.UTF-8"}, "is"),
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "fr_CA.UTF-8", "LC_ALL": ""}, "fr"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
    ],
)
def test_the_default_language_comes_from_the_environment(env: dict[str, str], lang: str) -> None:
    assert words.default_language(env) == lang


def test_plural_categories_of_each_language() -> None:
    counts = (0, 1, 2, 11, 21, 31, 111, 1_000_000)
    expected = {
        "en": ["other", "one", "other", "other", "other", "other", "other", "other"],
        "fr": ["one", "one", "other", "other", "other", "other", "other", "many"],
        "is": ["other", "one", "other", "other", "one", "one", "other", "other"],
    }
    for lang, categories in expected.items():
        words.set_language(lang)
        assert [words.plural(n) for n in counts] == categories, lang


def test_numbers_as_each_language_writes_them() -> None:
    expected = {
        "en": ("-3.3", "+1.8", "0.0", "1,234.5", "1,000"),
        "fr": ("-3,3", "+1,8", "0,0", "1\u202f234,5", "1\u202f000"),
        "is": ("-3,3", "+1,8", "0,0", "1.234,5", "1.000"),
    }
    for lang, (neg, plus, zero, big, count) in expected.items():
        words.set_language(lang)
        assert words.number(-3.34) == neg
        assert words.number(1.8, sign=True) == plus
        assert words.number(-0.04) == zero  # no "-0.0"
        assert words.number(1234.5) == big
        assert words.integer(1000) == count


def test_refusals_in_icelandic_name_the_table() -> None:
    words.set_language("is")
    app = TableApp(Driver())
    app.players = ["Þú", "Þóra", "Leifur", "Vigdís"]
    app.view = {"seat": 0}
    frame = {"code": "not-your-turn", "rule": "R4", "params": {"seat": 1}, "reason": "x"}
    assert app.refusal_text(frame) == "Þú átt ekki leik: Þóra á leik núna."
    due = {"code": "discard-due", "params": {"seat": 0}, "reason": "x"}
    assert app.refusal_text(due) == "Fyrst verður lásinn að taka eitt af spilunum þínum."


def test_lockup_play_lang_is_shows_icelandic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[TableApp] = []
    monkeypatch.setattr(TableApp, "run", lambda self, **kw: ran.append(self))
    monkeypatch.setattr("lockup.tui.cli._terminal", lambda: True)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    save = tmp_path / "g.json"
    argv = ["play", "--lang", "is", "--level", "random", "--seed", "3", "--save", str(save)]
    assert main([*argv, "--pace", "0"]) == 0
    app = ran[0]
    assert isinstance(app.driver, LocalDriver)

    async def run() -> None:
        async with app.run_test(size=(100, 35)) as pilot:
            deadline = time.monotonic() + 20
            while app.view is None or app.view.get("turn") != 0:
                assert time.monotonic() < deadline
                await pilot.pause(0.02)
            status = plain(app.query_one("#status"))
            assert "Lockup · mótherjar: handahóf" in status
            assert "gjöf 1" in status and "þú átt leik" in status
            seat = plain(app.query_one("#bottom"))
            assert seat.startswith("▶ Þú") and "13 spil · 0 slagir" in seat
            score = plain(app.query_one("#score"))
            assert "Staðan · upp í 20" in score and "sama gildi · eitt í slag" in score
            footer: Any = app.query_one("Footer")
            labels = {b.description for _, b, _, _ in footer.screen.active_bindings.values()}
            assert {"Spila", "Ábending", "Hjálp", "Hætta"} <= labels
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            assert "Lockup í útstöðinni" in plain(app.screen.query_one("#help"))
            await pilot.press("escape")
            # A card that may not be played: the refusal, in Icelandic.
            view: dict[str, Any] = app.view or {}
            illegal = [c for c in app.order if c not in view["legal"]]
            if illegal:
                while app.order[app.cursor] != illegal[0]:
                    await pilot.press("right")
                await pilot.press("enter")
                assert app.message.startswith("Hafnað"), app.message
            await pilot.press("h")
            assert "Sérfræðingurinn hugsar" in app.message or "Ábending" in app.message

    asyncio.run(run())


def test_lockup_play_in_english_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[TableApp] = []
    monkeypatch.setattr(TableApp, "run", lambda self, **kw: ran.append(self))
    monkeypatch.setattr("lockup.tui.cli._terminal", lambda: True)
    monkeypatch.setenv("LANG", "is_IS.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    assert main(["play", "--seed", "3", "--save", str(tmp_path / "a.json")]) == 0
    assert words.language() == "is"  # from LANG
    assert main(["play", "--lang", "en", "--seed", "3", "--save", str(tmp_path / "b.json")]) == 0
    assert words.language() == "en"
    assert ran[1].driver.title == "Lockup vs normal"
