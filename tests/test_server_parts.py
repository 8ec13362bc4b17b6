"""The server's parts on their own: the store (a real SQLite file), options, the bot pool."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from lockup.cards import card_str
from lockup.engine import Game, Rules
from lockup.record import from_record
from lockup.server.config import ServerConfig
from lockup.server.pool import BotPool, HintsBusy, choose_card
from lockup.server.protocol import OptionError, hint_frame, parse_options
from lockup.server.store import ActionRow, GameRow, Store, StoreError, check_url, record_of


def _game_row(game_id: str, rules: Rules | None = None) -> GameRow:
    return GameRow(
        game_id, (rules or Rules()).to_dict(), ["A", "B", "C", "D"], [{"kind": "bot"}] * 4, None
    )


def test_store_group_commit_and_a_bad_write_fails_alone(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'g.sqlite'}"

    async def go() -> None:
        store = Store(url)
        await store.start()
        try:
            await asyncio.gather(
                *(
                    store.write(Store.op_create_game(_game_row(f"g{i}"), [], [f"player{i:012d}"]))
                    for i in range(20)
                )
            )
            commits = store.commits

            async def play(i: int, n: int) -> None:
                for k in range(n):
                    await store.write(actions=(f"g{i}", [ActionRow(k, "play", k % 4, "QD", k + 1)]))

            await asyncio.gather(*(play(i, 10) for i in range(20)))
            assert store.commits - commits < 200  # 200 writes, grouped
            # A duplicate action (seq 0 again) fails, and only that write.
            results = await asyncio.gather(
                store.write(actions=("g0", [ActionRow(0, "play", 0, "2C", 99)])),
                store.write(actions=("g1", [ActionRow(10, "play", 0, "2C", 11)])),
                return_exceptions=True,
            )
            assert isinstance(results[0], StoreError) and results[1] is None
            found = await store.load("g1")
            assert found is not None
            header, rows = found
            assert [r.seq for r in rows] == list(range(11))
            assert rows[-1] == ActionRow(10, "play", 0, "2C", 11)
            found0 = await store.load("g0")
            assert found0 is not None and len(found0[1]) == 10
            assert await store.player_game("player000000000003") == "g3"
            assert await store.player_game("nobody") is None
            assert await store.load("nosuchgame") is None
        finally:
            await store.close()

    asyncio.run(go())


def test_record_of_stored_rows_replays(tmp_path: Path) -> None:
    rng = random.Random(5)
    game = Game.new(rng, Rules(target=10))
    while not game.is_over:
        if game.discard_due is not None:
            game.discard_random(rng)
        elif game.phase == "deal":
            game.deal(rng=rng)
        else:
            game.play(rng.choice(game.legal_cards()))
    assert game.log is not None
    rows = []
    for hand in game.log:
        rows.append(
            ActionRow(
                len(rows),
                "deal",
                hand.dealer,
                json.dumps([[card_str(c) for c in cs] for cs in hand.deal]),
                0,
            )
        )
        for kind, seat, card in hand.events:
            rows.append(ActionRow(len(rows), kind, seat, card_str(card), 0))
    again = from_record(record_of(_game_row("g", game.rules), rows))
    assert again.totals == game.totals and again.winner == game.winner
    assert again.view(0).to_dict() == game.view(0).to_dict()


def test_bad_database_urls_are_refused_plainly(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not an SQLAlchemy database URL"):
        check_url("not a url")
    with pytest.raises(StoreError, match="cannot"):
        Store(f"sqlite:///{tmp_path / 'missing-dir' / 'x.sqlite'}").open()
    with pytest.raises(StoreError):
        Store("nosuchdb://host/db").open()


def test_new_game_options() -> None:
    levels = ["random", "easy", "normal", "expert"]
    assert parse_options({}, levels, "random") == (Rules(), "random")
    rules, level = parse_options(
        {
            "target": 35,
            "picture_exception": "any-club",
            "lock_discards": "upfront",
            "level": "easy",
        },
        levels,
        "random",
    )
    assert rules == Rules("any-club", "upfront", 35) and level == "easy"
    for bad in (
        {"target": 12},
        {"target": True},
        {"target": 20.0},
        {"level": "hard"},
        {"level": ["expert"]},
        {"speed": 3},
        {"\ud800": 1},
        {"target": 10**100},
        [],
        "x",
    ):
        with pytest.raises(OptionError):
            parse_options(bad, levels, "random")


def _view() -> Any:
    game = Game.new(random.Random(3), Rules())
    return game.view(game.turn)


def test_bot_pool_threads_processes_and_a_failing_bot() -> None:
    view = _view()

    async def go() -> None:
        pool = BotPool(processes=1)
        try:
            cards = await asyncio.gather(*(pool.choose("random", view) for _ in range(10)))
            assert all((view.legal_mask >> c) & 1 for c in cards)
            # The process pool: a real worker process answers.
            card = await pool._bots.run(choose_card, "random", view)
            assert (view.legal_mask >> card) & 1
            # A level that fails (in a worker process) is replaced by a random legal card.
            card = await pool.choose("no-such-level", view)
            assert (view.legal_mask >> card) & 1
        finally:
            pool.close()

    asyncio.run(go())


def test_hint_frame_ranks_the_values() -> None:
    view = _view()
    legal = view.legal_cards
    frame = json.loads(hint_frame(7, {c: 0.5 + i for i, c in enumerate(legal)}))
    assert frame["type"] == "hint" and frame["version"] == 7 and frame["unit"] == "tricks"
    assert [d["card"] for d in frame["values"]] == [card_str(c) for c in reversed(legal)]
    assert frame["best"] == card_str(legal[-1])


def test_hints_beyond_the_queue_are_refused_and_bots_do_not_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hints have workers of their own: with every hint worker busy, more hints are
    refused at once and a bot's card is still chosen."""
    view = _view()

    async def go() -> None:
        pool = BotPool(processes=1, hint_processes=1)
        gate = asyncio.Event()

        async def slow_hint(fn: Any, *args: Any) -> Any:
            await gate.wait()
            return {view.legal_cards[0]: 1.0}

        monkeypatch.setattr(pool._hints, "run", slow_hint)
        try:
            waiting = [asyncio.create_task(pool.hint(view, 0.1)) for _ in range(pool.max_hints)]
            await asyncio.sleep(0)
            with pytest.raises(HintsBusy):
                await pool.hint(view, 0.1)
            card = await asyncio.wait_for(pool.choose("expert", view), 60)
            assert (view.legal_mask >> card) & 1
            gate.set()
            assert all(await asyncio.gather(*waiting))
            assert pool.hints_under_way == 0
        finally:
            pool.close()

    asyncio.run(go())


def test_idle_games_leave_memory_and_load_back_the_same(tmp_path: Path) -> None:
    from lockup.server.session import GameService

    async def go() -> None:
        store = Store(f"sqlite:///{tmp_path / 'g.sqlite'}")
        await store.start()
        pool = BotPool(processes=1)
        service = GameService(store, pool, replace(ServerConfig(), level="random", idle_s=0.0))
        try:
            s = await service.current("player-token-000000001")
            while s.busy:  # the bots play up to South's turn
                await asyncio.sleep(0.01)
            view, version = s.game.view(0).to_dict(), s.version
            assert service.evict_idle() == 1 and s.closed
            assert service.sessions == {}
            again = await service.current("player-token-000000001")
            assert again is not s and again.id == s.id
            assert again.version == version and again.game.view(0).to_dict() == view
            assert await service.get("no-such-game") is None
        finally:
            await service.close()
            pool.close()
            await store.close()

    asyncio.run(go())


def test_a_bots_card_is_held_at_least_as_long_as_its_level_may_think() -> None:
    """A forced card and a searched one leave alike: the hold covers the level's longest
    think (master: 0.9 s), not only --bot-delay; with --bot-delay 0 pacing stays off."""
    from lockup.bots.registry import think_time
    from lockup.server.session import GameService

    assert think_time("master") == 0.9 and think_time("normal") == 0.0
    paced = GameService(None, None, replace(ServerConfig(), bot_delay=0.35, bot_jitter=0.25))  # type: ignore[arg-type]
    for level, low in (("normal", 0.35), ("expert", 0.35), ("master", 1.05)):
        holds = [paced.bot_hold(level) for _ in range(200)]
        assert low <= min(holds) and max(holds) <= low + 0.25, (level, min(holds), max(holds))
        assert max(holds) - min(holds) > 0.1, "the jitter is kept"
    still = GameService(None, None, replace(ServerConfig(), bot_delay=0.35, bot_jitter=0.0))  # type: ignore[arg-type]
    assert still.bot_hold("master") == pytest.approx(1.05)
    off = GameService(None, None, replace(ServerConfig(), bot_delay=0.0, bot_jitter=0.0))  # type: ignore[arg-type]
    assert off.bot_hold("master") == 0.0


class _Page:
    """A page's connection to a seat: the frames it was sent."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.frames: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.frames.append(json.loads(text))

    def close(self, code: int) -> None:
        raise AssertionError(f"closed with {code}")


async def settled(session: Any) -> None:
    """Wait until the game's computers have stopped (a person's turn or the end)."""
    for _ in range(2000):
        if not session.busy:
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the computers did not stop")


def test_unpaced_computers_are_stored_in_one_write_and_shown_card_by_card(
    tmp_path: Path,
) -> None:
    """The cards of computers that need no wait (and the deals and discards between them)
    are stored together: a person's card costs one commit, and the computers' actions after
    it one commit a run of up to ``RUN`` (a person locked up for three tricks is followed
    by more than one run). Over the game there are far fewer commits than actions. The
    page still gets one event a version, each with the view right after that event, and
    the stored game replays to the page's last view."""
    from lockup.server.session import GameService
    from lockup.server.session.driver import RUN

    url = f"sqlite:///{tmp_path / 'g.sqlite'}"
    config = replace(ServerConfig(), bot_delay=0.0, bot_jitter=0.0)

    async def go() -> None:
        store = Store(url)
        await store.start()
        pool = BotPool(processes=1)
        service = GameService(store, pool, config)
        try:
            session = await service.new_game("p" * 18, Rules(target=10), "random")
            page = _Page(0)
            await settled(session)
            session.join(page, 0)
            assert page.frames[-1]["type"] == "state"
            version = page.frames[-1]["version"]
            rng = random.Random(4)
            cards = 0
            first_commit, first_version = store.commits, version
            while not session.game.is_over:
                commits = store.commits
                view = page.frames[-1]["view"]
                assert view["turn"] == 0 and view["legal"], view
                await session.play(0, _card(rng.choice(view["legal"])), version, "p" * 18)
                await settled(session)
                computers = session.version - version - 1  # actions after the person's card
                runs = -(-computers // RUN)  # ceiling
                assert store.commits - commits <= 1 + runs, (computers, store.commits - commits)
                cards += 1
                events = [f for f in page.frames if f["type"] == "event" and f["version"] > version]
                assert [f["version"] for f in events] == list(
                    range(version + 1, session.version + 1)
                )
                for f in events:
                    ev, v = f["event"], f["view"]
                    if ev["kind"] == "play":
                        shown = v["trick"] + (v["last_trick"] or {"plays": []})["plays"]
                        assert {"seat": ev["seat"], "card": ev["card"]} in shown, f
                version = session.version
            assert cards >= 10
            actions = session.version - first_version
            assert store.commits - first_commit < actions / 2, (store.commits, actions)
            found = await store.load(session.id)
            assert found is not None
            again = from_record(record_of(*found))
            assert again.totals == session.game.totals
            assert again.view(0).to_dict()["totals"] == page.frames[-1]["view"]["totals"]
        finally:
            await store.close()
            pool.close()

    asyncio.run(go())


def test_a_page_that_joins_during_a_write_is_shown_the_game_once_it_is_stored(
    tmp_path: Path,
) -> None:
    """A room's page joins its game without the game's lock (the room's lock is what its
    service holds). While a card is being stored the engine already holds it: a page that
    joins then gets nothing until the write is done, then the stored game and every
    version after it; a page that joined and left meanwhile gets nothing at all."""
    from lockup.server.session import GameService

    url = f"sqlite:///{tmp_path / 'g.sqlite'}"
    config = replace(ServerConfig(), bot_delay=0.0, bot_jitter=0.0)

    async def go() -> None:
        store = Store(url)
        await store.start()
        pool = BotPool(processes=1)
        service = GameService(store, pool, config)
        try:
            session = await service.new_game("p" * 18, Rules(target=10), "random")
            first = _Page(0)
            await settled(session)
            session.join(first, 0)
            version = first.frames[-1]["version"]
            card = first.frames[-1]["view"]["legal"][0]
            real_write = session._write
            gate, writing = asyncio.Event(), asyncio.Event()

            async def held_write(*args: Any, **kw: Any) -> None:
                writing.set()
                await gate.wait()
                await real_write(*args, **kw)

            session._write = held_write
            played = asyncio.create_task(session.play(0, _card(card), version, "p" * 18))
            await writing.wait()
            assert session.version == version  # made, not stored
            second, gone = _Page(0), _Page(0)
            session.join(second, 0)
            session.join(gone, 0)
            session.leave(gone)
            assert session.connected(0)
            assert second.frames == [] and gone.frames == []
            gate.set()
            await played
            await settled(session)
            assert gone.frames == []
            state = second.frames[0]
            assert state["type"] == "state" and state["version"] >= version + 1
            shown = state["view"]["trick"] + (state["view"]["last_trick"] or {"plays": []})["plays"]
            assert {"seat": 0, "card": card} in shown or state["view"]["phase"] != "play"
            after = [f["version"] for f in second.frames[1:] if "version" in f]
            assert after == list(range(state["version"] + 1, session.version + 1))
            assert second.frames[-1]["view"] == first.frames[-1]["view"]
        finally:
            await store.close()
            pool.close()

    asyncio.run(go())


def _card(text: str) -> int:
    from lockup.cards import parse_card

    return parse_card(text)
