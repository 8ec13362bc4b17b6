"""Numbers, dates, lists and plurals in the page's language in Debian's Chromium, which has
Icelandic plural rules but no Icelandic number, date or list data (``Intl.NumberFormat("is")``
writes "-3.3", ``Intl.DateTimeFormat("is")`` "Dec 6, 2026, 4:11 AM").

A record uploaded to a real ``lockup serve`` lists a game on /history: in Icelandic its date
reads "6. des. 2026, 04:11" (day, month, year, 24-hour time, as Icelandic writes them), in
French "6 déc. 2026, 04:11", in English "Dec 6, 2026, 4:11 AM"; and the page's own helpers,
run in that browser, write "−3,3", "1,8", "a, b eða c", "eftir 1 stigaleik" and "21 af 4
kominn". Screenshots of /history in Icelandic at 1366×657 and 390×844 go to
``$LOCKUP_SCREENSHOTS`` if set, else to a pytest temporary directory.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_helpers import CHROMIUM, TEST_FLAGS, Server

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

pytest.importorskip("playwright.sync_api")

RECORD = Path(__file__).parent / "fixtures" / "won-21-20-19-18.json"
SIZES = {"wide": (1366, 657), "phone": (390, 844)}
MONTHS = {
    "is": "jan. feb. mar. apr. maí jún. júl. ágú. sep. okt. nóv. des.".split(),
    "fr": "janv. févr. mars avr. mai juin juil. août sept. oct. nov. déc.".split(),
    "en": "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(),
}


def written(lang: str, when: datetime) -> str:
    """A date and time as each language writes it (the test's own truth, not the page's)."""
    month = MONTHS[lang][when.month - 1]
    if lang == "is":
        return f"{when.day}. {month} {when.year}, {when.hour:02}:{when.minute:02}"
    if lang == "fr":
        return f"{when.day} {month} {when.year}, {when.hour:02}:{when.minute:02}"
    hour = when.hour % 12 or 12
    return f"{month} {when.day}, {when.year}, {hour}:{when.minute:02} {'AM' if when.hour < 12 else 'PM'}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("formats") / "games.sqlite", None, *TEST_FLAGS)
    srv.start()
    yield srv
    srv.stop()


def test_history_dates_and_the_page_numbers_in_each_language(
    browser: Any, server: Server, shots: Path
) -> None:
    with httpx.Client(base_url=server.url) as http:
        answer = http.post(
            "/api/uploads?seat=0",
            content=RECORD.read_bytes(),
            headers={"Content-Type": "application/json", "Origin": server.url},
        )
        assert answer.status_code == 200, answer.text
        game = answer.json()["game"]
        games = http.get("/api/history").json()["games"]
        cookies = dict(http.cookies.items())
    entry = next(g for g in games if g["game"] == game)
    when = datetime.fromisoformat(entry["date"]).astimezone(UTC)

    context = browser.new_context(
        base_url=server.url, timezone_id="UTC", viewport={"width": 1366, "height": 657}
    )
    context.add_cookies(
        [{"name": k, "value": v, "domain": "127.0.0.1", "path": "/"} for k, v in cookies.items()]
    )
    page = context.new_page()
    try:
        # The premise: this Chromium has Icelandic plurals and nothing else of Icelandic.
        premise = page.evaluate(
            """() => ['PluralRules', 'NumberFormat', 'DateTimeFormat', 'ListFormat']
              .map((s) => Intl[s].supportedLocalesOf(['is']).length)"""
        )
        print(
            f"Chromium's Intl knows Icelandic for PluralRules, NumberFormat, DateTimeFormat, ListFormat: {premise}"
        )

        for lang in ("is", "fr", "en"):
            page.goto(f"/history?lang={lang}")
            page.wait_for_selector("body[data-ready='true']")
            cell = page.locator(f"#games tr[data-game='{game}'] td").first
            text = cell.inner_text().replace("\u202f", " ").strip()
            assert text.startswith(written(lang, when)), (lang, text, written(lang, when))
            label = (
                page.locator(f"#games tr[data-game='{game}'] a.button.primary").get_attribute(
                    "aria-label"
                )
                or ""
            )
            assert written(lang, when) in label.replace("\u202f", " "), (lang, label)
            if lang == "is":
                for size, (w, h) in SIZES.items():
                    page.set_viewport_size({"width": w, "height": h})
                    page.wait_for_timeout(150)
                    path = shots / f"formats-history-is-{size}.png"
                    page.screenshot(path=str(path), full_page=True)
                    print(f"screenshot: {path}")
                page.set_viewport_size({"width": 1366, "height": 657})

        # The page's own helpers, in this browser, in Icelandic.
        page.goto("/history?lang=is")
        page.wait_for_selector("body[data-ready='true']")
        said = page.evaluate(
            """async () => {
              const i = await import('/static/js/i18n.js');
              return {
                lang: i.language(),
                rating: i.formatNumber(-3.3, 1),
                hint: i.formatNumber(1.8, 2),
                pct: i.formatPercent(87.5),
                list: i.orList(['a', 'b', 'c']),
                yours: i.t('lb.yours', { n: 1, rating: i.formatNumber(-3.3, 1), rank: 1 }),
                yours21: i.t('lb.yours', { n: 21, rating: '1', rank: 1 }),
                yours5: i.t('lb.yours', { n: 5, rating: '1', rank: 1 }),
                chart: i.t('history.ratingChart', { n: 1 }),
                quick1: i.t('quick.status', { n: 1 }),
                quick21: i.t('quick.status', { n: 21 }),
                quick2: i.t('quick.status', { n: 2 }),
                now: i.t('history.ratingNow', { n: 1, rating: '0', rank: 1 }),
              };
            }"""
        )
        assert said["lang"] == "is"
        assert said["rating"] == "−3,3"
        assert said["hint"] == "1,80"
        assert said["pct"] == "87,5%"
        assert said["list"] == "a, b eða c"
        assert said["yours"].endswith("−3,3, sæti 1, eftir 1 stigaleik."), said["yours"]
        assert said["yours21"].endswith("eftir 21 stigaleik."), said["yours21"]
        assert said["yours5"].endswith("eftir 5 stigaleiki."), said["yours5"]
        assert said["chart"].endswith("yfir 1 stigaleik"), said["chart"]
        assert said["quick1"] == "Leitað að spilurum: 1 af 4 kominn"
        assert said["quick21"] == "Leitað að spilurum: 21 af 4 kominn"
        assert said["quick2"] == "Leitað að spilurum: 2 af 4 komnir"
        assert said["now"].endswith("1 stigaleikur)."), said["now"]
    finally:
        context.close()
