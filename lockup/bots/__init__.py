"""Computer opponents: one :class:`Bot` interface, levels from ``random`` to ``expert``.

``make_bot(name, seed=..., **options)`` builds a level; :func:`hint` gives the expert's
value of every legal card of a view (expected tricks this hand), for the coach;
:func:`warm_up` loads the expert's compiled search ahead of the first move.
"""

from .base import Bot
from .expert import hint, warm_up
from .registry import LEVELS, make_bot

__all__ = ["LEVELS", "Bot", "hint", "make_bot", "warm_up"]
