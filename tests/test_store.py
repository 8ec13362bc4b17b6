"""The store's database on its own: Alembic migrations (a new file, one from before them),
the lock on an SQLite file, the purge, ``updated_at`` and the server secret.

Every test uses a real SQLite file in ``tmp_path``; those marked with the ``db_url``
fixture run on a real PostgreSQL too (tests/services.py starts one), as do the leases'.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from conftest import run_store
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
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine

import lockup
from lockup.cards import card_str
from lockup.engine import Game, Rules
from lockup.record import from_record
from lockup.server.store import (
    BATCH,
    ActionRow,
    GameRow,
    Lease,
    LeaseLost,
    Store,
    StoreError,
    alembic_config,
    games_table,
    head_revision,
    metadata,
    players_table,
    process_id,
    record_of,
)

DAY = 86400.0


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def _run(fn: Callable[[Store], Awaitable[Any]], url: str) -> Any:
    """Start a store on ``url``, run ``fn`` with it, close it."""
    return run_store(url, fn)


def _schema_diffs(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(compare_metadata(MigrationContext.configure(conn), metadata))


def _revision(path: Path) -> str | None:
    engine = create_engine(_url(path))
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


# ---------------------------------------------------------------------- migrations

# The schema of before Alembic, as ``metadata.create_all`` made it (revision 0001).
old_metadata = MetaData()
Table(
    "players",
    old_metadata,
    Column("id", String(64), primary_key=True),
    Column("game_id", String(32), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
old_games = Table(
    "games",
    old_metadata,
    Column("id", String(32), primary_key=True),
    Column("rules", Text, nullable=False),
    Column("players", Text, nullable=False),
    Column("seats", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("winner", Integer, nullable=True),
    Column("record", Text, nullable=True),
)
Table(
    "actions",
    old_metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(8), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("data", Text, nullable=False),
    Column("version", Integer, nullable=False),
)


def _game_rows(game: Game) -> list[ActionRow]:
    """A game's actions as the server stores them."""
    assert game.log is not None
    rows: list[ActionRow] = []
    for hand in game.log:
        deal = json.dumps([[card_str(c) for c in cs] for cs in hand.deal])
        rows.append(ActionRow(len(rows), "deal", hand.dealer, deal, len(rows) + 1))
        for kind, seat, card in hand.events:
            rows.append(ActionRow(len(rows), kind, seat, card_str(card), len(rows) + 1))
    return rows


def _old_database(path: Path, game: Game) -> datetime:
    """An SQLite file of before Alembic holding ``game`` as ``g1``, player ``p1``'s; returns
    the game's creation time."""
    engine = create_engine(_url(path))
    created = datetime.now(UTC) - timedelta(days=3)
    with engine.begin() as conn:
        old_metadata.create_all(conn)
        conn.execute(
            old_games.insert().values(
                id="g1",
                rules=json.dumps(game.rules.to_dict()),
                players=json.dumps(["Ann", "Bob", "Cy", "Di"]),
                seats=json.dumps([{"kind": "human", "player": "p1"}] + [{"kind": "bot"}] * 3),
                created_at=created,
            )
        )
        conn.execute(
            old_metadata.tables["actions"].insert(),
            [
                {"game_id": "g1", **{k: getattr(r, k) for k in ActionRow.__dataclass_fields__}}
                for r in _game_rows(game)
            ],
        )
        conn.execute(
            old_metadata.tables["players"]
            .insert()
            .values(id="p1", game_id="g1", created_at=created)
        )
    engine.dispose()
    return created


def test_a_new_database_is_at_head_and_matches_metadata(db_url: str) -> None:
    store = Store(db_url)
    store.open()
    try:
        assert store.schema_upgrade == (None, head_revision())
        assert store.engine is not None
        assert _schema_diffs(store.engine) == []
        with store.engine.connect() as conn:
            assert MigrationContext.configure(conn).get_current_revision() == head_revision()
    finally:
        asyncio.run(store.close())
    again = Store(db_url)
    again.open()  # already at head: nothing to do
    assert again.schema_upgrade is None
    asyncio.run(again.close())


def test_an_old_database_upgrades_in_place_and_its_game_goes_on(tmp_path: Path) -> None:
    rng = random.Random(11)
    game = Game.new(rng, Rules(target=10))  # dealt
    for _ in range(6):
        assert game.discard_due is None
        game.play(game.legal_cards()[0])
    path = tmp_path / "lockup.sqlite"
    created = _old_database(path, game)
    assert _revision(path) is None

    async def go(store: Store) -> None:
        assert store.schema_upgrade == ("0001", head_revision())
        assert store.engine is not None
        assert _schema_diffs(store.engine) == []
        with store.engine.connect() as conn:
            updated, played = conn.execute(
                select(games_table.c.updated_at, games_table.c.played_at)
            ).one()
        assert updated.replace(tzinfo=UTC) == created
        # South (the one person of an old game) played: not a game to purge as unplayed.
        assert any(r.kind == "play" and r.seat == 0 for r in _game_rows(game))
        assert played.replace(tzinfo=UTC) == created
        assert await store.player_game("p1") == "g1"
        found = await store.load("g1")
        assert found is not None
        header, rows = found
        assert rows == _game_rows(game)
        again = from_record(record_of(header, rows))
        assert again.view(0).to_dict() == game.view(0).to_dict()
        # ... and it goes on: the next card is stored and replays too.
        assert again.discard_due is None
        card = again.legal_cards()[0]
        again.play(card)
        game.play(card)
        seat = _game_rows(game)[-1].seat
        await store.write(actions=("g1", [ActionRow(len(rows), "play", seat, card_str(card), 99)]))
        found = await store.load("g1")
        assert found is not None
        assert from_record(record_of(*found)).view(0).to_dict() == game.view(0).to_dict()

    _run(go, _url(path))
    assert _revision(path) == head_revision()


def test_a_failed_upgrade_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "lockup.sqlite"
    _old_database(path, Game.new(random.Random(1)))
    con = create_engine(_url(path))
    with con.begin() as conn:  # in the way of revision 0002
        conn.execute(text("CREATE TABLE settings (x INTEGER)"))
    with pytest.raises(StoreError, match="cannot open database .*settings"):
        Store(_url(path)).open()
    with con.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        columns = {c["name"] for c in inspect(conn).get_columns("games")}
    assert "alembic_version" not in tables and "updated_at" not in columns
    with con.begin() as conn:
        conn.execute(text("DROP TABLE settings"))
    con.dispose()
    store = Store(_url(path))  # the lock went with the failure
    store.open()
    assert store.schema_upgrade == ("0001", head_revision())
    asyncio.run(store.close())


def test_a_database_with_only_some_tables_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    engine = create_engine(_url(path))
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE games (id TEXT PRIMARY KEY)"))
    engine.dispose()
    with pytest.raises(StoreError, match="not made by lockup"):
        Store(_url(path)).open()


def test_downgrade_to_0001_and_back(tmp_path: Path) -> None:
    path = tmp_path / "down.sqlite"
    store = Store(_url(path))
    store.open()
    asyncio.run(store.close())
    engine = create_engine(_url(path))
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0001")
    with engine.connect() as conn:
        assert list(compare_metadata(MigrationContext.configure(conn), old_metadata)) == []
    engine.dispose()
    store = Store(_url(path))
    store.open()
    assert store.schema_upgrade == ("0001", head_revision())
    asyncio.run(store.close())


# ---------------------------------------------------------------------- the lock


def test_a_second_store_on_the_same_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "lockup.sqlite"
    first = Store(_url(path))
    first.open()
    assert (tmp_path / "lockup.sqlite.lock").read_text().strip() == str(os.getpid())
    second = Store(f"sqlite:///{os.path.relpath(path)}")  # the same file by another name
    with pytest.raises(StoreError) as e:
        second.open()
    assert f"another lockup serve (pid {os.getpid()}" in str(e.value)
    assert f"is using {path}; stop it or choose another --db" in str(e.value)
    asyncio.run(first.close())
    second.open()
    asyncio.run(second.close())
    # In memory: no file, no lock.
    a, b = Store("sqlite://"), Store("sqlite:///:memory:")
    a.open()
    b.open()
    asyncio.run(a.close())
    asyncio.run(b.close())


HOLDER = """
import sys, time
from lockup.server.store import Store
Store(sys.argv[1]).open()
print("open", flush=True)
time.sleep(60)
"""


def test_another_process_is_refused_and_its_lock_dies_with_it(tmp_path: Path) -> None:
    url = _url(tmp_path / "lockup.sqlite")
    env = dict(os.environ, PYTHONPATH=str(Path(lockup.__file__).parent.parent))
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, url], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "open\n"
        with pytest.raises(StoreError, match=rf"another lockup serve \(pid {proc.pid}\) is using"):
            Store(url).open()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    store = Store(url)
    store.open()
    asyncio.run(store.close())


# ---------------------------------------------------------------------- writes and purge


def _header(game_id: str) -> GameRow:
    return GameRow(game_id, Rules().to_dict(), ["A", "B", "C", "D"], [{"kind": "bot"}] * 4, None)


DEAL = ActionRow(0, "deal", 0, "[]", 1)


def _set_times(store: Store, game_id: str, **ages: float | None) -> None:
    """Set ``created_at``/``updated_at`` of a game to that many seconds ago (None: NULL)."""
    now = datetime.now(UTC)
    values = {k: None if v is None else now - timedelta(seconds=v) for k, v in ages.items()}
    assert store.engine is not None
    with store.engine.begin() as conn:
        conn.execute(update(games_table).where(games_table.c.id == game_id).values(**values))


def _updated_at(store: Store, game_id: str) -> datetime:
    assert store.engine is not None
    with store.engine.connect() as conn:
        value = conn.execute(
            select(games_table.c.updated_at).where(games_table.c.id == game_id)
        ).scalar_one()
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def test_updated_at_advances_with_one_update_per_commit(db_url: str) -> None:
    async def go(store: Store) -> None:
        await store.write(*(Store.op_create_game(_header(f"g{i}"), [DEAL], []) for i in range(20)))
        for i in range(20):
            _set_times(store, f"g{i}", updated_at=DAY)
        assert store.engine is not None
        updates: list[str] = []

        @event.listens_for(store.engine, "before_cursor_execute")
        def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            if statement.startswith("UPDATE games"):
                updates.append(statement)

        commits = store.commits
        await asyncio.gather(
            *(
                store.write(actions=(f"g{i}", [ActionRow(k, "play", 0, "2C", k + 1)]))
                for i in range(10)
                for k in range(1, 4)
            )
        )
        assert len(updates) == store.commits - commits < 30
        now = datetime.now(UTC)
        for i in range(20):
            age = now - _updated_at(store, f"g{i}")
            assert age < timedelta(seconds=60) if i < 10 else age > timedelta(hours=23)

    _run(go, db_url)


def test_purge_removes_exactly_the_games_nobody_will_come_back_to(db_url: str) -> None:
    play = ActionRow(1, "play", 1, "2C", 2)
    games = {
        # id: (actions, finished, created_at age, updated_at age, purged as)
        "unplayed-old": ([DEAL], False, 7200, 7200, "unplayed"),
        "unplayed-new": ([DEAL], False, 60, 60, None),
        "unplayed-kept": ([DEAL], False, 7200, 7200, None),
        "abandoned": ([DEAL, play], False, 40 * DAY, 31 * DAY, "abandoned"),
        "abandoned-old-row": ([DEAL, play], False, 40 * DAY, None, "abandoned"),
        "abandoned-kept": ([DEAL, play], False, 40 * DAY, 31 * DAY, None),
        "recent": ([DEAL, play], False, 40 * DAY, DAY, None),
        "played-an-hour": ([DEAL, play], False, 7200, 7200, None),
        "finished": ([DEAL, play], True, 400 * DAY, 400 * DAY, None),
    }
    keep = {"unplayed-kept", "abandoned-kept", "not-stored"}

    async def go(store: Store) -> None:
        for n, (gid, (actions, finished, created, updated, _)) in enumerate(games.items()):
            ops = [Store.op_create_game(_header(gid), actions, [f"player-{n}"])]
            if play in actions:  # a person played (a bot's card alone would not count)
                ops.append(Store.op_played(gid))
            if finished:
                ops.append(Store.op_finish(gid, 0, "{}"))
            await store.write(*ops)
            _set_times(store, gid, created_at=created, updated_at=updated)
        assert await store.count_games() == len(games)
        counts = await store.purge(unplayed_after=3600, abandoned_after=30 * DAY, keep=keep)
        assert counts == (1, 2)
        for n, (gid, (*_, purged)) in enumerate(games.items()):
            assert (await store.load(gid) is None) == (purged is not None), gid
            assert await store.player_game(f"player-{n}") == (None if purged else gid)
        assert store.engine is not None
        with store.engine.connect() as conn:
            ids = conn.execute(text("SELECT DISTINCT game_id FROM actions")).scalars().all()
            players = conn.execute(select(players_table.c.id)).scalars().all()
        assert set(ids) == {g for g, v in games.items() if v[-1] is None}
        assert len(players) == len(games)  # players stay, with no game
        assert await store.purge(unplayed_after=3600, abandoned_after=30 * DAY, keep=keep) == (0, 0)
        assert await store.purge(unplayed_after=3600, abandoned_after=30 * DAY) == (1, 1)

    _run(go, db_url)


def test_a_big_purge_goes_in_batches(db_url: str) -> None:
    n = 2 * BATCH + 3

    async def go(store: Store) -> None:
        await store.write(
            *(Store.op_create_game(_header(f"g{i:05d}"), [DEAL], []) for i in range(n))
        )
        assert store.engine is not None
        deletes: list[int] = []

        @event.listens_for(store.engine, "before_cursor_execute")
        def count(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
            if statement.startswith("DELETE FROM games"):
                deletes.append(len(parameters))

        assert await store.purge(unplayed_after=-1, abandoned_after=DAY, keep={"g00007"}) == (
            n - 1,
            0,
        )
        assert deletes == [BATCH, BATCH, n - 1 - 2 * BATCH]
        assert await store.count_games() == 1

    _run(go, db_url)


# ---------------------------------------------------------------------- the secret


def test_the_secret_is_made_once_and_kept(db_url: str) -> None:
    url = db_url

    async def first(store: Store) -> tuple[bytes, bytes]:
        a, b = await asyncio.gather(store.secret(), store.secret())
        assert a == b and len(a) == 32
        other = await store.secret("other")
        assert other != a and len(other) == 32
        # Another server that stored it first wins: an insert of the key does nothing.
        assert not store._insert_setting("secret:token-key", "00" * 32)
        return a, other

    async def later(store: Store) -> tuple[bytes, bytes]:
        return await store.secret(), await store.secret("other")

    made = _run(first, url)
    assert _run(later, url) == made


# ---------------------------------------------------------------------- lockup db


def test_lockup_db_current_and_upgrade(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lockup.cli import main

    path = tmp_path / "lockup.sqlite"
    url = _url(path)
    assert main(["db", "current", "--db", url]) == 2
    assert "no database at" in capsys.readouterr().err
    _old_database(path, Game.new(random.Random(2)))
    assert main(["db", "current", "--db", url]) == 0
    assert (
        capsys.readouterr().out
        == f"0001 (made before Alembic, not stamped); newest {head_revision()}\n"
    )
    holder = Store(url)
    holder.open()
    assert main(["db", "upgrade", "--db", url]) == 2  # a server is using it
    assert "another lockup serve" in capsys.readouterr().err
    asyncio.run(holder.close())
    assert _revision(path) == head_revision()  # the holder upgraded it on opening
    assert main(["db", "upgrade", "--db", url]) == 0
    assert "already at the newest revision" in capsys.readouterr().out
    assert main(["db", "current", "--db", url]) == 0
    assert capsys.readouterr().out == f"{head_revision()}; newest {head_revision()}\n"
    fresh = _url(tmp_path / "fresh.sqlite")
    assert main(["db", "upgrade", "--db", fresh]) == 0
    assert (
        capsys.readouterr().out
        == f"{fresh}: upgraded from an empty database to {head_revision()}\n"
    )


# ---------------------------------------------------------------------- leases


def test_a_lease_has_one_owner_until_it_expires_and_then_a_higher_fence(db_url: str) -> None:
    a, b = process_id(), process_id()
    assert a != b

    async def go(store: Store) -> None:
        first = await store.acquire_lease("game:g1", a, 0.3)
        assert first == Lease("game:g1", a, 1)
        assert await store.acquire_lease("game:g1", b, 5) is None  # a's runs
        assert await store.acquire_lease("game:g1", a, 0.3) == first  # renewed, same fence
        assert await store.lease_holder("game:g1") == (a, 1)
        assert await store.renew_leases([first], 0.3) == []
        await asyncio.sleep(0.5)  # a stopped renewing (killed, paused)
        assert await store.lease_holder("game:g1") is None
        second = await store.acquire_lease("game:g1", b, 5)
        assert second == Lease("game:g1", b, 2)
        assert await store.renew_leases([first, second], 5) == [first]  # a learns it lost
        assert await store.acquire_lease("game:g1", a, 5) is None
        await store.release_lease(second)
        third = await store.acquire_lease("game:g1", a, 5)
        assert third == Lease("game:g1", a, 3)
        await store.release_lease(second)  # a stale release does nothing
        assert await store.lease_holder("game:g1") == (a, 3)

    _run(go, db_url)


def test_a_write_under_a_lost_lease_is_refused_and_stores_nothing(db_url: str) -> None:
    a, b = process_id(), process_id()

    async def go(store: Store) -> None:
        old = await store.acquire_lease("game:g1", a, 0.2)
        assert old is not None
        await store.write(Store.op_create_game(_header("g1"), [DEAL], []), lease=old)
        await store.write(actions=("g1", [ActionRow(1, "play", 1, "2C", 2)]), lease=old)
        await asyncio.sleep(0.3)
        new = await store.acquire_lease("game:g1", b, 5)
        assert new is not None and new.fence == 2
        # The old owner, not knowing yet, writes its next card: refused, nothing stored;
        # in the same group commit, another game's write goes through.
        other = await store.acquire_lease("game:g2", a, 5)
        assert other is not None
        results = await asyncio.gather(
            store.write(actions=("g1", [ActionRow(2, "play", 2, "3C", 3)]), lease=old),
            store.write(Store.op_create_game(_header("g2"), [DEAL], []), lease=other),
            return_exceptions=True,
        )
        assert isinstance(results[0], LeaseLost) and results[1] is None
        loaded = await store.load("g1")
        assert loaded is not None and [r.seq for r in loaded[1]] == [0, 1]
        assert await store.load("g2") is not None
        # The new owner goes on from what is stored.
        await store.write(actions=("g1", [ActionRow(2, "play", 2, "4C", 3)]), lease=new)
        # A writer that gets past its fence check some other way still cannot fork the
        # game: the actions key (game_id, seq) refuses a second card at the same seq.
        with pytest.raises(StoreError, match="database write failed"):
            await store.write(actions=("g1", [ActionRow(2, "play", 2, "5C", 3)]))
        loaded = await store.load("g1")
        assert loaded is not None and [r.data for r in loaded[1][1:]] == ["2C", "4C"]

    _run(go, db_url)


def test_postgresql_down_refuses_writes_and_they_resume_after(tmp_path: Path) -> None:
    from services import postgres

    with postgres() as pg:
        url = pg.new_database()

        async def go(store: Store) -> None:
            lease = await store.acquire_lease("game:g1", process_id(), 60)
            assert lease is not None
            await store.write(Store.op_create_game(_header("g1"), [DEAL], []), lease=lease)
            pg.stop()
            with pytest.raises(StoreError, match="the database write failed"):
                await store.write(actions=("g1", [ActionRow(1, "play", 1, "2C", 2)]), lease=lease)
            pg.start()
            await store.write(actions=("g1", [ActionRow(1, "play", 1, "3C", 2)]), lease=lease)
            loaded = await store.load("g1")
            assert loaded is not None and [r.data for r in loaded[1][1:]] == ["3C"]

        _run(go, url)


def test_lease_holders_reads_many_at_once(db_url: str) -> None:
    a = process_id()

    async def go(store: Store) -> None:
        for i in range(3):
            assert await store.acquire_lease(f"game:g{i}", a, 60 if i else 0.01) is not None
        await asyncio.sleep(0.05)
        holders = await store.lease_holders([f"game:g{i}" for i in range(4)])
        assert holders == {"game:g1": (a, 1), "game:g2": (a, 1)}  # g0 expired, g3 none

    _run(go, db_url)


def test_one_group_commit_stores_every_row_of_many_games_as_written(db_url: str) -> None:
    """Many games' rows in one commit (the writer's one statement for them all) come back
    exactly: each column, a missing actor, quotes and non-ASCII text, and under leases
    (the fence check of hundreds of games at once, more than one ``IN`` batch)."""
    a = process_id()
    games = [f"g{i}" for i in range(600)]

    async def go(store: Store) -> None:
        leases = {}
        for g in games:
            lease = await store.acquire_lease(f"game:{g}", a, 60)
            assert lease is not None
            leases[g] = lease
        await asyncio.gather(
            *(
                store.write(Store.op_create_game(_header(g), [DEAL], []), lease=leases[g])
                for g in games
            )
        )
        wanted = {
            g: [
                ActionRow(1, "play", i % 4, "QD", 2, "person"),
                ActionRow(2, "discard", 3, '["É\'"]', 3, None),
                ActionRow(3, "play", 1, "2C", 7 + i, "computer"),
            ]
            for i, g in enumerate(games)
        }
        commits = store.commits
        await asyncio.gather(
            *(store.write(actions=(g, rows), lease=leases[g]) for g, rows in wanted.items())
        )
        assert store.commits - commits < 5
        for g in games[::37] + games[-1:]:
            loaded = await store.load(g)
            assert loaded is not None and loaded[1] == [DEAL, *wanted[g]]

    _run(go, db_url)


def test_commits_never_checkpoint_the_log_and_the_checkpointer_keeps_it_short(
    tmp_path: Path,
) -> None:
    """On an SQLite file a commit never copies the write-ahead log back (that made the
    commit that filled the log wait 0.1 to 0.2 s, and every write behind it): the store's
    checkpointer does, on its own thread, so the log stays a second of writes long while
    about 12 MB of rows are written, and a new reader sees all of them."""
    path = tmp_path / "g.sqlite"
    wal = path.with_name(path.name + "-wal")
    big = "x" * 4000

    async def go(store: Store) -> tuple[int, int]:
        assert store.engine is not None
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
        await store.write(*(Store.op_create_game(_header(f"g{i}"), [DEAL], []) for i in range(4)))
        largest = 0
        for k in range(1, 61):  # three seconds of writes, 200 kB a commit
            rows = [ActionRow(k, "play", 0, big, k + 1)]
            await asyncio.gather(*(store.write(actions=(f"g{i}", rows)) for i in range(4)))
            await store.write(actions=(f"g{k % 4}", []))
            largest = max(largest, wal.stat().st_size)
            await asyncio.sleep(0.05)
        return largest, store.checkpoints

    largest, checkpoints = _run(go, f"sqlite:///{path}")
    assert checkpoints >= 2
    assert largest < 6 * 2**20, largest  # without the checkpointer: the whole 12 MB
    with sqlite3.connect(path) as conn:
        count = conn.execute("SELECT count(*) FROM actions").fetchone()[0]
    assert count == 4 + 4 * 60
