"""An arena seat for OpenSpiel's ``ISMCTSBot`` playing Lockup (bot spec ``openspiel-ismcts``).

At each of its turns the seat rebuilds an OpenSpiel state agreeing with its
:class:`~lockup.engine.SeatView` (:func:`lockup.openspiel_game.state_from_view`) and asks
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (OpenSpiel's search code, unchanged)
for a card. Leaves are valued by random rollouts to the end of the hand. The search values a card by the tricks its seat takes in the
rest of the hand (the adapter's returns). Budget: ``iterations`` simulations per move
(deterministic with a seed) or ``time_limit`` seconds per move.

It needs ``open-spiel`` (``pip install 'lockup[bench]'``).
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from .. import openspiel_game
from ..bots.base import Bot
from ..cards import Card, cards_of
from ..engine import DISCARD, PLAY, Game, Rules, SeatView

DEFAULT_ITERATIONS = 200
"""Simulations per move when neither ``iterations`` nor ``time_limit`` is given."""


class _TimeUp(Exception):
    pass


class _BudgetedISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTSBot, stopped by a clock as well as by its simulation count."""

    def __init__(self, *args: Any, time_limit: float | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.time_limit = time_limit
        self.deadline = float("inf")
        self.simulations = 0
        self.started: float | None = None
        """When the move's clock started (default: when the search starts)."""

    def sample_root_state(self, state: Any) -> Any:
        # Called once per simulation; two simulations give the root visited children.
        if self.simulations >= 2 and time.perf_counter() >= self.deadline:
            raise _TimeUp
        self.simulations += 1
        return super().sample_root_state(state)

    def run_search(self, state: Any) -> Any:
        self.simulations = 0
        start = time.perf_counter() if self.started is None else self.started
        self.deadline = float("inf") if self.time_limit is None else start + self.time_limit
        try:
            return super().run_search(state)
        except _TimeUp:
            return self.get_final_policy(state, self._root_node)


class LockupRolloutEvaluator(mcts.Evaluator):
    """Random rollouts, as OpenSpiel's ``RandomRolloutEvaluator`` does them (uniform legal
    cards, uniform lockup discards, to the end of the hand), run on the engine directly
    instead of through pyspiel calls: the same values, several times faster."""

    def __init__(self, n_rollouts: int, rng: random.Random) -> None:
        self.n_rollouts = n_rollouts
        self.rng = rng

    def evaluate(self, state: Any) -> np.ndarray:
        """The mean tricks per seat over ``n_rollouts`` random ends of the hand."""
        total = np.zeros(4)
        base = state.lockup_game
        for _ in range(self.n_rollouts):
            g = base.clone()
            _random_end(g, self.rng)
            total += g.points
        return total / self.n_rollouts

    def prior(self, state: Any) -> list[tuple[int, float]]:
        """Equal probability for every legal card (chance outcomes at a chance node)."""
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


def _random_end(g: Game, rng: random.Random) -> None:
    """Play the hand of ``g`` to its end with random legal cards and random discards."""
    playout = getattr(g, "playout", None)
    if playout is not None:
        playout(rng)
        return
    while g.phase in (PLAY, DISCARD):  # pragma: no cover - engines without playout()
        if g.phase == DISCARD:
            g.chance_move(rng)
        else:
            legal = cards_of(g.legal_mask())
            g.play(legal[rng.randrange(len(legal))])


class OpenSpielISMCTSBot(Bot):
    """OpenSpiel's ISMCTSBot as a Lockup bot.

    Options: ``iterations`` (simulations per move), ``time_limit`` (seconds per move; alias
    ``time``), ``uct_c`` (exploration constant, in tricks; default 3), ``rollouts`` (random
    rollouts per leaf, default 1), ``max_world_samples`` (-1: a new deal every simulation),
    ``evaluator`` (``engine``, the default: random rollouts run on the engine directly;
    ``openspiel``: OpenSpiel's own ``RandomRolloutEvaluator``, the same rollouts through
    pyspiel calls, several times slower), ``seed``. With ``iterations`` and a seed it is
    deterministic.
    """

    name = "openspiel-ismcts"

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int | None = None,
        time_limit: float | None = None,
        time: float | None = None,
        uct_c: float = 3.0,
        rollouts: int = 1,
        max_world_samples: int = -1,
        evaluator: str = "engine",
    ) -> None:
        if time_limit is None:
            time_limit = time
        if iterations is None and time_limit is None:
            iterations = DEFAULT_ITERATIONS
        if iterations is not None and (isinstance(iterations, bool) or int(iterations) < 1):
            raise ValueError(f"iterations must be a positive whole number, not {iterations!r}")
        if time_limit is not None and not float(time_limit) > 0:
            raise ValueError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
        if int(rollouts) < 1:
            raise ValueError(f"rollouts must be at least 1, not {rollouts!r}")
        if evaluator not in ("engine", "openspiel"):
            raise ValueError(f"evaluator must be engine or openspiel, not {evaluator!r}")
        self.iterations = None if iterations is None else int(iterations)
        self.time_limit = None if time_limit is None else float(time_limit)
        self.uct_c = float(uct_c)
        self.rollouts = int(rollouts)
        self.max_world_samples = int(max_world_samples)
        self.evaluator = evaluator
        self.rng = random.Random(seed)
        self.np_rng = np.random.RandomState(self.rng.randrange(1 << 32))
        self._games: dict[Rules, Any] = {}

    def _bot(self, game: Any) -> _BudgetedISMCTS:
        evaluator: Any
        if self.evaluator == "openspiel":
            evaluator = mcts.RandomRolloutEvaluator(
                n_rollouts=self.rollouts, random_state=self.np_rng
            )
        else:
            evaluator = LockupRolloutEvaluator(self.rollouts, self.rng)
        bot = _BudgetedISMCTS(
            game,
            evaluator,
            self.uct_c,
            max_simulations=self.iterations if self.iterations is not None else 1 << 30,
            max_world_samples=self.max_world_samples,
            random_state=self.np_rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            time_limit=self.time_limit,
        )
        # Resample with this bot's generator, so a seed makes the bot deterministic.
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, self.rng))
        return bot

    def choose(self, view: SeatView) -> Card:
        """The card ISMCTSBot picks for this view (the clock runs from this call)."""
        started = time.perf_counter()
        legal = cards_of(view.legal_mask)
        if len(legal) == 1:
            return legal[0]
        game = self._games.get(view.rules)
        if game is None:
            game = self._games[view.rules] = openspiel_game.load(view.rules)
        state = openspiel_game.state_from_view(view, self.rng, game)
        bot = self._bot(game)
        bot.started = started
        action = int(bot.step(state))
        if action not in legal:  # pragma: no cover - ISMCTS only picks legal actions
            raise RuntimeError(f"ISMCTSBot chose {action}, which is not legal")
        return action
