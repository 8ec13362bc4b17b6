"""The server's bot and hint workers are warm before the first player asks: after
:meth:`BotPool.warm_up` (``lockup serve`` runs it at start), the first hint takes its time
budget, not the seconds of a cold worker (spawn, imports, the search kernel's load)."""

from __future__ import annotations

import asyncio
import random
import time

from lockup.engine import Game
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
