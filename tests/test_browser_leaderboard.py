"""The leaderboard page and the history page's ratings in a real Chromium, against a real
``lockup serve`` where rated rooms' games were played to the end by script clients: what
the pages show is what the API says, at 1366x768 and 390x844 (screenshots), with nothing
wider than the window, in English and in French."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from attack_helpers import Server
from browser_helpers import CHROMIUM
from test_ratings_server import UNPACED, play_room, wait_rated
from test_rooms import Person

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

pytest.importorskip("playwright.sync_api")

SIZES = {"wide": (1366, 768), "phone": (390, 844)}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("leaderboard") / "games.sqlite"
    with Server(db, *UNPACED) as s:
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
    ann, bo = Person(server, "Ann"), Person(server, "Bo")
    # Played on a thread of their own: Playwright holds this thread's event loop.
    with ThreadPoolExecutor(1) as pool:
        games = [
            pool.submit(play_room, [ann, bo], rated=True).result(),
            pool.submit(play_room, [bo, ann], rated=True).result(),
        ]
    for g in games:
        wait_rated(server.db, g)
    api = ann.http.get("/api/leaderboard").json()["players"]
    mine = ann.http.get("/api/ratings/me").json()
    assert mine["games"] == 2 and [h["game"] for h in mine["history"]] == games

    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.add_cookies(
        [{"name": "lockup_player", "value": ann.cookie, "domain": "127.0.0.1", "path": "/"}]
    )
    page = context.new_page()
    try:
        page.goto(f"{server.url}/leaderboard")
        page.wait_for_selector("body[data-ready='true']")
        shown = page.evaluate(
            """() => [...document.querySelectorAll('#board tbody tr')].map((tr) => ({
                rank: tr.querySelector('.rank').textContent.trim(),
                name: tr.querySelector('th').textContent.trim(),
                rating: tr.querySelector('.rating').textContent.trim(),
                kind: tr.dataset.kind, you: tr.dataset.you === 'true'}))"""
        )
        assert len(shown) == len(api) >= 3
        for row, e in zip(shown, api, strict=True):
            assert row["rank"] == str(e["rank"]) and row["kind"] == e["kind"]
            assert one_decimal(row["rating"], e["rating"]), (row, e)
            assert row["you"] == e["you"]
        me = next(r for r in shown if r["you"])
        assert me["name"].startswith("Ann")
        assert any(r["name"].startswith("Random") and r["kind"] == "computer" for r in shown)
        you = next(e for e in api if e["you"])
        assert one_decimal(page.locator("#yours").inner_text(), you["rating"])
        assert page.locator("#empty").is_hidden()
        shoot(page, shots, "leaderboard")

        page.goto(f"{server.url}/leaderboard?lang=fr")
        page.wait_for_selector("body[data-ready='true']")
        assert page.locator("h1").inner_text() == "Classement"
        assert page.locator("#board thead th").nth(2).inner_text() == "Cote"
        page.goto(f"{server.url}/leaderboard?lang=en")
        page.wait_for_selector("body[data-ready='true']")

        # The history: each rated game's change, and the rating over them.
        page.goto(f"{server.url}/history")
        page.wait_for_selector("body[data-ready='true']")
        for h in mine["history"]:
            cell = page.locator(f"tr[data-game='{h['game']}'] .rating-change")
            text = cell.inner_text().replace("−", "-")
            before, after = text.split("(")[0].split("→")
            assert one_decimal(before, h["before"]) and one_decimal(after, h["after"]), text
            assert float(cell.get_attribute("data-rating") or "nan") == pytest.approx(h["change"])
        assert page.locator("#rating-plot svg circle").count() == 2
        assert one_decimal(page.locator("#rating-now").inner_text(), mine["rating"])
        shoot(page, shots, "history")

        # Someone with no rated game: the pages say so.
        fresh = browser.new_context(viewport={"width": 390, "height": 844})
        other = fresh.new_page()
        other.goto(f"{server.url}/leaderboard")
        other.wait_for_selector("body[data-ready='true']")
        assert other.locator("tr[data-you='true']").count() == 0
        assert "no rating yet" in other.locator("#yours").inner_text()
        other.goto(f"{server.url}/history")
        other.wait_for_selector("body[data-ready='true']")
        assert other.locator("#rating-plot svg").count() == 0
        assert "No rated game yet" in other.locator("#rating-now").inner_text()
        fresh.close()
    finally:
        context.close()


def one_decimal(text: str, value: float) -> bool:
    """Whether ``text``'s first number shows ``value`` to one decimal (the page rounds a
    half as the browser's number format does: either neighbour of a half counts)."""
    found = re.search(r"[-−]?\d+(?:[.,]\d+)?", text)
    if found is None:
        return False
    written = found.group(0).replace("−", "-").replace(",", ".")
    return abs(float(written) - value) <= 0.05 + 1e-9 and "." in written
