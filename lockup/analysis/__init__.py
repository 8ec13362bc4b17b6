"""Post-game analysis: the expert's judgement of every card one seat played (docs/analysis.md).

:func:`analyse` replays a ``lockup-record/1`` record (or a :class:`~lockup.engine.Game`
that keeps its log) through the engine and, at every card the chosen seat played, asks
the expert's search (:mod:`lockup.bots.kernel`) for the value of each legal card, from
the seat's :class:`~lockup.engine.SeatView` only: deals of the cards the seat had not
seen are sampled among those consistent with its view, never the true deal. Per card:

- ``values``: the expected tricks the seat ends the hand with (those already won
  included) had it played that card, exactly as :func:`lockup.bots.expert.hint` reckons
  it (the game term left out);
- ``win_chance``: where the game is at stake for the seat (it could still reach the
  target by the end of this hand, R15), the share of the same sampled deals in which the
  hand ends the game with the seat as its winner; None otherwise.

The best card is the one of highest value, the loss the value given up by the card
played, and a mark (:data:`MARKS`) flags a loss that matters. Beside it, labelled
``hindsight``: the same values with every hand known (the true deal, rolled out by the
same policy), which no player could have known.

Decisions are independent given the view, so they are spread over processes. With an
iteration budget (the default, :data:`DEFAULT_ITERATIONS`) the result depends only on the
record, the seat and ``seed``, whatever the number of workers; a time budget
(``time_per_move``) makes it depend on the machine.
"""

from __future__ import annotations

import concurrent.futures
import math
import multiprocessing
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cards import Card, card_str, cards_of
from ..engine import Game, SeatView
from ..record import RecordError, parse_record, replay_steps, to_record

DEFAULT_ITERATIONS = 2000
"""Sampled deals per decision by default: as many as the expert's own default budget."""

HINDSIGHT_ROLLOUTS = 32
"""Rollouts per card of the hindsight value (only lockup discards, R10, are random once
every hand is known)."""

MARKS: tuple[tuple[str, float], ...] = (
    ("blunder", 1.0),
    ("mistake", 0.6),
    ("inaccuracy", 0.3),
)
"""A decision's mark: the first whose threshold its loss (in tricks) reaches; forced
cards are never marked."""

ACCURACY_SCALE = 0.5
"""Accuracy of one decision: ``100 * exp(-loss / ACCURACY_SCALE)`` (loss in tricks)."""

DECISIONS_PER_WORKER = 8
"""By default, a worker process for every this many decisions at most (up to the CPUs)."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``: decisions analysed so far, out of all."""


def mark_of(loss: float, forced: bool = False) -> str | None:
    """The mark of a decision that gave up ``loss`` tricks (None: no mark)."""
    if forced:
        return None
    for name, threshold in MARKS:
        if loss >= threshold:
            return name
    return None


def accuracy_of(losses: Sequence[float]) -> float | None:
    """100 times the mean of ``exp(-loss / ACCURACY_SCALE)`` over unforced decisions'
    losses, to one decimal; None when there are none."""
    if not losses:
        return None
    return round(100.0 * sum(math.exp(-x / ACCURACY_SCALE) for x in losses) / len(losses), 1)


# ---------------------------------------------------------------------- results


def _cards_json(values: dict[Card, float] | None) -> dict[str, float] | None:
    if values is None:
        return None
    return {card_str(c): v for c, v in sorted(values.items())}


@dataclass
class Hindsight:
    """A decision judged with every hand known (the true deal): what no seat could know."""

    values: dict[Card, float]
    """Mean tricks the seat ends the hand with, per legal card, on the true deal."""
    win_chance: dict[Card, float] | None
    """Per legal card, the share of rollouts in which the hand ends the game with the seat
    as its winner (where the game is at stake, else None)."""
    best: Card
    loss: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": "hindsight: every hand known",
            "values": _cards_json(self.values),
            "win_chance": _cards_json(self.win_chance),
            "best": card_str(self.best),
            "loss": self.loss,
        }


@dataclass
class Decision:
    """One card the seat played, as the expert judged it from the seat's view."""

    hand: int
    """The hand (0 for the first, as in the record's ``hands``)."""
    trick: int
    """The trick of the hand, 0 to 12."""
    event: int
    """The play's index in the record's ``hands[hand].events``."""
    played: Card
    best: Card
    """The card of highest value (the card played when it is as good)."""
    values: dict[Card, float]
    """Expected tricks this hand, per legal card (from the seat's view only)."""
    win_chance: dict[Card, float] | None
    """Per legal card, the chance that this hand ends the game with the seat as its
    winner, where the game is at stake for the seat (else None)."""
    loss: float
    """Value of the best card minus that of the card played (>= 0; 0 when forced)."""
    forced: bool
    """Only one card was legal."""
    mark: str | None
    """``inaccuracy``, ``mistake``, ``blunder`` (see :data:`MARKS`) or None."""
    hindsight: Hindsight
    iterations: int
    """Deals sampled for this decision."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "trick": self.trick,
            "event": self.event,
            "played": card_str(self.played),
            "best": card_str(self.best),
            "values": _cards_json(self.values),
            "win_chance": _cards_json(self.win_chance),
            "loss": self.loss,
            "forced": self.forced,
            "mark": self.mark,
            "iterations": self.iterations,
            "hindsight": self.hindsight.to_dict(),
        }


@dataclass
class HandAccuracy:
    """One hand's figures: the seat's decisions in it and how well they went."""

    hand: int
    decisions: int
    unforced: int
    accuracy: float | None
    loss: float
    """Sum of the losses of the hand's decisions (tricks)."""
    marks: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "decisions": self.decisions,
            "unforced": self.unforced,
            "accuracy": self.accuracy,
            "loss": self.loss,
            "marks": dict(self.marks),
        }


@dataclass
class Analysis:
    """What :func:`analyse` found; :meth:`to_dict` is the JSON of ``lockup analyse``."""

    seat: int
    player: str
    iterations: int | None
    time_per_move: float | None
    seed: int
    decisions: list[Decision]
    hands: list[HandAccuracy]
    accuracy: float | None
    """Over every unforced decision of the game (:func:`accuracy_of`)."""
    marks: dict[str, int]
    seconds: float = field(default=0.0, compare=False)
    """Wall-clock time the analysis took (not in :meth:`to_dict`: it is not deterministic)."""
    workers: int = field(default=1, compare=False)

    @property
    def deterministic(self) -> bool:
        """Whether the same record, seat and seed always give the same result."""
        return self.time_per_move is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "lockup-analysis/1",
            "seat": self.seat,
            "player": self.player,
            "budget": {
                "iterations": self.iterations,
                "time_per_move": self.time_per_move,
                "seed": self.seed,
                "deterministic": self.deterministic,
                "hindsight_rollouts": HINDSIGHT_ROLLOUTS,
            },
            "thresholds": {name: t for name, t in MARKS},
            "decisions": [d.to_dict() for d in self.decisions],
            "hands": [h.to_dict() for h in self.hands],
            "accuracy": self.accuracy,
            "marks": dict(self.marks),
        }


# ---------------------------------------------------------------------- the search


def at_stake(view: SeatView) -> bool:
    """Whether this hand may end the game with the view's seat as winner (R15): its total,
    its tricks so far and every trick left could reach the target."""
    s = view.seat
    return view.totals[s] + view.points[s] + 13 - view.trick_number >= view.rules.target


def _best(values: dict[Card, float], played: Card) -> tuple[Card, float]:
    """The best card (the one played when it is as good, else the lowest of the best) and
    the loss of the card played."""
    top = max(values.values())
    if values[played] >= top:
        return played, 0.0
    best = min(c for c, v in values.items() if v >= top)
    return best, round(top - values[played], 4)


def search_values(
    view: SeatView,
    *,
    seed: int,
    iterations: int | None = DEFAULT_ITERATIONS,
    time_limit: float | None = None,
) -> tuple[dict[Card, float], dict[Card, float] | None, int]:
    """The expert's value of each legal card of ``view`` (expected tricks this hand), the
    win chance per card where :func:`at_stake` (else None), and the deals sampled.

    Uses the view only: the deals are sampled by the expert's search
    (:class:`lockup.bots.kernel.Position`, with :func:`~lockup.bots.expert.hint`'s
    settings). The trick values are those ``hint`` gives for the same kernel seed. For
    the win chance the search runs with a game term that is 1 exactly when the seat ends
    the hand as sole leader (the kernel's target set to 0), read deal by deal, and counts
    the deals in which that leader's total also reaches the real target.
    """
    from ..bots.expert import DEFAULT_LAM
    from ..bots.kernel import Position

    if iterations is None and time_limit is None:
        raise ValueError("give iterations or time_limit")
    start = time.perf_counter()
    stake = at_stake(view)
    pos = Position(view, seed=seed, wgame=1.0 if stake else 0.0, lam=DEFAULT_LAM)
    n = len(pos.cards)
    wins = [0] * n
    me = view.seat
    target = view.rules.target
    if stake:
        # the game term: 1 when sole leader, 0 behind, 0.5 tied (R15)
        pos.tables = pos.tables._replace(target=0)

    def run(k: int) -> None:
        if not stake:
            pos.run(k)
            return
        vs, ts = pos.tables.value, pos.tables.tricks
        for _ in range(k):
            v0 = [float(x) for x in vs]
            t0 = [float(x) for x in ts]
            pos.run(1)
            for j in range(n):
                pts = float(ts[j]) - t0[j]
                game = float(vs[j]) - v0[j] - pts
                if game > 0.75 and view.totals[me] + pts >= target:
                    wins[j] += 1

    if time_limit is None:
        assert iterations is not None
        run(iterations)
    else:
        cap = iterations if iterations is not None else 1 << 40
        deadline = start + time_limit
        run(min(8, cap))
        while pos.iterations < cap:
            now = time.perf_counter()
            if now >= deadline - 0.001:
                break
            rate = pos.iterations / max(now - start, 1e-6)
            step = max(1, min(int(rate * (deadline - now) * 0.25), cap - pos.iterations))
            run(step)
    res = pos.result()
    values = {c: round(t, 4) for c, t in zip(res.cards, res.tricks, strict=True)}
    win = None
    if stake:
        win = {
            c: round(w / max(pos.iterations, 1), 4) for c, w in zip(res.cards, wins, strict=True)
        }
    return values, win, pos.iterations


def hindsight_values(
    view: SeatView, hands: Sequence[int], *, seed: int, rollouts: int = HINDSIGHT_ROLLOUTS
) -> tuple[dict[Card, float], dict[Card, float] | None]:
    """The value (and win chance, where :func:`at_stake`) of each legal card of ``view``
    with every hand known: ``hands`` are the true hands (masks, by seat). Each card is
    played on the true deal and the hand rolled out ``rollouts`` times by the search's
    own policy; only lockup discards (R10) differ between rollouts."""
    from ..bots.kernel import check_policy, kernel, to_array, view_state

    km = kernel()
    me = view.seat
    if hands[me] != view.hand_mask:
        raise ValueError("hands[seat] must be the seat's own hand")
    st = view_state(view, km, check_policy({}), seed=seed)
    for s in range(4):
        st[km.I_HAND + s] = hands[s]
    base = to_array(km, st)
    cards = cards_of(view.legal_mask)
    stake = at_stake(view)
    target = view.rules.target
    rng = random.Random(seed)
    tricks = [0] * len(cards)
    wins = [0] * len(cards)
    for _ in range(rollouts):
        roll = rng.getrandbits(32) | 1
        for j, c in enumerate(cards):
            w = base.copy()
            w[km.I_RNG] = roll
            km.play(w, c)
            km.rollout(w)
            pts = [int(w[km.I_PTS + i]) for i in range(4)]
            tricks[j] += pts[me]
            final = [view.totals[i] + pts[i] for i in range(4)]
            top = max(final)
            if final[me] == top >= target and final.count(top) == 1:
                wins[j] += 1
    values = {c: round(t / rollouts, 4) for c, t in zip(cards, tricks, strict=True)}
    win = {c: round(x / rollouts, 4) for c, x in zip(cards, wins, strict=True)} if stake else None
    return values, win


# ---------------------------------------------------------------------- one decision


@dataclass(frozen=True)
class _Task:
    """One decision to analyse, picklable for a worker process."""

    hand: int
    trick: int
    event: int
    played: Card
    view: SeatView
    true_hands: tuple[int, ...]
    """For the hindsight value only; the search never sees them."""
    seed: int
    iterations: int | None
    time_limit: float | None


def _analyse_one(task: _Task) -> Decision:
    view = task.view
    forced = view.legal_mask & (view.legal_mask - 1) == 0
    values, win, done = search_values(
        view, seed=task.seed, iterations=task.iterations, time_limit=task.time_limit
    )
    h_values, h_win = hindsight_values(view, task.true_hands, seed=task.seed)
    best, loss = _best(values, task.played)
    h_best, h_loss = _best(h_values, task.played)
    if forced:
        loss = h_loss = 0.0
    return Decision(
        hand=task.hand,
        trick=task.trick,
        event=task.event,
        played=task.played,
        best=best,
        values=values,
        win_chance=win,
        loss=loss,
        forced=forced,
        mark=mark_of(loss, forced),
        hindsight=Hindsight(h_values, h_win, h_best, h_loss),
        iterations=done,
    )


def decision_seed(seed: int, hand: int, event: int) -> int:
    """The search seed of the decision at ``hands[hand].events[event]``: a function of
    the analysis seed and the decision's place only, never of any card."""
    return random.Random(f"lockup-analysis/{seed}/{hand}/{event}").getrandbits(32)


def _tasks(
    data: Any, seat: int, seed: int, iterations: int | None, time_limit: float | None
) -> tuple[list[_Task], list[str]]:
    """The seat's decisions in a record, and the record's player names."""
    parsed = parse_record(data)
    game = Game(parsed.rules, parsed.hands[0].dealer if parsed.hands else 0, record=False)
    tasks = []
    for step in replay_steps(parsed, game):  # raises IllegalRecord for a broken rule
        if step.kind == "play" and step.seat == seat:
            tasks.append(
                _Task(
                    hand=step.hand,
                    trick=game.trick_number,
                    event=step.event,
                    played=step.card,
                    view=game.view(seat),
                    true_hands=tuple(game.hands),
                    seed=decision_seed(seed, step.hand, step.event),
                    iterations=iterations,
                    time_limit=time_limit,
                )
            )
    return tasks, parsed.players


# ---------------------------------------------------------------------- the game


def analyse(
    record_or_game: Any,
    seat: int,
    *,
    time_per_move: float | None = None,
    iterations: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: Progress | None = None,
    executor: concurrent.futures.Executor | None = None,
) -> Analysis:
    """Analyse every card ``seat`` played in a game (see the module's description).

    ``record_or_game``: a ``lockup-record/1`` record (the decoded dict, JSON text or
    bytes) or a :class:`~lockup.engine.Game` created with ``record=True``. Budget per
    decision: ``iterations`` sampled deals (default :data:`DEFAULT_ITERATIONS` when no
    ``time_per_move`` is given), or ``time_per_move`` seconds, or whichever ends first.
    ``workers`` processes (default: the number of CPUs, but no more than one per
    :data:`DECISIONS_PER_WORKER` decisions; 1 runs in this process) analyse decisions at
    once, forked from a fork server that has loaded the search kernel (:func:`_context`);
    the result does not depend on their number. ``executor``: an executor of the caller's
    to run the decisions in instead (a server's own low-priority worker process, so that
    no search ever runs in its event loop's process); ``workers`` is then ignored.
    ``progress(done, total)`` is called as each decision is done. Raises
    :class:`~lockup.record.RecordError` for what is not a record,
    :class:`~lockup.record.IllegalRecord` for one that breaks a rule, and
    :class:`ValueError` for a bad seat or budget.
    """
    start = time.perf_counter()
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
        raise ValueError(f"seat must be 0..3, not {seat!r}")
    if iterations is not None and (
        isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1
    ):
        raise ValueError(f"iterations must be a whole number of at least 1, not {iterations!r}")
    if time_per_move is not None and (
        isinstance(time_per_move, bool)
        or not isinstance(time_per_move, int | float)
        or not 0 < time_per_move <= 60
    ):
        raise ValueError(f"time_per_move must be seconds in (0, 60], not {time_per_move!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)):
        raise ValueError(f"workers must be a whole number, not {workers!r}")
    if iterations is None and time_per_move is None:
        iterations = DEFAULT_ITERATIONS
    if isinstance(record_or_game, Game):
        try:
            record_or_game = to_record(record_or_game)
        except ValueError as e:
            raise RecordError(str(e)) from None
    tasks, players = _tasks(record_or_game, seat, seed, iterations, time_per_move)
    total = len(tasks)
    if workers is None:
        workers = min(os.cpu_count() or 1, -(-total // DECISIONS_PER_WORKER))
    n_workers = max(1, min(workers, total))
    results: list[Decision | None] = [None] * total
    if progress is not None:
        progress(0, total)
    if executor is not None:
        _run_on(executor, tasks, results, progress)
    elif n_workers == 1:
        for i, task in enumerate(tasks):
            results[i] = _analyse_one(task)
            if progress is not None:
                progress(i + 1, total)
    else:
        with concurrent.futures.ProcessPoolExecutor(n_workers, mp_context=_context()) as pool:
            _run_on(pool, tasks, results, progress)
    decisions = [d for d in results if d is not None]
    return _summarise(
        seat, players[seat], iterations, time_per_move, seed, decisions, n_workers, start
    )


def _context() -> Any:
    """The workers' start method: ``forkserver`` where there is one (workers forked from a
    fresh single-threaded server that has loaded the search kernel once, see
    :mod:`lockup.analysis._preload`; safe in a threaded caller such as a web server),
    else ``spawn`` (each worker loads the kernel itself)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")  # pragma: no cover - not POSIX
    ctx = multiprocessing.get_context("forkserver")
    # Ignored when this process's fork server is already running (it then has the
    # kernel loaded from an earlier analysis, or its workers load it themselves).
    ctx.set_forkserver_preload([__name__ + "._preload"])
    return ctx


def _run_on(
    pool: concurrent.futures.Executor,
    tasks: list[_Task],
    results: list[Decision | None],
    progress: Progress | None,
) -> None:
    futures = {pool.submit(_analyse_one, t): i for i, t in enumerate(tasks)}
    try:
        for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            results[futures[fut]] = fut.result()
            if progress is not None:
                progress(done, len(tasks))
    except BaseException:
        for fut in futures:
            fut.cancel()
        raise


def _count_marks(decisions: Sequence[Decision]) -> dict[str, int]:
    out = {name: 0 for name, _ in MARKS}
    for d in decisions:
        if d.mark is not None:
            out[d.mark] += 1
    return out


def _summarise(
    seat: int,
    player: str,
    iterations: int | None,
    time_per_move: float | None,
    seed: int,
    decisions: list[Decision],
    workers: int,
    start: float,
) -> Analysis:
    hands = []
    for h in sorted({d.hand for d in decisions}):
        ds = [d for d in decisions if d.hand == h]
        unforced = [d.loss for d in ds if not d.forced]
        hands.append(
            HandAccuracy(
                hand=h,
                decisions=len(ds),
                unforced=len(unforced),
                accuracy=accuracy_of(unforced),
                loss=round(sum(d.loss for d in ds), 4),
                marks=_count_marks(ds),
            )
        )
    return Analysis(
        seat=seat,
        player=player,
        iterations=iterations,
        time_per_move=time_per_move,
        seed=seed,
        decisions=decisions,
        hands=hands,
        accuracy=accuracy_of([d.loss for d in decisions if not d.forced]),
        marks=_count_marks(decisions),
        seconds=time.perf_counter() - start,
        workers=workers,
    )


__all__ = [
    "ACCURACY_SCALE",
    "DECISIONS_PER_WORKER",
    "DEFAULT_ITERATIONS",
    "HINDSIGHT_ROLLOUTS",
    "MARKS",
    "Analysis",
    "Decision",
    "HandAccuracy",
    "Hindsight",
    "accuracy_of",
    "analyse",
    "at_stake",
    "decision_seed",
    "hindsight_values",
    "mark_of",
    "search_values",
]
