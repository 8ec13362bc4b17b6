"""``lockup arena --ratings``: the bots rated from the arena's games, printed as a table,
and the same numbers openskill gives when fed the kept records' final points in order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from lockup.cli import main as lockup_main
from lockup.record import from_record


def test_arena_ratings_print_a_table_that_openskill_agrees_with(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, records = tmp_path / "out.json", tmp_path / "records"
    argv = ["arena", "--bots", "random,easy,random,normal", "--hands", "40", "--seed", "5"]
    argv += ["--target", "10", "--workers", "1", "--quiet", "--ratings"]
    assert lockup_main([*argv, "--json", str(out), "--records", str(records)]) == 0
    printed = capsys.readouterr().out
    s = json.loads(out.read_text(encoding="utf-8"))
    rows = s["ratings"]
    assert [r["bot"] for r in rows] == sorted(
        [r["bot"] for r in rows], key=lambda b: -next(x["rating"] for x in rows if x["bot"] == b)
    )
    assert {r["bot"] for r in rows} == {"random (0,2)", "1:easy", "3:normal"}
    assert all(r["games"] == s["games"] for r in rows)

    # The table: a header and one line per bot with its numbers.
    lines = printed.splitlines()
    head = lines.index("ratings (Weng-Lin Plackett-Luce, openskill; rating = mu - 3 sigma):")
    assert lines[head + 1].split() == ["bot", "rating", "mu", "sigma", "games"]
    for r, line in zip(rows, lines[head + 2 : head + 2 + len(rows)], strict=True):
        assert line.split() == [
            *r["bot"].split(),
            f"{r['rating']:.2f}",
            f"{r['mu']:.3f}",
            f"{r['sigma']:.3f}",
            str(r["games"]),
        ]

    # openskill itself over the records in the order played: random's two seats each from
    # the same prior, its new rating the mean of theirs.
    model = PlackettLuce()
    subject = {0: "random", 1: "easy", 2: "random", 3: "normal"}
    now = {k: model.rating() for k in ("random", "easy", "normal")}
    files = sorted(records.glob("set*-rot*.json"))
    assert len(files) == s["games"]
    for f in files:
        data = json.loads(f.read_text(encoding="utf-8"))
        totals = from_record(data).totals
        entries = [int(name.split(":")[0]) for name in data["players"]]  # by seat
        ranks = [1 + sum(1 for q in totals if q > p) for p in totals]
        teams = [
            [model.rating(mu=now[subject[e]].mu, sigma=now[subject[e]].sigma)] for e in entries
        ]
        rated = model.rate(teams, ranks=[float(x) for x in ranks])
        for name in set(subject.values()):
            mine = [t[0] for t, e in zip(rated, entries, strict=True) if subject[e] == name]
            now[name] = model.rating(
                mu=sum(x.mu for x in mine) / len(mine), sigma=sum(x.sigma for x in mine) / len(mine)
            )
    for r in rows:
        mine = now[r["spec"]]
        assert (r["mu"], r["sigma"]) == pytest.approx((mine.mu, mine.sigma), abs=1e-9)
        assert r["rating"] == pytest.approx(mine.ordinal(), abs=1e-9)
