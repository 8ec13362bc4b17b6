"""Every word in the page's language: a walk over the pages in English, French and
Icelandic.

In each language, people in browser contexts of their own visit, on one real
``lockup serve`` (an SQLite file, random computers that play at once):

- the start page, a hint, the settings and new-game dialogs;
- quick play: the name form, the quick table of two people waiting, then under way; the
  lobby;
- a friends' room: the host's form, the room with its host, the guest's join form, the
  room with both, the game under way, the guest gone (the countdown to the computer), a
  spectator;
- game over: host and guest close their pages, the computers play the room's game to its
  end after the room's grace (5 s), and the host opens the room again;
- the host's history and the game's review (its start and its end); the rules, help and "nothing here" pages;
- an account's pages: the two quick players are accounts and leave their game (a rated
  table: the computers finish it at once, and it is rated): the leaderboard, history,
  statistics and the account page.

At each stop the page is photographed at 1366×657 and 390×844 (the whole page but for
the rules and help; to
``$LOCKUP_SCREENSHOTS/words/<lang>/`` if set, else ``/tmp/shots-words/<lang>/``), and
its visible strings are read at both sizes. In French and Icelandic the test fails on a
fragment of an English catalogue message, an English give-away word, or (in every
language) a catalogue key shown as text; see ``words_helpers.py``.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import CHROMIUM, Server
from words_helpers import collect, english_leaks, format_leaks

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

SIZES = {"1366x657": (1366, 657), "390x844": (390, 844)}
LOCALES = {"en": "en-GB", "fr": "fr-FR", "is": "is-IS"}
QUICK_WAIT = 8
"""Seconds from a quick table's first person to its start: time for the second person
to come and both to be photographed waiting."""
GRACE = 5
"""The quick tables' and the room's grace: seconds before a computer plays for a person
gone (the least the server and a room take)."""
PLAYING = "() => document.body.dataset.room === 'playing' && document.body.dataset.game !== ''"
SETTLE = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
"""Two frames: the page has laid itself out at a new size."""
QUICK = {"en": ("Sóley", "Kári"), "fr": ("Solène", "Killian"), "is": ("Sunna", "Kolbeinn")}
"""The two quick players of each language: accounts (an account's name is the server's
once)."""
NAMES = ("Ragna", "Tumi", "Þóra", "Leifur", "Vigdís", *(n for p in QUICK.values() for n in p))
"""The people's names (none an English word) and the computers'."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("words") / "games.sqlite",
        None,
        *("--bot-delay", "0", "--bot-jitter", "0", "--new-games-per-address", "0"),
        *("--hint-time", "0.2", "--log-level", "info"),
        *("--quick-wait", str(QUICK_WAIT), "--quick-grace", str(GRACE)),
        # Each person's browser says where it is: quick play seats one person of an
        # address at a table.
        *("--proxy-headers", "--forwarded-allow-ips", "127.0.0.1"),
    )
    srv.start()
    yield srv
    srv.stop()


def shots_dir() -> Path:
    where = os.environ.get("LOCKUP_SCREENSHOTS")
    return Path(where) / "words" if where else Path("/tmp/shots-words")


class Walk:
    """One language's walk: its people, where the photographs go, what was found."""

    def __init__(self, browser: Any, server: Server, lang: str) -> None:
        self.browser = browser
        self.server = server
        self.lang = lang
        self.shots = shots_dir() / lang
        self.shots.mkdir(parents=True, exist_ok=True)
        self.leaks: dict[str, list[str]] = {}
        self.errors: list[str] = []
        self.contexts: list[Any] = []
        self.address = 0
        self.started = time.monotonic()
        self.first = 20 * list(LOCALES).index(lang)
        """Each person's address is their own (quick play seats one person of an address
        at a table): 198.51.100.N, from ``first + 1``."""

    def person(self) -> Any:
        """A page in a browser context of its own (its own cookie and address)."""
        self.address += 1
        ctx = self.browser.new_context(
            base_url=self.server.url,
            locale=LOCALES[self.lang],
            viewport={"width": 1366, "height": 657},
            reduced_motion="reduce",
            extra_http_headers={"X-Forwarded-For": f"198.51.100.{self.first + self.address}"},
        )
        ctx.add_init_script(
            "try { localStorage.setItem('lockup.guide', 'seen');"
            " localStorage.setItem('lockup.speed', 'instant');"
            f" localStorage.setItem('lockup.lang', '{self.lang}'); }} catch {{}}"
        )
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(20_000)
        page.on("pageerror", lambda e: self.errors.append(f"{page.url}: {e}"))
        return page

    def stop(self, page: Any, name: str, full: bool = True) -> None:
        """Photograph the page at both sizes (``full``: the whole page, not only the
        window) and read its strings at each."""
        found: list[str] = []
        for size, (w, h) in SIZES.items():
            page.set_viewport_size({"width": w, "height": h})
            page.evaluate(SETTLE)
            page.screenshot(path=str(self.shots / f"{name}-{size}.png"), full_page=full)
            for line in english_leaks(collect(page), self.lang, NAMES):
                if line not in found:
                    found.append(line)
        page.set_viewport_size({"width": 1366, "height": 657})
        if found:
            self.leaks[name] = found
        print(f"{self.lang} {name}: done {time.monotonic() - self.started:.1f} s into the walk")

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()


def wait_ready(page: Any) -> None:
    page.wait_for_selector("body[data-ready='true']")


def room_of(url: str) -> str:
    return url.split("/room/", 1)[1].split("?", 1)[0]


def room_status(page: Any, url: str) -> str:
    r = page.request.get(f"/api/rooms/{room_of(url)}")
    return str(r.json().get("status"))


def rated(page: Any, game: str) -> bool:
    """Whether ``game`` is over and has rated the page's player."""
    games = page.request.get("/api/history").json()["games"]
    over = any(g["game"] == game and g["finished"] for g in games)
    return over and bool(page.request.get("/api/ratings/me").json()["games"])


def explain(walk: Walk, page: Any, url: str, answer: str) -> str:
    """What a refused request met: the answer, the room as its page sees it, and what the
    server logged about seats and abandonment."""
    room = page.request.get(f"/api/rooms/{room_of(url)}").text()
    log = walk.server.log.read_text(errors="replace").splitlines()
    said = [line for line in log if "abandon" in line or "room" in line or "ERROR" in line]
    return "\n".join([answer, f"room: {room}", "server log:", *said[-40:]])


def wait_until(check: Any, what: str, seconds: float = 30) -> None:
    """Poll ``check()`` until it is true."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.25)


@pytest.mark.parametrize("lang", ["en", "fr", "is"])
def test_every_page_speaks_the_chosen_language(browser: Any, server: Server, lang: str) -> None:
    walk = Walk(browser, server, lang)
    try:
        walk_pages(walk)
    finally:
        walk.close()
    assert walk.leaks == {}, f"English on the {lang} pages:\n{format_leaks(walk.leaks)}"
    assert walk.errors == [], walk.errors


def walk_pages(walk: Walk) -> None:
    """The walk (see the module's docstring)."""
    # Two quick players: Sóley an account, Kári a guest with no name yet (an account once
    # seated: a quick game of two accounts is rated).
    soley, kari = walk.person(), walk.person()
    soley_name, kari_name = QUICK[walk.lang]
    r = soley.request.post(
        "/api/account/signup", data={"name": soley_name, "password": "correct horse battery"}
    )
    assert r.ok, r.text()

    # The start page, its dialogs.
    kari.goto("/")
    kari.wait_for_selector("#hand button.card")
    kari.wait_for_selector("#btn-quick:enabled")
    walk.stop(kari, "start")
    kari.wait_for_selector('body[data-my-turn="true"][data-connected="true"]')
    kari.click("#btn-hint")
    kari.wait_for_selector("#hint-panel .hint-best")
    walk.stop(kari, "hint")
    kari.click("#btn-settings")
    kari.wait_for_selector("#dlg-settings[open]")
    walk.stop(kari, "settings")
    kari.click("#settings-close")
    kari.click("#btn-new")
    kari.wait_for_selector("#dlg-new[open]")
    walk.stop(kari, "new-game")
    kari.click("#new-cancel")

    # Quick play: the name form, then two people waiting at one table.
    kari.click("#btn-quick")
    kari.wait_for_selector("#dlg-quick-name[open]")
    walk.stop(kari, "quick-name")
    kari.fill("#quick-name", kari_name)
    kari.click("#quick-name-go")
    kari.wait_for_url(re.compile(r"/room/[\w-]+\?invite="))
    r = kari.request.post(
        "/api/account/signup", data={"name": kari_name, "password": "correct horse battery"}
    )
    assert r.ok, r.text()
    soley.goto("/")
    soley.click("#btn-quick:enabled")
    soley.wait_for_url(re.compile(r"/room/[\w-]+\?invite="))
    # Both here: neither seat still waits for its person's page (pending).
    soley.wait_for_function(
        "() => document.querySelectorAll("
        "'#room-seats li[data-kind=person]:not([data-pending])').length === 2"
    )
    walk.stop(soley, "quick-waiting")

    # A friends' room: Ragna's form and room, Tumi's join form, both seated, the game.
    ragna, tumi = walk.person(), walk.person()
    ragna.goto("/")
    ragna.wait_for_selector('body[data-connected="true"]')
    ragna.click("#btn-friends")
    ragna.wait_for_selector("#dlg-room-new[open]")
    walk.stop(ragna, "room-form")
    ragna.fill("#room-name", "Ragna")
    ragna.select_option("#room-target", "10")
    for seat in (1, 2, 3):
        ragna.select_option(f"#room-level-{seat}", "random")
    ragna.evaluate(
        "(g) => { const s = document.querySelector('#room-grace');"
        " s.append(new Option(g + ' s', String(g))); s.value = String(g); }",
        GRACE,
    )
    ragna.click("#room-create")
    ragna.wait_for_url("**/room/**")
    ragna.wait_for_selector("#room-start")
    invite = ragna.input_value("#room-invite")
    walk.stop(ragna, "room-host")
    tumi.goto(invite)
    tumi.wait_for_selector("#dlg-room-join[open]")
    walk.stop(tumi, "room-join")
    tumi.fill("#join-name", "Tumi")
    tumi.click("#join-submit")
    tumi.wait_for_selector("#room-leave")
    ragna.wait_for_function(
        "() => document.querySelectorAll('#room-seats li[data-kind=person]').length === 2"
    )
    walk.stop(tumi, "room-guest")
    ragna.click("#room-start")
    for p in (ragna, tumi):
        p.wait_for_function(PLAYING)
    ragna.wait_for_selector("#hand button.card")
    walk.stop(ragna, "room-playing")
    room_url = ragna.url
    game = ragna.evaluate("document.body.dataset.game")
    watch = ragna.input_value("#room-watch")
    # Both go (the room's grace starts; then the computers play its game to the end):
    # first Tumi, whose seat counts down to its computer.
    tumi.goto("about:blank")
    ragna.wait_for_selector("#room-seats [data-takeover]")
    walk.stop(ragna, "room-away")
    ragna.goto("/rules")
    fan = walk.person()
    fan.goto(watch)
    fan.wait_for_function(PLAYING)
    fan.wait_for_selector("#seat-bottom .name")
    walk.stop(fan, "room-watching")
    fan.goto("about:blank")

    # The quick table under way; then both quick players leave it (a rated table: the
    # computers play their seats to the end at once).
    soley.wait_for_function(PLAYING, timeout=(QUICK_WAIT + 15) * 1000)
    soley.wait_for_selector("#hand button.card")
    walk.stop(soley, "quick-playing")
    quick_url = soley.url
    quick_game = soley.evaluate("document.body.dataset.game")
    for p in (soley, kari):
        r = p.request.post(f"/api/rooms/{room_of(quick_url)}/leave", data={})
        assert r.ok, explain(walk, p, quick_url, r.text())
    # The lobby, listing a public room of Kári's.
    r = kari.request.post("/api/rooms", data={"public": True, "levels": "random"})
    assert r.ok, r.text()
    kari.goto("/lobby")
    kari.wait_for_selector("#lobby-list li[data-room]")
    walk.stop(kari, "lobby")
    kari.goto("/no-such-page")
    kari.wait_for_selector(f"article[data-lang='{walk.lang}'] h1:visible")
    walk.stop(kari, "not-found")
    kari.goto("about:blank")

    # Meanwhile, the rules and the help.
    ragna.wait_for_selector(f"article[data-lang='{walk.lang}'] h1:visible")
    walk.stop(ragna, "rules", full=False)
    ragna.goto("/help")
    ragna.wait_for_selector(f"article[data-lang='{walk.lang}'] h1:visible")
    walk.stop(ragna, "help", full=False)

    # Sóley's pages, once the quick game is over and rated.
    wait_until(lambda: rated(soley, quick_game), "the quick game did not end, or was not rated")
    for name, path in (
        ("leaderboard", "/leaderboard"),
        ("history", "/history"),
        ("stats", "/stats"),
        ("account", "/account"),
    ):
        soley.goto(path)
        wait_ready(soley)
        walk.stop(soley, name)

    # Game over: the computers have played the room's game to its end.
    wait_until(lambda: room_status(ragna, room_url) == "over", "the room's game did not end")
    ragna.goto(room_url)
    ragna.wait_for_selector("#dlg-over[open]")
    walk.stop(ragna, "game-over")
    ragna.click("#dlg-over button.close")
    walk.stop(ragna, "game-over-table")

    # The host's history, and the game's review.
    ragna.goto("/history")
    wait_ready(ragna)
    walk.stop(ragna, "history-guest")
    # The file choice is the page's own (the browser's would speak its own language).
    ragna.locator("#upload-file").set_input_files(
        files=[{"name": "partie.json", "mimeType": "application/json", "buffer": b"{}"}]
    )
    ragna.wait_for_selector("#upload-file-name:text-is('partie.json')")
    ragna.goto(f"/review/{game}")
    wait_ready(ragna)
    walk.stop(ragna, "review")
    step = ragna.evaluate("document.body.dataset.step")
    ragna.click("#btn-last")
    ragna.wait_for_function("(s) => document.body.dataset.step !== s", arg=step)
    walk.stop(ragna, "review-end")
