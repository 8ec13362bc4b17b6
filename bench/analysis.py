"""Time to analyse one whole game (``lockup analyse``) with one worker and with every CPU.

Run: ``python bench/analysis.py [--record FILE] [--seat S] [--iterations N] [--workers N]
[--json]``.

The record is tests/fixtures/won-21-20-19-18.json by default (six hands, won 21-20-19-18),
analysed for one seat at the default budget (:data:`lockup.analysis.DEFAULT_ITERATIONS`
sampled deals a decision, plus the hindsight rollouts). It is analysed twice: in this
process (one worker), then over ``--workers`` processes (default: the number of CPUs),
and the wall-clock times are printed side by side with their ratio. Both runs give the
same analysis (checked). The search kernel is loaded before the first run; each worker
process of the second run loads it itself, which is part of its time.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lockup.analysis import DEFAULT_ITERATIONS, analyse  # noqa: E402
from lockup.bots.expert import warm_up  # noqa: E402

DEFAULT_RECORD = ROOT / "tests" / "fixtures" / "won-21-20-19-18.json"


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
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    record = json.loads(Path(args.record).read_text(encoding="utf-8"))
    start = time.perf_counter()
    warm_up()
    load = time.perf_counter() - start
    runs = []
    results = []
    for workers in (1, args.workers):
        start = time.perf_counter()
        a = analyse(record, args.seat, iterations=args.iterations, seed=0, workers=workers)
        seconds = time.perf_counter() - start
        results.append(a.to_dict())
        runs.append({"workers": a.workers, "seconds": round(seconds, 2)})
    decisions = len(results[0]["decisions"])
    unforced = sum(1 for d in results[0]["decisions"] if not d["forced"])
    out = {
        "record": Path(args.record).name,
        "hands": len(record["hands"]),
        "seat": args.seat,
        "decisions": decisions,
        "unforced": unforced,
        "iterations": args.iterations,
        "cpus": os.cpu_count(),
        "kernel_load_s": round(load, 2),
        "runs": runs,
        "speedup": round(runs[0]["seconds"] / max(runs[1]["seconds"], 1e-9), 2),
        "same_result": results[0] == results[1],
        "load_average": [round(x, 1) for x in os.getloadavg()]
        if hasattr(os, "getloadavg")
        else None,
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0 if out["same_result"] else 1
    print(
        f"{out['record']}: {out['hands']} hands, seat {args.seat}, {decisions} decisions "
        f"({unforced} unforced), {args.iterations} deals a decision; {out['cpus']} CPUs, "
        f"kernel loaded in {load:.2f} s"
    )
    one, many = runs
    print(
        f"1 worker: {one['seconds']:.2f} s   {many['workers']} workers: {many['seconds']:.2f} s"
        f"   ratio {out['speedup']:.2f}x   same result: {out['same_result']}"
    )
    if out["load_average"] is not None:
        print(f"load average while measured: {out['load_average']}")
    return 0 if out["same_result"] else 1


if __name__ == "__main__":
    sys.exit(main())
