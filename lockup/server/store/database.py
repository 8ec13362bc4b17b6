"""The store: one class made of its parts."""

from __future__ import annotations

from .leases import LeaseStore
from .ops import Ops
from .purge import Purge
from .queries import Queries


class Store(Queries, LeaseStore, Purge, Ops):
    """The game database. Open it with :meth:`open` (sync) or :meth:`start` (async).

    Reads and writes are coroutines that run on one database thread; :meth:`write` queues
    an operation and returns once the transaction holding it has committed.
    """
