"""What would knowing every hand be worth? Two cheating bots for the arena (issue 13).

Run: ``python bench/oracle.py ARENA-OPTIONS``, for example::

    python bench/oracle.py --bots ogreedy,pimc,pimc,pimc --time-per-move 0.05 --hands 300 --seed 1

``ARENA-OPTIONS`` are those of ``lockup arena``; two more bot names are known here:

- ``ogreedy``: the arena's ``pimc`` given the true deal instead of sampled ones: every
  legal card played out again and again in the real position by ``pimc``'s own greedy
  playouts (the lockup discards still drawn at random);
- ``oracle``: the expert's kernel on the true deal: every legal card rolled out by the
  expert's rollout policy with the last four tricks solved, as many times as the budget
  allows. ``BOLD=1`` in the environment rolls the other seats out by the expert's bolder
  settings too (as ``adapt`` does for seats the ``normal`` rules fail to explain);
- ``otree``: the expert's tree search (``tree=8``) on the true deal, every descent of it:
  a perfect-information Monte Carlo tree search with the expert's rollouts;
- ``xoracle``: the expert as it plays now (every option of :class:`ExpertBot`, its
  judgement of each seat's style and its memory of it), searching the true deal
  instead of sampled ones: what perfect inference of the hidden hands would give the
  expert's own search (issue 24).

They all cheat (they read the other hands from the game the arena plays), so they exist only
here, for the experiment: if a search that *knows* the deal is no better than one that
samples it uniformly, the deal sampling and the inference from the others' plays are
not where strength is lost. docs/bots.md ("Strength") quotes the runs.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lockup import engine  # noqa: E402
from lockup.arena import pimc  # noqa: E402
from lockup.bots import registry  # noqa: E402
from lockup.bots.expert import ExpertBot  # noqa: E402
from lockup.bots.kernel import Position, SearchResult, _spend  # noqa: E402
from lockup.cards import Card  # noqa: E402
from lockup.engine import SeatView  # noqa: E402

_game: list[Any] = [None]
"""The game whose view was asked for last: the arena asks for the view of the seat to
play just before it asks that seat's bot (one game at a time in each worker)."""

_view = engine.Game.view


def _spying_view(self: engine.Game, seat: int) -> SeatView:
    _game[0] = self
    return _view(self, seat)


engine.Game.view = _spying_view  # type: ignore[method-assign]

_true_hidden: list[list[int] | None] = [None]
_sample = pimc.DealSampler.sample


def _true_or_sampled(self: pimc.DealSampler, rnd: random.Random) -> list[int]:
    got = _true_hidden[0]
    return list(got) if got is not None else _sample(self, rnd)


pimc.DealSampler.sample = _true_or_sampled  # type: ignore[method-assign]


class GreedyOracle(pimc.PlainPIMCBot):
    """``pimc`` playing out the true deal instead of sampled ones."""

    name = "ogreedy"

    def choose(self, view: SeatView) -> Card:
        game = _game[0]
        _true_hidden[0] = [game.hands[s] for s in range(4) if s != view.seat]
        try:
            return super().choose(view)
        finally:
            _true_hidden[0] = None


def _forced(view: SeatView) -> Card | None:
    """The only legal card, if there is one choice only."""
    legal = view.legal_mask
    return (legal & -legal).bit_length() - 1 if legal & (legal - 1) == 0 else None


def _position(bot: ExpertBot, view: SeatView, tree: int = 0) -> tuple[Position, list[int]]:
    """The expert's search set up for ``view``, and a copy of its state with the other
    seats' true hands in it."""
    pos = Position(
        view,
        seed=bot.rng.getrandbits(32),
        wgame=bot.wgame,
        policy=bot.policy,
        solve=bot.solve,
        smode=bot.smode,
        merge=True,
        tree=tree,
        cexp=bot.cexp,
        learn=bot.learn,
    )
    state = [int(x) for x in pos.base]
    for s in range(4):
        if s != view.seat:
            state[pos.km.I_HAND + s] = _game[0].hands[s]
    return pos, state


class KernelOracle(ExpertBot):
    """The expert's rollouts and endgame solver on the true deal."""

    name = "oracle"

    def choose(self, view: SeatView) -> Card:
        forced = _forced(view)
        if forced is not None:
            return forced
        start = time.perf_counter()
        pos, state = _position(self, view)
        km = pos.km
        base = pos.base.copy()
        base[:] = state
        if os.environ.get("BOLD") == "1":
            base[km.I_BOLD] = 15 & ~(1 << view.seat)
        w = pos.work[1]
        totals = [0.0] * len(pos.cards)
        limit = self.time_limit or 0.05
        for _ in range(2000):
            for j, c in enumerate(pos.cards):
                w[:] = base
                w[km.I_RNG] = self.rng.getrandbits(31) | 1
                km.play(w, c)
                totals[j] += km.finish(w, pos.work[4:], pos.tables)
            if time.perf_counter() - start > limit * 0.9:
                break
        return pos.cards[max(range(len(totals)), key=totals.__getitem__)]


class TreeOracle(ExpertBot):
    """The expert's tree search (``tree=8``) on the true deal: a perfect-information
    Monte Carlo tree search with the expert's rollouts."""

    name = "otree"

    def choose(self, view: SeatView) -> Card:
        forced = _forced(view)
        if forced is not None:
            return forced
        start = time.perf_counter()
        pos, state = _position(self, view, tree=8)
        km = pos.km
        pos.work[3][:] = state
        # The deal is the chain's, never restarted nor moved (see _kernel._deal).
        pos.base[km.I_MC_RESTART] = 1 << 40
        pos.base[km.I_ITER] = 1
        pos.base[km.I_MC_STEPS] = 0
        pos.tables = pos.tables._replace(use_chain=1)
        limit = self.time_limit or 0.05
        while time.perf_counter() - start < limit * 0.9:
            pos.run(4)
        return pos.result().best()


class ExpertOracle(ExpertBot):
    """The expert's own search, every option as it plays, on the true deal: each "sampled"
    deal is the real one (only the lockup discards still differ from rollout to rollout)."""

    name = "xoracle"

    def choose(self, view: SeatView) -> Card:
        forced = _forced(view)
        if forced is not None:
            self.last = None
            return forced
        start = time.perf_counter()
        opts = self.search_options()
        for key in ("iterations", "time_limit", "min_iterations", "narrow", "narrow_share"):
            opts.pop(key)

        def on_true_deal(prior: list[tuple[int, int]] | None) -> SearchResult:
            pos = Position(view, seed=self.rng.getrandbits(32), prior=prior, **opts)
            km = pos.km
            chain = pos.work[3]
            chain[:] = pos.base
            for s in range(4):
                if s != view.seat:
                    chain[km.I_HAND + s] = _game[0].hands[s]
            # The deal is the chain's, never restarted nor moved (see _kernel._deal).
            pos.base[km.I_MC_RESTART] = 1 << 40
            pos.base[km.I_ITER] = 1
            pos.base[km.I_MC_STEPS] = 0
            pos.tables = pos.tables._replace(use_chain=1)
            deadline = start + self.time_limit if self.time_limit else None
            _spend(pos, start, deadline, self.iterations, 8)
            return pos.result(time.perf_counter() - start)

        return self.play_searched(view, on_true_deal)


registry.LEVELS["xoracle"] = ExpertOracle
registry.LEVELS["ogreedy"] = GreedyOracle
registry.LEVELS["otree"] = TreeOracle
registry.LEVELS["oracle"] = KernelOracle

if __name__ == "__main__":
    from lockup.cli import main

    sys.exit(main(["arena", *sys.argv[1:]]))
