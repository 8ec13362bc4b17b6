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
(c) The leaver is ranked last: two accounts, each at an address and in a browser of
    their own, at a rated friends' room; one leaves the game under way, the other plays
    it to its end. The rating ranks the leaver last whatever the seat's points, rates the
    other as usual, and the leaver's history says "left the game: ranked last".

Screenshots (1366×657 and 390×844) of the clock for the person to play and for a
spectator, of the leave dialog and of the page after leaving go to
``$LOCKUP_SCREENSHOTS`` or a temporary directory.
"""

from __future__ import annotations

import random
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import CHROMIUM, Server, parse_frames
from test_browser_rooms import UNPACED, Person, play
from test_ratings_server import PROXIED

from lockup.ratings import MODEL, ranks_of
from lockup.record import from_record
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


def account_at(browser: Any, server: Server, name: str, address: str) -> Person:
    """A person with an account (signed up from their own browser context), whose browser
    says it is at ``address`` (the server trusts X-Forwarded-For: :data:`PROXIED`)."""
    p = Person(browser, server, name)
    p.ctx.set_extra_http_headers({"X-Forwarded-For": address})
    r = p.ctx.request.post(
        f"{server.url}/api/account/signup",
        data={"name": name, "password": "a long enough pass phrase"},
        headers={"X-Forwarded-For": address},
    )
    assert r.ok, r.text()
    return p


def running(p: Person) -> list[int] | None:
    """Each seat's points so far (finished hands and this hand's tricks), as the last view
    ``p``'s page received says; None before any."""
    for raw in reversed(p.raw):
        f = parse_frames([raw])
        view = f[0].get("view") if f else None
        if isinstance(view, dict) and "totals" in view and "tricks" in view:
            return [int(a) + int(b) for a, b in zip(view["totals"], view["tricks"], strict=True)]
    return None


def over_ranks_last(page: Any, seat: int) -> None:
    """The page's game-over window lists ``seat`` 4th of 4, marked as having left the game,
    and nobody else so marked."""
    if page.locator("#dlg-summary[open]").count():
        page.locator("#dlg-summary button.continue").click()
    page.wait_for_selector("#dlg-over[open] ol.final li[data-left]", timeout=30_000)
    items = page.locator("#dlg-over ol.final li")
    assert items.count() == 4
    last = items.nth(3)
    assert last.get_attribute("data-seat") == str(seat)
    assert last.get_attribute("data-place") == "4"
    assert (last.locator(".left").text_content() or "") == "left the game"
    assert page.locator("#dlg-over ol.final li[data-left]").count() == 1
    assert page.locator("#dlg-over ol.final li[data-place='1']").count() >= 1


def test_a_leaver_is_ranked_last(browser: Any, tmp_path: Path, shots: Path) -> None:
    """Ann and Bo, two accounts at addresses and in browsers of their own, at a rated
    room (target 10, random computers, no turn clock). Both play until Bo is ahead of
    another seat; then Bo leaves the game under way and Ann plays it to its end. Both are rated; Bo ranks 4th of 4 whatever his seat's points
    (his ``abandon`` event), Ann as her points say; Bo's history says he left."""
    srv = Server(tmp_path / "games.sqlite", None, *UNPACED, *PROXIED)
    srv.start()
    ann = account_at(browser, srv, "Ann", "198.51.100.31")
    bo = account_at(browser, srv, "Bo", "198.51.100.32")
    try:
        made = ann.ctx.request.post(
            f"{srv.url}/api/rooms",
            data={"name": "Ann", "rated": True, "levels": "random", "target": 10, "turn_timer": 0},
        )
        assert made.ok, made.text()
        room = made.json()
        key = room["invite"].split("invite=", 1)[1]
        joined = bo.ctx.request.post(
            f"{srv.url}/api/rooms/{room['room']}/join", data={"invite": key, "name": "Bo"}
        )
        assert joined.ok, joined.text()
        for p in (ann, bo):
            p.page.goto(room["invite"])
            p.page.wait_for_selector("#room-seats li.me")
        ann.page.click("#room-start")
        for p in (ann, bo):
            p.page.wait_for_function(PLAYING)
        assert "rated game" in (ann.page.text_content("#room-status") or ""), ann.page.text_content(
            "#room-status"
        )
        game = str(ann.page.evaluate("document.body.dataset.game"))
        left_seat = int(bo.page.get_attribute("#room-seats li.me", "data-seat") or "-1")
        # Both play until Bo's running points are well above another seat's (so that the
        # points alone would hardly rank him last), or the game is well under way.
        rng = random.Random(31)

        def ahead() -> bool:
            run = running(bo)
            if run is None:
                return False
            others = [x for s, x in enumerate(run) if s != left_seat]
            return (run[left_seat] >= min(others) + 3 and max(run) >= 6) or max(run) >= 9

        play([ann, bo], rng, until=ahead, timeout=40)
        # Bo leaves the game under way (asked first); a computer plays his seat on.
        if bo.page.locator("#dlg-summary[open]").count():
            bo.page.locator("#dlg-summary button.continue").click()
        bo.page.click("#room-leave-game")
        bo.page.locator("#dlg-leave-game[open]").wait_for()
        bo.page.click("#leave-game-go")
        bo.page.wait_for_function(
            "() => document.querySelector('#room-note')?.textContent?.startsWith('You left the game')"
        )
        ann.page.wait_for_selector(f"#room-seats li[data-seat='{left_seat}'][data-kind='computer']")
        # Ann plays the game to its end.
        play([ann], rng, timeout=45)
        # Both game-over windows (Bo's page watches) rank Bo last, as the ratings do, and
        # say he left; so does Ann's page opened again after the game.
        for p in (ann, bo):
            over_ranks_last(p.page, left_seat)
        photo(ann.page, shots, "leaver-over")
        ann.page.reload()
        over_ranks_last(ann.page, left_seat)

        # Rated in the background: each asks what the game did to their rating.
        told: dict[str, Any] = {}
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            told = {
                p.name: p.ctx.request.get(f"{srv.url}/api/ratings/game/{game}").json()
                for p in (ann, bo)
            }
            if all(t.get("done") for t in told.values()):
                break
            time.sleep(0.2)
        assert all(t.get("done") for t in told.values()), told
        assert told["Bo"]["rated"] and told["Bo"]["last"] and told["Bo"]["why"] is None
        assert told["Bo"]["seat"] == left_seat
        assert told["Ann"]["rated"] and not told["Ann"]["last"] and told["Ann"]["why"] is None
        assert told["Ann"]["after"] is not None and told["Ann"]["change"] is not None

        # The stored changes: every seat rated, only Bo's marked; they are the model's
        # answer to ranks with Bo 4th of 4 whatever the final points.
        con = sqlite3.connect(srv.db)
        try:
            changes = con.execute(
                "SELECT seat, kind, sat_out, mu_before, sigma_before, mu_after, sigma_after "
                "FROM rating_changes WHERE game_id = ? ORDER BY seat",
                (game,),
            ).fetchall()
            record = con.execute("SELECT record FROM games WHERE id = ?", (game,)).fetchone()[0]
        finally:
            con.close()
        assert [c[0] for c in changes] == [0, 1, 2, 3]
        assert [bool(c[2]) for c in changes] == [s == left_seat for s in range(4)]
        assert changes[left_seat][1] == "person"
        totals = list(from_record(record).totals)
        ranks = ranks_of(totals, {left_seat})
        assert ranks[left_seat] == 4 and max(ranks) == 4, (totals, ranks)
        teams = [[MODEL.rating(mu=c[3], sigma=c[4])] for c in changes]
        for c, team in zip(
            changes, MODEL.rate(teams, ranks=[float(r) for r in ranks]), strict=True
        ):
            assert (c[5], c[6]) == pytest.approx((team[0].mu, team[0].sigma), abs=1e-9)
        by_points = ranks_of(totals)
        if by_points != ranks:  # the points alone would rank him otherwise: not so rated
            plain = MODEL.rate(teams, ranks=[float(r) for r in by_points])
            assert changes[left_seat][5] != pytest.approx(plain[left_seat][0].mu, abs=1e-9)
        print(f"points {totals}, by points {by_points}, rated as {ranks} (Bo at {left_seat})")

        # Bo's history: the game's rating change, and the badge that he left, ranked last.
        mine = bo.ctx.request.get(f"{srv.url}/api/ratings/me").json()
        assert [(h["game"], h["abandoned"]) for h in mine["history"]] == [(game, True)]
        bo.page.goto("/history")
        bo.page.wait_for_selector("body[data-ready='true']")
        row = bo.page.locator(f"tr[data-game='{game}']")
        badge = row.locator(".rating-cell [data-abandoned='true']")
        assert badge.text_content() == "left the game: ranked last"
        assert badge.is_visible()
        assert row.locator(".rating-change").count() == 1
        photo(bo.page, shots, "leaver-history")
        ours = ann.ctx.request.get(f"{srv.url}/api/ratings/me").json()
        assert [(h["game"], h["rated"], h["abandoned"]) for h in ours["history"]] == [
            (game, True, False)
        ]
        for p in (ann, bo):
            assert p.errors == [], p.errors
    finally:
        ann.close()
        bo.close()
        srv.stop()
