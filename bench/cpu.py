"""Where a bench run's CPU went: seconds per group of processes, read from ``/proc`` (Linux).

The load benches run everything on one machine: the server's processes, its PostgreSQL and
Redis, and the simulated players. When the machine is busy, a server figure is bound by
the machine rather than by the server, and these counts say so: the CPU seconds each group
used during the run, per game, and the machine's bound (its CPUs over the CPU seconds a
game costs in all).
"""

from __future__ import annotations

import os
import resource
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

_HZ = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float] | None:
    """(parent pid, CPU seconds) of a live process, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _HZ


def tree(root: int) -> set[int]:
    """``root`` and every live descendant of it."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                children.setdefault(st[0], []).append(int(name))
    out, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid not in out:
            out.add(pid)
            todo += children.get(pid, [])
    return out


def _self_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _machine() -> tuple[int, int]:
    """(all jiffies, idle jiffies) of the machine so far."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v), v[3] + v[4]


Groups = dict[str, Callable[[], Iterable[int]]]
"""A name for each group, and how to find its processes now (``"players"`` is this one)."""


@dataclass
class Usage:
    """CPU seconds each group used between :meth:`CpuMeter.start` and :meth:`CpuMeter.stop`."""

    seconds: dict[str, float] = field(default_factory=dict)
    busy: float = 0.0  # the machine's busy share over the run, 0..1

    def per_game(self, games: int) -> dict[str, float]:
        """CPU seconds a game, per group and in ``"all"``."""
        out = {k: v / max(1, games) for k, v in self.seconds.items()}
        out["all"] = sum(self.seconds.values()) / max(1, games)
        return out

    def bound(self, games: int) -> float:
        """The games a second this machine could carry at this run's CPU per game."""
        total = sum(self.seconds.values())
        return (os.cpu_count() or 1) * games / total if total else float("nan")

    def line(self, games: int, wall: float) -> str:
        """One line for a report: each group's CPUs in use and CPU ms a game."""
        parts = [
            f"{k} {v / wall:.2f} CPU ({1000 * v / max(1, games):.0f} ms a game)"
            for k, v in self.seconds.items()
        ]
        return f"machine busy {100 * self.busy:.0f}%; " + ", ".join(parts)


class CpuMeter:
    """Counts the CPU seconds of each group of processes over one run."""

    def __init__(self, groups: Groups) -> None:
        self.groups = groups
        self._start: dict[str, dict[int, float]] = {}
        self._self = 0.0
        self._machine = (0, 0)

    def _read(self) -> dict[str, dict[int, float]]:
        out: dict[str, dict[int, float]] = {}
        for name, find in self.groups.items():
            pids: dict[int, float] = {}
            for pid in find():
                st = _stat(pid)
                if st is not None:
                    pids[pid] = st[1]
            out[name] = pids
        return out

    def start(self) -> None:
        """Mark the start of the run."""
        self._start = self._read()
        self._self = _self_seconds()
        self._machine = _machine()

    def stop(self) -> Usage:
        """The CPU each group used since :meth:`start` (a process that ended in between
        is not counted; one that began counts in full)."""
        now = self._read()
        usage = Usage()
        for name, pids in now.items():
            before = self._start.get(name, {})
            usage.seconds[name] = sum(t - before.get(pid, 0.0) for pid, t in pids.items())
        usage.seconds["players"] = _self_seconds() - self._self
        total, idle = _machine()
        dt = total - self._machine[0]
        usage.busy = 1 - (idle - self._machine[1]) / dt if dt else 0.0
        return usage
