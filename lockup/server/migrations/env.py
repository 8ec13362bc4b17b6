"""Alembic's environment for Lockup's database.

Run from :func:`lockup.server.store.upgrade_schema`, the connection to migrate comes in
``config.attributes["connection"]``, already in a transaction. Run by the ``alembic``
command (developers, with the repository's ``alembic.ini``), it connects to
``sqlalchemy.url`` itself.
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import create_engine

from lockup.server.store import metadata

config = context.config
target_metadata = metadata

if config.config_file_name is not None:  # the alembic command with alembic.ini
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def run_offline() -> None:
    """``alembic upgrade --sql``: print the SQL instead of running it."""
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(
            connection=connection, target_metadata=target_metadata, render_as_batch=True
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database: set sqlalchemy.url, or use `lockup db upgrade --db URL`")
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context.configure(
                connection=conn, target_metadata=target_metadata, render_as_batch=True
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
