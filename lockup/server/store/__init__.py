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


The parts:

- :mod:`.schema`: the tables.
- :mod:`.rows`: rows, leases and errors the store hands out; :func:`record_of`.
- :mod:`.migrate`: URLs, the SQLite file lock, Alembic upgrades.
- :mod:`.writer`: the life cycle, the database thread and the group-commit writer.
- :mod:`.queries`: games, players, settings and the lobby, read.
- :mod:`.leases`: the ``leases`` table.
- :mod:`.purge`: games nobody will come back to, deleted.
- :mod:`.ops`: the write operations.
- :mod:`.database`: :class:`Store`, made of the parts above.
"""

from __future__ import annotations

from .database import Store
from .leases import LeaseStore
from .migrate import (
    BASE_REVISION,
    MIGRATIONS,
    alembic_config,
    check_url,
    head_revision,
    is_pre_alembic,
    schema_revision,
    sqlite_file,
    upgrade_schema,
)
from .ops import Ops
from .purge import Purge
from .queries import Queries
from .rows import BATCH, ActionRow, GameRow, Lease, LeaseLost, StoreError, process_id, record_of
from .schema import (
    account_sessions_table,
    accounts_table,
    actions_table,
    analyses_table,
    game_events_table,
    games_table,
    leases_table,
    metadata,
    participants_table,
    players_table,
    rooms_table,
    settings_table,
)
from .writer import TOUCH_EVERY, StoreBase, WriteOp

__all__ = [
    "ActionRow",
    "BASE_REVISION",
    "BATCH",
    "GameRow",
    "Lease",
    "LeaseLost",
    "LeaseStore",
    "MIGRATIONS",
    "Ops",
    "Purge",
    "Queries",
    "Store",
    "StoreBase",
    "StoreError",
    "TOUCH_EVERY",
    "WriteOp",
    "account_sessions_table",
    "accounts_table",
    "actions_table",
    "alembic_config",
    "analyses_table",
    "check_url",
    "game_events_table",
    "games_table",
    "head_revision",
    "is_pre_alembic",
    "leases_table",
    "metadata",
    "participants_table",
    "players_table",
    "process_id",
    "record_of",
    "rooms_table",
    "schema_revision",
    "settings_table",
    "sqlite_file",
    "upgrade_schema",
]
