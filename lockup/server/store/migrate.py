"""Opening a database: URLs, the SQLite file lock, the schema brought up to date by Alembic."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import (
    create_engine,
    event,
    inspect,
)
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from .rows import StoreError

if sys.platform != "win32":
    import fcntl

log = logging.getLogger("lockup.server")


MIGRATIONS = Path(__file__).parent.parent / "migrations"
"""Alembic's script directory (``env.py``, ``versions/``)."""


BASE_REVISION = "0001"
"""The revision of a database made before Alembic: the tables of 0001, no ``alembic_version``."""


_BASE_TABLES = frozenset({"players", "games", "actions"})


def check_url(url: str) -> URL:
    """The parsed SQLAlchemy URL, or :class:`StoreError` saying what is wrong with it."""
    try:
        return make_url(url)
    except ArgumentError:
        raise StoreError(
            f"--db {url!r} is not an SQLAlchemy database URL (e.g. sqlite:///lockup.sqlite)"
        ) from None


def _make_engine(url: str, *, autocheckpoint: bool = True) -> Engine:
    """An engine for ``url``; on SQLite, each connection in WAL mode, and unless
    ``autocheckpoint`` its commits never copy the log back into the file themselves
    (the store's checkpointer does, on a thread of its own)."""
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
            if not autocheckpoint:
                cur.execute("PRAGMA wal_autocheckpoint=0")
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
