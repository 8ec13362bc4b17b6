"""Where games live: an SQL database through SQLAlchemy Core (SQLite by default).

A game is stored as the rows of its ``lockup-record/1`` record: one ``actions`` row for
every deal, play and lockup discard, in order, each committed before the server
acknowledges it. :func:`record_of` assembles the rows into the record, which
:func:`lockup.record.from_record` replays to the identical state. A finished game also
keeps its whole record text in ``games.record``.

The SQL is plain SQLAlchemy Core (no dialect-specific statements), so a PostgreSQL URL
(``postgresql+psycopg://...``, psycopg 3) works as well as SQLite; the tests run on both.
Several server processes share one PostgreSQL database through the ``leases`` table (see
:class:`Lease`). Every database call runs on one worker thread, off the event
loop; writes are grouped: all the rows queued while one transaction commits go into the
next one (group commit), so many games at once cost few commits.

The schema is managed by Alembic (``lockup/server/migrations``): :meth:`Store.open`
upgrades the database to the newest revision, an SQLite file of before Alembic included.
An SQLite file is used by one :class:`Store` at a time (a lock file beside it).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import json
import logging
import os
import secrets
import socket
import sys
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import (
    Boolean,
    Column,
    ColumnElement,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    create_engine,
    delete,
    event,
    func,
    inspect,
    or_,
    select,
    update,
)
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from ..record import FORMAT

if sys.platform != "win32":
    import fcntl

log = logging.getLogger("lockup.server")

metadata = MetaData()

players_table = Table(
    "players",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("game_id", String(32), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("name", String(40), nullable=True),
    Index("ix_players_game_id", "game_id"),
)
"""A player known by the ``lockup_player`` cookie, the game they are playing now, and the
name they chose to be shown at a table."""

games_table = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("rules", Text, nullable=False),
    Column("players", Text, nullable=False),
    Column("seats", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("winner", Integer, nullable=True),
    Column("record", Text, nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=True),
    Column("played_at", DateTime(timezone=True), nullable=True),
    Column("room_id", String(16), nullable=True),
    Index("ix_games_finished_at_updated_at", "finished_at", "updated_at"),
)
"""A game: rules and names (JSON), who sits where (JSON), and the record once it is over;
``updated_at``: when its last action was stored, ``played_at``: when a person first
played a card in it (both for the purge)."""

actions_table = Table(
    "actions",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(8), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("data", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("actor", String(8), nullable=True),
)
"""One deal (``seat`` the dealer, ``data`` the deal as JSON), play or discard (``data`` the
card code), the game's event version after it, and who made a play: ``person`` or
``computer`` (a computer plays for a person who is away or out of time)."""

rooms_table = Table(
    "rooms",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("invite", String(32), nullable=False),
    Column("watch", String(32), nullable=False),
    Column("host", String(64), nullable=False),
    Column("options", Text, nullable=False),
    Column("seats", Text, nullable=False),
    Column("game_id", String(32), nullable=True),
    Column("status", String(8), nullable=False),
    Column("public", Boolean, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("address_tag", String(32), nullable=True),
    Index("ix_rooms_public_status", "public", "status"),
    Index("ix_rooms_address_tag", "address_tag"),
)
"""A room: its secrets (the invite and the watch link), its host (a player token), options
and seats (JSON), its current game and status (``open``, ``playing``, ``closed``), and
``address_tag``: a keyed hash of the client address that made it (:meth:`Store.address_tag`;
never the address itself; None for a room made before revision 0006), so that an address's
public rooms can be counted and the lobby can show few of each."""

game_events_table = Table(
    "game_events",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(12), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("data", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
"""A game's events that are not moves (chat, reactions, a computer taking over a seat, a
person taking it back), each with its version, so versions go on after a restart."""

participants_table = Table(
    "participants",
    metadata,
    Column("player_id", String(64), primary_key=True),
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("uploaded", Boolean, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_participants_game_id", "game_id"),
)
"""Each game a player took part in (their seat), or brought in as an uploaded record."""

analyses_table = Table(
    "analyses",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("hands", Integer, nullable=False),
    Column("status", String(8), nullable=False),
    Column("result", Text, nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
"""The expert's analysis of a seat's play in a game: how many hands, its status
(``running``, ``done``, ``failed``) and the result (JSON), so it runs once."""

leases_table = Table(
    "leases",
    metadata,
    Column("id", String(48), primary_key=True),
    Column("owner", String(96), nullable=False),
    Column("fence", Integer, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Index("ix_leases_owner", "owner"),
)
"""Which server process owns a game or a room now (several processes on one database):
the key (``game:<id>``, ``room:<id>``), the owner (see :func:`process_id`), the fence
(bumped at every takeover and checked in every write of the owner, see :class:`Lease`) and
when the lease ends unless renewed."""

settings_table = Table(
    "settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
"""The server's own settings, e.g. ``secret:token-key`` (see :meth:`Store.secret`)."""

MIGRATIONS = Path(__file__).with_name("migrations")
"""Alembic's script directory (``env.py``, ``versions/``)."""

BASE_REVISION = "0001"
"""The revision of a database made before Alembic: the tables of 0001, no ``alembic_version``."""

_BASE_TABLES = frozenset({"players", "games", "actions"})

BATCH = 500
"""At most this many ids in one ``IN (...)`` (SQLite allows a few hundred bound values in old
versions) and one purge transaction."""


class StoreError(RuntimeError):
    """The database cannot be opened or written; the message says why in plain words."""


class LeaseLost(StoreError):
    """A write was refused: the lease it was made under has been taken over by another
    process (its fence moved on), so this process no longer owns the game."""


def process_id() -> str:
    """A name for this server process that no other process, here or on another host,
    has ever had: host, pid and a random part."""
    return f"{socket.gethostname()[:48]}:{os.getpid()}:{secrets.token_hex(6)}"


@dataclass(frozen=True)
class Lease:
    """A lease this process holds: its key, owner and fence (see :data:`leases_table`).

    A write made under a lease (``Store.write(..., lease=...)``) checks in its own
    transaction that the row still has this owner and fence, and is refused with
    :class:`LeaseLost` otherwise, so a process that lost a game (paused, partitioned, its
    lease expired and taken over) can never write into it again.
    """

    key: str
    owner: str
    fence: int


@dataclass(frozen=True)
class ActionRow:
    """One stored action: ``kind`` is ``deal``, ``play`` or ``discard``."""

    seq: int
    kind: str
    seat: int
    data: str
    version: int
    actor: str | None = None
    """``person`` or ``computer`` for a play, None for the server's deals and discards."""


@dataclass(frozen=True)
class GameRow:
    """A stored game's header: rules, names and seats as decoded JSON."""

    id: str
    rules: dict[str, Any]
    players: list[str]
    seats: list[dict[str, Any]]
    winner: int | None
    room_id: str | None = None
    events_version: int = 0
    """The version of the game's last stored event that is not a move (0: none)."""


def record_of(game: GameRow, actions: Sequence[ActionRow]) -> dict[str, Any]:
    """The ``lockup-record/1`` document a game's stored rows make."""
    hands: list[dict[str, Any]] = []
    for a in actions:
        if a.kind == "deal":
            hands.append({"dealer": a.seat, "deal": json.loads(a.data), "events": []})
        elif not hands:
            raise StoreError(f"game {game.id}: a {a.kind} before the first deal")
        else:
            hands[-1]["events"].append({"seat": a.seat, a.kind: a.data})
    return {"format": FORMAT, "rules": game.rules, "players": game.players, "hands": hands}


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(t: datetime) -> datetime:
    """A stored time with its zone (SQLite gives times back naive, in UTC)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def check_url(url: str) -> URL:
    """The parsed SQLAlchemy URL, or :class:`StoreError` saying what is wrong with it."""
    try:
        return make_url(url)
    except ArgumentError:
        raise StoreError(
            f"--db {url!r} is not an SQLAlchemy database URL (e.g. sqlite:///lockup.sqlite)"
        ) from None


def _make_engine(url: str) -> Engine:
    parsed = check_url(url)
    kwargs: dict[str, Any] = {}
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite:
        kwargs["connect_args"] = {"check_same_thread": False}
        if parsed.database in (None, "", ":memory:"):
            kwargs["poolclass"] = StaticPool
    else:
        # A server database can restart under us: test a pooled connection before use.
        kwargs["pool_pre_ping"] = True
    try:
        engine = create_engine(parsed, **kwargs)
    except (ArgumentError, ImportError, SQLAlchemyError) as e:
        raise StoreError(f"cannot use database {url!r}: {e}") from None
    if is_sqlite:

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            # WAL: readers never block the writer; NORMAL: a commit survives the process
            # being killed (only a power cut may lose the last commits).
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

    return engine


def sqlite_file(url: str | URL) -> Path | None:
    """The file an SQLite URL names (absolute), or None: another database, or in memory."""
    parsed = check_url(url) if isinstance(url, str) else url
    if parsed.get_backend_name() != "sqlite":
        return None
    name = parsed.database or ""
    if parsed.query.get("uri") in ("true", "1") and name.startswith("file:"):
        if "mode=memory" in name:
            return None
        name = name.removeprefix("file:").split("?", 1)[0]
    if name in ("", ":memory:"):
        return None
    return Path(name).resolve()


class _FileLock:
    """An exclusive ``flock`` on ``<database>.lock``, which holds the owner's pid.

    The lock belongs to the open file: closing it, or the process ending in any way (kill -9
    included), releases it. The file itself stays (removing it would let two processes lock
    two different files of the same name).
    """

    def __init__(self, db: Path) -> None:
        self.db = db
        self.path = db.with_name(db.name + ".lock")
        self.fd: int | None = None

    def acquire(self) -> None:
        if sys.platform == "win32":  # pragma: no cover - no flock there
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(
                f"cannot open database {self.db}: cannot create {self.path}: {e.strerror}"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                owner = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            finally:
                os.close(fd)
            who = "another lockup serve"
            if owner.isdigit():
                who += f" (pid {owner}{', this process' if int(owner) == os.getpid() else ''})"
            raise StoreError(f"{who} is using {self.db}; stop it or choose another --db") from None
        except OSError as e:
            os.close(fd)
            raise StoreError(f"cannot lock {self.path}: {e.strerror}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        self.fd = fd

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
        except OSError:  # pragma: no cover
            pass
        os.close(fd)  # releases the lock


# ---------------------------------------------------------------------- schema migrations


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for Lockup's migrations, built in code (no alembic.ini);
    with ``connection``, the migrations run on it (see ``migrations/env.py``)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest schema revision."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:  # pragma: no cover - the package ships its revisions
        raise StoreError(f"no schema revisions in {MIGRATIONS}")
    return head


def schema_revision(conn: Connection) -> str | None:
    """The revision ``alembic_version`` records: None for an empty database, and for one
    made before Alembic (see :func:`is_pre_alembic`)."""
    return MigrationContext.configure(conn).get_current_revision()


def is_pre_alembic(conn: Connection) -> bool:
    """Whether the database has Lockup's first tables but no ``alembic_version`` (made by a
    Lockup from before Alembic): it is at revision 0001."""
    tables = set(inspect(conn).get_table_names())
    return "alembic_version" not in tables and _BASE_TABLES <= tables


def upgrade_schema(conn: Connection, revision: str = "head") -> tuple[str | None, str | None]:
    """Upgrade the database ``conn`` is on (in a transaction the caller commits) to
    ``revision``; returns the revisions before and after.

    A database made before Alembic is stamped :data:`BASE_REVISION` first (and reported so);
    one that has only some of those tables is refused with :class:`StoreError`.
    """
    tables = set(inspect(conn).get_table_names())
    config = alembic_config(conn)
    if "alembic_version" not in tables:
        ours = tables & _BASE_TABLES
        if ours == _BASE_TABLES:
            command.stamp(config, BASE_REVISION)
        elif ours:
            raise StoreError(
                f"it has some of lockup's tables ({', '.join(sorted(ours))}) but not all, and "
                "no alembic_version: it was not made by lockup"
            )
    before = schema_revision(conn)
    command.upgrade(config, revision)
    return before, schema_revision(conn)


def _migrate(engine: Engine, revision: str = "head") -> tuple[str | None, str | None]:
    """Upgrade the database in one transaction: all of it, or nothing of it.

    SQLite: foreign keys off meanwhile (a batch ALTER copies and drops tables), and an
    explicit ``BEGIN IMMEDIATE`` so the DDL is inside the transaction too (the driver on
    its own begins transactions only before DML).
    """
    if engine.dialect.name != "sqlite":
        with engine.begin() as conn:
            return upgrade_schema(conn, revision)
    with engine.connect() as conn:
        dbapi = conn.connection.driver_connection
        assert dbapi is not None
        conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        conn.commit()
        level = dbapi.isolation_level
        dbapi.isolation_level = None
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            try:
                result = upgrade_schema(conn, revision)
            except BaseException:
                conn.rollback()
                raise
            conn.commit()
        finally:
            dbapi.isolation_level = level
            conn.exec_driver_sql("PRAGMA foreign_keys=ON")
            conn.commit()
    return result


def _chunks(items: Sequence[str], size: int = BATCH) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


WriteOp = Callable[[Connection], None]


@dataclass(frozen=True)
class _Write:
    """One queued write: operations, then action rows (all rows of a batch go together)."""

    ops: tuple[WriteOp, ...]
    rows: list[dict[str, Any]]
    lease: Lease | None = None


TOUCH_EVERY = 60.0
"""Seconds between two updates of one game's ``updated_at`` by the writer."""


def _touch(conn: Connection, game_ids: Sequence[str]) -> None:
    """Set ``updated_at`` of these games to now."""
    now = _now()
    for ids in _chunks(game_ids):
        conn.execute(update(games_table).where(games_table.c.id.in_(ids)).values(updated_at=now))


def _reason(e: BaseException) -> str:
    """The driver's own words for a database error, on one line."""
    orig = getattr(e, "orig", None)
    text = str(orig if orig is not None else e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _check_fences(conn: Connection, leases: Collection[Lease]) -> None:
    """Raise :class:`LeaseLost` unless every one of ``leases`` is still its row's owner
    and fence: one ``SELECT ... FOR UPDATE`` per :data:`BATCH` of them, whatever the
    number of games in a group commit.

    On PostgreSQL the rows stay locked until the transaction ends, so a takeover waits for
    this write to commit (and then loads it) or has already moved the fence on (and this
    write is refused). SQLite has one writer at a time, so its plain ``SELECT`` suffices.
    """
    t = leases_table.c
    wanted = {lease.key: lease for lease in leases}
    held: dict[str, tuple[str, int]] = {}
    for chunk in _chunks(sorted(wanted)):
        query = select(t.id, t.owner, t.fence).where(t.id.in_(chunk)).with_for_update()
        for row in conn.execute(query):
            held[str(row.id)] = (str(row.owner), int(row.fence))
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


class Store:
    """The game database. Open it with :meth:`open` (sync) or :meth:`start` (async).

    Reads and writes are coroutines that run on one database thread; :meth:`write` queues
    an operation and returns once the transaction holding it has committed.
    """

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
        self._secrets: dict[str, bytes] = {}
        self._touched: dict[str, float] = {}
        """When the writer last set each game's ``updated_at`` (monotonic seconds)."""

    # ------------------------------------------------------------------ life cycle

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
            engine = _make_engine(self.url)
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
        """Open the database (if :meth:`open` was not called) and start the writer."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self.open)
        self._queue = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop(), name="lockup-db-writer")

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
        loop = asyncio.get_running_loop()
        if self.engine is not None:
            await loop.run_in_executor(self._executor, self._drop_writer_conn)
            await loop.run_in_executor(self._executor, self.engine.dispose)
            self.engine = None
        self._executor.shutdown(wait=True)
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    # ------------------------------------------------------------------ plumbing

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
            rows = _action_values(*actions)
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
            if rows:  # one statement for the whole batch's actions
                conn.execute(actions_table.insert(), rows)
                # and one for the times of their games not touched for a while
                stale = self._to_touch({r["game_id"] for r in rows})
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

    # ------------------------------------------------------------------ reads

    async def player_game(self, player: str) -> str | None:
        """The id of the game ``player`` is playing now, or None."""

        def read() -> str | None:
            with self._engine().connect() as conn:
                row = conn.execute(
                    select(players_table.c.game_id).where(players_table.c.id == player)
                ).first()
            return None if row is None else row[0]

        result: str | None = await self._run(read)
        return result

    async def finished_record(self, game_id: str) -> tuple[list[str | None], str] | None:
        """A finished game's players (each seat's player token, None for a computer) and
        its stored record text, or None (no such game, or not over). Any process may
        answer it, whoever plays the game."""

        def read() -> tuple[list[str | None], str] | None:
            with self._engine().connect() as conn:
                row = conn.execute(
                    select(games_table.c.seats, games_table.c.record).where(
                        games_table.c.id == game_id
                    )
                ).first()
            if row is None or row.record is None:
                return None
            stored = json.loads(row.seats)
            seats = [d.get("player") if d.get("kind") == "human" else None for d in stored]
            return seats, str(row.record)

        result: tuple[list[str | None], str] | None = await self._run(read)
        return result

    async def load(self, game_id: str) -> tuple[GameRow, list[ActionRow]] | None:
        """A stored game's header and actions in order, or None if there is no such game."""

        def read() -> tuple[GameRow, list[ActionRow]] | None:
            with self._engine().connect() as conn:
                g = conn.execute(select(games_table).where(games_table.c.id == game_id)).first()
                if g is None:
                    return None
                rows = conn.execute(
                    select(
                        actions_table.c.seq,
                        actions_table.c.kind,
                        actions_table.c.seat,
                        actions_table.c.data,
                        actions_table.c.version,
                        actions_table.c.actor,
                    )
                    .where(actions_table.c.game_id == game_id)
                    .order_by(actions_table.c.seq)
                ).all()
                events_version = conn.execute(
                    select(func.max(game_events_table.c.version)).where(
                        game_events_table.c.game_id == game_id
                    )
                ).scalar_one()
            header = GameRow(
                id=g.id,
                rules=json.loads(g.rules),
                players=json.loads(g.players),
                seats=json.loads(g.seats),
                winner=g.winner,
                room_id=g.room_id,
                events_version=int(events_version or 0),
            )
            return header, [
                ActionRow(r.seq, r.kind, r.seat, r.data, r.version, r.actor) for r in rows
            ]

        result: tuple[GameRow, list[ActionRow]] | None = await self._run(read)
        return result

    async def count_games(self) -> int:
        """How many games are stored."""

        def read() -> int:
            with self._engine().connect() as conn:
                return int(conn.execute(select(func.count()).select_from(games_table)).scalar_one())

        result: int = await self._run(read)
        return result

    # ------------------------------------------------------------------ settings

    async def secret(self, name: str = "token-key") -> bytes:
        """The server's secret ``name``: 32 random bytes made on the first call and kept in
        the ``settings`` table (key ``secret:<name>``, hex), the same ever after."""
        found = self._secrets.get(name)
        if found is None:
            found = self._secrets[name] = await self._run(functools.partial(self._secret, name))
        return found

    def _secret(self, name: str) -> bytes:
        key = f"secret:{name}"
        value = self._setting(key)
        if value is None:
            self._insert_setting(key, secrets.token_hex(32))
            value = self._setting(key)  # ours, or the one another server stored first
            if value is None:  # pragma: no cover - inserted just now
                raise StoreError(f"the setting {key} was not stored")
        return bytes.fromhex(value)

    def _setting(self, key: str) -> str | None:
        with self._engine().connect() as conn:
            value = conn.execute(
                select(settings_table.c.value).where(settings_table.c.key == key)
            ).scalar_one_or_none()
        return None if value is None else str(value)

    def _insert_setting(self, key: str, value: str) -> bool:
        """Store ``key`` unless it is there already; whether this call stored it."""
        try:
            with self._engine().begin() as conn:
                conn.execute(settings_table.insert().values(key=key, value=value))
        except IntegrityError:
            return False
        return True

    async def address_tag(self, address: str) -> str:
        """A keyed hash of a client address (HMAC-SHA-256 with the server's secret
        ``address-key``, 128 bits in hex): the same for the same address on this database,
        and nothing that gives the address back (rooms keep it, not the address)."""
        key = await self.secret("address-key")
        return hmac.new(key, address.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:32]

    # ------------------------------------------------------------------ rooms

    async def tag_room(self, room_id: str, tag: str) -> None:
        """Keep ``tag`` (:meth:`address_tag`) as the address that made room ``room_id``."""

        def op(conn: Connection) -> None:
            conn.execute(
                update(rooms_table).where(rooms_table.c.id == room_id).values(address_tag=tag)
            )

        await self.write(op)

    async def open_public_rooms(
        self, host: str, tag: str, since: datetime
    ) -> list[tuple[bool, bool, datetime]]:
        """The public rooms still open, made or changed since ``since``, whose host is
        ``host`` or which address ``tag`` made: (whether the host's, whether the address's,
        when last changed) for each."""
        r = rooms_table.c

        def read(conn: Connection) -> list[tuple[bool, bool, datetime]]:
            rows = conn.execute(
                select(r.host, r.address_tag, r.updated_at).where(
                    r.public.is_(True),
                    r.status == "open",
                    r.updated_at >= since,
                    or_(r.host == host, r.address_tag == tag),
                )
            ).all()
            return [(row[0] == host, row[1] == tag, _aware(row[2])) for row in rows]

        result: list[tuple[bool, bool, datetime]] = await self.read(read)
        return result

    async def lobby_rows(self, limit: int, per_address: int) -> list[Any]:
        """The public rooms still open, newest first: at most ``per_address`` of those one
        address made (the newest of them), ``limit`` in all; each row ``(id, host, seats,
        options)`` as stored (JSON text)."""
        r = rooms_table.c
        rank = (
            func.row_number()
            .over(partition_by=func.coalesce(r.address_tag, r.id), order_by=r.created_at.desc())
            .label("rank")
        )
        ranked = (
            select(r.id, r.host, r.seats, r.options, r.created_at, rank)
            .where(r.public.is_(True), r.status == "open")
            .subquery()
        )
        query = (
            select(ranked.c.id, ranked.c.host, ranked.c.seats, ranked.c.options)
            .where(ranked.c.rank <= per_address)
            .order_by(ranked.c.created_at.desc())
            .limit(limit)
        )

        def read(conn: Connection) -> list[Any]:
            return list(conn.execute(query).all())

        rows: list[Any] = await self.read(read)
        return rows

    # ------------------------------------------------------------------ leases

    async def acquire_lease(self, key: str, owner: str, ttl: float) -> Lease | None:
        """Take the lease ``key`` for ``owner`` for ``ttl`` seconds: a new one (fence 1),
        one ``owner`` holds already (renewed, same fence), or an expired one of another
        owner (taken over: the fence goes up by one). None while another owner's lease
        runs."""
        result: Lease | None = await self._run(
            functools.partial(self._acquire_lease, key, owner, ttl)
        )
        return result

    def _acquire_lease(self, key: str, owner: str, ttl: float) -> Lease | None:
        t = leases_table.c
        now = _now()
        until = now + timedelta(seconds=ttl)
        with self._engine().begin() as conn:
            row = conn.execute(select(t.owner, t.fence, t.expires_at).where(t.id == key)).first()
            if row is None:
                try:
                    with conn.begin_nested():
                        conn.execute(
                            leases_table.insert().values(
                                id=key, owner=owner, fence=1, expires_at=until
                            )
                        )
                except IntegrityError:
                    return None  # another process inserted it just now
                return Lease(key, owner, 1)
            expires = _aware(row.expires_at)
            if row.owner != owner and expires > now:
                return None
            fence = row.fence if row.owner == owner else row.fence + 1
            done = conn.execute(
                update(leases_table)
                .where(t.id == key, t.owner == row.owner, t.fence == row.fence)
                .values(owner=owner, fence=fence, expires_at=until)
            ).rowcount
            return Lease(key, owner, fence) if done == 1 else None

    async def renew_leases(self, leases: Collection[Lease], ttl: float) -> list[Lease]:
        """Push the expiry of these leases ``ttl`` seconds from now; returns those that
        were lost (taken over by another owner: their fence moved on)."""
        result: list[Lease] = await self._run(functools.partial(self._renew, list(leases), ttl))
        return result

    def _renew(self, leases: list[Lease], ttl: float) -> list[Lease]:
        t = leases_table.c
        wanted: dict[str, list[Lease]] = {}
        for lease in leases:
            wanted.setdefault(lease.key, []).append(lease)
        lost = []
        until = _now() + timedelta(seconds=ttl)
        with self._engine().begin() as conn:
            for chunk in _chunks(sorted(wanted)):
                query = select(t.id, t.owner, t.fence).where(t.id.in_(chunk)).with_for_update()
                held = {str(r.id): (str(r.owner), int(r.fence)) for r in conn.execute(query)}
                kept = []
                for key in chunk:
                    for lease in wanted[key]:
                        if held.get(key) == (lease.owner, lease.fence):
                            kept.append(key)
                        else:
                            lost.append(lease)
                if kept:  # the rows are locked: no one moved a fence since the read
                    conn.execute(
                        update(leases_table).where(t.id.in_(kept)).values(expires_at=until)
                    )
        return lost

    async def release_lease(self, lease: Lease) -> None:
        """Give the lease up (it expires now; the next owner bumps its fence)."""

        def run() -> None:
            t = leases_table.c
            with self._engine().begin() as conn:
                conn.execute(
                    update(leases_table)
                    .where(t.id == lease.key, t.owner == lease.owner, t.fence == lease.fence)
                    .values(expires_at=_now() - timedelta(seconds=1))
                )

        await self._run(run)

    async def lease_holders(self, keys: Collection[str]) -> dict[str, tuple[str, int]]:
        """The owner and fence of each running lease of ``keys`` (one query per
        :data:`BATCH` keys); keys with none, or an expired one, are left out."""

        def read() -> dict[str, tuple[str, int]]:
            t = leases_table.c
            out: dict[str, tuple[str, int]] = {}
            now = _now()
            with self._engine().connect() as conn:
                for chunk in _chunks(sorted(keys)):
                    for row in conn.execute(
                        select(t.id, t.owner, t.fence, t.expires_at).where(t.id.in_(chunk))
                    ):
                        if _aware(row.expires_at) > now:
                            out[str(row.id)] = (str(row.owner), int(row.fence))
            return out

        result: dict[str, tuple[str, int]] = await self._run(read)
        return result

    async def lease_holder(self, key: str) -> tuple[str, int] | None:
        """The owner and fence of the running lease ``key``, or None (none, or expired)."""

        def read() -> tuple[str, int] | None:
            t = leases_table.c
            with self._engine().connect() as conn:
                row = conn.execute(
                    select(t.owner, t.fence, t.expires_at).where(t.id == key)
                ).first()
            if row is None or _aware(row.expires_at) <= _now():
                return None
            return str(row.owner), int(row.fence)

        result: tuple[str, int] | None = await self._run(read)
        return result

    # ------------------------------------------------------------------ purge

    async def purge(
        self, *, unplayed_after: float, abandoned_after: float, keep: Collection[str] = ()
    ) -> tuple[int, int]:
        """Delete the games nobody will come back to; returns how many (unplayed, abandoned).

        *Unplayed*: no person has played a card in it (``played_at``, see
        :meth:`op_played`; bots may have) and created more than
        ``unplayed_after`` seconds ago. *Abandoned*: not finished and no action stored for
        more than ``abandoned_after`` seconds (``updated_at``). A finished game is never
        purged, nor one whose id is in ``keep`` (the games in memory). A purged game loses
        its actions and its row, and players whose current game it was have none.

        Runs on the database thread in transactions of at most :data:`BATCH` games, each
        checking its games again, so writes go on between them.
        """
        now = _now()
        g = games_table.c
        unfinished = and_(g.finished_at.is_(None), g.room_id.is_(None))  # rooms keep theirs
        unplayed = and_(
            unfinished,
            g.created_at < now - timedelta(seconds=unplayed_after),
            g.played_at.is_(None),
        )
        abandoned_before = now - timedelta(seconds=abandoned_after)
        abandoned = and_(
            unfinished,
            or_(
                g.updated_at < abandoned_before,
                and_(g.updated_at.is_(None), g.created_at < abandoned_before),
            ),
        )
        counts = []
        for cond in (unplayed, abandoned):
            ids = await self._run(functools.partial(self._purge_candidates, cond, keep))
            n = 0
            for chunk in _chunks(ids):
                n += await self._run(functools.partial(self._purge_chunk, chunk, cond))
            counts.append(n)
        if counts[0] or counts[1]:
            log.info("purged %d unplayed and %d abandoned games", counts[0], counts[1])
        return counts[0], counts[1]

    def _purge_candidates(self, cond: ColumnElement[bool], keep: Collection[str]) -> list[str]:
        with self._engine().connect() as conn:
            ids = conn.execute(select(games_table.c.id).where(cond)).scalars().all()
        kept = set(keep)
        return sorted(i for i in ids if i not in kept)

    def _purge_chunk(self, ids: Sequence[str], cond: ColumnElement[bool]) -> int:
        with self._engine().begin() as conn:
            gone = (
                conn.execute(select(games_table.c.id).where(games_table.c.id.in_(ids), cond))
                .scalars()
                .all()
            )
            if gone:
                conn.execute(
                    update(players_table)
                    .where(players_table.c.game_id.in_(gone))
                    .values(game_id=None)
                )
                conn.execute(delete(actions_table).where(actions_table.c.game_id.in_(gone)))
                for table in (game_events_table, participants_table, analyses_table):
                    conn.execute(delete(table).where(table.c.game_id.in_(gone)))
                conn.execute(delete(games_table).where(games_table.c.id.in_(gone)))
        return len(gone)

    # ------------------------------------------------------------------ write operations

    @staticmethod
    def op_create_game(
        game: GameRow, actions: Sequence[ActionRow], owners: Sequence[str]
    ) -> WriteOp:
        """An operation storing a new game, its first actions, and making it the current
        game of every player in ``owners``."""
        values = _action_values(game.id, actions)

        def op(conn: Connection) -> None:
            now = _now()
            conn.execute(
                games_table.insert().values(
                    id=game.id,
                    rules=json.dumps(game.rules),
                    players=json.dumps(game.players, ensure_ascii=False),
                    seats=json.dumps(game.seats),
                    created_at=now,
                    updated_at=now,
                    room_id=game.room_id,
                )
            )
            if values:
                conn.execute(actions_table.insert(), values)
            people = [
                {
                    "player_id": who["player"],
                    "game_id": game.id,
                    "seat": seat,
                    "uploaded": False,
                    "created_at": now,
                }
                for seat, who in enumerate(game.seats)
                if who.get("kind") == "human" and who.get("player")
            ]
            if people:
                conn.execute(participants_table.insert(), people)
            for player in owners:
                done = conn.execute(
                    update(players_table)
                    .where(players_table.c.id == player)
                    .values(game_id=game.id)
                ).rowcount
                if not done:
                    conn.execute(
                        players_table.insert().values(id=player, game_id=game.id, created_at=_now())
                    )

        return op

    @staticmethod
    def op_actions(game_id: str, actions: Sequence[ActionRow]) -> WriteOp:
        """An operation appending actions to a game."""
        values = _action_values(game_id, actions)

        def op(conn: Connection) -> None:
            if values:
                conn.execute(actions_table.insert(), values)
                _touch(conn, [game_id])

        return op

    @staticmethod
    def op_event(game_id: str, version: int, kind: str, seat: int | None, data: str) -> WriteOp:
        """An operation storing an event of a game that is not a move (chat, takeover)."""

        def op(conn: Connection) -> None:
            conn.execute(
                game_events_table.insert().values(
                    game_id=game_id,
                    version=version,
                    kind=kind,
                    seat=seat,
                    data=data,
                    created_at=_now(),
                )
            )

        return op

    @staticmethod
    def op_seats(game_id: str, seats: list[dict[str, Any]], players: list[str]) -> WriteOp:
        """An operation storing who sits where in a game, and the names shown."""

        def op(conn: Connection) -> None:
            conn.execute(
                update(games_table)
                .where(games_table.c.id == game_id)
                .values(seats=json.dumps(seats), players=json.dumps(players, ensure_ascii=False))
            )

        return op

    @staticmethod
    def op_played(game_id: str) -> WriteOp:
        """An operation noting that a person has played a card in the game (once)."""

        def op(conn: Connection) -> None:
            conn.execute(
                update(games_table)
                .where(games_table.c.id == game_id, games_table.c.played_at.is_(None))
                .values(played_at=_now())
            )

        return op

    @staticmethod
    def op_finish(game_id: str, winner: int, record_text: str) -> WriteOp:
        """An operation marking a game over, with its winner and whole record."""

        def op(conn: Connection) -> None:
            now = _now()
            conn.execute(
                update(games_table)
                .where(games_table.c.id == game_id)
                .values(winner=winner, record=record_text, finished_at=now, updated_at=now)
            )

        return op
