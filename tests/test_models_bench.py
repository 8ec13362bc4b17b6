"""bench/models.py: how often each rollout model names the card a bot plays."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "models.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_models", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rules_model_names_every_card_of_a_normal_player_and_not_of_a_random_one() -> None:
    models = _load()
    normal = models.agreement("normal", hands=2, iterations=1, seed=3)
    assert normal["decisions"] > 20 and normal["normal"] == 1.0
    assert 0.0 < normal["greedy"] < 1.0 and 0.0 < normal["learned"] < 1.0
    wild = models.agreement("random", hands=2, iterations=1, seed=3)
    assert wild["decisions"] > 20 and wild["normal"] < 0.9


def test_the_script_prints_each_model_for_a_search_bot() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "pimc", "--hands", "1", "--iterations", "4"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = done.stdout.strip()
    assert line.startswith("pimc: ") and "normal" in line and "learned" in line and "greedy" in line
