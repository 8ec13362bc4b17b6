"""``learned``: the expert's learned playout policy played alone, as an arena seat.

The policy is the kernel's :func:`lockup.bots._kernel.learned`: a linear score over
features of each legal card that its seat can see (:func:`~lockup.bots._kernel.card_features`),
with the weights ``LEARNED_W`` that ``bench/learned.py`` fitted to the expert's own
choices in self-play (issue 13; docs/bots.md). The expert rolls out by it with
``learn=1``; this seat plays it directly, no search: a fast, fixed opponent. Nothing is
re-implemented here; the bot only hands the kernel its view.
"""

from __future__ import annotations

from ..bots.base import Bot
from ..bots.kernel import ROLLOUT_POLICY, kernel, to_array, view_state
from ..cards import Card
from ..engine import SeatView


class LearnedPolicyBot(Bot):
    """The card of highest score under the learned weights (deterministic; the seed is
    accepted and unused). The plain Python kernel by default (about 0.15 ms a move, no
    compiling); ``jit=True`` the compiled one, which answers the same."""

    name = "learned"

    def __init__(self, seed: int | None = None, *, jit: bool = False) -> None:
        self.km = kernel(jit)

    def choose(self, view: SeatView) -> Card:
        """The learned policy's card for ``view``."""
        legal = view.legal_mask
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        state = to_array(self.km, view_state(view, self.km, ROLLOUT_POLICY))
        return int(self.km.learned(state))
