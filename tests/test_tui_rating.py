"""The terminal at a real ``lockup serve`` table: the turn clock counted down on the status
line, a card played for the person when it runs out, the seat abandoned after too many,
and at the end of a rated game the rating's change (an account) or that guests play
unrated.

The terminal is Textual's pilot on a :class:`~lockup.tui.remote.RemoteDriver` (address
127.0.0.1); the other person of a rated table is a scripted page of an account at an
address of its own (two accounts from two addresses make a rated game).
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import websockets
from browser_helpers import Server
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static

from lockup.tui import words
from lockup.tui.app import SummaryScreen, TableApp
from lockup.tui.identity import Identity
from lockup.tui.remote import RemoteDriver, _rating_of

pytestmark = pytest.mark.serial

PASSWORD = "a long enough password"
TURN = 5
"""The server's ``--quick-turn-timer``."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("rating-tui") / "games.sqlite",
        None,
        "--bot-delay",
        "0",
        "--bot-jitter",
        "0",
        "--quick-wait",
        "1",
        "--quick-turn-timer",
        str(TURN),
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    words.set_language("en")
    yield
    words.set_language("en")


def plain(widget: Any) -> str:
    """What a Static shows, as text."""
    console = Console(width=200, file=io.StringIO(), record=True)
    console.print(widget.content)
    return console.export_text()


class Host:
    """An account's page at its own address: makes a rated room (random computers, to 10),
    starts it once another person's page is there, and plays its first legal card at its
    turn, until :meth:`close`."""

    def __init__(self, server: Server, name: str, address: str) -> None:
        transport = httpx.HTTPTransport(local_address=address)
        with httpx.Client(base_url=server.url, transport=transport, timeout=20) as http:
            http.get("/")
            r = http.post("/api/account/signup", json={"name": name, "password": PASSWORD})
            assert r.status_code == 200, r.text
            r = http.post("/api/rooms", json={"levels": "random", "target": 10, "rated": True})
            assert r.status_code == 200, r.text
            self.room: dict[str, Any] = r.json()
            cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
        self._stop = threading.Event()
        headers = {"Cookie": cookie, "Origin": server.url}
        ws_url = server.url.replace("http", "ws", 1) + "/ws"

        async def run() -> None:
            async with websockets.connect(
                ws_url, additional_headers=headers, local_addr=(address, 0), max_queue=None
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "room": self.room["room"]}))
                started = False
                while not self._stop.is_set():
                    try:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 0.2))
                    except TimeoutError:
                        continue
                    room = msg.get("room") if msg.get("type") == "room" else None
                    if room and not started and room["status"] == "open":
                        people = [s for s in room["seats"] if s["kind"] == "person"]
                        if len(people) == 2 and all(s["connected"] for s in people):
                            started = True
                            await ws.send(json.dumps({"type": "start"}))
                    view = msg.get("view")
                    if view and view.get("seat") is not None and view.get("legal"):
                        if view.get("turn") == view["seat"]:
                            play = {"type": "play", "card": view["legal"][0]}
                            await ws.send(json.dumps({**play, "version": msg["version"]}))

        self._thread = threading.Thread(target=asyncio.run, args=(run(),), daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)


def signed_up(server: Server, name: str) -> Identity:
    """The terminal's identity after making an account (signed in), kept nowhere."""
    identity = Identity(server.url)
    with identity.sync_client(server.url, 20) as http:
        http.get("/")
        r = http.post("/api/account/signup", json={"name": name, "password": PASSWORD})
        assert r.status_code == 200, r.text
    assert identity.session and identity.player
    return identity


async def until(pilot: Pilot[Any], cond: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)


async def play_to_the_end(pilot: Pilot[Any], app: TableApp, timeout: float = 120.0) -> None:
    """Play the person's cards (the highlighted one) and close every hand summary until
    the game is over."""
    deadline = time.monotonic() + timeout
    while True:
        view = app.view or {}
        if view.get("phase") == "over" and not app.summary_open:
            return
        assert time.monotonic() < deadline, "the game did not end in time"
        if app.summary_open:
            await pilot.press("enter")
        elif view.get("legal") and view.get("turn") == view.get("seat"):
            await pilot.press("enter")
        await pilot.pause(0.02)


def rated_game(server: Server, identity: Identity, game: str) -> dict[str, Any]:
    """The person's entry for ``game`` in ``GET /api/ratings/me``."""
    with identity.sync_client(server.url, 10) as http:
        history = http.get("/api/ratings/me").json()["history"]
    found: dict[str, Any] = next(e for e in history if e["game"] == game)
    return found


def test_a_rated_game_ends_with_the_rating_change(server: Server) -> None:
    identity = signed_up(server, "Ann")
    host = Host(server, "Bob", "127.0.0.2")

    async def run() -> None:
        driver = RemoteDriver(host.room["invite"], identity=identity)
        app = TableApp(driver)
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, lambda: (app.view or {}).get("phase") == "play")
            assert "rated" in driver.title
            await play_to_the_end(pilot, app)
            await until(pilot, lambda: driver.rating_line is not None, timeout=15)
            game = (driver.room or {})["game"]
            entry = rated_game(server, identity, game)
            assert entry["rated"], entry
            sign = "+" if entry["change"] >= 0 else ""
            line = (
                f"Rating {entry['before']:.1f} → {entry['after']:.1f} "
                f"({sign}{entry['change']:.1f})."
            )
            assert driver.rating_line == line
            assert line in app.message and "the game (R15)" in app.message
            await pilot.press("q")

    try:
        asyncio.run(run())
    finally:
        host.close()


def test_a_guest_is_told_guests_play_unrated(server: Server) -> None:
    host = Host(server, "Cleo", "127.0.0.3")

    async def run() -> None:
        driver = RemoteDriver(host.room["invite"], name="Gus")
        app = TableApp(driver)
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, lambda: (app.view or {}).get("phase") == "play")
            await play_to_the_end(pilot, app)
            await until(pilot, lambda: driver.rating_line is not None, timeout=5)
            assert driver.rating_line == "Guests play unrated: `lockup login` to be rated."
            assert driver.rating_line in app.message
            await pilot.press("q")

    try:
        asyncio.run(run())
    finally:
        host.close()


def test_the_turn_clock_counts_down_then_plays_then_the_seat_is_abandoned(
    server: Server,
) -> None:
    """A quick table's clock (5 s here): the status line counts it down while the person
    is to play; when it runs out a computer plays, and the terminal says which card; after
    three of them the seat is abandoned, and the terminal says so."""

    async def run() -> None:
        driver = RemoteDriver(server.url, name="Hal", quick=True)
        app = TableApp(driver)
        seen: set[int] = set()
        async with app.run_test(size=(100, 35)) as pilot:
            deadline = time.monotonic() + 30
            while len(seen) < 3:
                assert time.monotonic() < deadline, seen
                left = app.clock_left()
                view = app.view or {}
                if left is not None and view.get("turn") == view.get("seat"):
                    # The status line is redrawn four times a second.
                    shown = re.search(r"your turn · (\d+) s", plain(app.query_one("#status")))
                    assert shown is not None
                    assert left <= int(shown.group(1)) <= left + 1
                    seen.add(int(shown.group(1)))
                await pilot.pause(0.05)
            assert seen <= set(range(TURN + 1))
            await until(pilot, lambda: "Out of time: a computer played" in app.message, 20)
            assert re.search(r"Out of time: a computer played \S+ for you\.", app.message)
            await until(pilot, lambda: "ran out of time too often" in app.message, 40)
            assert (
                "You ran out of time too often: a computer plays your seat to the end of "
                "the game." in app.message
            )
            assert "ranks you last" not in app.message  # a guest is not rated
            await pilot.press("q")

    asyncio.run(run())


def test_words_of_the_clock_and_the_rating_in_icelandic() -> None:
    """The end of a rated game and an abandoned seat, as frames the server sends, in
    Icelandic (a decimal comma) and English."""

    class Offline(RemoteDriver):
        async def start(self) -> None:
            return None

    async def run(lang: str) -> tuple[str, str]:
        words.set_language(lang)
        driver = Offline("http://127.0.0.1:9/")
        app = TableApp(driver)
        async with app.run_test(size=(100, 35)) as pilot:
            driver.players = ["Ann", "Bo", "Cy", "Dee"]
            driver._room({"seats": [], "options": {"rated": True}, "game": "G1"})
            driver._event({"kind": "abandon", "seat": 1, "why": "gone"})
            await pilot.pause(0.05)
            abandon = app.message
            history = [
                {"game": "G1", "rated": True, "before": 12.34, "after": 10.5, "change": -1.84}
            ]
            return abandon, _rating_of(history, "G1") or ""

    en = asyncio.run(run("en"))
    assert en == (
        "Bo has been gone too long: a computer plays Bo's seat to the end of the game.",
        "Rating 12.3 → 10.5 (-1.8).",
    )
    is_ = asyncio.run(run("is"))
    assert is_ == (
        "Bo: of lengi í burtu; tölva spilar sætið til leiksloka.",
        "Einkunnin þín: 12,3 → 10,5 (-1,8).",
    )


def _game_end(driver: RemoteDriver, totals: list[int], winner: int) -> None:
    """The frames of a game's last hand ending, as the server sends them."""
    driver.view = {"seat": 0, "phase": "over", "winner": winner}
    driver._event(
        {
            "kind": "hand",
            "summary": {
                "number": 4,
                "points": [3, 4, 2, 4],
                "totals": totals,
                "times_locked": [0, 1, 0, 0],
                "tricks_sat_out": [0, 2, 0, 0],
                "lost": [[], ["2C"], [], []],
            },
        }
    )


def test_the_game_s_end_lists_places_and_whoever_left_last() -> None:
    """The terminal's last summary of a game lists the seats by place, as the ratings
    rank them: a seat whose person left ranks last whatever its points, marked so, and
    when that seat came first on points a computer is said to have won in it. A new game
    forgets who left the last one; a room frame says who left a game under way."""

    class Offline(RemoteDriver):
        async def start(self) -> None:
            return None

    def rows(app: TableApp) -> list[str]:
        assert isinstance(app.screen, SummaryScreen)
        text = "\n".join(plain(w) for w in app.screen.query(Static))
        return [line.strip() for line in text.splitlines() if line.strip()]

    async def run(lang: str) -> list[list[str]]:
        words.set_language(lang)
        driver = Offline("http://127.0.0.1:9/")
        app = TableApp(driver)
        seen = []
        async with app.run_test(size=(120, 40)) as pilot:
            driver.players = app.players = ["Ann", "Bo", "Cy", "Dee"]
            driver._room({"seats": [], "options": {"rated": True}, "game": "G1", "left": []})
            driver._event({"kind": "abandon", "seat": 1, "why": "gone"})
            _game_end(driver, [15, 21, 12, 15], winner=1)  # Bo's seat won on points
            await pilot.pause(0.05)
            seen.append(rows(app))
            await pilot.press("enter")
            await pilot.pause(0.05)
            # the next game: nobody has left it, and the places go by points
            driver._event({"kind": "deal", "hand": 0, "dealer": 2})
            _game_end(driver, [12, 21, 9, 15], winner=1)
            await pilot.pause(0.05)
            seen.append(rows(app))
            await pilot.press("enter")
            await pilot.pause(0.05)
            # a frame whose list is not one is read as nobody having left
            driver._room({"seats": [], "options": {"rated": True}, "game": "G2", "left": 7})
            assert driver.gone == set()
            # a page that comes back learns who left from the room's frame
            driver._room({"seats": [], "options": {"rated": True}, "game": "G3", "left": [3]})
            _game_end(driver, [12, 21, 9, 15], winner=1)
            await pilot.pause(0.05)
            seen.append(rows(app))
        return seen

    def places(lines: list[str]) -> list[str]:
        """The table's rows, each as its place and name."""
        return [" ".join(r.split()[:2]) for r in lines if r[:3] in ("1st", "2nd", "3rd", "4th")]

    left_won, by_points, from_room = asyncio.run(run("en"))
    assert places(left_won) == ["1st Ann", "1st Dee", "3rd Cy", "4th Bo"]
    marked = [r.split()[:5] for r in left_won if "left the game" in r]
    assert marked == [["4th", "Bo", "·", "left", "the"]]  # and no other row
    assert "A computer wins the game in the seat Bo left!" in left_won
    assert places(by_points) == ["1st Bo", "2nd Dee", "3rd Ann", "4th Cy"]
    assert "Bo wins the game!" in by_points and not any("left" in r for r in by_points)
    assert places(from_room) == ["1st Bo", "2nd Ann", "3rd Cy", "4th Dee"]

    fr = asyncio.run(run("fr"))[0]
    assert any(r.startswith("4e") and "Bo" in r and "a quitté la partie" in r for r in fr)
    assert "Un ordinateur gagne la partie à la place laissée par Bo !" in fr
    is_ = asyncio.run(run("is"))[0]
    assert any(r.startswith("4.") and "Bo" in r and "hætti í leiknum" in r for r in is_)
    assert "Tölva vinnur leikinn í sætinu sem Bo yfirgaf!" in is_
