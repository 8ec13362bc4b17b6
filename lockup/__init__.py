"""Lockup, the four-player trick-taking game where clubs lock you up.

Layers, each depending only on those before it: :mod:`lockup.cards`,
:mod:`lockup.engine` (the rules, docs/rules.md R1 to R16), :mod:`lockup.record`
(``lockup-record/1``), :mod:`lockup.bots`, :mod:`lockup.arena`; the server
(:mod:`lockup.server`) and the front ends sit on top.
"""

from ._accel import load_engine

load_engine()  # the compiled engine where it is up to date, before anything imports it

from .cards import Card, card_str, card_symbol, parse_card  # noqa: E402
from .engine import Game, IllegalMove, Refusal, Rules, SeatView  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "Card",
    "Game",
    "IllegalMove",
    "Refusal",
    "Rules",
    "SeatView",
    "card_str",
    "card_symbol",
    "parse_card",
    "__version__",
]
