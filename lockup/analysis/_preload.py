"""Imported once by the fork server of :func:`lockup.analysis.analyse`'s worker processes.

It loads the search kernel (numba's compiled code, from its cache) and runs one tiny
decision, so that every worker forked from the server starts with all of it loaded
instead of spending a second or more loading it itself.
"""

from __future__ import annotations

import random

from ..engine import Game
from . import hindsight_values, search_values


def warm() -> None:
    """Run one decision with a tiny budget: every kernel function the analysis calls."""
    game = Game.new(random.Random(0), record=False)
    view = game.view(game.turn)
    search_values(view, seed=1, iterations=2)
    hindsight_values(view, game.hands, seed=1, rollouts=1)


warm()
