"""The page in Icelandic, and the reactions drawn without an emoji font (issue 22).

A language choice (English, Français, Íslenska, each named in its own language) replaces
the one French button: Íslenska shows the table, a dialog, refusals (seats named by the
table's names) and plurals by ``Intl.PluralRules("is")`` in Icelandic, and the choice
survives a reload; a browser whose language is Icelandic opens in Icelandic. The six
quick reactions are SVG pictures of their own, on the buttons and in the seat's bubble.

Screenshots (1366×657 and 390×844) go to ``$LOCKUP_SCREENSHOTS`` if set, else to a
pytest temporary directory; their paths are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import CHROMIUM, TEST_FLAGS, Server, find_illegal_turn

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

sync_api = pytest.importorskip("playwright.sync_api")

PREFS = (
    "localStorage.setItem('lockup.guide', 'seen'); localStorage.setItem('lockup.speed', 'instant');"
)
SIZES = {"wide": (1366, 657), "phone": (390, 844)}
REACTIONS = ["👍", "👏", "😮", "😂", "😬", "🙏"]

# Buttons and the language choice whose text would overflow their box.
OVERFLOW_JS = """() => [...document.querySelectorAll(
    'button:not([hidden]), a.button, select.lang-choice, summary.button')]
  .filter((b) => b.offsetParent !== null && b.scrollWidth > b.clientWidth + 1)
  .map((b) => (b.id || b.className) + ': ' + b.textContent.trim())"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("language") / "games.sqlite", None, *TEST_FLAGS)
    srv.start()
    yield srv
    srv.stop()


def new_context(browser: Any, server: Server, locale: str = "en-US") -> Any:
    ctx = browser.new_context(
        base_url=server.url,
        locale=locale,
        viewport={"width": SIZES["wide"][0], "height": SIZES["wide"][1]},
        reduced_motion="reduce",
    )
    ctx.add_init_script(PREFS)
    return ctx


def shoot(page: Any, shots: Path, name: str) -> list[str]:
    """Screenshots at both sizes; what overflows its button at either."""
    overflow: list[str] = []
    for size, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(200)
        path = shots / f"language-{name}-{size}.png"
        page.screenshot(path=str(path))
        print(f"screenshot: {path}")
        overflow += [f"{size}: {x}" for x in page.evaluate(OVERFLOW_JS)]
    page.set_viewport_size({"width": SIZES["wide"][0], "height": SIZES["wide"][1]})
    return overflow


def test_icelandic_table_dialog_plurals_refusal_and_reload(
    browser: Any, server: Server, shots: Path
) -> None:
    ctx = new_context(browser, server)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto("/")
    page.wait_for_selector('body[data-connected="true"]')
    page.wait_for_selector("#hand button.card")
    choice = page.locator("#lang-choice")
    # Each language named in its own language.
    options = choice.locator("option").evaluate_all(
        "(os) => os.map((o) => [o.value, o.lang, o.textContent])"
    )
    assert options == [["en", "en", "English"], ["fr", "fr", "Français"], ["is", "is", "Íslenska"]]
    assert choice.input_value() == "en"

    choice.select_option("is")
    page.wait_for_selector("html[lang='is']")
    # The table.
    assert page.locator("#btn-new").inner_text() == "Nýr leikur"
    assert page.locator("#btn-friends").inner_text() == "Spila með vinum"
    assert page.locator("#btn-settings").inner_text() == "Stillingar"
    assert page.locator("#lang-choice").get_attribute("aria-label") == "Tungumál"
    page.wait_for_function(
        "() => /slag(ur|ir)/.test(document.querySelector('#seat-left').textContent)"
    )
    left = page.locator("#seat-left").inner_text()
    assert "Þóra" in left, left
    hand = page.locator("#hand").get_attribute("aria-label") or ""
    assert hand.startswith("Spilin þín"), hand
    labels = page.locator("#hand button.card").evaluate_all(
        "(bs) => bs.map((b) => b.getAttribute('aria-label'))"
    )
    suits = ("Spaða", "Hjarta", "Tígul", "Lauf")
    assert all(x and x.startswith(suits) for x in labels), labels
    # Plurals by Intl.PluralRules("is"): 1, 21, 31 take the singular, 11 does not.
    plurals = page.evaluate(
        """async () => { const i = await import('/static/js/i18n.js');
        return [1, 2, 11, 21].map((n) => i.t('seat.tricksShort', {n})); }"""
    )
    assert plurals == ["1 slagur", "2 slagir", "11 slagir", "21 slagur"]
    overflow = shoot(page, shots, "table-is")

    # A dialog.
    page.locator("#btn-new").click()
    page.wait_for_selector("#dlg-new[open]")
    assert page.locator("#new-title").inner_text() == "Nýr leikur"
    assert "Undanþága mannspila" in page.locator("#dlg-new").inner_text()
    assert page.locator("#new-start").inner_text() == "Gefa"
    overflow += shoot(page, shots, "new-game-is")
    page.locator("#new-cancel").click()
    page.locator("#btn-settings").click()
    page.wait_for_selector("#dlg-settings[open]")
    assert page.locator("#settings-title").inner_text() == "Stillingar"
    assert page.locator("#opt-lang").input_value() == "is"
    page.locator("#settings-close").click()
    assert overflow == [], overflow

    # A refusal, in Icelandic.
    card = find_illegal_turn(page, random.Random(4))
    page.locator(f'#hand button.card[data-card="{card}"]').click()
    page.wait_for_function(
        "() => { const m = document.querySelector('#message'); return !m.hidden && m.textContent; }"
    )
    message = page.locator("#message").inner_text()
    assert message.startswith(("Þú átt", "Þú mátt", "Þú ert")), message

    # The choice survives a reload, and the other pages follow it.
    page.reload()
    page.wait_for_selector("html[lang='is']")
    page.wait_for_selector('body[data-connected="true"]')
    assert page.locator("#btn-new").inner_text() == "Nýr leikur"
    assert page.locator("#lang-choice").input_value() == "is"
    page.goto("/rules")
    page.wait_for_selector("article[data-lang='is'] h1:visible")
    assert page.locator("article[data-lang='is'] h1").inner_text() == "Reglur Lockup"
    assert page.locator("article[data-lang='en']").is_hidden()
    assert shoot(page, shots, "rules-is") == []
    page.goto("/help")
    page.wait_for_selector("article[data-lang='is'] h1:visible")
    page.goto("/stats")
    page.wait_for_selector("html[lang='is']")
    assert page.locator("#lang-choice").input_value() == "is"
    # Back to English from another page.
    page.locator("#lang-choice").select_option("en")
    page.wait_for_selector("html[lang='en']")
    assert page.evaluate("localStorage.getItem('lockup.lang')") == "en"
    assert errors == []
    ctx.close()


def test_an_icelandic_browser_opens_in_icelandic(browser: Any, server: Server) -> None:
    ctx = new_context(browser, server, locale="is-IS")
    page = ctx.new_page()
    page.goto("/")
    page.wait_for_selector("html[lang='is']")
    assert page.locator("#btn-new").inner_text() == "Nýr leikur"
    assert page.locator("#lang-choice").input_value() == "is"
    ctx.close()


def test_refusals_name_the_tables_players_in_every_language(browser: Any, server: Server) -> None:
    """An error frame that names a seat ("not-your-turn") is worded with the table's
    names, as the status line is, never a compass point, in all three languages."""
    ctx = new_context(browser, server)
    page = ctx.new_page()
    page.goto("/")
    page.wait_for_selector('body[data-connected="true"]')
    page.wait_for_selector("#hand button.card")
    js = """async (lang) => {
      const i18n = await import('/static/js/i18n.js');
      const text = await import('/static/js/text.js');
      await text.refusalsLoaded;
      await i18n.setLanguage(lang, { save: false });
      const s = { seat: 0, players: ['You', 'Þóra', 'Leifur', 'Vigdís'], middle: [] };
      const f = (code, params) => text.refusalText(s, { type: 'error', code, rule: 'R4', reason: '', params, version: 1 });
      return [f('not-your-turn', { seat: 1 }), f('discard-due', { seat: 3 }), f('wrong-discard-seat', { seat: 2, other: 1 })];
    }"""
    words = {lang: page.evaluate(js, lang) for lang in ("en", "fr", "is")}
    assert words["en"][0] == "It is not your turn: Þóra plays now."
    assert words["fr"][0] == "Ce n'est pas votre tour : c'est à Þóra de jouer."
    assert words["is"][0] == "Þú átt ekki leik: Þóra á leik núna."
    assert words["is"][1] == "Fyrst verður Vigdís að missa spil í lásinn."
    compass = ("South", "West", "North", "East", "Sud", "Ouest", "Nord", "Est")
    compass += ("Suður", "Vestur", "Norður", "Austur")
    for lang, texts in words.items():
        for text in texts:
            assert not any(c in text.split() or f"{c}." in text for c in compass), (lang, text)
    ctx.close()


def test_reactions_are_drawn_as_svg(browser: Any, server: Server, shots: Path) -> None:
    """No emoji font is needed: each reaction button and the bubble at the seat hold an
    SVG picture of nonzero size; the protocol still carries the emoji."""
    ctx = new_context(browser, server)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto("/")
    page.wait_for_selector('body[data-connected="true"]')
    page.click("#btn-friends")
    page.wait_for_selector("#dlg-room-new[open]")
    page.fill("#room-name", "Ann")
    page.select_option("#room-target", "10")
    for seat in (1, 2, 3):
        page.select_option(f"#room-level-{seat}", "random")
    page.click("#room-create")
    page.wait_for_selector("#room-start")
    page.click("#room-start")
    page.wait_for_function(
        "() => document.body.dataset.room === 'playing' && document.body.dataset.game !== ''"
    )
    buttons = page.locator(".reactions button.react")
    assert buttons.evaluate_all("(bs) => bs.map((b) => b.dataset.reaction)") == REACTIONS
    sizes = buttons.evaluate_all(
        """(bs) => bs.map((b) => { const s = b.querySelector('svg.reaction-icon');
          const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
          return [b.getAttribute('aria-label'), s ? s.childElementCount : 0, r.width, r.height,
                  b.textContent.trim()]; })"""
    )
    for label, parts, w, h, text in sizes:
        assert label and parts > 0 and w >= 12 and h >= 12 and text == "", (label, parts, w, h)
    for i, r in enumerate(REACTIONS):
        if i >= 5:  # the server takes 5 at once, then one every 3 seconds
            page.wait_for_timeout(3200)
        page.click(f'.reactions button[data-reaction="{r}"]')
        # The seat's marks are redrawn as the game goes on: size the SVG in the page.
        size = page.wait_for_function(
            """(r) => { const s = [...document.querySelectorAll('#seat-bottom .reaction-bubble')]
                .find((b) => b.dataset.reaction === r)?.querySelector('svg.reaction-icon');
              const box = s && s.getBoundingClientRect();
              return box && box.width > 0 ? [box.width, box.height] : null; }""",
            arg=r,
        ).json_value()
        assert size[0] >= 12 and size[1] >= 12, (r, size)
        if r == "😂":
            shoot(page, shots, "reactions")
    page.wait_for_timeout(300)
    assert errors == []
    ctx.close()
