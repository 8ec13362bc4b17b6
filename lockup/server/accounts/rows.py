"""Accounts and their sessions in the database: the reads and writes of
:class:`~lockup.server.accounts.service.Accounts`, on the store's own thread and writer
(``accounts`` and ``account_sessions``, see :mod:`lockup.server.store.schema`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, func, select, update
from sqlalchemy.engine import Connection

from ..store import Store, account_sessions_table, accounts_table, players_table
from ..store.rows import _aware


@dataclass(frozen=True)
class AccountRow:
    """An account as stored."""

    id: str
    name: str
    name_key: str
    password_hash: str
    player_id: str
    created_at: datetime
    password_changed_at: datetime | None


@dataclass(frozen=True)
class SessionRow:
    """A signed-in browser or terminal as stored (never its token: its SHA-256)."""

    id: str
    token_hash: str
    account_id: str
    created_at: datetime
    last_seen: datetime
    agent: str | None


def _account(row: Any) -> AccountRow:
    m = row._mapping
    changed = m["password_changed_at"]
    return AccountRow(
        id=m["id"],
        name=m["name"],
        name_key=m["name_key"],
        password_hash=m["password_hash"],
        player_id=m["player_id"],
        created_at=_aware(m["created_at"]),
        password_changed_at=None if changed is None else _aware(changed),
    )


def _session(row: Any) -> SessionRow:
    m = row._mapping
    return SessionRow(
        id=m["id"],
        token_hash=m["token_hash"],
        account_id=m["account_id"],
        created_at=_aware(m["created_at"]),
        last_seen=_aware(m["last_seen"]),
        agent=m["agent"],
    )


class AccountRows:
    """The account tables of ``store``."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def by_key(self, name_key: str) -> AccountRow | None:
        """The account whose name has the key ``name_key``."""
        return await self._one(accounts_table.c.name_key == name_key)

    async def by_id(self, account_id: str) -> AccountRow | None:
        """The account ``account_id``."""
        return await self._one(accounts_table.c.id == account_id)

    async def _one(self, where: ColumnElement[bool]) -> AccountRow | None:
        """The account that ``where`` picks, or None."""

        def read(conn: Connection) -> AccountRow | None:
            row = conn.execute(select(accounts_table).where(where)).first()
            return None if row is None else _account(row)

        found: AccountRow | None = await self.store.read(read)
        return found

    async def is_player(self, player_id: str) -> bool:
        """Whether ``player_id`` is the player of an account."""
        a = accounts_table.c

        def read(conn: Connection) -> bool:
            return conn.execute(select(a.id).where(a.player_id == player_id)).first() is not None

        found: bool = await self.store.read(read)
        return found

    async def create(self, account: AccountRow, session: SessionRow) -> str | None:
        """Store ``account``, its first ``session`` and its name as its player's display
        name, in one transaction; None when done, else what was taken already: ``name``
        (an account has that key) or ``player`` (that player is an account's)."""
        a = accounts_table.c
        taken: list[str] = []

        def op(conn: Connection) -> None:
            if conn.execute(select(a.id).where(a.name_key == account.name_key)).first():
                taken.append("name")
                return
            if conn.execute(select(a.id).where(a.player_id == account.player_id)).first():
                taken.append("player")
                return
            conn.execute(
                accounts_table.insert().values(
                    id=account.id,
                    name=account.name,
                    name_key=account.name_key,
                    password_hash=account.password_hash,
                    player_id=account.player_id,
                    created_at=account.created_at,
                    password_changed_at=None,
                )
            )
            _insert_session(conn, session)
            p = players_table.c
            done = conn.execute(
                update(players_table).where(p.id == account.player_id).values(name=account.name)
            ).rowcount
            if not done:
                conn.execute(
                    players_table.insert().values(
                        id=account.player_id, name=account.name, created_at=account.created_at
                    )
                )

        await self.store.write(op)
        return taken[0] if taken else None

    async def add_session(self, session: SessionRow) -> None:
        """Store a new signed-in ``session``."""
        await self.store.write(lambda conn: _insert_session(conn, session))

    async def session(self, token_hash: str) -> tuple[SessionRow, AccountRow] | None:
        """The session whose token has the SHA-256 ``token_hash``, and its account."""
        s = account_sessions_table.c

        def read(conn: Connection) -> tuple[SessionRow, AccountRow] | None:
            row = conn.execute(
                select(account_sessions_table).where(s.token_hash == token_hash)
            ).first()
            if row is None:
                return None
            session = _session(row)
            account = conn.execute(
                select(accounts_table).where(accounts_table.c.id == session.account_id)
            ).first()
            return None if account is None else (session, _account(account))

        found: tuple[SessionRow, AccountRow] | None = await self.store.read(read)
        return found

    async def sessions(self, account_id: str) -> list[SessionRow]:
        """The account's sessions, the most recently seen first."""
        s = account_sessions_table.c

        def read(conn: Connection) -> list[SessionRow]:
            rows = conn.execute(
                select(account_sessions_table)
                .where(s.account_id == account_id)
                .order_by(s.last_seen.desc(), s.id)
            ).all()
            return [_session(r) for r in rows]

        found: list[SessionRow] = await self.store.read(read)
        return found

    async def count_sessions(self, account_id: str) -> int:
        """How many sessions the account has."""
        s = account_sessions_table.c

        def read(conn: Connection) -> int:
            n = conn.execute(
                select(func.count())
                .select_from(account_sessions_table)
                .where(s.account_id == account_id)
            ).scalar_one()
            return int(n)

        found: int = await self.store.read(read)
        return found

    async def touch(self, session_id: str, when: datetime) -> None:
        """Set the session's ``last_seen``."""
        s = account_sessions_table.c

        def op(conn: Connection) -> None:
            conn.execute(
                update(account_sessions_table).where(s.id == session_id).values(last_seen=when)
            )

        await self.store.write(op)

    async def end(self, token_hash: str) -> None:
        """Delete the session of ``token_hash`` (signed out)."""
        s = account_sessions_table.c

        def op(conn: Connection) -> None:
            conn.execute(delete(account_sessions_table).where(s.token_hash == token_hash))

        await self.store.write(op)

    async def end_others(self, account_id: str, keep: str | None) -> list[str]:
        """Delete the account's sessions but ``keep`` (a session id); the token hashes of
        those deleted."""
        s = account_sessions_table.c
        ended: list[str] = []

        def op(conn: Connection) -> None:
            cond = s.account_id == account_id
            if keep is not None:
                cond = cond & (s.id != keep)
            ended.extend(conn.execute(select(s.token_hash).where(cond)).scalars().all())
            conn.execute(delete(account_sessions_table).where(cond))

        await self.store.write(op)
        return ended

    async def set_password(
        self, account_id: str, password_hash: str, when: datetime | None, keep: str | None
    ) -> list[str]:
        """Store the account's new ``password_hash`` (``when``: the time it was changed,
        None for the same password hashed again) and, for a change, delete its sessions but
        ``keep``; the token hashes of those deleted."""
        a, s = accounts_table.c, account_sessions_table.c
        ended: list[str] = []

        def op(conn: Connection) -> None:
            values: dict[str, Any] = {"password_hash": password_hash}
            if when is not None:
                values["password_changed_at"] = when
            conn.execute(update(accounts_table).where(a.id == account_id).values(**values))
            if when is None:
                return
            cond = s.account_id == account_id
            if keep is not None:
                cond = cond & (s.id != keep)
            ended.extend(conn.execute(select(s.token_hash).where(cond)).scalars().all())
            conn.execute(delete(account_sessions_table).where(cond))

        await self.store.write(op)
        return ended


def _insert_session(conn: Connection, session: SessionRow) -> None:
    conn.execute(
        account_sessions_table.insert().values(
            id=session.id,
            token_hash=session.token_hash,
            account_id=session.account_id,
            created_at=session.created_at,
            last_seen=session.last_seen,
            agent=session.agent,
        )
    )
