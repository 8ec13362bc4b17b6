"""bench/oracle.py: the cheating bots of issue 13's experiment play whole arena games."""

from __future__ import annotations

import importlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lockup import engine
from lockup.arena import pimc
from lockup.bots import registry

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("bots", ["otree,oracle,ogreedy,pimc", "xoracle,pimc+,xoracle,expert"])
def test_the_oracles_play_arena_games_without_a_fault(tmp_path: Path, bots: str) -> None:
    out = tmp_path / "summary.json"
    args = ["--bots", bots, "--time-per-move", "0.005", "--hands", "4"]
    args += ["--target", "10", "--seed", "3", "--workers", "1", "--quiet", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "oracle.py"), *args],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(out.read_text())
    assert summary["hands"] >= 4
    by_name = {b["name"]: b for b in summary["bots"]}
    assert set(by_name) == set(bots.split(","))
    for b in by_name.values():
        assert b["moves"] > 0 and b["hands"] == summary["hands"]
        assert not any(b["faults"].values()) and b["random_moves"] == 0


def test_xoracle_searches_the_true_deal_with_the_experts_options(monkeypatch: Any) -> None:
    # The script patches the engine's view, pimc's sampler and the levels on import: keep
    # them for this test only (a fresh import each time).
    monkeypatch.setattr(engine.Game, "view", engine.Game.view)
    monkeypatch.setattr(pimc.DealSampler, "sample", pimc.DealSampler.sample)
    monkeypatch.setattr(registry, "LEVELS", dict(registry.LEVELS))
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    monkeypatch.delitem(sys.modules, "oracle", raising=False)
    oracle = importlib.import_module("oracle")
    game = engine.Game.new(random.Random(4), record=False)
    for _ in range(6):
        v = game.view(game.turn)
        game.play((v.legal_mask & -v.legal_mask).bit_length() - 1, game.turn)
    view = game.view(game.turn)  # the spying view: the oracle reads this game
    made: list[Any] = []

    class Spy(oracle.Position):  # type: ignore[misc, name-defined]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append((self, kwargs))

    monkeypatch.setattr(oracle, "Position", Spy)
    bot = oracle.ExpertOracle(seed=1, iterations=50, time_limit=None)
    card = bot.choose(view)
    assert view.legal_mask >> card & 1
    pos, kwargs = made[0]
    assert pos.iterations == 50
    # Every deal it searched was the real one: the last is in work[0], every hand in it.
    assert [int(pos.work[0][s]) for s in range(4)] == [game.hands[s] for s in range(4)]
    # ... with the expert's own options (a plain expert's search, less the budget).
    expected = bot.search_options()
    for key in ("iterations", "time_limit", "min_iterations", "narrow", "narrow_share"):
        expected.pop(key)
    assert {k: kwargs[k] for k in expected} == expected
