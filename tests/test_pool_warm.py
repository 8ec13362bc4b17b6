"""The server's bot and hint workers are warm before the first player asks: after
:meth:`BotPool.warm_up` (``lockup serve`` runs it at start), the first hint takes its time
budget, not the seconds of a cold worker (spawn, imports, the search kernel's load)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from lockup.engine import PLAY, Game, Rules
from lockup.server.pool import BotPool

BUDGET = 0.2


async def _first_hint(warm: bool) -> tuple[float, float]:
    pool = BotPool(processes=1)
    try:
        t0 = time.perf_counter()
        if warm:
            await pool.warm_up()
        warming = time.perf_counter() - t0
        game = Game.new(random.Random(3), record=False)
        t0 = time.perf_counter()
        values = await pool.hint(game.view(game.turn), BUDGET)
        took = time.perf_counter() - t0
        assert set(values) == set(game.legal_cards())
        return warming, took
    finally:
        pool.close()


def test_the_first_hint_after_warm_up_takes_its_budget() -> None:
    cold_start, cold = asyncio.run(_first_hint(warm=False))
    warming, warm = asyncio.run(_first_hint(warm=True))
    print(f"\nfirst hint: cold {cold:.2f} s; after a {warming:.2f} s warm-up {warm:.2f} s")
    assert warm < BUDGET + 1.0, f"the first hint took {warm:.2f} s after the warm-up"
    assert warm < cold, (warm, cold)


def _started(pool: BotPool) -> tuple[bool, bool]:
    """Whether the bot and the hint worker processes have been started."""
    return pool._bots._procs is not None, pool._hints._procs is not None


def test_workers_start_when_a_game_needs_them_and_not_before() -> None:
    """Cheap levels and no hints start no process; an expert starts the bot workers in
    the background, hints the hint worker, each once, and its first use is then warm."""

    async def go() -> None:
        pool = BotPool(processes=1)
        try:
            pool.expect({"random", "easy", "normal"}, hints=False)
            await asyncio.sleep(0.5)
            assert _started(pool) == (False, False)
            pool.expect({"expert"}, hints=False)
            task = pool._warming["bot"]
            pool.expect({"master"}, hints=False)  # already under way: the same start
            assert pool._warming["bot"] is task
            await asyncio.wait_for(task, 60)
            assert _started(pool) == (True, False)
            pool.expect(set(), hints=True)
            await asyncio.wait_for(pool._warming["hint"], 60)
            assert _started(pool) == (True, True)
            game = Game.new(random.Random(5), record=False)
            t0 = time.perf_counter()
            values = await pool.hint(game.view(game.turn), BUDGET)
            assert set(values) == set(game.legal_cards())
            assert time.perf_counter() - t0 < BUDGET + 1.0
        finally:
            pool.close()

    asyncio.run(go())


def test_a_server_starts_the_workers_its_games_need(tmp_path: Path) -> None:
    """The game service asks for the levels a game's computers play, the level that plays
    for an absent person, and hints where a person sits."""
    from lockup.server.config import ServerConfig
    from lockup.server.session import GameService
    from lockup.server.session.seat import Seat
    from lockup.server.store import Store

    asked: list[tuple[set[str], bool]] = []

    class Recording(BotPool):
        def expect(self, levels: Iterable[str], *, hints: bool) -> None:
            asked.append((set(levels), hints))

    async def go() -> None:
        store = Store(f"sqlite:///{tmp_path / 'g.sqlite'}")
        await store.start()
        pool = Recording(processes=1)
        config = replace(ServerConfig(), level="normal", bot_delay=0.0, bot_jitter=0.0)
        service = GameService(store, pool, config)
        try:
            await service.new_game("player-token-000000001", Rules(), "random")
            assert asked == [({"random", "normal"}, True)]
            seats = [Seat("bot", level="expert"), Seat("bot", level="random")] * 2
            await service.new_game_at(seats, ["A", "B", "C", "D"], Rules(), [])
            assert asked[1] == ({"expert", "random"}, False)
            quiet = GameService(store, pool, replace(config, warm=False))
            await quiet.new_game("player-token-000000002", Rules(), "expert")
            assert len(asked) == 2
            await quiet.close()
        finally:
            await service.close()
            pool.close()
            await store.close()

    asyncio.run(go())


def test_inline_bots_choose_at_once_and_a_faulty_one_plays_a_legal_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``choose_now`` answers a legal card for ``random`` (from the legal cards alone) and
    ``easy`` (from the view) in every position of a game; a bot that raises or answers an
    illegal card is replaced by a random legal one, and the game goes on."""
    from lockup.server import pool as pool_module

    pool = BotPool(processes=1)
    game = Game.new(random.Random(11), record=False)
    played = 0
    while not game.is_over:
        if game.phase != PLAY:
            game.chance_move(random.Random(played))
            continue
        seat = game.turn
        legal = game.legal_mask(seat)
        for level in ("random", "easy"):
            assert (legal >> pool.choose_now(level, game, seat)) & 1
        game.play(pool.choose_now("random", game, seat), seat)
        played += 1
    assert played > 40

    class Faulty:
        def __init__(self, answer: object) -> None:
            self.answer = answer

        def choose(self, view: object) -> object:
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer

    game = Game.new(random.Random(12), record=False)
    legal = game.legal_mask(game.turn)
    for answer in (RuntimeError("a bug"), -1, 52, 10**9, "QD"):
        monkeypatch.setattr(pool_module, "_bot_for", lambda level, a=answer: Faulty(a))
        for _ in range(20):
            assert (legal >> pool.choose_now("easy", game, game.turn)) & 1
    pool.close()
