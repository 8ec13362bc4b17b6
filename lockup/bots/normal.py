"""The ``normal`` level: a rule-based player built on the strategy tips of the game.

Its rules are those of :func:`lockup.bots._kernel.policy`, which the expert also uses to
play out the hands it imagines. They follow the tips in the game's player-facing text:

- shed clubs, the highest first, through the picture exception (R7) or when void (R6);
- never win a trick that already holds clubs when it can duck; the last seat is the
  safe seat: from there it takes a clean trick cheaply;
- lead long suits: a master (a card nothing unseen outranks) from the longest suit
  when few clubs can land on it, else the long suit from the top; void in the led suit
  without clubs, throw a loser from the shortest suit (making voids);
- count the clubs still out: it judges the chance that a later seat is void and holds a
  club (or holds a picture club the table now allows) before taking a trick;
- attack while someone is locked, and when this hand can reach the target play for the
  finish (R15), taking more risk to win tricks.
"""

from __future__ import annotations

from typing import Any

from ..cards import Card
from ..engine import SeatView
from .base import Bot
from .kernel import check_policy, kernel, view_state


class NormalBot(Bot):
    """The rule-based player described in the module; deterministic, no search.

    Option: ``risk`` (0..1, default 0.6), the chance of a club landing on a trick it is
    willing to take when it could hold back; it grows by 0.15 while another seat is
    locked and by 0.2 when this hand can reach the target. ``seed`` is accepted for the
    common interface; the bot uses no randomness.
    """

    name = "normal"

    def __init__(self, seed: int | None = None, *, risk: float = 0.6) -> None:
        if isinstance(risk, bool) or not isinstance(risk, int | float) or not 0 <= risk <= 1:
            raise ValueError(f"risk must be between 0 and 1, not {risk!r}")
        self.policy = check_policy({"risk": round(risk * 1000)})
        self._km = kernel(False)  # one decision: plain Python is fast enough

    def choose(self, view: SeatView) -> Card:
        """The card the rules pick (see the module's description)."""
        legal = view.legal_mask
        if legal & (legal - 1) == 0:
            return (legal & -legal).bit_length() - 1
        st: Any = view_state(view, self._km, self.policy)
        return int(self._km.policy(st))
