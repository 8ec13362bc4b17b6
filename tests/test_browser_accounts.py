"""Accounts in a real Chromium against a real ``lockup serve``: a guest plays a few cards,
makes an account on the account page, and another browser (another context: other
cookies) signs in and finds the same game, history and rating; signing out there leaves
that browser its own guest. Screenshots at 1366x657 and 390x844, nothing wider than the
window, the top bar naming the account on every page.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import CHROMIUM, IDLE, TEST_FLAGS, Server, play_until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

pytest.importorskip("playwright.sync_api")

SIZES = {"wide": (1366, 657), "phone": (390, 844)}
INSTANT = (
    "localStorage.setItem('lockup.speed', 'instant'); localStorage.setItem('lockup.guide', 'seen');"
)
CHEAP = ("--password-time-cost", "1", "--password-memory", "1024")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("accounts") / "games.sqlite", None, *TEST_FLAGS, *CHEAP)
    srv.start()
    yield srv
    srv.stop()


def new_page(browser: Any, server: Server, size: str) -> tuple[Any, Any, list[str]]:
    """A browser of its own (a context: its own cookies) at ``size``, and its page's
    uncaught script errors."""
    w, h = SIZES[size]
    ctx = browser.new_context(base_url=server.url, viewport={"width": w, "height": h})
    ctx.add_init_script(INSTANT)
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, errors


def shoot(page: Any, shots: Path, name: str) -> None:
    """Screenshots at both sizes; nothing may be wider than the window."""
    for size, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert wide <= 0, f"{name} at {size}: {wide} px wider than the window"
        path = shots / f"account-{name}-{w}x{h}.png"
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")


def open_page(page: Any, path: str) -> None:
    page.goto(path)
    page.wait_for_selector("body[data-ready='true'][data-account]")


def seen(page: Any) -> dict[str, Any]:
    """What the player's own pages show: the games of the history, the rating there, the
    leaderboard's line about the player and the row marked as theirs."""
    open_page(page, "/history")
    games = page.evaluate(
        "() => [...document.querySelectorAll('#games tbody tr[data-game]')]"
        ".map((tr) => tr.dataset.game)"
    )
    rating = page.locator("#rating-now").inner_text()
    open_page(page, "/leaderboard")
    return {
        "games": games,
        "rating": rating,
        "yours": page.locator("#yours").inner_text(),
        "you": page.locator("tr[data-you='true']").count(),
    }


def test_an_account_made_after_a_guest_game_signs_in_anywhere(
    browser: Any, server: Server, shots: Path
) -> None:
    home, page, errors = new_page(browser, server, "wide")
    away, other, other_errors = new_page(browser, server, "phone")
    try:
        # A guest plays a few cards.
        page.goto("/")
        page.wait_for_selector(IDLE)
        game = page.evaluate("document.body.dataset.game")
        played = {"n": 0}

        def three(state: str) -> bool:
            played["n"] += 1
            return played["n"] > 3

        play_until(page, random.Random(3), three)
        assert page.locator("#account-link").text_content() == "Sign in"  # in the More menu
        as_guest = seen(page)
        assert as_guest["games"] == [game]
        assert page.locator("[data-guest-note]").is_visible()  # only accounts are rated

        # The account page: the guest is told what an account gives, and signs up.
        open_page(page, "/account")
        assert page.locator("#guest").is_visible() and page.locator("#signed").is_hidden()
        assert "unrated" in page.locator("#guest").inner_text()
        shoot(page, shots, "guest")
        page.fill("#signup-name", "Þóra")  # a computer's name: refused in the page's words
        page.fill("#signup-password", "correct horse")
        page.click("#signup-go")
        page.wait_for_function("() => document.querySelector('#signup-error').textContent")
        assert "belongs to the game" in page.locator("#signup-error").inner_text()
        page.fill("#signup-name", "Hekla")
        page.click("#signup-go")
        page.wait_for_selector("#signed:not([hidden])")
        assert page.locator("#signed-as").inner_text() == "Signed in as Hekla"
        assert page.locator("#account-link").inner_text() == "Hekla"
        assert page.locator("#sessions tbody tr").count() == 1
        shoot(page, shots, "signed-in")
        mine = seen(page)
        assert mine["games"] == [game]  # what the guest played is the account's
        assert page.locator("#account-link").inner_text() == "Hekla"
        assert page.locator("[data-guest-note]").is_hidden()

        # Another browser: a guest with nothing, until it signs in.
        open_page(other, "/account")
        assert other.locator("#account-link").inner_text() == "Sign in"
        other.fill("#login-name", "hekla")
        other.fill("#login-password", "wrong horse")
        other.click("#login-go")
        other.wait_for_function("() => document.querySelector('#login-error').textContent")
        assert "do not match" in other.locator("#login-error").inner_text()
        other.fill("#login-password", "correct horse")
        other.click("#login-go")
        other.wait_for_selector("#signed:not([hidden])")
        assert other.locator("#sessions tbody tr").count() == 2
        assert other.locator("#sessions tr.current").count() == 1
        assert seen(other) == mine  # the same history and rating
        other.goto("/")
        other.wait_for_selector(IDLE)
        assert other.evaluate("document.body.dataset.game") == game  # the same game, resumed

        # Signing out everywhere else, from the second browser: the first is a guest now.
        open_page(other, "/account")
        other.click("#end-others")
        other.wait_for_function("() => document.querySelector('#sessions-said').textContent")
        assert other.locator("#sessions tbody tr").count() == 1
        open_page(page, "/account")
        assert page.locator("#guest").is_visible()
        assert seen(page)["games"] == []  # the browser's own guest, not the account

        # Signing out: the second browser is its own guest again.
        open_page(other, "/account")
        other.click("#logout")
        other.wait_for_selector("#guest:not([hidden])")
        assert other.locator("#account-link").inner_text() == "Sign in"
        assert seen(other)["games"] == []
        assert not errors and not other_errors, errors + other_errors
    finally:
        home.close()
        away.close()
