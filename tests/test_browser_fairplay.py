"""Nobody holds a quick table up, in the browser: a real ``lockup serve`` with random
computers that play at once, quick tables with a 5 s turn clock, people in browser
contexts of their own.

(a) The squatter: Sam presses "Play people", sits at a quick table and never plays. Fan
    watches with the table's watch link. Both see the countdown on Sam's seat, then the
    computer's card when it runs out; after three timeouts the seat is the computer's
    for the rest of the game (Fan is told why, Sam's page says what happened and offers
    another game), and the game goes on to its end.
(b) The leaver: Lea leaves her quick table's game under way. The page asks first, saying
    it counts as a loss; Fan is told; Lea's page says it counts as a loss and offers
    another game, which quick play gives her at a new table.

Screenshots (1366×657 and 390×844) of the clock for the person to play and for a
spectator, of the leave dialog and of the page after leaving go to
``$LOCKUP_SCREENSHOTS`` or a temporary directory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import CHROMIUM, Server
from test_browser_rooms import UNPACED, Person

from lockup.server.session.attendance import ABANDON_AFTER

pytestmark = [
    pytest.mark.browser,
    pytest.mark.serial,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

sync_api = pytest.importorskip("playwright.sync_api")

TIMER = 5
"""The server's ``--quick-turn-timer``: the shortest clock a table may have."""
SIZES = ((1366, 657), (390, 844))
PLAYING = "() => document.body.dataset.room === 'playing' && document.body.dataset.game !== ''"
CLOCK = ".room-deco .clock-chip[data-clock]"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("fairplay") / "games.sqlite",
        None,
        *UNPACED,
        "--quick-wait",
        "2",
        "--quick-turn-timer",
        str(TIMER),
        "--quick-grace",
        "5",
    )
    srv.start()
    yield srv
    srv.stop()


def seated(browser: Any, server: Server, name: str) -> Person:
    """A person (named already) who pressed "Play people" and whose table's game is on."""
    p = Person(browser, server, name)
    r = p.ctx.request.post(f"{server.url}/api/profile", data={"name": name})
    assert r.ok, r.text()
    p.page.goto("/")
    p.page.click("#btn-quick")
    p.page.wait_for_url(re.compile(r"/room/[\w-]+\?invite="))
    p.page.wait_for_function(PLAYING, timeout=30_000)
    p.page.wait_for_selector("#room-watch")
    return p


def watcher(browser: Any, server: Server, of: Person) -> Person:
    """Fan, watching ``of``'s table with its watch link."""
    fan = Person(browser, server, "Fan")
    fan.page.goto(of.page.input_value("#room-watch"))
    fan.page.wait_for_selector("body.watching")
    fan.page.wait_for_function(PLAYING)
    return fan


def wait_said(page: Any, text: str, timeout: float = 20_000) -> None:
    """Wait until the page's announcer (what a screen reader is told) says ``text``."""
    page.wait_for_function(
        "(s) => [...document.querySelectorAll('#announcer p')].some((p) => p.textContent === s)",
        arg=text,
        timeout=timeout,
    )


def photo(page: Any, shots: Path, name: str) -> None:
    for w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        path = shots / f"fairplay-{name}-{w}x{h}.png"
        page.screenshot(path=str(path))
        print(f"screenshot: {path}")


def test_a_squatter_s_table_plays_on_by_the_clock(
    browser: Any, server: Server, shots: Path
) -> None:
    sam = seated(browser, server, "Sam")
    fan = watcher(browser, server, sam)
    try:
        seat = sam.page.get_attribute("#room-seats li.me", "data-seat")
        # The countdown on Sam's seat, at Sam's table and at the spectator's.
        for p in (sam, fan):
            p.page.wait_for_selector(CLOCK, timeout=20_000)
            left = int(p.page.get_attribute(CLOCK, "data-clock") or "-1")
            assert 0 <= left <= TIMER, left
        photo(sam.page, shots, "clock-mine")
        photo(fan.page, shots, "clock-watching")
        # It runs out: the computer plays Sam's card, and both pages say so.
        wait_said(sam.page, "Out of time: the computer played your card.", (TIMER + 10) * 1000)
        wait_said(fan.page, "The computer played for Sam.")
        # Three times: the seat is the computer's to the end of the game.
        theirs = f"Sam ran out of time {ABANDON_AFTER} times: a computer plays the seat to the end."
        fan.page.wait_for_function(
            "(s) => document.querySelector('#room-note')?.textContent?.startsWith(s)",
            arg=theirs,
            timeout=(ABANDON_AFTER * TIMER + 20) * 1000,
        )
        assert (fan.page.text_content("#room-note") or "").endswith("It counts as a loss.")
        fan.page.wait_for_selector(f"#room-seats li[data-seat='{seat}'][data-kind='computer']")
        mine = f"You ran out of time {ABANDON_AFTER} times: a computer plays your seat to the end."
        sam.page.wait_for_function(
            "(s) => document.querySelector('#room-note')?.textContent?.startsWith(s)", arg=mine
        )
        sam.page.wait_for_selector("body.watching #room-play-again")
        assert sam.page.locator("#room-seats li.me").count() == 0
        timeouts = [
            f["event"]
            for f in fan.frames
            if f.get("type") == "event"
            and f["event"].get("kind") == "play"
            and str(f["event"].get("seat")) == seat
            and f["event"].get("by") == "computer"
        ]
        assert len(timeouts) == ABANDON_AFTER, timeouts
        # The game goes on to its end, with no clock any more.
        for p in (sam, fan):
            p.page.wait_for_selector("#dlg-over[open]", timeout=60_000)
            assert p.page.locator(CLOCK).count() == 0
        photo(sam.page, shots, "squatter-after")
        for p in (sam, fan):
            assert p.errors == [], p.errors
    finally:
        sam.close()
        fan.close()


def test_a_leaver_is_told_it_counts_as_a_loss(browser: Any, server: Server, shots: Path) -> None:
    lea = seated(browser, server, "Lea")
    fan = watcher(browser, server, lea)
    try:
        first = lea.page.url
        lea.page.click("#room-leave-game")
        dialog = lea.page.locator("#dlg-leave-game[open]")
        dialog.wait_for()
        assert "counts as a loss" in (dialog.text_content() or "")
        photo(lea.page, shots, "leave-dialog")
        # Stay is the default: the game goes on.
        assert lea.page.evaluate("document.activeElement?.id") == "leave-game-stay"
        lea.page.click("#leave-game-go")
        told = "Lea left the game: a computer plays the seat to the end. Leaving counts as a loss."
        fan.page.wait_for_function(
            "(s) => document.querySelector('#room-note')?.textContent === s", arg=told
        )
        mine = "You left the game: a computer plays your seat to the end. Leaving counts as a loss."
        lea.page.wait_for_function(
            "(s) => document.querySelector('#room-note')?.textContent === s", arg=mine
        )
        lea.page.wait_for_selector("body.watching #room-play-again")
        assert lea.page.locator("#room-leave-game").count() == 0
        # The game goes on to its end without her (the computers play at once here): the
        # game-over dialog offers her another game too.
        lea.page.wait_for_selector("#dlg-over[open] #over-play-again", timeout=60_000)
        lea.page.click("#dlg-over button.close")
        photo(lea.page, shots, "left")
        assert (lea.page.text_content("#room-note") or "") == mine
        # Another game: quick play seats her at a new table.
        lea.page.set_viewport_size({"width": 1024, "height": 600})
        lea.page.click("#room-play-again")
        lea.page.wait_for_url(lambda url: "/room/" in url and url != first)
        lea.page.wait_for_selector("#room-seats li.me")
        for p in (lea, fan):
            assert p.errors == [], p.errors
    finally:
        lea.close()
        fan.close()
