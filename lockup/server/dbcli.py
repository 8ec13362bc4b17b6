"""``lockup db``: the game database's schema, managed by Alembic (docs/server.md, Storage).

``lockup db upgrade`` does what ``lockup serve`` does on start (upgrade to the newest
revision, stamping a database of before Alembic first); ``lockup db current`` only reads.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

DEFAULT_DB = "sqlite:///lockup.sqlite"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``db`` to the ``lockup`` command."""
    p = subparsers.add_parser(
        "db",
        help="the game database's schema: its revision, upgrading it",
        description="The game database's schema (Alembic revisions in lockup/server/migrations). "
        "lockup serve upgrades the database on start; these do it, or look, on their own.",
    )
    sub = p.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    for name, help_text, func in (
        (
            "upgrade",
            "upgrade the database to the newest schema (a new one gets the tables)",
            _upgrade,
        ),
        ("current", "print the database's schema revision and the newest one", _current),
    ):
        q = sub.add_parser(name, help=help_text, description=help_text)
        q.add_argument(
            "--db",
            default=DEFAULT_DB,
            metavar="URL",
            help=f"SQLAlchemy database URL (default {DEFAULT_DB}, a file here)",
        )
        q.set_defaults(func=func)


def _fail(reason: str) -> int:
    print(f"lockup db: {reason}", file=sys.stderr)
    return 2


def _upgrade(args: argparse.Namespace) -> int:
    from .store import Store, StoreError

    store = Store(args.db)
    try:
        store.open()  # takes the lock: refused while a server uses the file
    except StoreError as e:
        return _fail(str(e))
    try:
        if store.schema_upgrade is None:
            print(f"{args.db}: already at the newest revision")
        else:
            before, after = store.schema_upgrade
            print(f"{args.db}: upgraded from {before or 'an empty database'} to {after}")
    finally:
        asyncio.run(store.close())
    return 0


def _current(args: argparse.Namespace) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from .store import StoreError
    from .store.migrate import (
        BASE_REVISION,
        _make_engine,
        head_revision,
        is_pre_alembic,
        schema_revision,
        sqlite_file,
    )

    try:
        path = sqlite_file(args.db)
        if path is not None and not path.exists():
            return _fail(f"no database at {path}")
        engine = _make_engine(args.db)
    except StoreError as e:
        return _fail(str(e))
    try:
        with engine.connect() as conn:
            current = schema_revision(conn)
            old = current is None and is_pre_alembic(conn)
    except SQLAlchemyError as e:
        return _fail(f"cannot read {args.db}: {getattr(e, 'orig', None) or e}")
    finally:
        engine.dispose()
    head = head_revision()
    if old:
        print(f"{BASE_REVISION} (made before Alembic, not stamped); newest {head}")
    else:
        print(f"{current or 'none (empty)'}; newest {head}")
    if (BASE_REVISION if old else current) != head:
        print("lockup db upgrade (or lockup serve) upgrades it", file=sys.stderr)
    return 0
