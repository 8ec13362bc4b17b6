"""``lockup play --lang is``: the terminal table in Icelandic, driven by Textual's pilot.

The language comes from ``--lang``, else the environment (``LC_ALL``, ``LC_MESSAGES``,
``LANG``), else English; every English sentence of lockup/tui/words.py has its Icelandic
one with the same placeholders; refusals come from the catalogue in Icelandic with the
table's names.
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


def test_every_sentence_has_its_icelandic_with_the_same_placeholders() -> None:
    assert words.keys("is") == words.keys("en")
    for key in words.keys("en"):
        en, is_ = words._TEXTS["en"][key], words._TEXTS["is"][key]
        assert is_.strip(), key
        # English formats some names ("{name:says wins}"); the field names agree.
        assert {f.split(":")[0] for f in fields(is_)} == {f.split(":")[0] for f in fields(en)}, key
        assert ":" not in "".join(fields(is_)), key  # Icelandic needs no English agreement


@pytest.mark.parametrize(
    "env, lang",
    [
        ({}, "en"),
        ({"LANG": "is_IS.UTF-8"}, "is"),
        ({"LANG": "en_GB.UTF-8", "LC_ALL": "is_IS.UTF-8"}, "is"),
        ({"LANG": "is_IS.UTF-8", "LC_ALL": "C.UTF-8"}, "en"),
        ({"LC_MESSAGES": "is", "LANG": "fr_FR.UTF-8"}, "is"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
    ],
)
def test_the_default_language_comes_from_the_environment(env: dict[str, str], lang: str) -> None:
    assert words.default_language(env) == lang


def test_plurals_in_icelandic() -> None:
    words.set_language("is")
    assert [words.plural(n) for n in (1, 2, 11, 21, 31, 111)] == [
        "one",
        "other",
        "other",
        "one",
        "one",
        "other",
    ]
    words.set_language("en")
    assert words.plural(21) == "other"


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
            assert seat.startswith("▶ Þú") and "spil · slagir: 0" in seat
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
