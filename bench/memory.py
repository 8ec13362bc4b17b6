"""A server's peak memory and open files over a bench run, read from ``/proc`` (Linux).

:class:`MemoryMeter` samples, a few times a second on a thread of its own, the resident
memory (``VmRSS``) of every process of a tree (a server and its bot workers) and the open
files of its root; at the end it gives the largest sum seen, and the root's own peak as
the kernel counts it (``VmHWM``, which a sample cannot miss).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass


def _status_kib(pid: int, key: str) -> int:
    """A ``kB`` field of ``/proc/<pid>/status`` (``VmRSS``, ``VmHWM``), 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _open_files(pid: int) -> int:
    """How many files ``pid`` holds open (sockets included), 0 if it is gone."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


@dataclass
class Memory:
    """What :class:`MemoryMeter` saw over one run."""

    tree_peak_mb: float = 0.0
    """The largest resident memory of the whole tree at one sample, in MB (2**20 bytes)."""
    root_peak_mb: float = 0.0
    """The root process's own peak resident memory (``VmHWM``), in MB."""
    processes: int = 0
    """The processes in the tree at the sample of its peak."""
    files_peak: int = 0
    """The most files the root held open at one sample (each connection is one)."""

    def line(self) -> str:
        """One line for a report: ``server RSS N MB (...)``."""
        return (
            f"server RSS {self.tree_peak_mb:.0f} MB (peak of {self.processes} processes; "
            f"the serving process {self.root_peak_mb:.0f} MB); open files {self.files_peak} "
            "at most"
        )


class MemoryMeter:
    """Samples the memory of the processes ``find()`` names, every ``every`` seconds."""

    def __init__(self, root: int, find: Callable[[], Iterable[int]], every: float = 0.25):
        self.root = root
        self.find = find
        self.every = every
        self.memory = Memory()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-meter", daemon=True)

    def start(self) -> None:
        """Start sampling."""
        self._thread.start()

    def stop(self) -> Memory:
        """Stop sampling; what was seen."""
        self._stop.set()
        self._thread.join()
        self._sample()
        self.memory.root_peak_mb = max(
            self.memory.root_peak_mb, _status_kib(self.root, "VmHWM") / 1024
        )
        return self.memory

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self._sample()

    def _sample(self) -> None:
        pids = list(self.find())
        kib = [_status_kib(pid, "VmRSS") for pid in pids]
        total = sum(kib) / 1024
        m = self.memory
        if total > m.tree_peak_mb:
            m.tree_peak_mb, m.processes = total, sum(1 for k in kib if k)
        m.root_peak_mb = max(m.root_peak_mb, _status_kib(self.root, "VmHWM") / 1024)
        m.files_peak = max(m.files_peak, _open_files(self.root))
