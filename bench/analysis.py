"""Time to analyse one whole game (``lockup analyse``) with one worker and with every CPU.

Run: ``python bench/analysis.py [--record FILE] [--seat S] [--iterations N] [--workers N]
[--repeat N] [--json]``.

The record is tests/fixtures/won-21-20-19-18.json by default (six hands, won 21-20-19-18),
analysed for one seat at the default budget (:data:`lockup.analysis.DEFAULT_ITERATIONS`
sampled deals a decision, plus the hindsight rollouts). The command is run twice, each
time as a fresh process exactly as a user runs it (so loading the search kernel is part
of the time): with ``--workers 1``, then with ``--workers`` processes (default: the
number of CPUs), ``--repeat`` times in turn. The best wall-clock times (and medians) are
printed side by side with their ratio, and every analysis is checked to be identical. On a machine shared with other work the ratio
says as much about the others' load as about the analysis: the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lockup.analysis import DEFAULT_ITERATIONS  # noqa: E402

DEFAULT_RECORD = ROOT / "tests" / "fixtures" / "won-21-20-19-18.json"


def run(record: str, seat: int, iterations: int, workers: int) -> tuple[float, dict[str, Any]]:
    """Wall-clock seconds of one ``lockup analyse`` and its JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "analysis.json"
        cmd = [
            sys.executable,
            "-m",
            "lockup",
            "analyse",
            record,
            "--seat",
            str(seat),
            "--iterations",
            str(iterations),
            "--workers",
            str(workers),
            "--json",
            str(out),
        ]
        start = time.perf_counter()
        subprocess.run(
            cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        seconds = time.perf_counter() - start
        data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return seconds, data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--record", default=str(DEFAULT_RECORD), help="a lockup-record/1 file")
    ap.add_argument("--seat", type=int, default=0, help="the seat analysed (default 0)")
    ap.add_argument(
        "--iterations",
        type=int,
        default=DEFAULT_ITERATIONS,
        help=f"sampled deals a decision (default {DEFAULT_ITERATIONS})",
    )
    ap.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="workers of the second run"
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, interleaved (default 3)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    record = json.loads(Path(args.record).read_text(encoding="utf-8"))
    times: dict[int, list[float]] = {1: [], args.workers: []}
    results = []
    for _ in range(max(1, args.repeat)):
        for workers in (1, args.workers):
            seconds, data = run(args.record, args.seat, args.iterations, workers)
            results.append(data)
            times[workers].append(seconds)
    runs = [
        {
            "workers": w,
            "seconds": round(min(ts), 2),
            "median_s": round(statistics.median(ts), 2),
            "all_s": [round(t, 2) for t in ts],
        }
        for w, ts in times.items()
    ]
    decisions = results[0]["decisions"]
    out = {
        "record": Path(args.record).name,
        "hands": len(record["hands"]),
        "seat": args.seat,
        "decisions": len(decisions),
        "unforced": sum(1 for d in decisions if not d["forced"]),
        "iterations": args.iterations,
        "cpus": os.cpu_count(),
        "runs": runs,
        "speedup": round(runs[0]["seconds"] / max(runs[1]["seconds"], 1e-9), 2),
        "same_result": all(r == results[0] for r in results),
        "load_average": [round(x, 1) for x in os.getloadavg()]
        if hasattr(os, "getloadavg")
        else None,
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0 if out["same_result"] else 1
    print(
        f"{out['record']}: {out['hands']} hands, seat {args.seat}, {out['decisions']} decisions "
        f"({out['unforced']} unforced), {args.iterations} deals a decision; {out['cpus']} CPUs"
    )
    one, many = runs
    print(
        f"lockup analyse, best of {len(one['all_s'])} (median): 1 worker: {one['seconds']:.2f} s "
        f"({one['median_s']:.2f} s)   {many['workers']} workers: {many['seconds']:.2f} s "
        f"({many['median_s']:.2f} s)   ratio {out['speedup']:.2f}x   same result: "
        f"{out['same_result']}"
    )
    if out["load_average"] is not None:
        print(f"load average afterwards: {out['load_average']}")
    return 0 if out["same_result"] else 1


if __name__ == "__main__":
    sys.exit(main())
