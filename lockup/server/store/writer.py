"""The store's life cycle and its one database thread: reads off the event loop, and the
writer that groups queued operations into few transactions (group commit), each
checking the fences of the leases it is made under."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from .migrate import _FileLock, _make_engine, _migrate, check_url, sqlite_file
from .rows import ActionRow, Lease, LeaseLost, StoreError, _chunks, _now
from .schema import actions_table, games_table, leases_table

log = logging.getLogger("lockup.server")


WriteOp = Callable[[Connection], None]


@dataclass(frozen=True)
class _Write:
    """One queued write: operations, then action rows (all rows of a batch go together)."""

    ops: tuple[WriteOp, ...]
    rows: list[tuple[Any, ...]]
    """Action rows as tuples in the order of :data:`ACTION_COLUMNS`."""
    lease: Lease | None = None


CHECKPOINT_EVERY = 1.0
"""Seconds between two checkpoints of an SQLite database's write-ahead log (only after
commits), on the checkpointer's thread (see :meth:`StoreBase.start`)."""

TOUCH_EVERY = 60.0
"""Seconds between two updates of one game's ``updated_at`` by the writer."""


_TOUCH = (
    update(games_table)
    .where(games_table.c.id.in_(bindparam("ids", expanding=True)))
    .values(updated_at=bindparam("at"))
)


def _touch(conn: Connection, game_ids: Sequence[str]) -> None:
    """Set ``updated_at`` of these games to now."""
    now = _now()
    for ids in _chunks(game_ids):
        conn.execute(_TOUCH, {"ids": list(ids), "at": now})


def _reason(e: BaseException) -> str:
    """The driver's own words for a database error, on one line."""
    orig = getattr(e, "orig", None)
    text = str(orig if orig is not None else e).strip()
    return text.splitlines()[0] if text else type(e).__name__


@functools.lru_cache(maxsize=64)
def _holders_sql(n: int, mark: str) -> str:
    """``SELECT id, owner, fence FROM leases`` of ``n`` ids, locking their rows: one array
    parameter on PostgreSQL (``mark`` ``%s``, the same text for any ``n``, so the driver
    prepares it once), ``n`` marks on SQLite (``?``, which has no ``FOR UPDATE``: it has
    one writer at a time)."""
    table = leases_table.name
    if mark == "?":
        return f"SELECT id, owner, fence FROM {table} WHERE id IN ({', '.join('?' * n)})"
    return f"SELECT id, owner, fence FROM {table} WHERE id = ANY(%s) FOR UPDATE"


def locked_holders(conn: Connection, keys: Sequence[str]) -> dict[str, tuple[str, int]]:
    """The owner and fence of each row of ``keys`` in ``leases``, the rows locked until the
    transaction ends (PostgreSQL): one statement per :data:`BATCH` keys, written once as
    the driver's own SQL (compiling an ``IN`` of hundreds of ids each time cost the
    writer's thread more than the database did)."""
    held: dict[str, tuple[str, int]] = {}
    sqlite = conn.dialect.name == "sqlite"
    for chunk in _chunks(keys):
        if sqlite:
            result = conn.exec_driver_sql(_holders_sql(len(chunk), "?"), tuple(chunk))
        else:
            result = conn.exec_driver_sql(_holders_sql(0, "%s"), (list(chunk),))
        for key, owner, fence in result:
            held[str(key)] = (str(owner), int(fence))
    return held


def _check_fences(conn: Connection, leases: Collection[Lease]) -> None:
    """Raise :class:`LeaseLost` unless every one of ``leases`` is still its row's owner
    and fence: one ``SELECT ... FOR UPDATE`` per :data:`BATCH` of them, whatever the
    number of games in a group commit.

    On PostgreSQL the rows stay locked until the transaction ends, so a takeover waits for
    this write to commit (and then loads it) or has already moved the fence on (and this
    write is refused). SQLite has one writer at a time, so its plain ``SELECT`` suffices.
    """
    wanted = {lease.key: lease for lease in leases}
    held = locked_holders(conn, sorted(wanted))
    for key, lease in wanted.items():
        if held.get(key) != (lease.owner, lease.fence):
            raise LeaseLost(f"{key} is no longer owned by this process (fence {lease.fence})")


def _action_values(game_id: str, actions: Sequence[ActionRow]) -> list[dict[str, Any]]:
    return [
        {
            "game_id": game_id,
            "seq": a.seq,
            "kind": a.kind,
            "seat": a.seat,
            "data": a.data,
            "version": a.version,
            "actor": a.actor,
        }
        for a in actions
    ]


ACTION_COLUMNS = tuple(actions_table.c.keys())
"""The columns of an ``actions`` row as the schema lists them, the order of the writer's
row tuples (:func:`_action_tuples`)."""

INSERT_CHUNK = 100
"""Action rows a multi-row ``INSERT`` holds at most: 700 parameters, under SQLite's oldest
limit of 999."""


def _action_tuples(game_id: str, actions: Sequence[ActionRow]) -> list[tuple[Any, ...]]:
    """A game's new action rows as the writer's tuples (:data:`ACTION_COLUMNS`)."""
    return [(game_id, a.seq, a.kind, a.seat, a.data, a.version, a.actor) for a in actions]


@functools.lru_cache(maxsize=16)
def _insert_sql(n: int) -> str:
    """SQLite's ``INSERT INTO actions ... VALUES (?, ...), ...`` of ``n`` rows."""
    one = "(" + ", ".join(["?"] * len(ACTION_COLUMNS)) + ")"
    columns = ", ".join(ACTION_COLUMNS)
    return f"INSERT INTO {actions_table.name} ({columns}) VALUES " + ", ".join([one] * n)


_UNNEST_TYPES = ("varchar", "int", "varchar", "int", "text", "int", "varchar")
"""PostgreSQL's array type of each of :data:`ACTION_COLUMNS`, for :func:`_insert_actions`."""


def _insert_actions(conn: Connection, rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert action rows in few statements: on PostgreSQL one ``INSERT ... SELECT FROM
    unnest(...)`` of an array a column, whatever the number of rows; on SQLite one
    multi-row ``INSERT`` per :data:`INSERT_CHUNK` of them.

    Few statements matter on the database thread: the driver lets go of the GIL around
    each one, and each time it must win it back from the event loop (milliseconds when
    the loop is busy). PostgreSQL's statement is the same short text at every batch, so
    psycopg prepares it once and never parses it again (a multi-row ``VALUES`` is new
    text at each size, too long for psycopg's cache of parsed queries).
    """
    if conn.dialect.name != "sqlite":
        conn.exec_driver_sql(_unnest_sql(), tuple(list(col) for col in zip(*rows, strict=True)))
        return
    for i in range(0, len(rows), INSERT_CHUNK):
        chunk = rows[i : i + INSERT_CHUNK]
        conn.exec_driver_sql(_insert_sql(len(chunk)), tuple(x for r in chunk for x in r))


@functools.cache
def _unnest_sql() -> str:
    """The PostgreSQL statement of :func:`_insert_actions`."""
    arrays = ", ".join(f"%s::{t}[]" for t in _UNNEST_TYPES)
    columns = ", ".join(ACTION_COLUMNS)
    return f"INSERT INTO {actions_table.name} ({columns}) SELECT * FROM unnest({arrays})"


class StoreBase:
    """The database's life cycle, its thread and the group-commit writer (see
    :class:`~lockup.server.store.Store`)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: Engine | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lockup-db")
        self._queue: asyncio.Queue[tuple[_Write, asyncio.Future[None]]] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._writer_conn: Connection | None = None
        self.commits = 0
        """How many transactions :meth:`write` has committed (for figures)."""
        self.schema_upgrade: tuple[str | None, str | None] | None = None
        """The revisions before and after :meth:`open` upgraded the schema (before is None
        for a new database), or None when it was already at the newest."""
        self._lock: _FileLock | None = None
        self._autocheckpoint = True
        self._checkpoints: asyncio.Task[None] | None = None
        self._checkpointer: ThreadPoolExecutor | None = None
        self.checkpoints = 0
        """How many checkpoints the checkpointer has made (for figures and tests)."""
        self._secrets: dict[str, bytes] = {}
        self._touched: dict[str, float] = {}
        """When the writer last set each game's ``updated_at`` (monotonic seconds)."""

    def open(self) -> None:
        """Connect, and upgrade the schema to the newest revision (creating the tables in a
        new database); raises :class:`StoreError`.

        An SQLite file is locked for this store's life (``<file>.lock``, released by
        :meth:`close` or the process ending): a second store on it, in this process or
        another, is refused with :class:`StoreError`.
        """
        if self.engine is not None:
            return
        parsed = check_url(self.url)
        path = sqlite_file(parsed)
        lock = _FileLock(path) if path is not None else None
        if lock is not None:
            lock.acquire()
        try:
            engine = _make_engine(self.url, autocheckpoint=self._autocheckpoint)
            try:
                before, after = _migrate(engine)
            except Exception as e:
                engine.dispose()
                if isinstance(e, StoreError):
                    raise StoreError(f"cannot open database {self.url!r}: {e}") from None
                orig = getattr(e, "orig", None)
                reason = str(orig) if orig is not None else str(e)
                raise StoreError(f"cannot open database {self.url!r}: {reason}") from None
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        if before != after:
            self.schema_upgrade = (before, after)
            log.info("database %s: schema upgraded from %s to %s", self.url, before, after)
        self._lock = lock
        self.engine = engine

    async def start(self) -> None:
        """Open the database (if :meth:`open` was not called) and start the writer.

        On an SQLite file, the write-ahead log is copied back into the database by a
        checkpointer on a thread of its own, every :data:`CHECKPOINT_EVERY` seconds after
        commits, never by a commit: SQLite's own checkpoint runs inside the commit that
        fills the log past 4 MB, and that commit, with every write queued behind it,
        waited 0.1 to 0.2 s (the slowest cards' acknowledgements at a few thousand people).
        """
        loop = asyncio.get_running_loop()
        if self.engine is None and sqlite_file(check_url(self.url)) is not None:
            self._autocheckpoint = False
        await loop.run_in_executor(self._executor, self.open)
        self._queue = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop(), name="lockup-db-writer")
        if not self._autocheckpoint:
            self._checkpointer = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="lockup-db-checkpoint"
            )
            self._checkpoints = asyncio.create_task(
                self._checkpoint_loop(), name="lockup-db-checkpoints"
            )

    async def _checkpoint_loop(self) -> None:
        assert self._checkpointer is not None
        loop = asyncio.get_running_loop()
        done = self.commits
        while True:
            await asyncio.sleep(CHECKPOINT_EVERY)
            if self.commits == done:
                continue
            done = self.commits
            try:
                await loop.run_in_executor(self._checkpointer, self._checkpoint)
            except Exception as e:  # the next one tries again; the log only grows meanwhile
                log.warning("checkpointing the database failed: %s", _reason(e))

    def _checkpoint(self) -> None:
        """Copy what the log holds into the database file, as far as readers allow
        (``PASSIVE``: it never waits for the writer or a reader, nor makes them wait)."""
        raw = self._engine().raw_connection()
        try:
            cur = raw.cursor()
            cur.execute("PRAGMA wal_checkpoint(PASSIVE)")
            cur.fetchall()
            cur.close()
        finally:
            raw.close()
        self.checkpoints += 1

    async def close(self) -> None:
        """Write what is queued, stop the writer and close the database."""
        if self._writer is not None and self._queue is not None:
            while not self._queue.empty():
                await asyncio.sleep(0.01)
            self._writer.cancel()
            try:
                await self._writer
            except asyncio.CancelledError:
                pass
            self._writer = None
        if self._checkpoints is not None:
            self._checkpoints.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoints
            self._checkpoints = None
        if self._checkpointer is not None:
            self._checkpointer.shutdown(wait=True)
            self._checkpointer = None
        loop = asyncio.get_running_loop()
        if self.engine is not None:
            await loop.run_in_executor(self._executor, self._drop_writer_conn)
            await loop.run_in_executor(self._executor, self.engine.dispose)
            self.engine = None
        self._executor.shutdown(wait=True)
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    async def _run(self, fn: Callable[[], Any]) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn)

    async def read(self, fn: Callable[[Connection], Any]) -> Any:
        """``fn(connection)`` on the database thread, off the event loop (for reads)."""

        def run() -> Any:
            with self._engine().connect() as conn:
                return fn(conn)

        return await self._run(run)

    def _engine(self) -> Engine:
        if self.engine is None:
            raise StoreError("the database is not open")
        return self.engine

    async def write(
        self,
        *ops: WriteOp,
        actions: tuple[str, Sequence[ActionRow]] | None = None,
        lease: Lease | None = None,
    ) -> None:
        """Run ``ops`` and store ``actions`` (a game id and its new rows) in one write
        transaction; returns once it is committed.

        With ``lease``, the same transaction checks the lease still has its owner and fence
        (:class:`LeaseLost` if not). Raises :class:`StoreError` if the transaction fails
        (nothing of it is stored).
        """
        if self._queue is None:
            raise StoreError("the database writer is not running")
        rows = []
        if actions is not None:
            rows = _action_tuples(*actions)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((_Write(ops, rows, lease), fut))
        await fut

    async def _write_loop(self) -> None:
        assert self._queue is not None
        queue = self._queue
        while True:
            batch = [await queue.get()]
            while not queue.empty():
                batch.append(queue.get_nowait())
            try:
                await self._run(functools.partial(self._commit, [w for w, _ in batch]))
            except Exception as e:
                if len(batch) == 1:
                    self._fail(batch[0][1], e)
                    continue
                # One game's bad write must not fail the others: retry each on its own.
                for w, fut in batch:
                    try:
                        await self._run(functools.partial(self._commit, [w]))
                    except Exception as e1:
                        self._fail(fut, e1)
                    else:
                        if not fut.done():
                            fut.set_result(None)
            else:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_result(None)

    def _drop_writer_conn(self) -> None:
        if self._writer_conn is not None:
            try:
                self._writer_conn.close()
            except Exception:  # pragma: no cover - a broken connection
                pass
            self._writer_conn = None

    @staticmethod
    def _fail(fut: asyncio.Future[None], e: Exception) -> None:
        log.error("database write failed: %s", e)
        if not fut.done():
            if isinstance(e, LeaseLost):
                fut.set_exception(e)
            else:
                fut.set_exception(StoreError(f"the database write failed: {_reason(e)}"))

    def _commit(self, writes: list[_Write]) -> None:
        """Commit ``writes`` in one transaction on the writer's connection. A connection
        the database dropped (it restarted: the first statement fails with a disconnect)
        is replaced and the transaction tried once more on the new one; an action row
        that did reach the database cannot be stored twice (its key is the game and its
        number), so the retry never doubles a card."""
        try:
            self._commit_once(writes)
        except DBAPIError as e:
            if not e.connection_invalidated:
                raise
            log.warning("the database connection was lost (%s): writing again", _reason(e))
            self._drop_writer_conn()
            self._commit_once(writes)

    def _commit_once(self, writes: list[_Write]) -> None:
        conn = self._writer_conn
        if conn is None or conn.closed or conn.invalidated:
            conn = self._writer_conn = self._engine().connect()
        try:
            trans = conn.begin()
        except Exception:
            self._drop_writer_conn()
            raise
        with trans:
            leases = [w.lease for w in writes if w.lease is not None]
            if leases:
                _check_fences(conn, leases)
            for w in writes:
                for op in w.ops:
                    op(conn)
            rows = [r for w in writes for r in w.rows]
            if rows:  # few statements for the whole batch's actions
                _insert_actions(conn, rows)
                # and one for the times of their games not touched for a while
                stale = self._to_touch({r[0] for r in rows})
                if stale:
                    _touch(conn, stale)
        self.commits += 1

    def _to_touch(self, game_ids: set[str]) -> list[str]:
        """Of these games, those whose ``updated_at`` this store has not set in the last
        :data:`TOUCH_EVERY` seconds (it matters to the purge by the day, and rewriting a
        game's row at every card costs more than the card's own row)."""
        now = time.monotonic()
        touched = self._touched
        out = sorted(g for g in game_ids if now - touched.get(g, -TOUCH_EVERY) >= TOUCH_EVERY)
        for g in out:
            touched[g] = now
        if len(touched) > 50_000:  # forget games not touched lately
            self._touched = {g: t for g, t in touched.items() if now - t < TOUCH_EVERY}
        return out
