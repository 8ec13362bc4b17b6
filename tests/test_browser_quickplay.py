"""Quick play in the browser (issue 25, "Play people, not only friends"): people in
browser contexts of their own (their own cookies) press "Play people" on the start page
of a real ``lockup serve`` with a short ``--quick-wait`` and random computers.

1. two and then three people are seated at one table and see each other's names; a
   person with no name is asked for one first; the game starts with a computer in the
   seat nobody came for, and pressing the button again lands in the same seat;
2. one person alone sees the countdown tick down, then the game with three computers;
3. leaving before the start goes back to the start page and closes the table; someone
   given a quick table's link is offered to watch it, never a seat;
4. a drop mid-game: the others see the countdown to the computer (the server's
   ``--quick-grace``, short here) and then the computer playing; the person comes back
   with the same link and plays on.

Screenshots (1366×768 and 390×844) of the start page's button, the name form and the
waiting table go to ``$LOCKUP_SCREENSHOTS`` or a temporary directory.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_helpers import CHROMIUM, Server
from test_browser_rooms import UNPACED, Person, play

pytestmark = [
    pytest.mark.browser,
    pytest.mark.serial,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

sync_api = pytest.importorskip("playwright.sync_api")

WAIT = 8
"""The server's ``--quick-wait``: seconds from a table's first person to its start (long
enough for three browser pages to press one after another on a loaded machine: at 4 s
the third person sometimes came after the start, to a table of their own)."""
GRACE = 12
"""The server's ``--quick-grace``: seconds before a computer plays for a person gone (long
enough for the countdown to reach a page on a loaded machine: at 5 s, in two full runs of
the suite, the other person's page had not shown it before the grace was over)."""
SIZES = ((1366, 768), (390, 844))
PLAYING = "() => document.body.dataset.room === 'playing' && document.body.dataset.game !== ''"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("quick") / "games.sqlite",
        None,
        *UNPACED,
        "--quick-wait",
        str(WAIT),
        "--quick-grace",
        str(GRACE),
        # Each person's browser says where it is (X-Forwarded-For, see person()): quick
        # play seats one person of an address at a table.
        "--proxy-headers",
        "--forwarded-allow-ips",
        "127.0.0.1",
    )
    srv.start()
    yield srv
    srv.stop()


ADDRESSES = (f"192.0.2.{i}" for i in range(1, 255))
"""Where each person's browser is (a documentation range: a header's value, never
reached)."""


def person(browser: Any, server: Server, name: str, *, named: bool = True) -> Person:
    """A person on the start page, at an address of their own; ``named``: their display
    name is known already."""
    p = Person(browser, server, name)
    p.ctx.set_extra_http_headers({"X-Forwarded-For": next(ADDRESSES)})
    if named:
        r = p.ctx.request.post(f"{server.url}/api/profile", data={"name": name})
        assert r.ok, r.text()
    p.page.goto("/")
    p.page.wait_for_selector("#btn-quick:visible")
    return p


def press(p: Person) -> str:
    """Press "Play people" (named already): the page goes to the quick table's invite."""
    p.page.click("#btn-quick")
    p.page.wait_for_url(re.compile(r"/room/[\w-]+\?invite="))
    p.page.wait_for_selector("#room-seats li.me")
    return str(p.page.url)


def names_seen(p: Person) -> list[str]:
    return [
        str(x)
        for x in p.page.locator("#room-seats li[data-kind=person] .seat-name").all_text_contents()
    ]


def wait_names(p: Person, names: list[str]) -> None:
    p.page.wait_for_function(
        "(want) => { const got = [...document.querySelectorAll('#room-seats li[data-kind=person] .seat-name')]"
        ".map((e) => e.textContent); return want.every((n) => got.includes(n)) && got.length === want.length; }",
        arg=names,
    )


def countdown(p: Person) -> int:
    el = p.page.locator("#quick-countdown")
    return int(el.get_attribute("data-seconds") or "-1")


def photo(page: Any, shots: Path, name: str) -> None:
    for w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        path = shots / f"quick-{name}-{w}x{h}.png"
        page.screenshot(path=str(path))
        print(f"screenshot: {path}")


def wait_playing(p: Person) -> None:
    """Wait until the page shows the table's game under way (the start, after the wait)."""
    try:
        p.page.wait_for_function(PLAYING, timeout=(WAIT + 15) * 1000)
    except sync_api.Error as e:
        state = p.page.evaluate("() => ({...document.body.dataset})")
        raise AssertionError(f"{p.name}: no game under way: {state} {e}") from None


def room_of(url: str) -> str:
    return url.split("/room/", 1)[1].split("?", 1)[0]


# ------------------------------------------------------------------ 1: people together


def test_people_pressing_play_people_sit_together(
    browser: Any, server: Server, shots: Path
) -> None:
    """Ann (no name yet: the form asks) and Bo, then Cy: one table, each sees the others'
    names; the fourth seat is waiting, then a computer; pressing again, the same seat."""
    ann = person(browser, server, "Ann", named=False)
    bo = person(browser, server, "Bo")
    cy = person(browser, server, "Cy")
    people = [ann, bo, cy]
    try:
        photo(ann.page, shots, "start")
        ann.page.set_viewport_size({"width": 1024, "height": 600})
        ann.page.click("#btn-quick")
        ann.page.wait_for_selector("#dlg-quick-name[open]")
        ann.page.click("#quick-name-go")  # no name: the form stays, the field asks for one
        assert ann.page.locator("#dlg-quick-name[open] #quick-name:invalid").count() == 1
        ann.page.fill("#quick-name", "   ")  # blanks: the page's own words, no request
        ann.page.click("#quick-name-go")
        ann.page.wait_for_selector("#quick-name-error:text('Choose a name first')")
        ann.page.fill("#quick-name", "Ann")
        photo(ann.page, shots, "name")
        ann.page.set_viewport_size({"width": 1024, "height": 600})
        ann.page.click("#quick-name-go")
        ann.page.wait_for_url(re.compile(r"/room/[\w-]+\?invite="))
        first = press(bo)
        assert room_of(first) == room_of(ann.page.url)
        for p in (ann, bo):
            wait_names(p, ["Ann", "Bo"])
        press(cy)
        assert room_of(cy.page.url) == room_of(first)
        for p in people:
            wait_names(p, ["Ann", "Bo", "Cy"])
            # A quick table: its own title, a Leave button, and no host's controls.
            assert p.page.text_content("#room-title") == "Play people"
            assert p.page.locator("#room-leave").is_visible()
            assert p.page.locator("#room-start, #room-seats .remove, #room-invite").count() == 0
        empty = ann.page.locator("#room-seats li[data-kind=empty] .seat-name").all_text_contents()
        assert empty == ["Waiting for a player (a computer if nobody comes)"]
        assert "Finding players: 3 of 4 here" in (ann.page.text_content("#room-status") or "")
        assert re.fullmatch(
            r"A computer takes the empty seat in \d+ s",
            ann.page.text_content("#quick-countdown") or "",
        )
        for p in people:
            wait_playing(p)
        seats = [
            ann.page.locator(f"#room-seats li[data-seat='{i}']").get_attribute("data-kind")
            for i in range(4)
        ]
        assert sorted(seats) == ["computer", "person", "person", "person"]
        assert sorted(names_seen(cy)) == ["Ann", "Bo", "Cy"]
        assert ann.page.locator("#quick-countdown").is_hidden()
        # Pressing "Play people" again during the game: the same table, the same seat.
        seat = bo.page.get_attribute("#room-seats li.me", "data-seat")
        bo.page.goto("/")
        again = press(bo)
        assert room_of(again) == room_of(first)
        assert bo.page.get_attribute("#room-seats li.me", "data-seat") == seat
        for p in people:
            assert p.errors == [], p.errors
    finally:
        for p in people:
            p.close()


# ------------------------------------------------------------------ 2: alone, then computers


def test_alone_sees_the_countdown_then_computers(browser: Any, server: Server, shots: Path) -> None:
    dee = person(browser, server, "Dee")
    try:
        press(dee)
        dee.page.wait_for_function(
            "() => Number(document.querySelector('#quick-countdown')?.dataset.seconds) > 0"
        )
        text = dee.page.text_content("#quick-countdown") or ""
        assert re.fullmatch(r"Computers take the empty seats in \d+ s", text), text
        before = countdown(dee)
        assert 1 <= before <= WAIT
        dee.page.wait_for_function(
            "(n) => Number(document.querySelector('#quick-countdown')?.dataset.seconds) < n",
            arg=before,
        )
        photo(dee.page, shots, "waiting")
        wait_playing(dee)
        kinds = dee.page.locator("#room-seats li").evaluate_all(
            "(ls) => ls.map((l) => l.dataset.kind)"
        )
        assert sorted(kinds) == ["computer", "computer", "computer", "person"]
        dee.page.wait_for_selector("#hand button.card")
        assert dee.errors == []
    finally:
        dee.close()


def test_a_seat_whose_person_has_not_come_says_so(
    browser: Any, server: Server, shots: Path
) -> None:
    """Someone seated by quick play whose page has not opened the table yet is shown "on
    the way" and counts as an open seat for the countdown; once their page opens the
    table, they are here."""
    eve = person(browser, server, "Eve")
    finn = person(browser, server, "Finn")
    try:
        url = press(eve)
        # Finn's seat is given over HTTP, his page still on the start page.
        r = finn.ctx.request.post(f"{server.url}/api/quickplay", data={})
        assert r.ok, r.text()
        assert r.json()["room"] == room_of(url)
        pending = "#room-seats li[data-kind=person][data-pending=true]"
        eve.page.wait_for_selector(f"{pending} .tag.pending")
        assert eve.page.text_content(f"{pending} .seat-name") == "Finn"
        assert eve.page.text_content(f"{pending} .tag.pending") == "on the way"
        text = eve.page.text_content("#quick-countdown") or ""
        assert re.fullmatch(r"Computers take the empty seats in \d+ s", text), text
        photo(eve.page, shots, "pending")
        finn.page.goto(r.json()["invite"])
        eve.page.wait_for_selector(pending, state="detached")
        wait_names(eve, ["Eve", "Finn"])
        assert eve.errors == [] and finn.errors == []
    finally:
        for p in (eve, finn):
            p.ctx.request.post(f"{server.url}/api/rooms/{room_of(url)}/leave", data={})
            p.close()


# ------------------------------------------------------------------ 3: leaving before the start


def test_leaving_before_the_start(browser: Any, server: Server) -> None:
    eve = person(browser, server, "Eve")
    try:
        url = press(eve)
        eve.page.click("#room-leave")
        eve.page.wait_for_url(f"{server.url}/")
        eve.page.wait_for_selector("#btn-quick:visible")
        # The table everyone left is closed: its link no longer seats anyone.
        r = httpx.get(f"{server.url}/api/rooms/{room_of(url)}?invite={url.split('invite=')[1]}")
        assert r.status_code == 404 or r.json()["status"] == "closed", r.text
        # The lobby has the button too: a new table (the one left is closed).
        eve.page.goto("/lobby")
        eve.page.click("#lobby-quick")
        eve.page.wait_for_url(re.compile(r"/room/[\w-]+\?invite="))
        eve.page.wait_for_selector("#room-seats li.me")
        assert room_of(eve.page.url) != room_of(url)
        eve.page.click("#room-leave")
        eve.page.wait_for_url(f"{server.url}/")
    finally:
        eve.close()


# ------------------------------------------------------------------ 3b: the link seats nobody


def test_a_quick_tables_link_lets_others_watch_not_sit(browser: Any, server: Server) -> None:
    """Someone given a quick table's link is offered to watch, never a seat: the table's
    seats are quick play's to give. The seated person's link returns them to their seat."""
    hal = person(browser, server, "Hal")
    ida = person(browser, server, "Ida")
    try:
        link = press(hal)
        ida.page.goto(link)
        ida.page.wait_for_selector("#room-watch-game")
        status = ida.page.text_content("#room-status") or ""
        assert "given by “Play people” only" in status, status
        assert ida.page.locator("#dlg-room-join").count() == 0  # no seat offered
        ida.page.click("#room-watch-game")
        ida.page.wait_for_selector("body.watching")
        wait_names(ida, ["Hal"])
        seats = ida.page.locator("#room-seats li[data-kind=person]").count()
        assert seats == 1 and ida.page.locator("#room-seats li.me").count() == 0
        # Hal's own link, in a new tab: his seat.
        again = hal.new_page()
        again.goto(link)
        again.wait_for_selector("#room-seats li.me")
        assert again.get_attribute("#room-seats li.me", "data-seat") == "0"
        assert hal.errors == [] and ida.errors == []
    finally:
        hal.close()
        ida.close()


# ------------------------------------------------------------------ 4: a drop mid-game


@pytest.mark.flaky(reruns=2)  # twice, in a fresh clone's full run, Fay never saw a 5 s chip
def test_a_drop_during_quick_play(browser: Any, server: Server) -> None:
    """Gus closes his tab mid-game: Fay sees the countdown to the computer taking over,
    then that Gus was gone too long and a computer plays his seat to the end (a quick
    table is rated: the seat is not given back); Gus opens his link again and watches."""
    rng = random.Random(25)
    fay = person(browser, server, "Fay")
    gus = person(browser, server, "Gus")
    try:
        press(fay)
        link = press(gus)
        for p in (fay, gus):
            wait_playing(p)
        gus_seat = gus.page.get_attribute("#room-seats li.me", "data-seat")
        gus.page.close()
        chip = fay.page.locator(f"#room-seats li[data-seat='{gus_seat}'] .tag.takeover")
        chip.wait_for()
        left = int(chip.get_attribute("data-takeover") or "-1")
        assert re.fullmatch(r"A computer plays for Gus in \d+ s", chip.text_content() or "")
        assert 0 < left <= GRACE
        # The grace ends: Fay is told, the seat is the computer's, and it plays.
        note = fay.page.locator("#room-note")
        note.wait_for(timeout=(GRACE + 15) * 1000)
        fay.page.wait_for_function(
            "() => (document.querySelector('#room-note')?.textContent || '')"
            ".includes('Gus was gone too long')",
            timeout=15_000,
        )
        fay.page.wait_for_selector(
            f"#room-seats li[data-seat='{gus_seat}'][data-kind='computer']", timeout=15_000
        )
        play([fay], rng, until=lambda: played_after_abandon(fay, int(gus_seat or -1)), timeout=30)
        # Gus comes back by his link: his seat is not his again; he may watch the table.
        gus.page = gus.new_page()
        gus.page.goto(link)
        gus.page.click("#room-watch-game", timeout=15_000)
        gus.page.wait_for_selector("body.watching", timeout=15_000)
        assert gus.page.locator("#room-seats li.me").count() == 0
        for p in (fay, gus):
            assert p.errors == [], p.errors
    finally:
        fay.close()
        gus.close()


def played_after_abandon(fay: Person, seat: int) -> bool:
    """Whether a card of ``seat`` has reached Fay's page after that seat was abandoned."""
    abandoned = False
    for f in fay.frames:
        ev = f.get("event") or {}
        if ev.get("kind") == "abandon" and ev.get("seat") == seat:
            abandoned = True
        elif abandoned and ev.get("kind") == "play" and ev.get("seat") == seat:
            return True
    return False


def gus_played_by_computer(fay: Person) -> bool:
    """Whether a computer's card for another seat has reached Fay's page."""
    for f in fay.frames:
        ev = f.get("event") or {}
        if ev.get("kind") == "play" and ev.get("by") == "computer":
            return True
    return False
