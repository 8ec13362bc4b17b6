"""The database schema's Alembic migrations: ``env.py``, ``script.py.mako`` and ``versions/``.

:meth:`lockup.server.store.Store.open` upgrades a database to the newest revision on its own
(see :func:`lockup.server.store.upgrade_schema`); ``lockup db upgrade`` does the same from the
command line. A new revision: ``alembic revision --autogenerate --rev-id 0003 -m "..."`` at the
repository root (its ``alembic.ini`` points here), then check the script by hand.
"""
