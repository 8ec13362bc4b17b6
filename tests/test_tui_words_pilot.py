"""The terminal's words in English, French and Icelandic, read off the screen with
Textual's pilot: a game against the computers on this computer (the table, the first hand's
summary, the end-of-game window and its ``q``), and tables of a real ``lockup serve`` on
127.0.0.1 (a quick table and a room that wait for their start, and a hand's summary there).

In French and Icelandic no English sentence of lockup/tui/words.py shows anywhere on the
screen: each English template is cut at its placeholders, and a piece that the language's
own sentences do not share ("Score", "Enter", "Lockup") must not be on the screen.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterator
from functools import cache, partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from attack_helpers import Server
from textual.pilot import Pilot

from lockup.engine import Rules
from lockup.tui import words
from lockup.tui.app import SummaryScreen, TableApp
from lockup.tui.identity import Identity
from lockup.tui.local import LocalDriver, LocalGame
from lockup.tui.remote import RemoteDriver

SEED = 5

# What each language shows at the first turn of a game against the computers.
TABLE = {
    "en": [
        "Lockup vs random · hand 1 · trick 1/13 · your turn",
        "13 cards · 0 won",
        "Score · to 10",
    ],
    "fr": [
        "Lockup · adversaires : au hasard · main 1 · pli 1/13 · à vous de jouer",
        "13 cartes",
        "0 pli",
        "Score · en 10 points",
        "partie main",
    ],
    "is": [
        "Lockup · mótherjar: handahóf · gjöf 1 · slagur 1/13 · þú átt leik",
        "13 spil",
        "0 slagir",
        "Staðan · upp í 10 stig",
        "leikur gjöf lás",
    ],
}
KEYS = {
    "en": {"Play", "Hint", "Help", "Quit", "Start"},
    "fr": {"Jouer", "Conseil", "Aide", "Quitter", "Lancer"},
    "is": {"Spila", "Ábending", "Hjálp", "Hætta", "Byrja"},
}
PLAYED = {"en": "You play ", "fr": "Vous jouez : ", "is": "Þú spilar: "}
SUMMARY = {
    "en": ["Hand 1 is over", "Enter: deal the next hand · q: quit"],
    "fr": ["Fin de la main 1", "Entrée : distribuer la main suivante · q : quitter"],
    "is": ["Gjöf 1 er lokið", "Enter: gefa næstu gjöf · q: hætta"],
}
BACK = {
    "en": "Enter: back to the table · q: quit",
    "fr": "Entrée : retour à la table · q : quitter",
    "is": "Enter: aftur að borðinu · q: hætta",
}
WON = {
    "en": re.compile(r"(You win|\S+ wins) the game!"),
    "fr": re.compile(r"(Vous gagnez|\S+ gagne) la partie !"),
    "is": re.compile(r"\S+ vinnur leikinn!"),
}
COURTS = {"en": "JQKA", "fr": "VDRA", "is": "GDKÁ"}
"""The letters of the jack, queen, king and ace in each language, as the page shows them."""
ENGLISH_LETTERS = {"en": "", "fr": "JQK", "is": "JQ"}
"""The English letters a hand in the language never shows (an Icelandic king is a K)."""
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def written(code: str, lang: str) -> str:
    """A card as a person of ``lang`` writes it: ``QD`` is ``D♦`` in French."""
    rank = code[0]
    if rank in "JQKA":
        rank = COURTS[lang]["JQKA".index(rank)]
    return ("10" if rank == "T" else rank) + SUITS[code[1]]


QUICK = {
    "en": "At the table: Cy (you). Computers take the empty seats in ",
    "fr": "À la table : Cy (vous). Des ordinateurs prennent les places vides dans ",
    "is": "Við borðið: Cy (þú). Tölvur taka auðu sætin eftir ",
}


@pytest.fixture(autouse=True)
def english_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The language is the process's: every test leaves it English (and keeps the
    terminal's identity in a temporary folder)."""
    monkeypatch.setenv("LOCKUP_CONFIG_DIR", str(tmp_path / "config"))
    yield
    words.set_language("en")


def screen_text(app: TableApp) -> str:
    """Everything the screen shows now (the table, a window over it, the footer), as text."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in strips)


def footer_keys(app: TableApp) -> set[str]:
    """The keys the footer offers now."""
    return {b.description for _, b, _, _ in app.screen.active_bindings.values() if b.show}


@cache
def english_pieces(lang: str) -> list[tuple[str, re.Pattern[str]]]:
    """The pieces of the English sentences (cut at placeholders, markup and line ends)
    with a word of three letters or more that no sentence of ``lang`` has."""
    own = " ".join(words._TEXTS[lang].values())
    pieces: set[str] = set()
    for text in words._TEXTS["en"].values():
        for piece in re.split(r"\{[^}]*\}|\[/?b\]|\n|  +", text):
            piece = piece.strip(" ·:;,.()!?…")
            if re.search(r"[A-Za-z]{3}", piece) and not re.search(_word(piece), own):
                pieces.add(piece)
    return [(p, re.compile(_word(p))) for p in sorted(pieces)]


def _word(piece: str) -> str:
    return r"(?<!\w)" + re.escape(piece) + r"(?!\w)"


def english_on(text: str, lang: str) -> list[str]:
    """The English pieces that show in ``text``, which is in ``lang``."""
    return [piece for piece, pattern in english_pieces(lang) if pattern.search(text)]


async def until(pilot: Pilot[Any], cond: Callable[[], bool], timeout: float = 20.0) -> None:
    """Let the app run until ``cond()`` holds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.01)


def settled(app: TableApp, local: LocalGame) -> Callable[[], bool]:
    """The person's move is due: a card, the summary to close, or the game is over."""
    driver = app.driver
    assert isinstance(driver, LocalDriver)
    return lambda: app.summary_open or (not driver.busy and local.due() in ("human", "over"))


def test_the_english_pieces_are_english() -> None:
    assert "Lockup takes" in english_on("Lockup takes 6♦ from Leifur's hand (R10).", "fr")
    assert english_on("Trick 3: Þóra won", "is")
    assert english_on("Lockup · mótherjar: handahóf · gjöf 1", "is") == []  # not "hand"
    assert english_on("Entrée : retour à la table · q : quitter", "fr") == []


# ---------------------------------------------------------------- on this computer


@pytest.mark.parametrize("lang", ["en", "fr", "is"])
def test_a_game_against_the_computers_speaks_the_language(lang: str) -> None:
    words.set_language(lang)
    local = LocalGame.new(Rules(target=10), level="random", seed=SEED)
    app = TableApp(LocalDriver(local, pace=0))

    async def run() -> None:
        async with app.run_test(size=(100, 35)) as pilot:
            await until(
                pilot, lambda: local.due() == "human" and bool((app.view or {}).get("legal"))
            )
            await pilot.pause()
            table = screen_text(app)
            for text in TABLE[lang]:
                assert text in " ".join(table.split()), (text, table)
            # The hand, with the language's card letters.
            hand = " ".join(written(code, lang) for code in app.order)
            assert hand in " ".join(table.split()), (hand, table)
            offered = footer_keys(app)
            assert offered == KEYS[lang] - {words.tr("key.Start")}, offered  # no room here
            await pilot.press("enter")
            assert app.message.startswith(PLAYED[lang]), app.message
            if lang != "en":
                assert english_on(table + screen_text(app), lang) == []
                letters = f"(?<![\\w])[{ENGLISH_LETTERS[lang]}][♣♦♥♠]"
                assert not re.search(letters, table + screen_text(app))
            while not app.summary_open:  # the first hand, to its summary
                await until(pilot, settled(app, local))
                if not app.summary_open:
                    await pilot.press("enter")
            await pilot.pause()
            shown = screen_text(app)
            for text in SUMMARY[lang]:
                assert text in shown, (text, shown)
            if lang != "en":
                assert english_on(shown, lang) == []
            await pilot.press("enter")
            await until(pilot, settled(app, local))
            assert not app.summary_open
            await pilot.press("q")
        assert not app.is_running

    asyncio.run(run())


@cache
def person_plays(seed: int) -> int:
    """How many cards the person plays in the game of ``seed`` who always plays the first
    legal card."""
    local = LocalGame.new(Rules(target=10), level="random", seed=seed)
    plays = 0
    while local.due() != "over":
        if local.due() == "human":
            local.play(local.view_dict()["legal"][0])
            plays += 1
        else:
            local.step()
    return plays


def before_the_last_card(seed: int) -> LocalGame:
    """The game of ``seed`` when the person has one card left to play in it."""
    local = LocalGame.new(Rules(target=10), level="random", seed=seed)
    left = person_plays(seed)
    while left > 1 or local.due() != "human":
        if local.due() == "human":
            local.play(local.view_dict()["legal"][0])
            left -= 1
        else:
            local.step()
    return local


@pytest.mark.parametrize("lang", ["en", "fr", "is"])
def test_q_on_the_end_of_game_window_quits(lang: str, tmp_path: Path) -> None:
    words.set_language(lang)
    local = before_the_last_card(SEED)
    local.save_path = tmp_path / "game.json"
    app = TableApp(LocalDriver(local, pace=0))

    async def run() -> None:
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, settled(app, local))
            await pilot.press("enter")  # the last card: the hand ends, and the game
            await until(pilot, lambda: app.summary_open)
            await pilot.pause()
            assert isinstance(app.screen, SummaryScreen) and app.screen.winner is not None
            shown = screen_text(app)
            assert WON[lang].search(shown) and BACK[lang] in shown, shown
            if lang != "en":
                assert english_on(shown, lang) == []
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running, 5)

    asyncio.run(run())
    assert local.game.is_over and local.save_path.exists()


# ---------------------------------------------------------------- at a server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("tui-words") / "games.sqlite"
    with Server(db, "--bot-delay", "0", "--bot-jitter", "0", "--quick-wait", "60") as s:
        yield s


@pytest.mark.parametrize("lang", ["en", "fr", "is"])
def test_a_quick_table_waiting_offers_only_help_and_quit(server: Server, lang: str) -> None:
    words.set_language(lang)
    driver = RemoteDriver(server.url, name="Cy", quick=True)
    app = TableApp(driver)

    async def run() -> None:
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, lambda: QUICK[lang] in app.message)
            await pilot.pause()
            help_, quit_ = words.tr("key.Help"), words.tr("key.Quit")
            assert footer_keys(app) == {help_, quit_}
            shown = screen_text(app)
            assert f"? {help_}" in shown and f"q {quit_}" in shown
            if lang != "en":
                assert english_on(shown, lang) == []
            await pilot.press("enter", "h")  # nothing to play, no hint asked
            assert QUICK[lang] in app.message
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running, 10)

    asyncio.run(run())


def test_a_room_guest_waiting_is_offered_no_start(server: Server) -> None:
    host = httpx.Client(base_url=server.url, timeout=20)
    host.get("/")
    room = host.post("/api/rooms", json={"levels": "random", "target": 10, "name": "Ann"}).json()
    host.close()
    words.set_language("fr")
    driver = RemoteDriver(room["invite"], name="Bo")
    app = TableApp(driver)

    async def run() -> None:
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, lambda: "En attente du lancement par l'hôte" in app.message)
            assert app.message.startswith("2 personnes à la table.")
            assert footer_keys(app) == {"Aide", "Quitter"}
            await pilot.press("q")

    asyncio.run(run())


def moved_on(app: TableApp, driver: RemoteDriver, version: int) -> bool:
    """The server's game has gone past ``version`` (or the hand's summary is open)."""
    return driver.version > version or app.summary_open


@pytest.mark.parametrize("lang", ["en", "is"])
def test_a_room_host_starts_and_the_hand_summary_goes_back_to_the_table(
    server: Server, lang: str
) -> None:
    host = httpx.Client(base_url=server.url, timeout=20)
    host.get("/")
    room = host.post("/api/rooms", json={"levels": "random", "target": 10, "name": "Ann"}).json()
    identity = Identity(server.url, player=host.cookies["lockup_player"])
    host.close()
    words.set_language(lang)
    driver = RemoteDriver(room["invite"], identity=identity)
    app = TableApp(driver)
    keys = KEYS[lang]
    play, hint, start, help_, quit_ = (
        words.tr(f"key.{k}") for k in ("Play", "Hint", "Start", "Help", "Quit")
    )
    waiting = {"en": "1 person at the table. Press s", "is": "1 spilari er við borðið. Ýttu á s"}

    async def run() -> None:
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, lambda: waiting[lang] in app.message)
            await pilot.pause()
            assert footer_keys(app) == {start, help_, quit_}
            await pilot.press("s")
            await until(pilot, lambda: app.view is not None and app.view.get("seat") == 0)
            await until(pilot, lambda: footer_keys(app) == keys - {start})
            assert {play, hint} <= footer_keys(app)
            while not app.summary_open:  # the first hand, to its summary
                await until(
                    pilot, lambda: app.summary_open or bool((app.view or {}).get("legal")), 30
                )
                if not app.summary_open:
                    version = driver.version
                    await pilot.press("enter")
                    await until(pilot, partial(moved_on, app, driver, version))
            await pilot.pause()
            shown = screen_text(app)
            assert BACK[lang] in shown and SUMMARY[lang][1] not in shown, shown
            if lang != "en":
                assert english_on(shown, lang) == []
            await pilot.press("enter")
            assert not app.summary_open
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running, 10)

    asyncio.run(run())
