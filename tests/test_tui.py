"""``lockup play``: the terminal table driven by Textual's pilot.

Keys and clicks play cards through the engine, a refused card shows the engine's reason,
the hint shows the expert's values, the save file is a record after every card and a
resumed game goes on identically, a whole game runs to its end; snapshots of the table
at 100x35 and 80x24; and a seat at a real ``lockup serve`` room over its WebSocket.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Server
from textual.pilot import Pilot

from lockup.cards import parse_card
from lockup.cli import build_parser, main
from lockup.engine import Rules
from lockup.record import from_record, summary
from lockup.tui.app import HelpScreen, SummaryScreen, TableApp
from lockup.tui.local import LocalDriver, LocalGame, SaveError
from lockup.tui.remote import RemoteDriver, Target

SEED = 11


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``lockup play --server`` keeps its player in a temporary config folder, never the
    user's own."""
    folder = tmp_path / "config"
    monkeypatch.setenv("LOCKUP_CONFIG_DIR", str(folder))
    return folder


def local_app(
    tmp_path: Path | None = None, *, seed: int = SEED, target: int = 10, **kw: Any
) -> tuple[TableApp, LocalGame]:
    save = tmp_path / "game.json" if tmp_path is not None else None
    local = LocalGame.new(Rules(target=target), level="random", seed=seed, save=save)
    return TableApp(LocalDriver(local, pace=0, **kw)), local


async def until(pilot: Pilot[Any], cond: Callable[[], bool], timeout: float = 20.0) -> None:
    """Let the app run until ``cond()`` holds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.01)


def settled(app: TableApp, local: LocalGame) -> Callable[[], bool]:
    """The person's move is due: a card, the summary to close, or the game is over."""
    driver = app.driver
    assert isinstance(driver, LocalDriver)

    def ok() -> bool:
        if app.summary_open:
            return True
        return not driver.busy and local.due() in ("human", "over")

    return ok


def human_plays(local: LocalGame) -> list[str]:
    """The cards South has played, in order, over the whole game."""
    return [
        e["play"]
        for h in local.record()["hands"]
        for e in h["events"]
        if e["seat"] == 0 and "play" in e
    ]


def test_arrow_keys_and_enter_play_a_legal_card(tmp_path: Path) -> None:
    async def run() -> None:
        app, local = local_app(tmp_path)
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, settled(app, local))
            legal = app.view["legal"] if app.view else []
            assert legal and set(legal) == {c for c in app.order if c in legal}
            # the cursor starts on a legal card; → then ← comes back to it
            start = app.order[app.cursor]
            assert start in legal
            await pilot.press("right", "left")
            assert app.order[app.cursor] == start
            before = len(local.record()["hands"][-1]["events"])
            await pilot.press("enter")
            assert human_plays(local) == [start]
            assert len(local.record()["hands"][-1]["events"]) > before
            assert parse_card(start) not in local.game.hand(0)
            await until(pilot, settled(app, local))
            assert start not in (app.view or {})["hand"]
            await pilot.press("question_mark")  # help, and back
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            assert not isinstance(app.screen, HelpScreen)

    asyncio.run(run())


def test_a_click_on_a_card_plays_it(tmp_path: Path) -> None:
    async def run() -> None:
        app, local = local_app(tmp_path, seed=SEED + 1)
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, settled(app, local))
            legal = (app.view or {})["legal"]
            index = max(i for i, c in enumerate(app.order) if c in legal)
            code = app.order[index]
            assert await pilot.click(f"#slot-{index}")
            assert human_plays(local) == [code]

    asyncio.run(run())


def test_an_illegal_card_shows_the_engines_reason(tmp_path: Path) -> None:
    async def run() -> None:
        app, local = local_app(tmp_path, seed=SEED + 2)
        async with app.run_test(size=(100, 35)) as pilot:
            # play the first legal card until a turn where some card in hand is not legal
            for _ in range(40):
                await until(pilot, settled(app, local))
                if app.summary_open:
                    await pilot.press("enter")
                    continue
                view = app.view or {}
                if set(view["hand"]) != set(view["legal"]):
                    break
                await pilot.press("enter")
            view = app.view or {}
            illegal = next(c for c in app.order if c not in view["legal"])
            refusal = local.game.why_not(parse_card(illegal))
            assert refusal is not None
            before = local.record()
            while app.order[app.cursor] != illegal:
                await pilot.press("right")
            slot = app.query_one(f"#slot-{app.cursor}")
            assert not slot.has_class("legal") and slot.has_class("cursor")
            await pilot.press("enter")
            assert refusal.reason in app.message and refusal.rule in app.message
            assert app.query_one("#message").has_class("refusal")
            assert local.record() == before  # nothing played, nothing saved differently
            # and the legal card, clicked, is played
            await pilot.click(f"#slot-{app.order.index(view['legal'][0])}")
            assert human_plays(local)[-1] == view["legal"][0]

    asyncio.run(run())


def test_hint_shows_the_experts_value_of_each_legal_card(tmp_path: Path) -> None:
    async def run() -> None:
        app, local = local_app(tmp_path, seed=SEED + 3, hint_iterations=16)
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, settled(app, local))
            legal = (app.view or {})["legal"]
            await pilot.press("h")
            await until(pilot, lambda: bool(app.hints), timeout=60)
            assert set(app.hints) == set(legal)
            assert all(0 <= v <= 13 for v in app.hints.values())
            assert app.message.startswith("Hint (expected tricks this hand):")
            best = max(app.hints, key=lambda c: app.hints[c])
            slot = app.query_one(f"#slot-{app.order.index(best)}")
            assert f"{app.hints[best]:.1f}" in str(slot.render())

    asyncio.run(run())


def test_saved_after_every_card_and_resume_goes_on_identically(tmp_path: Path) -> None:
    save = tmp_path / "game.json"

    async def play(app: TableApp, local: LocalGame, cards: int, check_save: bool) -> None:
        async with app.run_test(size=(100, 35)) as pilot:
            played = 0
            while played < cards:
                await until(pilot, settled(app, local))
                if app.summary_open:
                    await pilot.press("enter")
                    continue
                # the same choice in every sitting: the lowest legal card
                low = min((app.view or {})["legal"], key=parse_card)
                while app.order[app.cursor] != low:
                    await pilot.press("right")
                await pilot.press("enter")
                played += 1
                if check_save:  # the file on disk is the game, card for card
                    doc = json.loads(save.read_text(encoding="utf-8"))
                    assert doc == local.record()
                    assert {"seat": 0, "play": human_plays(local)[-1]} in doc["hands"][-1]["events"]
                    assert from_record(doc).view(0) == local.game.view(0)
            await until(pilot, settled(app, local))
            await pilot.press("q")
        assert not app.is_running

    # one sitting: 4 cards of South's
    (tmp_path / "whole").mkdir()
    app, whole = local_app(tmp_path / "whole", seed=SEED + 4)
    asyncio.run(play(app, whole, 4, False))
    # two sittings: 2 cards, quit, lockup play --resume, 2 more
    local = LocalGame.new(Rules(target=10), level="random", seed=SEED + 4, save=save)
    asyncio.run(play(TableApp(LocalDriver(local, pace=0)), local, 2, True))
    first = json.loads(save.read_text(encoding="utf-8"))
    assert first["tui"] == {"seed": SEED + 4, "level": "random"}
    assert summary(from_record(first))["status"] == "in-progress"
    args = build_parser().parse_args(["play", "--resume", str(save)])
    assert args.resume == str(save) and args.level is None
    resumed = LocalGame.resume(Path(args.resume))
    assert resumed.level == "random" and resumed.seed == SEED + 4
    assert resumed.game.view(0) == local.game.view(0)
    asyncio.run(play(TableApp(LocalDriver(resumed, pace=0)), resumed, 2, True))
    assert resumed.record() == whole.record()
    assert json.loads(save.read_text(encoding="utf-8")) == whole.record()


def test_resume_refuses_what_is_not_a_saved_game(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "lockup-record/1", "hands": "none"}', encoding="utf-8")
    with pytest.raises(SaveError, match="hands must be a list"):
        LocalGame.resume(bad)
    with pytest.raises(SaveError, match="cannot read"):
        LocalGame.resume(tmp_path / "missing.json")


def test_lockup_play_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[TableApp] = []
    monkeypatch.setattr(TableApp, "run", lambda self, **kw: ran.append(self))
    monkeypatch.setattr("lockup.tui.cli._terminal", lambda: True)
    save = tmp_path / "g.json"
    argv = ["play", "--level", "easy", "--target", "15", "--lock-discards", "upfront"]
    assert main([*argv, "--seed", "5", "--save", str(save), "--name", "Ann"]) == 0
    driver = ran[0].driver
    assert isinstance(driver, LocalDriver) and driver.local.level == "easy"
    doc = json.loads(save.read_text(encoding="utf-8"))  # written before the first card
    assert doc["tui"] == {"seed": 5, "level": "easy"} and doc["players"][0] == "Ann"
    assert doc["rules"] == {
        "picture_exception": "same-rank",
        "lock_discards": "upfront",
        "target": 15,
    }
    assert main(["play", "--resume", str(save), "--level", "expert"]) == 0
    resumed = ran[1].driver
    assert isinstance(resumed, LocalDriver) and resumed.local.level == "expert"
    assert resumed.local.save_path == save and resumed.local.names[0] == "Ann"
    assert main(["play", "--resume", str(tmp_path / "none.json")]) == 2
    assert main(["play", "--server", "ftp://example.org/"]) == 2
    # Nothing listens there: said before any table is drawn, exit status 1.
    assert main(["play", "--server", "http://127.0.0.1:1/room/R?invite=K"]) == 1
    assert len(ran) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "--server must be an http" in err
    assert "lockup play: cannot reach http://127.0.0.1:1" in err


def test_a_whole_game_against_random_bots(tmp_path: Path) -> None:
    async def run() -> tuple[LocalGame, int]:
        app, local = local_app(tmp_path, seed=SEED + 6, target=10)
        summaries = 0
        async with app.run_test(size=(80, 24)) as pilot:
            while True:
                await until(pilot, settled(app, local))
                if app.summary_open:
                    assert isinstance(app.screen, SummaryScreen)
                    summaries += 1
                    await pilot.press("enter")
                elif local.due() == "over":
                    await until(pilot, lambda: "the game (R15)" in app.message)
                    break
                else:
                    await pilot.press("enter")
            assert re.search(r"^(You win|\S+ wins) the game \(R15\)", app.message)
        return local, summaries

    started = time.monotonic()
    local, summaries = asyncio.run(run())
    game = local.game
    assert game.is_over and game.winner is not None
    assert summaries == len(game.summaries) >= 1
    assert max(game.totals) >= 10 and game.totals.count(max(game.totals)) == 1  # R15
    saved = from_record(json.loads((tmp_path / "game.json").read_text(encoding="utf-8")))
    assert summary(saved)["status"] == "finished" and saved.totals == game.totals
    assert time.monotonic() - started < 30


# ---------------------------------------------------------------- snapshots


def _at_first_turn(app: TableApp) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        driver = app.driver
        assert isinstance(driver, LocalDriver)
        local = driver.local
        await until(pilot, settled(app, local))
        for _ in range(5):  # a few cards in, so the table shows a trick, locks, lost cards
            await pilot.press("enter")
            await until(pilot, settled(app, local))
        await pilot.press("right")

    return run_before


@pytest.mark.parametrize("size", [(100, 35), (80, 24)], ids=["100x35", "80x24"])
def test_snapshot_table(snap_compare: Any, size: tuple[int, int]) -> None:
    app, _ = local_app(seed=3, target=10)
    assert snap_compare(app, terminal_size=size, run_before=_at_first_turn(app))


def test_snapshot_hand_summary_80x24(snap_compare: Any) -> None:
    app, local = local_app(seed=3, target=10)

    async def run_before(pilot: Pilot[Any]) -> None:
        while not app.summary_open:
            await until(pilot, settled(app, local))
            if not app.summary_open:
                await pilot.press("enter")

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


# ---------------------------------------------------------------- --server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("tui") / "games.sqlite"
    with Server(db, "--bot-delay", "0", "--bot-jitter", "0") as s:
        yield s


def test_server_urls() -> None:
    t = Target.parse("http://127.0.0.1:8000/room/AB12?invite=KEY")
    assert (t.kind, t.room, t.key, t.ws_url) == ("room", "AB12", "KEY", "ws://127.0.0.1:8000/ws")
    t = Target.parse("https://example.org/watch/AB12?key=K2")
    assert (t.kind, t.room, t.key, t.ws_url) == ("watch", "AB12", "K2", "wss://example.org/ws")
    assert Target.parse("http://127.0.0.1:8000/").kind == "game"
    for bad in ("ftp://x/", "http://h/rooms/1", "http://h/watch/1"):
        with pytest.raises(ValueError):
            Target.parse(bad)


async def play_first_legal(ws: Any, seat: int) -> None:
    """A scripted person at ``seat``: plays its first legal card whenever it is its turn."""
    async for raw in ws:
        msg = json.loads(raw)
        view = msg.get("view")
        if view and view.get("turn") == seat and view.get("legal"):
            await ws.send(
                json.dumps({"type": "play", "card": view["legal"][0], "version": msg["version"]})
            )


def test_play_at_a_lockup_serve_room(server: Server) -> None:
    host = httpx.Client(base_url=server.url, timeout=20)
    host.get("/")
    r = host.post("/api/rooms", json={"levels": "random", "target": 10, "name": "Ann"})
    assert r.status_code == 200, r.text
    room = r.json()

    played: list[str] = []

    async def run() -> None:
        driver = RemoteDriver(room["invite"], name="Bo")
        app = TableApp(driver)
        async with app.run_test(size=(100, 35)) as pilot:
            await until(pilot, lambda: driver.room is not None)
            me = driver.room["you"] if driver.room else None
            assert me == 1 and "Waiting for the host" in app.message
            async with websockets.connect(
                server.ws_url,
                additional_headers={
                    "Cookie": f"lockup_player={host.cookies['lockup_player']}",
                    "Origin": server.url,
                },
                max_queue=None,
            ) as ws:
                await ws.send(json.dumps({"type": "hello", "room": room["room"], "since": 0}))
                await ws.send(json.dumps({"type": "start"}))
                ann = asyncio.create_task(play_first_legal(ws, seat=0))
                await until(pilot, lambda: app.view is not None and app.view["seat"] == me)
                assert app.players[1] == "Bo" and app.players[0] == "Ann"
                for _ in range(3):  # three of Bo's cards, through the pilot
                    await until(pilot, lambda: bool((app.view or {}).get("legal")))
                    code = app.order[app.cursor]
                    held = len((app.view or {})["hand"])
                    version = driver.version
                    await pilot.press("enter")
                    await until(pilot, lambda c=code: c not in (app.view or {})["hand"])  # type: ignore[misc]
                    assert driver.version > version
                    assert len((app.view or {})["hand"]) < held
                    played.append(code)
                # a card that is not legal now: the server's refusal, with the engine's reason
                for _ in range(10):
                    await until(pilot, lambda: bool((app.view or {}).get("legal")))
                    view = app.view or {}
                    illegal = [c for c in app.order if c not in view["legal"]]
                    if illegal:
                        break
                    await pilot.press("enter")
                    await until(pilot, lambda v=view: app.view is not v)  # type: ignore[misc]
                assert illegal, "ten turns without a card that may not be played"
                hand = list(view["hand"])
                await pilot.click(f"#slot-{app.order.index(illegal[0])}")
                await until(pilot, lambda: app.message.startswith("Refused"))
                assert app.query_one("#message").has_class("refusal")
                assert app.message.split(": ", 1)[1].startswith("You ")  # the engine's words
                assert (app.view or {})["hand"] == hand
                ann.cancel()
            await pilot.press("q")
        assert len(played) == 3

    try:
        asyncio.run(run())
    finally:
        host.close()
