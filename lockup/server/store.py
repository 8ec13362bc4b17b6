"""Where games live: an SQL database through SQLAlchemy Core (SQLite by default).

A game is stored as the rows of its ``lockup-record/1`` record: one ``actions`` row for
every deal, play and lockup discard, in order, each committed before the server
acknowledges it. :func:`record_of` assembles the rows into the record, which
:func:`lockup.record.from_record` replays to the identical state. A finished game also
keeps its whole record text in ``games.record``.

The SQL is plain SQLAlchemy Core (no dialect-specific statements), so a PostgreSQL URL
works as well as SQLite. Every database call runs on one worker thread, off the event
loop; writes are grouped: all the rows queued while one transaction commits go into the
next one (group commit), so many games at once cost few commits.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Column,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    select,
    update,
)
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from ..record import FORMAT

log = logging.getLogger("lockup.server")

metadata = MetaData()

players_table = Table(
    "players",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("game_id", String(32), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
"""A player known by the ``lockup_player`` cookie, and the game they are playing now."""

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
)
"""A game: rules and names (JSON), who sits where (JSON), and the record once it is over."""

actions_table = Table(
    "actions",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(8), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("data", Text, nullable=False),
    Column("version", Integer, nullable=False),
)
"""One deal (``seat`` the dealer, ``data`` the deal as JSON), play or discard (``data`` the
card code), and the game's event version after it."""


class StoreError(RuntimeError):
    """The database cannot be opened or written; the message says why in plain words."""


@dataclass(frozen=True)
class ActionRow:
    """One stored action: ``kind`` is ``deal``, ``play`` or ``discard``."""

    seq: int
    kind: str
    seat: int
    data: str
    version: int


@dataclass(frozen=True)
class GameRow:
    """A stored game's header: rules, names and seats as decoded JSON."""

    id: str
    rules: dict[str, Any]
    players: list[str]
    seats: list[dict[str, Any]]
    winner: int | None


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


WriteOp = Callable[[Connection], None]


@dataclass(frozen=True)
class _Write:
    """One queued write: operations, then action rows (all rows of a batch go together)."""

    ops: tuple[WriteOp, ...]
    rows: list[dict[str, Any]]


def _action_values(game_id: str, actions: Sequence[ActionRow]) -> list[dict[str, Any]]:
    return [
        {
            "game_id": game_id,
            "seq": a.seq,
            "kind": a.kind,
            "seat": a.seat,
            "data": a.data,
            "version": a.version,
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

    # ------------------------------------------------------------------ life cycle

    def open(self) -> None:
        """Connect and create the tables if they are missing; raises :class:`StoreError`."""
        if self.engine is not None:
            return
        engine = _make_engine(self.url)
        try:
            metadata.create_all(engine)
        except SQLAlchemyError as e:
            engine.dispose()
            orig = getattr(e, "orig", None)
            reason = str(orig) if orig is not None else str(e)
            raise StoreError(f"cannot open database {self.url!r}: {reason}") from None
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

    # ------------------------------------------------------------------ plumbing

    async def _run(self, fn: Callable[[], Any]) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn)

    def _engine(self) -> Engine:
        if self.engine is None:
            raise StoreError("the database is not open")
        return self.engine

    async def write(
        self, *ops: WriteOp, actions: tuple[str, Sequence[ActionRow]] | None = None
    ) -> None:
        """Run ``ops`` and store ``actions`` (a game id and its new rows) in one write
        transaction; returns once it is committed.

        Raises :class:`StoreError` if the transaction fails (nothing of it is stored).
        """
        if self._queue is None:
            raise StoreError("the database writer is not running")
        rows = []
        if actions is not None:
            rows = _action_values(*actions)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((_Write(ops, rows), fut))
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
            fut.set_exception(StoreError(f"the database write failed: {e}"))

    def _commit(self, writes: list[_Write]) -> None:
        conn = self._writer_conn
        if conn is None or conn.closed or conn.invalidated:
            conn = self._writer_conn = self._engine().connect()
        try:
            trans = conn.begin()
        except Exception:
            self._drop_writer_conn()
            raise
        with trans:
            for w in writes:
                for op in w.ops:
                    op(conn)
            rows = [r for w in writes for r in w.rows]
            if rows:  # one statement for the whole batch's actions
                conn.execute(actions_table.insert(), rows)
        self.commits += 1

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
                    )
                    .where(actions_table.c.game_id == game_id)
                    .order_by(actions_table.c.seq)
                ).all()
            header = GameRow(
                id=g.id,
                rules=json.loads(g.rules),
                players=json.loads(g.players),
                seats=json.loads(g.seats),
                winner=g.winner,
            )
            return header, [ActionRow(r.seq, r.kind, r.seat, r.data, r.version) for r in rows]

        result: tuple[GameRow, list[ActionRow]] | None = await self._run(read)
        return result

    # ------------------------------------------------------------------ write operations

    @staticmethod
    def op_create_game(
        game: GameRow, actions: Sequence[ActionRow], owners: Sequence[str]
    ) -> WriteOp:
        """An operation storing a new game, its first actions, and making it the current
        game of every player in ``owners``."""

        def op(conn: Connection) -> None:
            conn.execute(
                games_table.insert().values(
                    id=game.id,
                    rules=json.dumps(game.rules),
                    players=json.dumps(game.players, ensure_ascii=False),
                    seats=json.dumps(game.seats),
                    created_at=_now(),
                )
            )
            Store.op_actions(game.id, actions)(conn)
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

        return op

    @staticmethod
    def op_finish(game_id: str, winner: int, record_text: str) -> WriteOp:
        """An operation marking a game over, with its winner and whole record."""

        def op(conn: Connection) -> None:
            conn.execute(
                update(games_table)
                .where(games_table.c.id == game_id)
                .values(winner=winner, record=record_text, finished_at=_now())
            )

        return op
