"""The leaderboard page and the history page's ratings in a real Chromium, against a real
``lockup serve`` where rated rooms' games were played to the end by script clients (two
accounts, each from an address of their own): what the pages show is what the API says,
a provisional rating marked so and left off the board, a guest told that guests play
unrated, at 1366x768 and 390x844 (screenshots), with nothing wider than the window, in
English and in French."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from attack_helpers import Server
from browser_helpers import CHROMIUM
from test_ratings_server import PROXIED, UNPACED, make_account, person_at, play_room, wait_rated

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

pytest.importorskip("playwright.sync_api")

SIZES = {"wide": (1366, 768), "phone": (390, 844)}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("leaderboard") / "games.sqlite"
    with Server(db, *UNPACED, *PROXIED) as s:
        yield s


def shoot(page: Any, shots: Path, name: str) -> None:
    """Screenshots at both sizes; nothing may be wider than the window."""
    for size, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert wide <= 0, f"{name} at {size}: {wide} px wider than the window"
        path = shots / f"ratings-{name}-{size}.png"
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")


def test_the_leaderboard_and_the_history_show_the_ratings(
    browser: Any, server: Server, shots: Path
) -> None:
    ann = person_at(server, "Ann", "198.51.100.21")
    bo = person_at(server, "Bo", "198.51.100.22")
    make_account(ann)
    make_account(bo)
    # Played on a thread of their own: Playwright holds this thread's event loop.
    with ThreadPoolExecutor(1) as pool:
        games = [
            pool.submit(play_room, [ann, bo], rated=True).result(),
            pool.submit(play_room, [bo, ann], rated=True).result(),
        ]
    for g in games:
        wait_rated(server.db, g)
    answer = ann.http.get("/api/leaderboard").json()
    mine = ann.http.get("/api/ratings/me").json()
    assert mine["games"] == 2 and [h["game"] for h in mine["history"]] == games
    assert mine["provisional"] and mine["rank"] is None and not mine["guest"]
    assert [e["kind"] for e in answer["players"]] == ["computer"]  # Ann and Bo: provisional

    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_cookies(
        [
            {"name": name, "value": value, "domain": "127.0.0.1", "path": "/"}
            for name, value in ann.http.cookies.items()
        ]
    )
    page = context.new_page()
    try:
        # Provisional: off the board, the line above says the rating with a "?".
        page.goto(f"{server.url}/leaderboard")
        page.wait_for_selector("body[data-ready='true']")
        assert board_rows(page) and all(r["kind"] == "computer" for r in board_rows(page))
        yours = page.locator("#yours")
        assert yours.get_attribute("data-state") == "provisional"
        text = yours.inner_text()
        assert "provisional" in text and "2 of 10" in text, text
        assert one_decimal(text, mine["rating"]) and "?" in text, text
        assert "10 rated games" in page.locator("#listed").inner_text()
        shoot(page, shots, "leaderboard-provisional")

        # The history: each rated game's change, and the rating over them (provisional).
        page.goto(f"{server.url}/history")
        page.wait_for_selector("body[data-ready='true']")
        for h in mine["history"]:
            cell = page.locator(f"tr[data-game='{h['game']}'] .rating-change")
            text = cell.inner_text().replace("−", "-")
            before, after = text.split("(")[0].split("→")
            assert one_decimal(before, h["before"]) and one_decimal(after, h["after"]), text
            assert float(cell.get_attribute("data-rating") or "nan") == pytest.approx(h["change"])
        assert page.locator("#rating-plot svg circle").count() == 2
        now = page.locator("#rating-now")
        assert one_decimal(now.inner_text(), mine["rating"]) and "provisional" in now.inner_text()
        assert now.get_attribute("data-provisional") == "true"
        shoot(page, shots, "history")

        # Ten rated games (eight more, written straight into the database): Ann is listed,
        # by her account's name, her row marked.
        con = sqlite3.connect(server.db)
        with con:
            con.execute("UPDATE ratings SET games = 10 WHERE subject = ?", (ann.player,))
        con.close()
        api = ann.http.get("/api/leaderboard").json()["players"]
        page.goto(f"{server.url}/leaderboard")
        page.wait_for_selector("body[data-ready='true']")
        shown = board_rows(page)
        assert len(shown) == len(api) >= 2
        for row, e in zip(shown, api, strict=True):
            assert row["rank"] == str(e["rank"]) and row["kind"] == e["kind"]
            assert one_decimal(row["rating"], e["rating"]), (row, e)
            assert row["you"] == e["you"]
        me = next(r for r in shown if r["you"])
        assert me["name"].startswith("Ann")
        assert not any(r["name"].startswith("Bo") for r in shown)  # still provisional
        assert any(r["name"].startswith("Random") and r["kind"] == "computer" for r in shown)
        you = next(e for e in api if e["you"])
        assert one_decimal(page.locator("#yours").inner_text(), you["rating"])
        assert page.locator("#empty").is_hidden()
        shoot(page, shots, "leaderboard")

        page.goto(f"{server.url}/leaderboard?lang=fr")
        page.wait_for_selector("body[data-ready='true']")
        assert page.locator("h1").inner_text() == "Classement"
        assert page.locator("#board thead th").nth(2).inner_text() == "Cote"
        assert "10 parties classées" in page.locator("#listed").inner_text()
        page.goto(f"{server.url}/leaderboard?lang=en")
        page.wait_for_selector("body[data-ready='true']")

        # A guest: the pages say that guests play unrated.
        fresh = browser.new_context(viewport={"width": 390, "height": 844})
        other = fresh.new_page()
        other.goto(f"{server.url}/leaderboard")
        other.wait_for_selector("body[data-ready='true']")
        assert other.locator("tr[data-you='true']").count() == 0
        assert other.locator("#yours").get_attribute("data-state") == "guest"
        assert "guests play unrated" in other.locator("#yours").inner_text()
        shoot(other, shots, "leaderboard-guest")
        other.goto(f"{server.url}/history")
        other.wait_for_selector("body[data-ready='true']")
        assert other.locator("#rating-plot svg").count() == 0
        assert "guests play unrated" in other.locator("#rating-now").inner_text()
        fresh.close()
    finally:
        context.close()


def board_rows(page: Any) -> list[dict[str, Any]]:
    """The leaderboard's rows as the page shows them."""
    rows: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll('#board tbody tr')].map((tr) => ({
            rank: tr.querySelector('.rank').textContent.trim(),
            name: tr.querySelector('th').textContent.trim(),
            rating: tr.querySelector('.rating').textContent.trim(),
            kind: tr.dataset.kind, you: tr.dataset.you === 'true'}))"""
    )
    return rows


def one_decimal(text: str, value: float) -> bool:
    """Whether ``text``'s first number shows ``value`` to one decimal (the page rounds a
    half as the browser's number format does: either neighbour of a half counts)."""
    found = re.search(r"[-−]?\d+(?:[.,]\d+)?", text)
    if found is None:
        return False
    written = found.group(0).replace("−", "-").replace(",", ".")
    return abs(float(written) - value) <= 0.05 + 1e-9 and "." in written
