"""The bot worker pool: computer players think off the event loop.

The cheapest levels (``random``, ``easy``: a few microseconds a card) choose on the event
loop; ``normal`` (well under a millisecond) thinks in a small thread pool. The ``expert``
(a search of a tenth of a second and more) and any other level think in a pool of worker
processes, so a long search never holds the server's event loop (nor its GIL): one game's
expert never stalls another game. Hints think in a pool of
their own, at a lower CPU priority and with a bounded queue, so no number of hints ever
delays a bot.

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
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..cards import Card, cards_of
from ..engine import Game, SeatView

log = logging.getLogger("lockup.server")

INLINE_LEVELS = frozenset({"random", "easy"})
"""Levels that choose in a few microseconds, less than handing a view to a thread and
back costs: they choose on the event loop itself."""

THREAD_LEVELS = frozenset({"normal"})
"""Levels cheap enough to think in a thread (well under a millisecond a card)."""

_local = threading.local()


def _bot_for(level: str) -> Any:
    """This worker's bot of ``level`` (made on first use, seeded from the system)."""
    bots: dict[str, Any] | None = getattr(_local, "bots", None)
    if bots is None:
        bots = _local.bots = {}
    bot = bots.get(level)
    if bot is None:
        from ..bots import make_bot

        bot = bots[level] = make_bot(level, seed=secrets.randbits(32))
    return bot


def choose_card(level: str, view: SeatView) -> Card:
    """Ask this worker's bot of ``level`` for its card (runs in a worker)."""
    return int(_bot_for(level).choose(view))


def hint_values(view: SeatView, time_limit: float | None) -> dict[Card, float]:
    """The expert's value of each legal card (runs in a hint worker); ``time_limit`` None
    leaves the budget to :func:`lockup.bots.hint`."""
    from .. import bots

    return {int(c): float(v) for c, v in bots.hint(view, time_limit=time_limit).items()}


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


def start_worker(parent: int, niceness: int = 0) -> None:
    """Worker process start: exit as soon as the server process is gone (even killed);
    lower the CPU priority by ``niceness`` (hint workers yield to bots); load the expert's
    compiled search, so that no move or hint ever waits for it."""
    if niceness:
        with contextlib.suppress(OSError):
            os.nice(niceness)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="lockup-watch-parent", daemon=True).start()
    from .. import bots

    try:
        bots.warm_up()
    except Exception as e:  # pragma: no cover - the first search compiles it instead
        log.warning("the expert's search could not be loaded ahead: %r", e)


def _pid() -> int:
    return os.getpid()


def _warm_hint() -> None:
    """One tiny hint in a hint worker: its whole path (imports, the search, the rollouts)
    is loaded before a player's first hint."""
    from ..engine import Game

    game = Game.new(random.Random(0), record=False)
    hint_values(game.view(game.turn), 0.01)


class HintsBusy(Exception):
    """Every hint worker is busy and the queue is full: ask again later."""


HINT_NICENESS = 10
"""Hint workers run at this lower CPU priority, so bots' moves come first."""


class _ProcessPool:
    """A lazily started pool of spawned worker processes that restarts once if one dies."""

    def __init__(self, size: int, niceness: int, name: str) -> None:
        self.size = size
        self.niceness = niceness
        self.name = name
        self._procs: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:  # stopped: a late request makes no new pool to leak
                raise RuntimeError(f"the {self.name} workers are stopped")
            if self._procs is None:
                # spawn, not fork: the server has threads (database, bots) running.
                self._procs = ProcessPoolExecutor(
                    max_workers=self.size,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=start_worker,
                    initargs=(os.getpid(), self.niceness),
                )
            return self._procs

    async def run(self, fn: Any, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        executor = self.executor()
        try:
            return await loop.run_in_executor(executor, fn, *args)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool and retry once.
            log.warning("a %s worker process died; starting a new pool", self.name)
            with self._lock:
                if self._procs is executor:
                    self._procs = None
            executor.shutdown(wait=False, cancel_futures=True)
            return await loop.run_in_executor(self.executor(), fn, *args)

    async def warm_up(self) -> None:
        loop = asyncio.get_running_loop()
        executor = self.executor()
        await asyncio.gather(*(loop.run_in_executor(executor, _pid) for _ in range(self.size)))

    def close(self) -> None:
        """Stop the workers now (a bot or hint still thinking is abandoned)."""
        with self._lock:
            self._closed = True
            procs, self._procs = self._procs, None
        if procs is not None:
            stop_process_pool(procs)


def stop_process_pool(procs: ProcessPoolExecutor) -> None:
    """Stop a pool's worker processes now (work under way is abandoned) and wait for the
    pool to wind down, so that its queues and their semaphores are freed rather than left
    to the interpreter's exit ("resource_tracker: ... leaked semaphore objects")."""
    workers = list((getattr(procs, "_processes", None) or {}).values())
    procs.shutdown(wait=False, cancel_futures=True)
    for w in workers:
        if w.is_alive():
            w.terminate()
    for w in workers:
        w.join(2.0)
    procs.shutdown(wait=True)


def _checked(level: str, card: Any, legal_mask: int) -> Card:
    """``card`` if it is one of ``legal_mask``; else (a bot's fault, logged) a random
    legal card."""
    if isinstance(card, int) and 0 <= card < 52 and (legal_mask >> card) & 1:
        return card
    if card is not None:
        log.error("bot %s chose an illegal card %r; playing a random one", level, card)
    legal = cards_of(legal_mask)
    return legal[random.SystemRandom().randrange(len(legal))]


class BotPool:
    """Threads for cheap levels, processes for the rest, and separate processes for hints.

    ``processes``: bot worker processes (default: the number of CPUs, at most 4).
    ``hint_processes``: hint worker processes (default 1), at a lower CPU priority; at most
    ``2 * hint_processes`` hints are under way at once and more are refused
    (:class:`HintsBusy`), so hints never queue without end and bots never wait behind them.
    """

    def __init__(
        self, processes: int | None = None, threads: int = 1, hint_processes: int = 1
    ) -> None:
        self.processes = processes or max(1, min(4, os.cpu_count() or 1))
        self._threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="lockup-bot")
        self._batcher = _Batcher(self._threads)
        self._bots = _ProcessPool(self.processes, 0, "bot")
        self._hints = _ProcessPool(hint_processes, HINT_NICENESS, "hint")
        self.max_hints = 2 * hint_processes
        self.hints_under_way = 0
        self._warming: dict[str, asyncio.Task[None]] = {}
        self._closed = False

    async def choose(self, level: str, view: SeatView) -> Card:
        """The card ``level``'s bot plays for ``view.seat``.

        A bot that fails or answers an illegal card is logged and replaced, for this card,
        by a random legal one: a game never stops on a bot's fault.
        """
        try:
            if level in INLINE_LEVELS:
                card = choose_card(level, view)
            elif level in THREAD_LEVELS:
                card = await self._batcher.choose(level, view)
            else:
                card = await self._bots.run(choose_card, level, view)
        except Exception as e:  # a bot's bug must not stop the game
            log.error("bot %s failed: %r; playing a random legal card", level, e)
            card = None
        return _checked(level, card, view.legal_mask)

    def choose_now(self, level: str, game: Game, seat: int) -> Card:
        """The card an :data:`INLINE_LEVELS` bot plays for ``seat`` of ``game``, chosen at
        once on the event loop. A bot that answers from the legal cards alone
        (:meth:`~lockup.bots.base.Bot.choose_legal`: ``random``) gets no
        :class:`~lockup.engine.SeatView` built. A fault is handled as in :meth:`choose`."""
        legal = game.legal_mask(seat)
        try:
            bot = _bot_for(level)
            card: Any = bot.choose_legal(legal)
            if card is None:
                card = int(bot.choose(game.view(seat)))
        except Exception as e:  # a bot's bug must not stop the game
            log.error("bot %s failed: %r; playing a random legal card", level, e)
            card = None
        return _checked(level, card, legal)

    async def hint(self, view: SeatView, time_limit: float | None) -> dict[Card, float]:
        """The expert's values of ``view``'s legal cards (see :func:`hint_values`); raises
        :class:`HintsBusy` when the hint workers are all taken."""
        if self.hints_under_way >= self.max_hints:
            raise HintsBusy
        self.hints_under_way += 1
        try:
            result: dict[Card, float] = await self._hints.run(hint_values, view, time_limit)
        finally:
            self.hints_under_way -= 1
        return result

    def expect(self, levels: Iterable[str], *, hints: bool) -> None:
        """Games about to be played need bots of ``levels`` (and hints, if ``hints``):
        start the worker processes those think in now, in the background, so that the
        first such move or hint does not wait for a worker's start (spawn, imports and
        the search's load: a second or two). Workers no game has needed are never
        started: a server whose computers are ``random``, ``easy`` or ``normal`` holds no
        bot worker process (about 160 MB each)."""
        if any(level not in INLINE_LEVELS and level not in THREAD_LEVELS for level in levels):
            self._start("bot", self._bots.warm_up)
        if hints:
            self._start("hint", self._warm_hints)

    def _start(self, name: str, warm: Callable[[], Awaitable[None]]) -> None:
        if name in self._warming or self._closed:
            return

        async def run() -> None:
            try:
                await warm()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the first move or hint that needs them starts them
                log.warning("starting the %s workers failed: %r", name, e)
                self._warming.pop(name, None)

        self._warming[name] = asyncio.get_running_loop().create_task(
            run(), name=f"lockup-warm-{name}"
        )

    async def _warm_hints(self) -> None:
        await self._hints.warm_up()
        for _ in range(self._hints.size):
            await self._hints.run(_warm_hint)

    async def warm_up(self) -> None:
        """Start every worker process now (each loads the expert's search as it starts)
        and give each hint worker one tiny hint: the first expert move or hint then takes
        its budget, not the seconds of a cold worker (tests/test_pool_warm.py)."""
        await asyncio.gather(self._bots.warm_up(), self._warm_hints())

    def close(self) -> None:
        """Stop the workers (a thinking bot is abandoned)."""
        self._closed = True
        for task in self._warming.values():
            task.cancel()
        self._threads.shutdown(wait=False, cancel_futures=True)
        self._bots.close()
        self._hints.close()
