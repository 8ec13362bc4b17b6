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
- keeps Python's young passes, one every :data:`YOUNG` allocations (less deallocations):
  each scans the objects made since the last that are still alive. The count falls as old
  objects die, so at thousands of people the young generation holds several times the
  threshold by the time it is passed (at 10,000: 40,000 to 100,000 objects, what each
  person's game waits on, 40 to 350 ms a pass, the cause of nearly every card acknowledged
  in over 0.1 s); at 1,000 each pass is a few milliseconds;
- makes no pass of the older generations by Python's rule: an object that outlived a young
  pass is scanned again only at the full pass the server makes every :data:`FULL_EVERY`
  seconds (:func:`full_passes`). What dies meanwhile is freed by reference counting as
  ever; only a cycle waits, chiefly the transports of the connections closed meanwhile
  (at 10 new connections a second, about 250,000 small objects in the half hour).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("lockup.server")

FULL_EVERY = 1800.0
"""Seconds between two full passes of the collector."""

YOUNG = 1_000
"""Allocations (less deallocations) of tracked objects between two young passes."""

NEVER = 1 << 30
"""A threshold of the older generations that Python's own rule never reaches."""


def settle(young: int = YOUNG) -> tuple[int, int, int]:
    """Once the server has started: collect, freeze what there is, keep young passes only
    and leave full passes to :func:`full_passes`. Returns the collector's thresholds
    before, for :func:`restore`."""
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(young, NEVER, NEVER)
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
