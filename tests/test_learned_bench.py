"""bench/learned.py: issue 13's learned policy is collected, fitted and played end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = str(ROOT / "bench" / "learned.py")


def _run(*args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, SCRIPT, *args],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_collect_fit_and_play_the_learned_policy(tmp_path: Path) -> None:
    data = tmp_path / "data"
    quick = ["--hands", "4", "--target", "10", "--workers", "1", "--quiet"]
    both = ["--bots", "xrec,orec,xrec,orec"]  # the expert and the cheater, recording
    _run("collect", str(data), *both, "--time-per-move", "0.005", "--seed", "2", *quick)
    rows = [json.loads(x) for p in data.glob("data-*.jsonl") for x in p.read_text().splitlines()]
    assert len(rows) > 40
    for row in rows:  # a choice among two or more legal cards, one feature row each
        assert len(row["x"]) >= 2 and 0 <= row["y"] < len(row["x"])
        assert all(len(r) == 24 for r in row["x"])
    report = _run("train", str(data))
    assert "held out: learned" in report
    weights = json.loads((data / "weights.json").read_text())
    assert len(weights["w"]) == len(weights["features"]) == 24
    out = tmp_path / "summary.json"
    args = ["arena", "--bots", "learned,bold,normal,normal", "--seed", "3", *quick]
    _run(*args, "--json", str(out), env={"LEARNED": str(data / "weights.json")})
    summary = json.loads(out.read_text())
    bots = {b["name"]: b for b in summary["bots"]}
    assert {"learned", "bold", "normal"} <= set(bots)
    for b in bots.values():
        assert b["moves"] > 0 and not any(b["faults"].values()) and b["random_moves"] == 0
