"""Labels that say what is so, and pages that fit, in English, French and Icelandic: Debian's
Chromium against a real ``lockup serve`` (random computers), at 1366×657 and on a 390×844
phone.

- "Play people" asks a person with no name for one before any request (no failed request
  in the console); the history then lists the quick table's game, said to be quick play
  (not "with friends"), and not the game the start page dealt and nobody played; its
  score and rating columns have two words in every language ("Stig", "Einkunn").
- The rating chart's value axis has a labelled tick at or below its lowest point (a single
  rating of -3.3 too), and its labels are all different.
- At game over the room's panel names the computers that played the empty seats.
- While a person is gone, the prompt says so (and what happens), not "Bo is playing…".
- The chat field's words fit it; the language choice is whole on a phone; a message of
  the table covers no card of the trick nor the chat button; behind the join form the
  room shows its own people, not a table of placeholder computers.

Screenshots go to ``$LOCKUP_SCREENSHOTS`` (``/tmp/shots-labels`` when run for this) or a
temporary directory; their paths are printed (``pytest -s``).
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
from browser_helpers import CHROMIUM, Server
from test_browser_rooms import play

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

sync_api = pytest.importorskip("playwright.sync_api")

WIDE = (1366, 657)
PHONE = (390, 844)
SMALL = (1024, 600)
"""Pages that are not measured draw a smaller window (less to paint on a busy machine)."""
LANGS = ("en", "fr", "is")
LOCALES = {"en": "en-US", "fr": "fr-FR", "is": "is-IS"}
WORDS = {
    lang: json.loads(
        (Path(__file__).parent.parent / f"lockup/web/static/i18n/{lang}.json").read_text()
    )
    for lang in LANGS
}
PLACEHOLDERS = ("Þóra", "Leifur", "Vigdís")
"""The computers' names the page shows before it knows who sits where."""
PREFS = (
    "localStorage.setItem('lockup.guide', 'seen'); localStorage.setItem('lockup.speed', 'instant');"
)
PROXIED = ("--proxy-headers", "--forwarded-allow-ips", "127.0.0.1")
ADDRESSES = (f"198.51.100.{i}" for i in range(1, 255))
"""Where each person's browser is (X-Forwarded-For): quick play seats one person of an
address at a table."""

PLAYING = "() => document.body.dataset.room === 'playing' && document.body.dataset.game !== ''"


def words(lang: str, key: str, **params: Any) -> str:
    """A catalogue's words with their parameters filled in."""
    text: str = WORDS[lang][key]
    for k, v in params.items():
        text = text.replace(f"{{{k}}}", str(v))
    return text


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    flags = ("--bot-delay", "0", "--bot-jitter", "0", "--new-games-per-address", "0")
    srv = Server(
        tmp_path_factory.mktemp("labels") / "games.sqlite",
        None,
        *flags,
        "--quick-wait",
        "3",
        *PROXIED,
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def paced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Computers that take their time: a game goes on while its person is away and back."""
    flags = ("--bot-delay", "0.3", "--bot-jitter", "0", "--new-games-per-address", "0")
    srv = Server(tmp_path_factory.mktemp("paced") / "games.sqlite", None, *flags, *PROXIED)
    srv.start()
    yield srv
    srv.stop()


class Visitor:
    """A browser context of its own (cookie, address, language): its page and every error
    its pages logged (a script's, or the console's: a failed request is one)."""

    def __init__(
        self,
        browser: Any,
        server: Server,
        lang: str,
        size: tuple[int, int] = SMALL,
        name: str | None = None,
    ) -> None:
        self.lang = lang
        self.name = name or ""
        self.server = server
        self.ctx = browser.new_context(
            base_url=server.url,
            locale=LOCALES[lang],
            viewport={"width": size[0], "height": size[1]},
            reduced_motion="reduce",
        )
        self.ctx.add_init_script(PREFS + f"localStorage.setItem('lockup.lang', '{lang}');")
        self.ctx.set_extra_http_headers({"X-Forwarded-For": next(ADDRESSES)})
        if name:
            r = self.ctx.request.post(f"{server.url}/api/profile", data={"name": name})
            assert r.ok, r.text()
        self.errors: list[str] = []
        self.clicked: tuple[str, str] | None = None
        self.page = self.new_page()

    def new_page(self) -> Any:
        page = self.ctx.new_page()
        page.set_default_timeout(20_000)
        page.on("pageerror", lambda e: self.errors.append(f"page: {e}"))
        page.on(
            "console",
            lambda m: self.errors.append(f"console: {m.text}") if m.type == "error" else None,
        )
        return page

    def open_room(self, **options: Any) -> str:
        """Make a room ("Play with friends": target 10, random computers): its page's path."""
        body = {"name": self.name, "target": 10, "levels": ["random"] * 3, **options}
        r = self.ctx.request.post(f"{self.server.url}/api/rooms", data=body)
        assert r.ok, r.text()
        return "/room/" + str(r.json()["invite"]).split("/room/", 1)[1]

    def start_alone(self, path: str) -> None:
        """Open the room as its host and start its game (computers in the other seats)."""
        self.page.goto(path)
        # Start is sent over the page's WebSocket: once it is open.
        self.page.wait_for_selector("body[data-connected='true'] #room-start")
        self.page.click("#room-start")
        self.page.wait_for_function(PLAYING)
        self.page.wait_for_selector("#hand button.card")

    def close(self) -> None:
        self.ctx.close()


def shoot(page: Any, shots: Path, name: str, sizes: tuple[tuple[int, int], ...]) -> None:
    """Screenshots of the page at each size (its viewport is left at the last)."""
    for w, h in sizes:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(250)
        path = shots / f"labels-{name}-{w}x{h}.png"
        page.screenshot(path=str(path))
        print(f"screenshot: {path}")


def overlaps(a: list[float] | None, b: list[float] | None) -> bool:
    """Whether two boxes ``[left, top, right, bottom]`` share more than a hairline."""
    if a is None or b is None:
        return False
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


BOXES = """() => {
  const box = (e) => {
    if (!e || e.hidden || !e.getClientRects().length) return null;
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  return {
    message: box(document.querySelector('#message')),
    text: document.querySelector('#message')?.textContent || '',
    chat: box(document.querySelector('#chat-jump')),
    trick: [...document.querySelectorAll('#middle li.played')].map(box).filter(Boolean),
  };
}"""

LANGUAGE_CHOICE = """() => {
  const s = document.querySelector('#lang-choice');
  const r = s.getBoundingClientRect();
  const cs = getComputedStyle(s);
  const c = document.createElement('canvas').getContext('2d');
  c.font = cs.font;
  const text = s.options[s.selectedIndex].text;
  const hit = (x) => {
    const e = document.elementFromPoint(x, r.top + r.height / 2);
    return !!e && (e === s || s.contains(e));
  };
  return {
    text,
    need: c.measureText(text).width + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight),
    have: r.width,
    inView: r.width > 0 && r.left >= 0 && r.right <= innerWidth,
    ends: hit(r.left + 2) && hit(r.right - 2),
    inMenu: !!s.closest('.more-menu'),
  };
}"""

PLACEHOLDER_FIT = """() => {
  const input = document.querySelector('#chat-input');
  const cs = getComputedStyle(input);
  const c = document.createElement('canvas').getContext('2d');
  c.font = cs.font;
  return {
    text: input.placeholder,
    need: c.measureText(input.placeholder).width,
    have: input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
  };
}"""


# ------------------------------------------------------------------ the name, the history


def test_play_people_asks_the_name_first_and_the_history_says_quick_play(
    browser: Any, server: Server, shots: Path
) -> None:
    """Lea opens the start page (a game is dealt), presses "Play people" with no name: the
    form asks it before any request, none fails; at the quick table's game, her history
    lists that game alone, said to be quick play, with a score and a rating column."""
    lea = Visitor(browser, server, "is", WIDE)
    try:
        page = lea.page
        page.goto("/")
        page.wait_for_selector("#hand button.card")  # the start page's game, dealt
        page.click("#btn-quick")
        page.wait_for_selector("#dlg-quick-name[open]")
        page.wait_for_timeout(300)
        assert lea.errors == [], lea.errors  # no 400 name-needed before the form
        page.fill("#quick-name", "Lea")
        page.click("#quick-name-go")
        page.wait_for_url(re.compile(r"/room/[\w-]+\?invite="))
        page.wait_for_function(PLAYING, timeout=30_000)
        page.goto("/history")
        page.wait_for_selector("body[data-ready='true']")
        rows = page.locator("#games tbody tr")
        assert rows.count() == 1, page.locator("#games tbody").inner_text()
        badge = page.locator("#games tbody tr .badge[data-kind]")
        assert badge.get_attribute("data-kind") == "quick"
        assert badge.text_content() == words("is", "history.quick") == "hraðleikur"
        shoot(page, shots, "history-is", (WIDE, PHONE))
        for lang in LANGS:
            page.goto(f"/history?lang={lang}")
            page.wait_for_selector("body[data-ready='true']")
            heads = [
                (h.get_attribute("data-i18n"), (h.text_content() or "").strip())
                for h in page.locator("#games thead th[data-i18n]").all()
            ]
            texts = [text for _, text in heads]
            assert len(set(texts)) == len(texts), (lang, heads)
            found = dict(heads)
            assert found["history.score"] == words(lang, "history.score"), (lang, heads)
            assert found["history.rating"] == words(lang, "history.rating"), (lang, heads)
            badge = page.locator("#games tbody tr .badge[data-kind]")
            assert badge.text_content() == words(lang, "history.quick"), lang
        assert found["history.score"] == "Stig" and found["history.rating"] == "Einkunn"
        assert lea.errors == [], lea.errors
    finally:
        lea.close()


def test_the_history_says_left_for_a_game_abandoned_and_names_the_opponents(
    browser: Any, server: Server, shots: Path
) -> None:
    """Lea's friends' room game, as the history would list it had she left it and the
    computer that took her seat won it (with Tumi, a person, and two computers): the
    result says she left the game, never "won", beside the rating's "left the game: ranked
    last"; the opponents are Tumi by name and the computers by level, in each language."""
    lea = Visitor(browser, server, "en", WIDE, name="Lea")
    try:
        lea.start_alone(lea.open_room())
        page = lea.page
        game = page.evaluate("document.body.dataset.game")

        def history(route: Any) -> None:
            found = route.fetch()
            body = found.json()
            for g in body["games"]:
                if g["game"] == game:
                    g["finished"] = g["date"]
                    g["players"][1] = "Tumi"
                    g["seats"][1] = {"kind": "human", "level": None}
                    g["result"] = {"winner": g["seat"], "place": 1, "totals": [21, 12, 9, 3]}
                    g["takeover"] = True
                    g["abandoned"] = True
            route.fulfill(response=found, json=body)

        def ratings(route: Any) -> None:
            found = route.fetch()
            body = found.json()
            body["history"] = [
                {
                    "game": game,
                    "date": "2026-12-06T08:00:00+00:00",
                    "seat": 0,
                    "rated": True,
                    "sat_out": False,
                    "abandoned": True,
                    "before": 0.0,
                    "after": -1.3,
                    "change": -1.3,
                    "mu": 21.0,
                    "sigma": 7.0,
                }
            ]
            route.fulfill(response=found, json=body)

        page.route("**/api/history", history)
        page.route("**/api/ratings/me", ratings)
        for lang in LANGS:
            page.goto(f"/history?lang={lang}")
            page.wait_for_selector("body[data-ready='true']")
            row = page.locator(f"#games tr[data-game='{game}']")
            result = (row.locator("td").nth(3).text_content() or "").strip()
            assert result == words(lang, "history.left"), (lang, result)
            assert row.locator(".badge.won").count() == 0, lang
            assert row.locator("[data-abandoned='true']").text_content() == words(
                lang, "history.abandoned"
            )
            opponents = (row.locator("td").nth(2).text_content() or "").strip()
            level = words(lang, "level.random")
            assert opponents == f"Tumi · {level}\u00a0×2", (lang, opponents)
            shoot(page, shots, f"history-left-{lang}", (WIDE, PHONE))
            page.set_viewport_size({"width": WIDE[0], "height": WIDE[1]})
        assert lea.errors == [], lea.errors
    finally:
        lea.close()


def test_the_rating_chart_has_a_labelled_tick_below_every_point(
    browser: Any, server: Server
) -> None:
    """The chart the history draws (its module, in the page): every point lies between
    the lowest and the highest labelled tick, and no two labels are the same."""
    page = browser.new_page()
    try:
        page.goto(f"{server.url}/history")
        page.wait_for_selector("body[data-ready='true']")
        charts = page.evaluate(
            """async () => {
          const { lineChart } = await import('/static/js/charts.js');
          const out = [];
          for (const values of [[-3.3], [-0.4, 0.6], [2.5, -6.1, -3.3], [0.4], [7.2, 12.9]]) {
            const svg = lineChart({
              label: 'rating', xLabels: values.map((_, i) => `#${i + 1}`),
              series: [{ name: 'rating', cls: 's0', values }], connect: true, minTop: 1,
              formatY: (v) => String(Math.round(v)), width: 560, height: 200,
            });
            const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
            const ticks = [...doc.querySelectorAll('g.axis.y text')].map(
              (t) => [t.textContent, Number(t.getAttribute('y'))]);
            const dots = [...doc.querySelectorAll('circle')].map((c) => Number(c.getAttribute('cy')));
            out.push({ values, ticks, dots });
          }
          return out;
        }"""
        )
        for chart in charts:
            ys = [y for _, y in chart["ticks"]]
            labels = [label for label, _ in chart["ticks"]]
            assert len(set(labels)) == len(labels), chart
            top, bottom = min(ys), max(ys)  # the SVG's y grows downwards
            for cy in chart["dots"]:
                assert top - 0.5 <= cy <= bottom + 0.5, chart
        assert [label for label, _ in charts[0]["ticks"]] == ["-4", "-2", "0", "2"]
    finally:
        page.close()


# ------------------------------------------------------------------ game over, the prompt


def test_at_game_over_the_panel_names_the_computers_that_played(
    browser: Any, server: Server, shots: Path
) -> None:
    lea = Visitor(browser, server, "is", WIDE, name="Lea")
    try:
        lea.start_alone(lea.open_room())
        play([lea], random.Random(42))  # type: ignore[list-item]
        page = lea.page
        page.wait_for_selector("#dlg-over[open]")
        page.wait_for_selector("body[data-room='over']")
        shoot(page, shots, "over-is", (WIDE, PHONE))
        page.set_viewport_size({"width": WIDE[0], "height": WIDE[1]})
        page.click("#dlg-over button.close")
        names = {
            int(th.get_attribute("data-seat") or -1): (th.text_content() or "").strip()
            for th in page.locator("#scores thead th[data-seat]").all()
        }
        computer = words("is", "room.computer", level=words("is", "level.random"))
        empty = page.locator("#room-seats li[data-kind='empty']")
        assert empty.count() == 3
        for li in empty.all():
            seat = int(li.get_attribute("data-seat") or -1)
            text = li.locator(".seat-name").text_content()
            assert names[seat] in PLACEHOLDERS, names
            assert text == f"{names[seat]} · {computer}", text
        shoot(page, shots, "over-panel-is", (WIDE,))
        assert lea.errors == [], lea.errors
    finally:
        lea.close()


def test_while_a_person_is_gone_the_prompt_says_so(
    browser: Any, server: Server, shots: Path
) -> None:
    """Bo closes his page during the game: when the table waits for his card, Lea's prompt
    says he left and a computer plays for him unless he comes back (beside the seat's
    countdown), not "Bo is playing…", in each language."""
    lea = Visitor(browser, server, "en", WIDE, name="Lea")
    bo = Visitor(browser, server, "en", SMALL, name="Bo")
    try:
        path = lea.open_room(grace=120)
        lea.page.goto(path)
        lea.page.wait_for_selector("body[data-connected='true'] #room-start")
        bo.page.goto(path)
        bo.page.wait_for_selector("#dlg-room-join[open]")
        bo.page.click("#join-submit")
        bo.page.wait_for_selector("#room-seats li.me")
        seat = int(bo.page.get_attribute("#room-seats li.me", "data-seat") or -1)
        lea.page.click("#room-start")
        for p in (lea, bo):
            p.page.wait_for_function(PLAYING)
        bo.page.close()
        waiting = (
            "(s) => window.lockup?.view?.turn === s && document.body.dataset.idle === 'true'"
            " && !!document.querySelector(`#room-seats li[data-seat='${s}'] .tag.takeover`)"
        )
        play(
            [lea],  # type: ignore[list-item]
            random.Random(5),
            until=lambda: bool(lea.page.evaluate(waiting, seat)),
            timeout=60,
        )
        for lang in LANGS:
            if lang != "en":
                lea.page.select_option("#lang-choice", lang)
                lea.page.wait_for_function("(l) => document.documentElement.lang === l", arg=lang)
            prompt = lea.page.text_content("#prompt")
            assert prompt != words(lang, "prompt.waiting", name="Bo"), prompt
            assert prompt == words(lang, "prompt.gone", name="Bo"), prompt
            shoot(lea.page, shots, f"gone-{lang}", (WIDE, PHONE))
            lea.page.set_viewport_size({"width": WIDE[0], "height": WIDE[1]})
        assert lea.errors == [], lea.errors
    finally:
        lea.close()
        bo.close()


# ------------------------------------------------------------------ fit


def test_the_chat_field_and_the_language_choice_fit(
    browser: Any, server: Server, shots: Path
) -> None:
    """At 1366×657 the chat field's words are whole; on the phone the language choice is
    whole (in the bar, or at the top of "More"), at a room's table and on the start page."""
    for lang in LANGS:
        lea = Visitor(browser, server, lang, WIDE, name="Lea")
        try:
            page = lea.page
            lea.start_alone(lea.open_room())
            page.wait_for_selector("#chat-input:visible")
            fit = page.evaluate(PLACEHOLDER_FIT)
            assert fit["text"] == words(lang, "room.chatPlaceholder")
            assert fit["need"] <= fit["have"], (lang, fit)
            shoot(page, shots, f"room-{lang}", (WIDE,))
            for where in ("room", "start"):
                if where == "start":
                    page.goto("/")
                    page.wait_for_selector("#hand button.card")
                page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
                page.wait_for_timeout(200)
                choice = page.evaluate(LANGUAGE_CHOICE)
                if choice["inMenu"]:
                    page.click("#more > summary")
                    choice = page.evaluate(LANGUAGE_CHOICE)
                assert choice["inView"] and choice["ends"], (lang, where, choice)
                assert choice["need"] <= choice["have"] + 0.5, (lang, where, choice)
                shoot(page, shots, f"language-{where}-{lang}", (PHONE,))
                if choice["inMenu"]:
                    page.click("#more > summary")
                page.set_viewport_size({"width": WIDE[0], "height": WIDE[1]})
            assert lea.errors == [], lea.errors
        finally:
            lea.close()


def test_a_message_covers_no_card_nor_the_chat_button(
    browser: Any, paced: Server, shots: Path
) -> None:
    """A person back after the grace is told a computer played for them: on the phone and
    at 1366×657 that message covers no card of the trick, and not the chat button."""
    for lang in LANGS:
        lea = Visitor(browser, paced, lang, PHONE, name="Lea")
        try:
            path = lea.open_room(grace=5, target=30)
            lea.start_alone(path)
            lea.page.close()
            time.sleep(7)  # the grace runs out: a computer plays for Lea
            page = lea.page = lea.new_page()
            page.goto(path)
            page.wait_for_selector("#message:not([hidden])", timeout=30_000)
            seen: list[dict[str, Any]] = []
            for size in (PHONE, WIDE):
                page.set_viewport_size({"width": size[0], "height": size[1]})
                for _ in range(8):
                    at = page.evaluate(BOXES)
                    if at["message"] is None:
                        break
                    assert at["text"] == words(lang, "room.backYou"), at
                    seen.append(at)
                    for card in at["trick"]:
                        assert not overlaps(at["message"], card), (lang, size, at)
                    assert not overlaps(at["message"], at["chat"]), (lang, size, at)
                    page.wait_for_timeout(120)
                if size == PHONE:
                    assert seen and seen[0]["chat"], seen  # the chat is out of sight: its button
                shoot(page, shots, f"message-{lang}", (size,))
            assert lea.errors == [], lea.errors
        finally:
            lea.close()


def test_behind_the_join_form_the_room_shows_its_people(
    browser: Any, server: Server, shots: Path
) -> None:
    ann = Visitor(browser, server, "en", SMALL, name="Ann")
    try:
        path = ann.open_room()
        ann.page.goto(path)
        ann.page.wait_for_selector("#room-start")
        for lang in LANGS:
            guest = Visitor(browser, server, lang, PHONE)
            try:
                page = guest.page
                page.goto(path)
                page.wait_for_selector("#dlg-room-join[open]")
                page.wait_for_timeout(200)
                shown = page.evaluate("document.body.innerText")
                for name in PLACEHOLDERS:
                    assert name not in shown, (lang, shown)
                people = page.locator("#room-seats li[data-kind='person'] .seat-name")
                assert people.all_text_contents() == ["Ann"], lang
                assert page.locator("#room-seats li[data-kind='empty']").count() == 3
                assert page.locator("#seat-top").is_hidden()
                wide = page.evaluate(
                    "() => { const d = document.querySelector('#dlg-room-join');"
                    " return d.scrollWidth - d.clientWidth; }"
                )
                assert wide <= 0, f"{lang}: the join form is {wide} px wider than itself"
                shoot(page, shots, f"join-{lang}", (PHONE, WIDE))
                assert guest.errors == [], guest.errors
            finally:
                guest.close()
    finally:
        ann.close()


# ------------------------------------------------------------------ the top bar

BAR_CUT = """() => {
  const header = document.querySelector('header.topbar');
  const out = { cut: [], sizes: {}, inBar: [], inMenu: [] };
  if (!header) return out;
  const W = document.documentElement.clientWidth;
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const label = (e) => e.id || (e.textContent || '').trim() || e.getAttribute('aria-label') || e.tagName;
  const canvas = document.createElement('canvas').getContext('2d');
  const check = (e) => {
    const r = e.getBoundingClientRect();
    const name = label(e);
    if (r.left < -0.5 || r.right > W + 0.5) out.cut.push([name, 'outside the window', r.left, r.right, W]);
    if (e.tagName === 'SELECT') {
      const cs = getComputedStyle(e);
      canvas.font = cs.font;
      const need = canvas.measureText(e.options[e.selectedIndex].text).width
        + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight);
      if (need > r.width + 0.5) out.cut.push([name, 'its words wider than it', need, r.width]);
    } else if (e.scrollWidth > e.clientWidth + 1) {
      out.cut.push([name, 'its words wider than it', e.scrollWidth, e.clientWidth]);
    }
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      const q = p.getBoundingClientRect();
      if (r.left < q.left - 0.5 || r.right > q.right + 0.5)
        out.cut.push([name, 'cut by ' + (p.className || p.tagName), r.left, r.right, q.left, q.right]);
    }
  };
  for (const e of header.querySelectorAll('.brand, nav.actions > *, details.more > summary')) {
    if (!shown(e)) continue;
    check(e);
    if (!e.matches('.brand')) {
      out.inBar.push(label(e));
      const size = getComputedStyle(e).fontSize;
      (out.sizes[size] ||= []).push(label(e));
    }
  }
  for (const box of header.querySelectorAll('nav.actions, header.topbar')) {
    if (box.scrollWidth > box.clientWidth + 1)
      out.cut.push([box.className, 'scrolls sideways', box.scrollWidth, box.clientWidth]);
  }
  const more = header.querySelector('details.more');
  if (more && more.open) {
    for (const e of more.querySelectorAll('.more-menu button, .more-menu a, .more-menu select')) {
      if (!shown(e)) continue;
      check(e);
      const r = e.getBoundingClientRect();
      if (r.top < 0 || r.bottom > innerHeight + 0.5) out.cut.push([label(e), 'below the window', r.bottom]);
      out.inMenu.push(label(e));
    }
  }
  return out;
}"""

BAR_PAGES = ("/", "room", "/lobby", "/history", "/stats", "/leaderboard", "/account")
BAR_PAGES_TOO = ("/rules", "/help", "/no-such-page", "review")


def test_the_top_bar_is_whole_on_every_page(browser: Any, server: Server, shots: Path) -> None:
    """On every page with the top bar, in English, French and Icelandic, at 1366×657 and
    on the phone: no button, link, menu or language choice of the bar is cut (its words
    wider than it, clipped by the bar, or out of the window), the bar never scrolls
    sideways, what it cannot hold is in "More" (whole, in the window, when opened), and
    its controls are all one size (the language choice too)."""
    for lang in LANGS:
        lea = Visitor(browser, server, lang, WIDE, name="Lea")
        try:
            page = lea.page
            room = lea.open_room()
            lea.start_alone(room)
            game = page.evaluate("document.body.dataset.game")
            for where in (*BAR_PAGES, *BAR_PAGES_TOO):
                path = {"room": room, "review": f"/review/{game}"}.get(where, where)
                if where == BAR_PAGES_TOO[0]:
                    # The pages before hold no error; these are here for their bar alone
                    # (the "nothing here" page is a 404, the review of a game under way
                    # has no hand to show).
                    assert lea.errors == [], lea.errors
                page.goto(path)
                if where in ("/", "room"):
                    page.wait_for_selector("#hand button.card")
                page.wait_for_load_state("load")
                for size in (WIDE, PHONE):
                    page.set_viewport_size({"width": size[0], "height": size[1]})
                    page.wait_for_timeout(250)
                    bar = page.evaluate(BAR_CUT)
                    at = (lang, where, size)
                    assert bar["inBar"], at
                    assert bar["cut"] == [], (at, bar)
                    assert len(bar["sizes"]) == 1, (at, bar["sizes"])
                    if page.locator("details.more > summary").count():
                        page.click("details.more > summary")
                        menu = page.evaluate(BAR_CUT)
                        assert menu["cut"] == [], (at, menu)
                        assert "lang-choice" in menu["inBar"] + menu["inMenu"], (at, menu)
                        if where == "/" and lang != "en":
                            shoot(page, shots, f"bar-menu-{lang}", (size,))
                        page.click("details.more > summary")
                        page.wait_for_function("() => !document.querySelector('details.more').open")
                    if where in BAR_PAGES:
                        name = "start" if where == "/" else where.strip("/")
                        shoot(page, shots, f"bar-{name}-{lang}", (size,))
                page.set_viewport_size({"width": WIDE[0], "height": WIDE[1]})
        finally:
            lea.close()
