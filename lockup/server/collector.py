"""The server's settings of Python's cyclic garbage collector (docs/server.md, "Memory and
the garbage collector").

Almost everything a game and a connection make is freed by reference counting the moment
it is dropped (tests/test_server_hotpath.py plays games over real sockets and finds no
cycle of the server's own). The collector is still needed for the few reference cycles
left, chiefly asyncio's transport of each closed connection (about 7 objects, its socket
among them), but its full passes scan every object the server holds: at a thousand
people, about 230,000, for 100 to 500 ms during which no card is acknowledged (0.7 s at
5,000). Python starts one whenever the objects that outlived two young passes grew by a
quarter, which under a steady load of people coming and going is every 10 to 20 seconds.

So the server (:func:`settle`, once started):

- freezes what start-up made (modules, tables, the engine's constants), which lives as
  long as the process and is never scanned again;
- keeps the young passes, which scan only the objects made since the last, but takes one
  every :data:`YOUNG` allocations instead of Python's 700: most of a card's short-lived
  objects are gone by then, so the passes scan fewer objects in all (at a thousand
  people, measured in wall time on a busy machine: passes over 5 ms took 1.0 s in all
  over a run instead of 4.3 s, the longest 82 ms against 134);
- makes a full pass itself every :data:`FULL_EVERY` seconds (:func:`full_passes`) instead
  of whenever Python would: the transports of the connections closed meanwhile wait at
  most that long (at 10 new connections a second, about 250,000 small objects in the
  half hour), and a process with thousands of people pauses once in that time, not every
  few seconds.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("lockup.server")

FULL_EVERY = 1800.0
"""Seconds between two full passes of the collector."""

YOUNG = 10_000
"""Allocations (less deallocations) of tracked objects between two young passes."""

NEVER = 1 << 30
"""A threshold of the old generation that Python's own rule never reaches."""


def settle(young: int = YOUNG) -> tuple[int, int, int]:
    """Once the server has started: collect, freeze what there is, and leave full passes
    to :func:`full_passes`. Returns the collector's thresholds before, for
    :func:`restore`."""
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(young, before[1], NEVER)
    return before


def restore(thresholds: tuple[int, int, int]) -> None:
    """Put the collector's thresholds back as :func:`settle` found them (the server
    stopped; in a test, the process goes on)."""
    gc.set_threshold(*thresholds)


async def full_passes(every: float = FULL_EVERY) -> None:
    """Make a full pass of the collector every ``every`` seconds, logging how long it took
    (at ``debug``, or ``info`` past 0.1 s) and what it freed."""
    while True:
        await asyncio.sleep(every)
        start = time.perf_counter()
        freed = gc.collect()
        took = time.perf_counter() - start
        log.log(
            logging.INFO if took > 0.1 else logging.DEBUG,
            "garbage collector: a full pass took %.0f ms and freed %d objects",
            took * 1000,
            freed,
        )
