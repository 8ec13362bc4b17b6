"""Quick play (``POST /api/quickplay``): people asking at about the same time are seated
at one quick table, which starts when full or after the server's ``--quick-wait``,
computers in the seats still empty.

- :mod:`.queue`: which quick table is open, in memory or in Redis (several processes).
- :mod:`.service`: seating a person there, or opening a table for them.
"""

from .queue import MemoryQueue, QuickQueue, RedisQueue, Table
from .service import Elsewhere, QuickPlay, Seated

__all__ = [
    "Elsewhere",
    "MemoryQueue",
    "QuickPlay",
    "QuickQueue",
    "RedisQueue",
    "Seated",
    "Table",
]
