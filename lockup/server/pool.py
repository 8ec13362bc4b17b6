"""The bot worker pool: computer players think off the event loop.

Cheap levels (``random``, ``easy``, ``normal``: well under a millisecond a card) think in a
small thread pool. The ``expert`` (a search of a tenth of a second and more), any other level
and the hint think in a pool of worker processes, so a long search never holds the server's
event loop (nor its GIL): one game's expert never stalls another game.

Each worker keeps one bot per level and asks it for a card with the seat's
:class:`~lockup.engine.SeatView` only, so workers are shared by every game and every seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import random
import secrets
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..cards import Card, card_str, cards_of
from ..engine import SeatView

log = logging.getLogger("lockup.server")

THREAD_LEVELS = frozenset({"random", "easy", "normal"})
"""Levels cheap enough to think in a thread."""

_local = threading.local()


def _bot_for(level: str) -> Any:
    """This worker's bot of ``level`` (made on first use, seeded from the system)."""
    from ..bots import make_bot

    bots: dict[str, Any] | None = getattr(_local, "bots", None)
    if bots is None:
        bots = _local.bots = {}
    bot = bots.get(level)
    if bot is None:
        bot = bots[level] = make_bot(level, seed=secrets.randbits(32))
    return bot


def choose_card(level: str, view: SeatView) -> Card:
    """Ask this worker's bot of ``level`` for its card (runs in a worker)."""
    return int(_bot_for(level).choose(view))


def hint_available() -> bool:
    """Whether :func:`lockup.bots.hint` exists (the expert's values of legal cards)."""
    from .. import bots

    return callable(getattr(bots, "hint", None))


def hint_values(view: SeatView, time_limit: float | None) -> dict[str, Any]:
    """The expert's value of each legal card (runs in a worker); ``time_limit`` None
    leaves the budget to :func:`lockup.bots.hint`.

    Answers ``{"values": [{"card": "QD", "value": 1.7}, ...], "best": "QD", "unit": ...}``
    from whatever :func:`lockup.bots.hint` returns: a mapping card -> value, a list of
    (card, value) pairs, or an object or mapping with ``values`` (and ``best``, ``unit``).
    """
    from .. import bots

    raw: Any = bots.hint(view, time_limit=time_limit)
    unit = "tricks"
    best: Any = None
    values: Any = raw
    if isinstance(raw, dict) and "values" in raw:
        values, best, unit = raw["values"], raw.get("best"), raw.get("unit", unit)
    elif hasattr(raw, "values") and not isinstance(raw, dict):
        values = raw.values
        best = getattr(raw, "best", None)
        unit = getattr(raw, "unit", unit)
    pairs: list[tuple[Any, Any]]
    if isinstance(values, dict):
        pairs = list(values.items())
    else:
        pairs = []
        for item in values:
            if isinstance(item, dict):
                pairs.append((item["card"], item["value"]))
            else:
                pairs.append((item[0], item[1]))
    out: list[dict[str, Any]] = []
    for card, value in pairs:
        code = card_str(card) if isinstance(card, int) else str(card)
        out.append({"card": code, "value": round(float(value), 3)})
    out.sort(key=lambda d: -float(d["value"]))
    if best is None and out:
        best = out[0]["card"]
    elif isinstance(best, int):
        best = card_str(best)
    return {"values": out, "best": best, "unit": str(unit)}


def choose_cards(requests: list[tuple[str, SeatView]]) -> list[tuple[bool, Any]]:
    """Several bots' cards in one go (runs in a bot thread): (True, card) or (False, error)."""
    out: list[tuple[bool, Any]] = []
    for level, view in requests:
        try:
            out.append((True, choose_card(level, view)))
        except Exception as e:
            out.append((False, e))
    return out


class _Batcher:
    """Sends the cheap bots' requests to the bot thread in batches.

    Waking a thread costs more than a cheap bot's whole thought, so the requests made in
    one turn of the event loop (many games at once) go to the thread together: one hand-off
    for all of them, and the loop never runs a bot itself.
    """

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self._pending: list[tuple[str, SeatView, asyncio.Future[Any]]] = []

    def choose(self, level: str, view: SeatView) -> asyncio.Future[Any]:
        """A future of the card ``level``'s bot plays for ``view.seat``."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush, loop)
        self._pending.append((level, view, fut))
        return fut

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        batch, self._pending = self._pending, []
        try:
            job = self.executor.submit(choose_cards, [(lv, v) for lv, v, _ in batch])
        except RuntimeError as e:  # shut down
            for _, _, fut in batch:
                if not fut.done():
                    fut.set_exception(e)
            return

        def done(results: list[tuple[bool, Any]] | BaseException) -> None:
            for (_, _, fut), res in zip(
                batch, results if isinstance(results, list) else [], strict=False
            ):
                if not fut.done():
                    (fut.set_result if res[0] else fut.set_exception)(res[1])
            for _, _, fut in batch:  # the job itself failed
                if not fut.done():
                    err = results if isinstance(results, BaseException) else RuntimeError("lost")
                    fut.set_exception(err)

        def finished(f: Any) -> None:
            try:
                result: Any = f.result()
            except BaseException as e:
                result = e
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                loop.call_soon_threadsafe(done, result)

        job.add_done_callback(finished)


def _watch_parent(parent: int) -> None:
    """Worker process start: exit as soon as the server process is gone (even killed)."""

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="lockup-watch-parent", daemon=True).start()


def _warm() -> int:
    """Import the bots in a fresh worker process."""
    from .. import bots  # noqa: F401

    return os.getpid()


class BotPool:
    """Threads for cheap levels, processes for the rest; created lazily.

    ``processes`` is the size of the process pool (default: the number of CPUs, at most 4).
    """

    def __init__(self, processes: int | None = None, threads: int = 1) -> None:
        self.processes = processes or max(1, min(4, os.cpu_count() or 1))
        self._threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="lockup-bot")
        self._batcher = _Batcher(self._threads)
        self._procs: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _process_pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._procs is None:
                # spawn, not fork: the server has threads (database, bots) running.
                ctx = multiprocessing.get_context("spawn")
                self._procs = ProcessPoolExecutor(
                    max_workers=self.processes,
                    mp_context=ctx,
                    initializer=_watch_parent,
                    initargs=(os.getpid(),),
                )
            return self._procs

    async def _submit(self, executor: Executor, fn: Any, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(executor, fn, *args)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool and retry once.
            log.warning("a bot worker process died; starting a new pool")
            with self._lock:
                if self._procs is executor:
                    self._procs = None
            executor.shutdown(wait=False, cancel_futures=True)
            return await loop.run_in_executor(self._process_pool(), fn, *args)

    async def choose(self, level: str, view: SeatView) -> Card:
        """The card ``level``'s bot plays for ``view.seat``.

        A bot that fails or answers an illegal card is logged and replaced, for this card,
        by a random legal one: a game never stops on a bot's fault.
        """
        try:
            if level in THREAD_LEVELS:
                card = await self._batcher.choose(level, view)
            else:
                card = await self._submit(self._process_pool(), choose_card, level, view)
        except Exception as e:  # a bot's bug must not stop the game
            log.error("bot %s failed: %r; playing a random legal card", level, e)
            card = None
        if not isinstance(card, int) or not (view.legal_mask >> card) & 1:
            if card is not None:
                log.error("bot %s chose an illegal card %r; playing a random one", level, card)
            legal = cards_of(view.legal_mask)
            card = legal[random.SystemRandom().randrange(len(legal))]
        return card

    async def hint(self, view: SeatView, time_limit: float | None) -> dict[str, Any]:
        """The expert's values of ``view``'s legal cards (see :func:`hint_values`)."""
        result: dict[str, Any] = await self._submit(
            self._process_pool(), hint_values, view, time_limit
        )
        return result

    async def warm_up(self) -> None:
        """Start the worker processes now rather than at the first bot's turn."""
        pool = self._process_pool()
        await asyncio.gather(
            *(
                asyncio.get_running_loop().run_in_executor(pool, _warm)
                for _ in range(self.processes)
            )
        )

    def close(self) -> None:
        """Stop the workers (a thinking bot is abandoned)."""
        self._threads.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            if self._procs is not None:
                self._procs.shutdown(wait=False, cancel_futures=True)
                self._procs = None
