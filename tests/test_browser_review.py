"""Review, history and statistics (issue 12) in a real Chromium against a real
``lockup serve``: finish a game, open its review from the game-end dialog, let the
analysis run (its progress on screen), step through the game with the arrow keys, see a
costly play marked on a card and the values of each card, then the history (with an
uploaded record from elsewhere) and the statistics.

Screenshots go to ``$LOCKUP_SCREENSHOTS`` if set, else to a pytest temporary directory;
their paths are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import CHROMIUM, IDLE, Server, play_until

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

sync_api = pytest.importorskip("playwright.sync_api")

FIXTURE = Path(__file__).parent / "fixtures" / "won-21-20-19-18.json"
PREFS = (
    "localStorage.setItem('lockup.speed', 'instant'); localStorage.setItem('lockup.guide', 'seen');"
)
FLAGS = (
    "--bot-delay", "0", "--bot-jitter", "0",
    "--new-games-per-address", "0", "--new-games-per-player", "0",
    "--analysis-iterations", "40",
)  # fmt: skip
SIZES = {"wide": (1366, 657), "phone": (390, 844)}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("review") / "games.sqlite", None, *FLAGS)
    srv.start()
    yield srv
    srv.stop()


def new_page(browser: Any, url: str, locale: str = "en-US") -> tuple[Any, Any, list[str]]:
    """A fresh player (a new cookie) at the wide size; the page's script errors kept."""
    ctx = browser.new_context(
        base_url=url,
        locale=locale,
        viewport={"width": 1366, "height": 657},
        reduced_motion="reduce",
    )
    ctx.add_init_script(PREFS)
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, errors


def shoot(page: Any, shots: Path, name: str, full: bool = False) -> None:
    """A screenshot at each size (the page stays at the wide size afterwards)."""
    for size, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.evaluate("() => window.scrollTo(0, 0)")
        page.wait_for_timeout(150)
        path = shots / f"{name}-{size}.png"
        page.screenshot(path=str(path), full_page=full)
        print(f"screenshot: {path}")
    page.set_viewport_size({"width": 1366, "height": 657})


def wait_analysis(page: Any, timeout: float = 300) -> list[str]:
    """Wait until the page's analysis is done for every hand it shows; the statuses and
    progress texts seen."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, shown, text = page.evaluate(
            "() => [document.body.dataset.analysis || '', !document.querySelector('#progress-box').hidden,"
            " document.querySelector('#progress-text').textContent]"
        )
        if status in ("queued", "running"):
            assert shown, "the analysis runs, its progress is not shown"
            seen.append(f"{status} {text}")
        elif status:
            seen.append(status)
        if status == "done" and page.evaluate(
            "() => document.body.dataset.analysedHands === String(document.querySelectorAll('#jump optgroup').length)"
            " && document.querySelector('#progress-box').hidden"
        ):
            return seen
        assert status != "failed", seen
        time.sleep(0.25)
    raise AssertionError(f"the analysis did not finish: {seen[-5:]}")


def step(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.step"))


def test_finish_a_game_review_it_step_by_step_then_history_and_statistics(
    browser: Any, server: Server, shots: Path
) -> None:
    ctx, page, errors = new_page(browser, server.url)
    page.goto("/")
    page.wait_for_selector(IDLE)
    # The table's top bar leads to the history and the statistics.
    assert page.locator("#btn-history").get_attribute("href") == "/history"
    assert page.locator("#btn-stats").get_attribute("href") == "/stats"

    # A new game to 10 against random players, finished by clicking random legal cards.
    page.locator("#btn-new").click()
    page.locator("#opt-target").select_option("10")
    page.locator("#opt-level").select_option("random")
    old = page.evaluate("document.body.dataset.game")
    page.locator("#new-start").click()
    page.wait_for_function("(g) => document.body.dataset.game !== g", arg=old)
    game = page.evaluate("document.body.dataset.game")
    rng = random.Random(12)
    summaries = 0

    def done(state: str) -> bool:
        nonlocal summaries
        if state == "summary":
            summaries += 1
            # After each hand, the summary offers the review of the game so far.
            link = page.locator("#dlg-summary a.review")
            assert link.is_visible() and link.get_attribute("href") == f"/review/{game}"
            if summaries == 1:
                check_review_so_far()
                shoot(page, shots, "table-summary")
        return state == "over"

    def check_review_so_far() -> None:
        """The review of a game under way (in another tab): its finished hand only, with
        only the player's own cards; the others' are counted, not shown."""
        tab = ctx.new_page()
        tab.goto(f"/review/{game}")
        tab.wait_for_selector("body[data-ready='true']")
        assert tab.locator("#title").inner_text() == "Review of the hands played so far"
        assert tab.locator("#jump optgroup").count() == 1
        assert tab.locator(".rv-seat .rv-held").count() == 0
        assert tab.locator("#my-hand .rv-card").count() == 13
        assert tab.locator("#all-hands-box").is_hidden()
        tab.close()

    play_until(page, rng, done, limit=400)
    assert summaries >= 1
    review = page.locator("#dlg-over a.review")
    assert review.get_attribute("href") == f"/review/{game}"
    shoot(page, shots, "table-over")

    # The review: opened from the game-end dialog; the analysis starts by itself.
    review.click()
    page.wait_for_url(f"**/review/{game}")
    page.wait_for_selector("body[data-ready='true']")
    assert page.locator("#title").inner_text() == "Review of the game"
    seen = wait_analysis(page)
    print("analysis:", seen)
    page.wait_for_selector("#analysis-body:not([hidden])")
    assert page.locator("#progress-box").is_hidden()
    assert page.locator("#accuracy-game").inner_text().endswith("%")
    assert page.locator("#chart svg.chart").count() == 1
    assert page.locator("#hands tbody tr").count() >= 2
    # After the game, all four hands are shown.
    assert page.locator(".rv-seat .rv-held").count() == 3
    assert page.locator("#my-hand .rv-card").count() == 13

    # Step with the arrow keys: a move at a time, the cards of the trick on the table.
    page.locator("body").focus()
    assert step(page) == 0
    for n in range(1, 6):
        page.keyboard.press("ArrowRight")
        assert step(page) == n
    assert page.locator("#trick li").count() >= 1
    page.keyboard.press("ArrowLeft")
    assert step(page) == 4
    page.keyboard.press("PageDown")  # to the end of a trick: its winner lit
    assert page.locator("#trick li.winner").count() == 1
    assert re.search(r"wins? the trick", page.locator("#position").inner_text())
    page.keyboard.press("End")
    last = step(page)
    page.keyboard.press("Home")
    assert step(page) == 0 and last > 50

    # A costly play: marked on the card played, in words for screen readers too.
    mark = None
    for h in range(page.locator("#hands tbody tr").count()):
        page.locator(f"#hands button[data-hand='{h}']").click()
        buttons = page.locator("#marks button[data-decision]")
        if buttons.count():
            buttons.first.click()
            mark = page.locator("#trick .rv-card[data-mark]")
            break
    assert mark is not None, "no costly play in the whole game"
    assert mark.count() == 1
    kind = mark.get_attribute("data-mark")
    assert kind in ("inaccuracy", "mistake", "blunder")
    assert kind in (mark.get_attribute("aria-label") or "")
    assert mark.locator(".mark-badge").is_visible()
    assert page.locator("#decision .verdict").get_attribute("data-mark") == kind
    shoot(page, shots, "review-mark")
    # The player's turn: each legal card with its value, the best lit. Found by stepping
    # from the start (the step before a marked card is another one of the player's own
    # when the player won the trick before with its last card and now leads).
    page.keyboard.press("Home")
    for _ in range(last):
        if page.locator("#my-hand .value").count() >= 2:
            break
        page.keyboard.press("ArrowRight")
    assert page.locator("#my-hand .value").count() >= 2
    assert page.locator("#my-hand .value.best").count() == 1
    assert page.locator("#decision table.values tbody tr").count() >= 2
    shoot(page, shots, "review-values")

    # The history: this game, opening its review and its record.
    page.locator("a[href='/history']").first.click()
    page.wait_for_selector("body[data-ready='true']")
    row = page.locator(f"#games tr[data-game='{game}']")
    assert row.count() == 1
    assert row.locator(f"a[href='/review/{game}']").count() == 1
    assert row.locator(f"a[href='/api/games/{game}/record']").count() == 1
    assert "analysed" in row.inner_text()
    rec = page.request.get(f"/api/games/{game}/record")
    assert rec.ok and rec.json()["format"] == "lockup-record/1"

    # Upload a record from elsewhere: a bad file is refused in words, a good one reviewed.
    page.locator("#upload-file").set_input_files(
        files=[
            {"name": "bad.json", "mimeType": "application/json", "buffer": b'{"format": "nope"}'}
        ]
    )
    page.locator("#upload-send").click()
    page.wait_for_function("() => document.querySelector('#upload-error').textContent.length > 0")
    assert "refused" in page.locator("#upload-error").inner_text()
    page.locator("#upload-file").set_input_files(str(FIXTURE))
    page.wait_for_function(
        "() => document.querySelector('#upload-seat').textContent.includes('Vigdís')"
    )
    page.locator("#upload-seat").select_option("2")
    page.locator("#upload-send").click()
    page.wait_for_url("**/review/*")
    page.wait_for_selector("body[data-ready='true']")
    uploaded = page.url.rsplit("/", 1)[1]
    hands = len(json.loads(FIXTURE.read_text())["hands"])
    assert page.locator("#jump optgroup").count() == hands
    # A fresh analysis: its progress is shown while it runs, then its result.
    wait_analysis(page)
    assert page.evaluate("() => document.body.dataset.progressShown") == "true"
    assert page.locator("#hands tbody tr").count() == hands
    page.keyboard.press("End")
    assert "Hand 6 is over" in page.locator("#position").inner_text()

    page.goto("/history")
    page.wait_for_selector("body[data-ready='true']")
    up_row = page.locator(f"#games tr[data-game='{uploaded}']")
    assert "uploaded" in up_row.inner_text()
    assert up_row.locator(f"a[href='/review/{uploaded}']").count() == 1
    shoot(page, shots, "history")

    # Statistics: the finished game counted (not the uploaded one), plots drawn.
    page.locator("a[href='/stats']").first.click()
    page.wait_for_selector("body[data-ready='true']")
    figures = page.locator("#figures").inner_text()
    assert "Games\n1" in figures
    assert page.locator("#by-level").inner_text().count("Random") == 1
    assert page.locator("#plots figure svg.chart").count() == 4
    assert "left out" in page.locator("#left-out").inner_text()
    shoot(page, shots, "stats", full=True)

    # In French too.
    page.locator("#lang-choice").select_option("fr")
    page.wait_for_function("() => document.documentElement.lang === 'fr'")
    assert "Parties" in page.locator("#figures").inner_text()
    page.locator("#lang-choice").select_option("en")
    assert errors == []
    ctx.close()


def test_the_review_of_a_game_with_no_hand_finished_says_so(
    browser: Any, server: Server, shots: Path
) -> None:
    """A player opens the review of their game before its first hand ends: the page says
    there is nothing to review yet, with no script error and no empty board."""
    ctx, page, errors = new_page(browser, server.url)
    page.goto("/")
    page.wait_for_selector(IDLE)
    game = page.evaluate("document.body.dataset.game")
    assert game
    page.goto(f"/review/{game}")
    page.wait_for_selector("body[data-ready='true']")
    error = page.locator("#load-error")
    assert error.is_visible()
    assert error.text_content() == (
        "No hand of this game is finished yet: there is nothing to review."
    )
    assert page.locator("#review").is_hidden()
    shoot(page, shots, "review-nothing-yet")
    # In the reader's language, told again when it changes.
    page.select_option("#lang-choice", "fr")
    page.wait_for_function(
        "() => document.querySelector('#load-error').textContent.startsWith('Aucune main')"
    )
    assert error.text_content() == "Aucune main de cette partie n’est encore finie : rien à revoir."
    assert errors == []
    ctx.close()
