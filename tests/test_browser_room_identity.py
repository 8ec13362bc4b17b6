"""Seat and identity in rooms, as people behave in browsers (issue 20, "Seat and
identity"): a person with two tabs who leaves their seat in one and sits elsewhere, and a
person the host removes. Each person is a browser context of their own; what each page
shows is asserted, and every frame each page got is checked against the stored deals
(no page ever shows another seat's hidden card). The same findings as a hostile script
are in test_room_identity.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import CHROMIUM, Server
from test_browser_rooms import UNPACED, Person, create_room, join, leaks, shoot, start

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("identity") / "games.sqlite", None, *UNPACED)
    srv.start()
    yield srv
    srv.stop()


def my_seat_shown(page: Any) -> int | None:
    """The seat the page's room panel says is this person's (the seat marked "you")."""
    you = page.evaluate(
        "() => { const li = document.querySelector('#room-seats li.me[data-seat]');"
        " return li ? Number(li.dataset.seat) : null; }"
    )
    return None if you is None else int(you)


def test_a_tab_left_open_follows_its_person_to_their_new_seat(
    browser: Any, server: Server, shots: Path
) -> None:
    """Mia sits at East (seat 2) with one tab, leaves in a second tab and sits down again
    at West (seat 1); Oli takes East. When the host starts, Mia's first tab shows West's
    hand, her own, and never East's; Oli's shows East's."""
    host, mia, oli = (Person(browser, server, n) for n in ("Ann", "Mia", "Oli"))
    try:
        links = create_room(host)
        join(mia, links["invite"], seat=2)
        first = mia.page
        first.wait_for_function("() => document.querySelector('#room-seats li.me') !== null")
        assert my_seat_shown(first) == 2
        second = mia.new_page()
        second.goto(links["invite"])
        second.wait_for_selector("#room-leave")
        second.click("#room-leave")
        second.wait_for_url(f"{server.url}/")
        # The first tab says at once that Mia has no seat now.
        first.wait_for_function("() => document.querySelector('#room-seats li.me') === null")
        second.goto(links["invite"])
        second.wait_for_selector("#dlg-room-join[open]")
        second.fill("#join-name", "Mia")
        second.select_option("#join-seat", "1")
        second.click("#join-submit")
        second.wait_for_selector("#room-leave")
        join(oli, links["invite"], seat=2)
        first.wait_for_function(
            "() => document.querySelector('#room-seats li.me')?.dataset.seat === '1'"
        )
        start(host, [mia, oli])
        for page in (first, second, oli.page):
            page.wait_for_selector("#hand button.card")
        assert my_seat_shown(first) == 1 and my_seat_shown(oli.page) == 2
        # The two tabs of Mia show one hand, West's; Oli's is another.
        mine = sorted(
            first.locator("#hand button.card").evaluate_all("bs => bs.map(b => b.dataset.card)")
        )
        again = sorted(
            second.locator("#hand button.card").evaluate_all("bs => bs.map(b => b.dataset.card)")
        )
        olis = oli.page.locator("#hand button.card").evaluate_all(
            "bs => bs.map(b => b.dataset.card)"
        )
        assert mine == again and not set(mine) & set(olis)
        shoot(first, shots, "identity-moved-tab")
        for p in (host, mia, oli):
            found, checked = leaks(p, server.db)
            assert checked >= 1, p.name
            assert not found, f"{p.name}: {found[:5]}"
            assert not p.errors, p.errors
    finally:
        for p in (host, mia, oli):
            p.close()


def test_a_removed_person_watches_and_is_told_so(browser: Any, server: Server, shots: Path) -> None:
    """The host removes Bo mid-game: both of Bo's tabs show the table as a spectator
    (no hand, nothing to click) and say why; the computer plays East from then on."""
    host, bo = Person(browser, server, "Ann"), Person(browser, server, "Bo")
    try:
        links = create_room(host)
        join(bo, links["invite"], seat=2)
        other_tab = bo.new_page()
        other_tab.goto(links["invite"])
        other_tab.wait_for_selector("#room-leave")
        start(host, [bo])
        for page in (bo.page, other_tab):
            page.wait_for_selector("#hand button.card")
        host.page.click('#room-seats li[data-seat="2"] button.remove')
        for page in (bo.page, other_tab):
            page.wait_for_selector("body.watching")
            page.wait_for_function(
                "() => document.querySelectorAll('#hand button.card').length === 0"
            )
            assert my_seat_shown(page) is None
            page.wait_for_selector("text=The host gave your seat to the computer")
        host.page.wait_for_selector('#room-seats li[data-seat="2"][data-kind="computer"]')
        shoot(bo.page, shots, "identity-removed")
        for p in (host, bo):
            found, _ = leaks(p, server.db)
            assert not found, f"{p.name}: {found[:5]}"
            assert not p.errors, p.errors
    finally:
        host.close()
        bo.close()
