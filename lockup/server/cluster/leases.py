"""Several server processes on one database: who owns which game.

One process at a time owns a game (or a room and its game) and orders its moves: it holds
the game's lease (a row of the ``leases`` table, see :class:`~lockup.server.store.Lease`),
renews it every :attr:`Leases.renew_every` seconds and writes every change under it, so
the database refuses a write of a process that lost it. A process that dies stops renewing;
once its leases expire another process takes the game over (a higher fence) and loads it
from the database. See docs/deploy.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from sqlalchemy.exc import SQLAlchemyError

from ..store import Lease, Store, StoreError, process_id

log = logging.getLogger("lockup.server")

TTL = 2.0
"""Seconds a lease lasts unless renewed."""

RENEW_EVERY = 0.5
"""Seconds between two renewals of this process's leases."""


class OwnedElsewhere(Exception):
    """The game is owned by another process now (its lease runs)."""

    def __init__(self, key: str, owner: str) -> None:
        super().__init__(f"{key} is owned by {owner}")
        self.key = key
        self.owner = owner


class Leases:
    """The leases of this process: taken, renewed in the background, given back.

    ``on_lost(key)`` is told when a renewal finds a lease taken over by another process
    (this process was paused or cut off past the lease's end): the caller drops its copy.
    A renewal that fails (the database is down) keeps the leases; they run out if it stays
    down, and the writes under them are refused meanwhile anyway.
    """

    def __init__(
        self,
        store: Store,
        owner: str | None = None,
        *,
        ttl: float = TTL,
        renew_every: float = RENEW_EVERY,
    ) -> None:
        self.store = store
        self.owner = owner or process_id()
        self.ttl = ttl
        self.renew_every = renew_every
        self.held: dict[str, Lease] = {}
        self.on_lost: Callable[[str], None] | None = None
        self._renewer: asyncio.Task[None] | None = None
        self._releasing: set[asyncio.Task[None]] = set()

    async def acquire(self, key: str) -> Lease:
        """The lease ``key`` for this process (taken, or taken over once expired); raises
        :class:`OwnedElsewhere` while another process's lease runs."""
        lease = await self.store.acquire_lease(key, self.owner, self.ttl)
        if lease is None:
            holder = await self.store.lease_holder(key)
            raise OwnedElsewhere(key, holder[0] if holder else "another process")
        self.held[key] = lease
        return lease

    async def release(self, key: str) -> None:
        """Give ``key`` back now (another process may take it at once)."""
        lease = self.held.pop(key, None)
        if lease is not None:
            await self._release(lease)

    def release_soon(self, key: str) -> None:
        """Give ``key`` back in the background (the game left memory)."""
        lease = self.held.pop(key, None)
        if lease is None:
            return
        task = asyncio.get_running_loop().create_task(self._release(lease))
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    async def _release(self, lease: Lease) -> None:
        try:
            await self.store.release_lease(lease)
        except (StoreError, SQLAlchemyError, OSError) as e:  # it expires on its own
            log.warning("releasing %s failed: %s", lease.key, str(e).splitlines()[0][:200])

    def start(self) -> None:
        """Start renewing."""
        if self._renewer is None:
            self._renewer = asyncio.create_task(self._renew_loop(), name="lockup-leases")

    async def renew(self) -> list[str]:
        """Renew every held lease now; the keys of those lost (and told to ``on_lost``)."""
        held = list(self.held.values())
        if not held:
            return []
        lost = await self.store.renew_leases(held, self.ttl)
        keys = []
        for lease in lost:
            if self.held.get(lease.key) == lease:
                del self.held[lease.key]
                keys.append(lease.key)
                log.warning("%s was taken over by another process", lease.key)
                if self.on_lost is not None:
                    self.on_lost(lease.key)
        return keys

    async def _renew_loop(self) -> None:
        task = asyncio.current_task()
        failing = False
        # Ends once cancelled even when the database driver turns the cancellation into an
        # error of its own (caught below): going round again, close() would wait for ever.
        while task is None or not task.cancelling():
            await asyncio.sleep(self.renew_every)
            try:
                await self.renew()
                if failing:
                    log.warning("renewing leases works again")
                failing = False
            except Exception as e:  # the database is down, or the driver's own errors
                if not failing:  # one line an outage, not one a renewal
                    log.error("renewing leases failed: %s", str(e).splitlines()[0][:200])
                failing = True

    async def close(self, release: bool = True) -> None:
        """Stop renewing and (``release``) give every lease back."""
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
            self._renewer = None
        if release:
            for key in list(self.held):
                self.release_soon(key)
        if self._releasing:
            await asyncio.gather(*self._releasing, return_exceptions=True)
