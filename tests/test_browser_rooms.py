"""Rooms in the browser (issue 10): friends at one table, each in a browser context of
their own (separate cookies), against a real ``lockup serve`` with random computers.

Each scenario plays a room's game to its end by clicking legal cards. Every WebSocket
frame each page receives is kept and checked against the stored deals (the SQLite file's
``actions``): a seated page's view never holds another seat's card, a spectator's holds
none. Chat, reactions, presence and the computer's takeover after the grace period,
the turn timer's countdown, removal, the lobby and the rematch are driven by clicks.

Screenshots go to ``$LOCKUP_SCREENSHOTS`` if set, else to a pytest temporary directory;
their paths are printed (``pytest -s`` shows them).
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import CHROMIUM, Server, card_strings, parse_frames

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's /usr/bin/chromium is not installed"),
]

sync_api = pytest.importorskip("playwright.sync_api")

PREFS = (
    "localStorage.setItem('lockup.guide', 'seen'); localStorage.setItem('lockup.speed', 'instant');"
)
UNPACED = ("--bot-delay", "0", "--bot-jitter", "0", "--new-games-per-address", "0")
SIZES = {"wide": (1366, 657), "phone": (390, 844)}
SMALL = (1024, 600)
"""Pages that are not photographed draw a smaller window (less to paint on a busy machine)."""

STATUS_JS = """() => ({
  over: !!document.querySelector('#dlg-over[open]'),
  summary: !!document.querySelector('#dlg-summary[open]'),
  myTurn: document.body.dataset.myTurn === 'true' && document.body.dataset.connected === 'true',
  legal: [...document.querySelectorAll('#hand button.card.legal')].map((e) => e.dataset.card),
  version: document.body.dataset.version,
  game: document.body.dataset.game,
})"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("rooms") / "games.sqlite", None, *UNPACED)
    srv.start()
    yield srv
    srv.stop()


class Person:
    """A browser context of its own (its own cookie): its pages, every frame they got."""

    def __init__(
        self, browser: Any, server: Server, name: str, size: tuple[int, int] = SMALL
    ) -> None:
        self.name = name
        self.ctx = browser.new_context(
            base_url=server.url,
            locale="en-US",
            viewport={"width": size[0], "height": size[1]},
            reduced_motion="reduce",
        )
        self.ctx.add_init_script(PREFS)
        self.raw: list[Any] = []
        self.errors: list[str] = []
        self.page = self.new_page()
        self.clicked: tuple[str, str] | None = None

    def new_page(self) -> Any:
        page = self.ctx.new_page()
        page.set_default_timeout(20_000)
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: self.raw.append(f)))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        return page

    @property
    def frames(self) -> list[dict[str, Any]]:
        return parse_frames(self.raw)

    def close(self) -> None:
        self.ctx.close()


def create_room(
    host: Person, *, grace: int | None = None, timer: int = 0, public: bool = False
) -> dict[str, str]:
    """The host makes a room with "Play with friends": target 10, random computers."""
    page = host.page
    page.goto("/")
    page.wait_for_selector('body[data-connected="true"]')
    # The solo table is as it was: a hand of its own, no room.
    page.wait_for_selector("#hand button.card")
    assert page.locator("#room-panel").count() == 0
    page.click("#btn-friends")
    page.wait_for_selector("#dlg-room-new[open]")
    page.fill("#room-name", host.name)
    page.select_option("#room-target", "10")
    for seat in (1, 2, 3):
        page.select_option(f"#room-level-{seat}", "random")
    if grace is not None:  # shorter than the form offers: a test's wait
        page.evaluate(
            "(g) => { const s = document.querySelector('#room-grace');"
            " s.append(new Option(g + ' s', String(g))); s.value = String(g); }",
            grace,
        )
    if str(timer) not in page.locator("#room-timer option").evaluate_all(
        "(os) => os.map((o) => o.value)"
    ):  # shorter than the form offers: a test's wait
        page.evaluate(
            "(n) => document.querySelector('#room-timer').append(new Option(n + ' s', String(n)))",
            timer,
        )
    page.select_option("#room-timer", str(timer))
    if public:
        page.check("#room-public")
    page.click("#room-create")
    page.wait_for_url("**/room/**")
    page.wait_for_selector("#room-start")
    invite = page.input_value("#room-invite")
    watch = page.input_value("#room-watch")
    room = page.url.rsplit("/", 1)[1]
    return {"room": room, "invite": invite, "watch": watch}


def join(guest: Person, url: str, seat: int | None = None) -> None:
    """A guest opens the invite link, types a name, picks a seat (or the first free one)."""
    page = guest.page
    page.goto(url)
    page.wait_for_selector("#dlg-room-join[open]")
    page.fill("#join-name", guest.name)
    if seat is not None:
        page.select_option("#join-seat", str(seat))
    page.click("#join-submit")
    page.wait_for_selector("#room-leave")


def seated_names(page: Any) -> list[str]:
    return page.locator("#room-seats li .seat-name").all_text_contents()


def start(host: Person, others: list[Person], click: bool = True) -> None:
    if click:
        host.page.click("#room-start")
    for p in [host, *others]:
        p.page.wait_for_function(
            "() => document.body.dataset.room === 'playing' && document.body.dataset.game !== ''"
        )


def play(
    players: list[Person],
    rng: random.Random,
    until: Callable[[], bool] | None = None,
    timeout: float = 150,
) -> None:
    """Each page clicks a legal card when it may and closes hand summaries, until every
    page shows the game's end (or ``until()``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if until is not None and until():
            return
        over = 0
        for p in players:
            st = p.page.evaluate(STATUS_JS)
            if st["over"]:
                over += 1
            elif st["summary"]:
                p.page.locator("#dlg-summary button.continue").click()
            elif st["myTurn"] and st["legal"] and p.clicked != (st["game"], st["version"]):
                card = rng.choice(st["legal"])
                try:
                    p.page.locator(f'#hand button.card[data-card="{card}"]').click(
                        force=True, timeout=5_000
                    )
                except sync_api.Error:  # the table moved on since it was read: read again
                    continue
                p.clicked = (st["game"], st["version"])
        if until is None and over == len(players):
            return
        time.sleep(0.03)
    raise AssertionError("the room's game did not reach the expected point in time")


def stored_hands(db: Path, game: str) -> list[dict[str, Any]]:
    """Each hand of a stored game: its four dealt hands (card codes) and its cards in the
    order they left the hands (plays and lockup's discards)."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute(
            "SELECT kind, data FROM actions WHERE game_id = ? ORDER BY seq", (game,)
        ).fetchall()
    finally:
        con.close()
    hands: list[dict[str, Any]] = []
    for kind, data in rows:
        if kind == "deal":
            hands.append({"deal": [set(h) for h in json.loads(data)], "out": []})
        else:
            hands[-1]["out"].append(data)
    return hands


def leaks(person: Person, db: Path) -> tuple[list[str], int]:
    """Hidden cards in any frame this person's pages got in the room, and how many views
    were checked. The seat is the room frame's ``you`` at the time (None: a spectator).
    A frame's view holds only that seat's dealt cards in ``hand`` and ``legal`` (none for
    a spectator), and every card anywhere in the frame is the seat's own or has left a
    hand already: for a view of hand h, ``52 - sum(hand_sizes)`` cards have, the first
    that many of the stored hand."""
    out: list[str] = []
    game: str | None = None
    you: int | None = None
    stored: dict[str, list[dict[str, Any]]] = {}
    checked = 0
    for i, f in enumerate(person.frames):
        if f.get("type") == "room":
            game = f["room"].get("game")
            you = f["room"].get("you")
            continue
        view = f.get("view")
        if not isinstance(view, dict):
            continue
        if game is None:
            continue  # the solo table the host made the room from
        if game not in stored:
            stored[game] = stored_hands(db, game)
        checked += 1
        hand = stored[game][view["hand_number"]]
        mine = hand["deal"][you] if you is not None else set()
        shown = set(view.get("hand", [])) | set(view.get("legal", []))
        if you is None and view.get("seat") is not None:
            out.append(f"frame {i}: a spectator's view is seat {view.get('seat')}'s")
        if not shown <= mine:
            out.append(f"frame {i}: seat {you} is shown {sorted(shown - mine)}")
        public = set(hand["out"][: 52 - sum(view["hand_sizes"])])
        for c in card_strings(f, skip=("summaries", "summary")):
            if c not in mine and c not in public:
                out.append(f"frame {i} ({f.get('type')}): {c} is hidden from seat {you}")
    return out, checked


def assert_no_leaks(people: list[Person], db: Path) -> None:
    for p in people:
        found, checked = leaks(p, db)
        assert checked > 10, f"{p.name}: only {checked} views received"
        assert not found, f"{p.name}: {found[:5]}"
        assert not p.errors, f"{p.name}: script errors {p.errors}"


def shoot(page: Any, shots: Path, name: str) -> None:
    for size, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        path = shots / f"rooms-{name}-{size}.png"
        page.screenshot(path=str(path))
        print(f"screenshot: {path}")
    page.set_viewport_size({"width": SMALL[0], "height": SMALL[1]})


def rematch(people: list[Person]) -> None:
    """Rematch with one click each: the same seats, a new game."""
    old = people[0].page.evaluate("document.body.dataset.game")
    for i, p in enumerate(people):
        over = p.page.locator("#dlg-over[open] .room-rematch")
        (over if over.count() else p.page.locator("#room-actions .room-rematch")).click()
        if i < len(people) - 1:
            # Who asked shows at the others' tables.
            other = people[-1].page
            other.wait_for_selector(f"#room-seats li[data-seat] .tag.rematch >> nth={i}")
    for p in people:
        p.page.wait_for_function(
            "(old) => document.body.dataset.game !== old && document.body.dataset.room === 'playing'"
            " && document.body.dataset.phase === 'play'",
            arg=old,
        )


# ------------------------------------------------------------------ the scenarios


def test_two_people_spectator_chat_takeover_rematch(
    browser: Any, server: Server, shots: Path
) -> None:
    """Host and one guest (two computers) and a spectator: chat, reactions, the guest's
    page closed (the computer's badge after the grace), reopened (taken back), the game
    to its end, a rematch; screenshots of the waiting room, the game and the spectator."""
    rng = random.Random(10)
    host, guest, fan = (Person(browser, server, n) for n in ("Ann", "Bo <b>", "Fan"))
    try:
        links = create_room(host, grace=5)
        assert links["invite"].startswith(f"{server.url}/room/{links['room']}?invite=")
        join(guest, links["invite"])
        host.page.wait_for_function(
            "() => [...document.querySelectorAll('#room-seats li[data-kind=person] .presence.on')].length === 2"
        )
        assert seated_names(host.page)[:2] == ["Ann", "Bo <b>"], seated_names(host.page)
        fan.page.goto(links["watch"])
        host.page.wait_for_selector('.watchers[data-watchers="1"]')
        shoot(host.page, shots, "waiting-host")
        shoot(guest.page, shots, "waiting-guest")
        start(host, [guest])
        fan.page.wait_for_function(
            "() => document.body.dataset.room === 'playing' && document.body.dataset.phase !== ''"
        )
        # Names from the room, not the computers' names.
        host.page.wait_for_selector("#seat-left .name >> text=Bo <b>")
        assert fan.page.locator("#hand button.card").count() == 0
        assert fan.page.locator("body.watching").count() == 1
        assert fan.page.locator(".felt-label").text_content() == "Watching · 1 watching"
        assert host.page.locator(".felt-label").text_content() == "1 watching"
        # Chat: shown as text at the other seat, not at the spectator's.
        host.page.fill("#chat-input", "hello <i>friends</i>")
        host.page.press("#chat-input", "Enter")
        line = guest.page.locator("#chat-log li .text").first
        line.wait_for()
        assert line.text_content() == "hello <i>friends</i>"
        assert guest.page.locator("#chat-log i").count() == 0
        guest.page.click('.reactions button[data-reaction="👏"]')
        host.page.wait_for_selector('#seat-left .reaction-bubble[data-reaction="👏"]')
        fan.page.wait_for_selector('.reaction-bubble[data-reaction="👏"]')
        assert fan.page.locator("#room-chat").is_hidden()
        play(
            [host, guest, fan],
            rng,
            until=lambda: host.page.evaluate("Number(document.body.dataset.version)") > 12,
        )
        shoot(host.page, shots, "game-host")
        shoot(fan.page, shots, "spectator")
        # The guest's page closes: after the grace the computer plays their seat, visibly.
        guest.page.close()
        host.page.wait_for_selector("#seat-left .presence.off", timeout=10_000)
        # Said to a screen reader too.
        host.page.wait_for_function(
            "() => [...document.querySelectorAll('#announcer p')]"
            ".some((p) => p.textContent === 'Bo <b> has lost the connection.')"
        )
        play(
            [host, fan],
            rng,
            until=lambda: host.page.locator("#seat-left .away-badge").count() > 0,
            timeout=40,
        )
        assert (
            host.page.locator("#seat-left .away-badge").text_content()
            == "computer until they return"
        )
        shoot(host.page, shots, "away")
        # They come back and take the seat again.
        guest.page = guest.new_page()
        guest.page.goto(f"/room/{links['room']}")
        play(
            [host, guest, fan],
            rng,
            until=lambda: (
                host.page.locator("#seat-left .away-badge").count() == 0
                and host.page.locator("#seat-left .presence.on").count() == 1
            ),
            timeout=60,
        )
        play([host, guest, fan], rng)
        # The spectator never got the chat.
        assert not any(f.get("event", {}).get("kind") == "chat" for f in fan.frames)
        assert any(f.get("type") == "skip" for f in fan.frames)
        assert "friends" not in json.dumps(fan.frames)
        assert any(f.get("event", {}).get("kind") == "takeover" for f in host.frames)
        assert any(f.get("event", {}).get("kind") == "reclaim" for f in host.frames)
        rematch([host, guest])
        fan.page.wait_for_function(
            "(g) => document.body.dataset.game === g",
            arg=host.page.evaluate("document.body.dataset.game"),
        )
        assert_no_leaks([host, guest, fan], server.db)
    finally:
        for p in (host, guest, fan):
            p.close()


def test_three_people_turn_timer_and_removal(browser: Any, server: Server, shots: Path) -> None:
    """Three people (one computer) with a turn timer: one guest picks a seat, one takes the
    first free one; a fourth who joined is removed by the host before the start; the
    countdown shows, and the host's time runs out once (the computer plays for them)."""
    rng = random.Random(11)
    host, bo, cy, dee = (Person(browser, server, n) for n in ("Ann", "Bo", "Cy", "Dee"))
    try:
        links = create_room(host, timer=5)
        join(bo, links["invite"], seat=2)
        join(cy, links["invite"])
        join(dee, links["invite"])
        host.page.wait_for_selector('#room-seats li[data-seat="3"][data-kind="person"]')
        assert seated_names(host.page) == ["Ann", "Cy", "Bo", "Dee"]
        # By keyboard: Remove, then Start; the focus then goes to the hand.
        host.page.focus('#room-seats button[data-remove="3"]')
        host.page.keyboard.press("Enter")
        host.page.wait_for_selector('#room-seats li[data-seat="3"][data-kind="empty"]')
        dee.page.wait_for_selector("body.watching")
        host.page.focus("#room-start")
        host.page.keyboard.press("Enter")
        start(host, [bo, cy], click=False)
        host.page.wait_for_function("() => !!document.activeElement?.closest('#hand')")
        # The countdown of the person whose card it is, at every seated table.
        for p in (host, bo, cy):
            p.page.wait_for_selector(".clock-chip[data-clock]", timeout=20_000)
        left = host.page.evaluate("document.querySelector('.clock-chip')?.dataset.clock ?? null")
        assert left is None or 0 <= int(left) <= 5, left
        # The host lets their time run out: the computer plays that card for them, and says so.
        said = "Out of time: the computer played your card."
        play(
            [bo, cy],
            rng,
            until=lambda: host.page.evaluate(
                "(s) => [...document.querySelectorAll('#announcer p')].some((p) => p.textContent === s)",
                said,
            ),
            timeout=60,
        )
        assert any(
            f.get("event", {}).get("by") == "computer" and f["event"].get("seat") == 0
            for f in host.frames
        )
        play([host, bo, cy], rng)
        assert_no_leaks([host, bo, cy], server.db)
    finally:
        for p in (host, bo, cy, dee):
            p.close()


def test_four_people_from_the_lobby(browser: Any, server: Server, shots: Path) -> None:
    """Four people, no computer: a public room found in the lobby, the game to its end."""
    rng = random.Random(12)
    people = [Person(browser, server, n) for n in ("Ann", "Bo", "Cy", "Dee")]
    host = people[0]
    try:
        links = create_room(host, public=True)
        lobby = people[1].page
        lobby.goto("/lobby")
        entry = lobby.locator(f'#lobby-list li[data-room="{links["room"]}"]')
        entry.wait_for()
        assert "Ann" in (entry.text_content() or "")
        shoot(lobby, shots, "lobby")
        entry.locator("a").click()
        lobby.wait_for_selector("#dlg-room-join[open]")
        lobby.fill("#join-name", "Bo")
        lobby.click("#join-submit")
        lobby.wait_for_selector("#room-leave")
        join(people[2], links["invite"])
        join(people[3], links["invite"], seat=3)
        host.page.wait_for_function(
            "() => document.querySelectorAll('#room-seats li[data-kind=person] .presence.on').length === 4"
        )
        start(host, people[1:])
        play(people, rng)
        assert_no_leaks(people, server.db)
    finally:
        for p in people:
            p.close()
