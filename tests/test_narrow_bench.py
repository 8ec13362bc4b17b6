"""bench/narrow.py: the deals ``master``'s recursive search spends, with and without
``narrow`` or ``rcache`` (issue 24)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "narrow.py"


def _load() -> ModuleType:
    sys.path.insert(0, str(SCRIPT.parent))  # the script imports bench/search.py
    try:
        spec = importlib.util.spec_from_file_location("bench_narrow", SCRIPT)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return module


def test_narrowing_gives_the_recursive_search_more_deals_where_there_are_many_cards() -> None:
    rows = _load().compare(n_positions=8, seconds=0.06, variant={"narrow": 2})
    assert sum(len(r) for r in rows.values()) >= 6
    wide = [row for n, r in rows.items() if n >= 4 for row in r]
    assert wide, rows
    assert sum(b for _a, b, _same in wide) > 1.3 * sum(a for a, _b, _same in wide)
    for r in rows.values():
        assert all(a >= 1 and b >= 1 for a, b, _same in r)


def test_the_cache_gives_the_recursive_search_more_deals() -> None:
    rows = _load().compare(n_positions=12, seconds=0.06, variant={"rcache": 1})
    wide = [row for n, r in rows.items() if n >= 3 for row in r]
    assert len(wide) >= 4, rows
    assert sum(b for _a, b, _same in wide) > 1.15 * sum(a for a, _b, _same in wide)
