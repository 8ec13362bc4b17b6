"""bench/oracle.py: the cheating bots of issue 13's experiment play whole arena games."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
