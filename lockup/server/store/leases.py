"""Leases in the database: taken, renewed, given back, and who holds them (several processes)."""

from __future__ import annotations

import functools
from collections.abc import Collection
from datetime import timedelta

from sqlalchemy import (
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from .rows import Lease, _aware, _chunks, _now
from .schema import leases_table
from .writer import StoreBase, locked_holders


class LeaseStore(StoreBase):
    """The ``leases`` table: see :mod:`lockup.server.cluster.leases`."""

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
                held = locked_holders(conn, chunk)
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
