"""The arena: bots play each other over duplicate deals (``lockup arena``, docs/arena.md).

- :mod:`lockup.arena.runner`: duplicate sets on every core, :func:`run_arena`.
- :mod:`lockup.arena.stats`: means and Student-t 95% intervals over duplicate sets.
- :mod:`lockup.arena.specs`: bot specs (``expert:iterations=200``, ``cmd:...``).
- :mod:`lockup.arena.external`: outside programs over ``lockup-bot/2`` (or ``/1``; docs/bot-protocol.md).
- :mod:`lockup.arena.ismcts`: OpenSpiel's ISMCTSBot as a seat (needs ``open-spiel``).
- :mod:`lockup.arena.pimc`, :mod:`lockup.arena.pimc_plus`, :mod:`lockup.arena.pimc_greedy`,
  :mod:`lockup.arena.learned`: sparring partners for the expert (``pimc``, ``pimc+``,
  ``pimc-greedy``, ``learned``).
- :mod:`lockup.arena.population`: one candidate against each of a population
  (``lockup arena --population``).
- :mod:`lockup.arena.cli`: the ``lockup arena`` command.
"""

from .external import BotFault, ExternalBot
from .runner import ArenaConfig, ArenaError, run_arena
from .specs import BotSpec, SpecError, parse_spec

__all__ = [
    "ArenaConfig",
    "ArenaError",
    "BotFault",
    "BotSpec",
    "ExternalBot",
    "SpecError",
    "parse_spec",
    "run_arena",
]
