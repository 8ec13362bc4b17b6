"""The arena runner: duplicate games between four bots, on every core.

A **duplicate set** is one game's sequence of deals played four times, the bots rotated
through the seats: in rotation r, bot entry i sits at seat ``(i + r) % 4``, so each entry
holds every seat's cards once. Everything random is fixed by the set, not by who sits
where: the first dealer, the cards of the k-th hand, and the lockup discards. A discard
(R10) takes, of the locked hand's cards, the one ranked first by a random order of the
52 cards drawn for that hand: that is a uniformly random card of the hand (the bots
never see the order), and the same card whenever the same cards are locked, whoever
holds them. Games are played to the target (R15), so the four games of a set may differ
in length.

Sets are played in order until the sets played hold at least the hands asked for (every
hand of every rotation counts); with an iteration budget the result depends only on the
seed, whatever the number of workers.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import queue
import random
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing import util as mp_util
from pathlib import Path
from typing import Any

from ..bots.base import Bot
from ..cards import Card, card_str, cards_of
from ..engine import DEAL, DISCARD, OVER, PLAY, Game, Rules
from ..record import dumps
from . import stats
from .external import FAULT_KINDS, BotFault, ExternalBot
from .ratings import rate_games
from .specs import BotSpec, build_bot

FORMAT = "lockup-arena/1"
SEED_TAG = "lockup-arena/1"


class ArenaError(Exception):
    """The arena cannot run as asked (a plain reason for the user)."""


@dataclass(frozen=True)
class ArenaConfig:
    """What to play: four bot specs, how many hands, the seed and the rules."""

    specs: tuple[BotSpec, ...]
    hands: int
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    workers: int = 1
    time_per_move: float | None = None
    iterations: int | None = None
    bot_timeout: float = 2.0
    records: str | None = None
    max_fault_lines: int = 10
    """Fault lines printed per bot on stderr; later faults are only counted."""
    ratings: bool = False
    """Rate the bots from the games (``--ratings``): the summary's ``ratings``."""


@dataclass
class GameResult:
    """One game of one set: per bot entry (not per seat) what happened."""

    set_index: int
    rotation: int
    dealer: int
    hands: int
    tricks: list[int]
    totals: list[int]
    winner: int
    faults: list[dict[str, int]]
    random_moves: list[int]
    move_times: list[list[float]]
    fault_lines: list[tuple[int, str]]
    """(entry, line) for each fresh fault, and for lines an outside bot wrote that were
    dropped, for stderr."""
    locks: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    dropped_lines: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    """Lines each outside bot wrote that were not the answer to a turn (never played)."""
    first_fault: list[str] = field(default_factory=lambda: ["", "", "", ""])
    """Each entry's first fresh fault in this game, ``kind: detail`` ('' if none)."""


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from the arena seed and a path (set, hand, purpose...)."""
    text = ":".join([SEED_TAG, str(seed), *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def first_dealer(seed: int, set_index: int) -> int:
    """The first dealer of every game of a set."""
    return random.Random(derive_seed(seed, set_index, "dealer")).randrange(4)


def deal_cards(seed: int, set_index: int, hand: int) -> list[list[Card]]:
    """The cards of a set's ``hand``-th hand (R3): four lists of 13, by seat."""
    deck = list(range(52))
    random.Random(derive_seed(seed, set_index, hand, "deal")).shuffle(deck)
    return [sorted(deck[13 * s : 13 * s + 13]) for s in range(4)]


def discard_order(seed: int, set_index: int, hand: int) -> list[int]:
    """For a set's ``hand``-th hand, each card's place in the random lockup order."""
    order = list(range(52))
    random.Random(derive_seed(seed, set_index, hand, "lockup")).shuffle(order)
    return order


# ---------------------------------------------------------------------- one game


class _Players:
    """The bots of one process: outside programs persist (one per entry), built-in bots
    are made anew, seeded, for every game."""

    def __init__(self, config: ArenaConfig) -> None:
        self.config = config
        self.external: dict[int, ExternalBot] = {}

    def bot(self, entry: int, set_index: int, rotation: int) -> Bot:
        spec = self.config.specs[entry]
        if spec.is_external:
            ext = self.external.get(entry)
            if ext is None:
                ext = self.external[entry] = ExternalBot(
                    spec.command,
                    timeout=self.config.bot_timeout,
                    time_per_move=self.config.time_per_move,
                    label=spec.label(entry),
                )
            return ext
        return build_bot(
            spec,
            seed=derive_seed(self.config.seed, set_index, rotation, entry, "bot"),
            time_per_move=self.config.time_per_move,
            iterations=self.config.iterations,
        )

    def close(self) -> None:
        for ext in self.external.values():
            ext.close()
        self.external.clear()


def play_game(config: ArenaConfig, set_index: int, rotation: int, players: _Players) -> GameResult:
    """Play rotation ``rotation`` of duplicate set ``set_index`` to the game's end."""
    specs = config.specs
    entry_at = [(s - rotation) % 4 for s in range(4)]  # entry i sits at seat (i + r) % 4
    seat_of = [(e + rotation) % 4 for e in range(4)]
    dealer = first_dealer(config.seed, set_index)
    game = Game(config.rules, dealer, record=config.records is not None)
    bots = [players.bot(e, set_index, rotation) for e in range(4)]
    fallback = random.Random(derive_seed(config.seed, set_index, rotation, "fallback"))
    faults = [dict.fromkeys(FAULT_KINDS, 0) for _ in range(4)]
    random_moves = [0, 0, 0, 0]
    times: list[list[float]] = [[], [], [], []]
    lines: list[tuple[int, str]] = []
    first_fault = ["", "", "", ""]
    labels = [specs[entry_at[s]].label(entry_at[s]) for s in range(4)]
    order: list[int] = []
    outside = {e: bot for e, bot in enumerate(bots) if isinstance(bot, ExternalBot)}
    dropped_before = {e: bot.dropped_lines for e, bot in outside.items()}

    def say(e: int, text: str) -> None:
        """A line for stderr about entry ``e`` in this game."""
        game_id = f"{set_index}.{rotation}"
        lines.append((e, f"arena: bot {specs[e].label(e)} ({specs[e].text}), game {game_id}{text}"))

    def count(e: int, fault: BotFault | None, where: str, then: str) -> None:
        """Count a fresh fault of entry ``e`` and say it."""
        if fault is not None and fault.fresh:
            faults[e][fault.kind] += 1
            first_fault[e] = first_fault[e] or f"{fault.kind}: {fault.detail}"
            say(e, f", {where}: {fault.kind}: {fault.detail}; {then}")

    def tell(message: dict[str, Any], where: str) -> None:
        """Send a message to the outside bots; a program failing now is counted."""
        for e, ext in outside.items():
            count(e, ext.notify(message), where, "it plays random cards until the next game")

    for e, ext in outside.items():
        info = {
            "rules": config.rules.to_dict(),
            "players": labels,
            "game": f"{set_index}.{rotation}",
            "seed": derive_seed(config.seed, set_index, rotation, e, "bot"),
        }
        count(
            e,
            ext.begin_game(seat_of[e], info),
            "at the game's start",
            "it plays random cards until the next game",
        )
    summaries_sent = 0
    try:
        while game.phase != OVER:
            phase = game.phase
            if phase == DEAL:
                hand = game.hand_number + 1
                cards = deal_cards(config.seed, set_index, hand)
                order = discard_order(config.seed, set_index, hand)
                game.deal(cards)
            elif phase == DISCARD:
                seat = game.pending[0]
                card = max(cards_of(game.hands[seat]), key=order.__getitem__)
                game.discard(card)
            else:
                assert phase == PLAY
                seat = game.turn
                e = entry_at[seat]
                view = game.view(seat)
                t0 = time.perf_counter()
                fault: BotFault | None = None
                try:
                    card = bots[e].choose(view)
                    if not isinstance(card, int) or not game.is_legal(card, seat):
                        why = game.why_not(card, seat) if isinstance(card, int) else None
                        shown = (
                            card_str(card)
                            if isinstance(card, int) and 0 <= card < 52
                            else repr(card)
                        )
                        reason = f": {why.reason} ({why.rule})" if why else ""
                        fault = BotFault("illegal", f"played {shown}, which it may not{reason}")
                except BotFault as f:
                    fault = f
                    if f.kind == "illegal" and f.card is not None:
                        why = game.why_not(f.card, seat)
                        if why is not None:
                            fault = BotFault("illegal", f"{f.detail}: {why.reason} ({why.rule})")
                except Exception as ex:  # a built-in bot's bug must not stop the arena
                    fault = BotFault("error", f"raised {type(ex).__name__}: {ex}")
                times[e].append(time.perf_counter() - t0)
                if fault is not None:
                    random_moves[e] += 1
                    count(
                        e,
                        fault,
                        f"hand {game.hand_number}, trick {game.trick_number}, seat {seat}",
                        "a random legal card was played instead",
                    )
                    legal = cards_of(game.legal_mask())
                    card = legal[fallback.randrange(len(legal))]
                game.play(card)
            if len(game.summaries) > summaries_sent:
                summaries_sent = len(game.summaries)
                tell(
                    {"type": "hand", "summary": game.summaries[-1].to_dict()},
                    f"after hand {game.summaries[-1].number}",
                )
    finally:
        for bot in bots:
            if not isinstance(bot, ExternalBot):
                bot.close()
    winner = game.winner
    assert winner is not None
    tell({"type": "game_over", "winner": winner, "totals": list(game.totals)}, "at the game's end")
    dropped = [0, 0, 0, 0]
    for e, ext in outside.items():
        dropped[e] = ext.dropped_lines - dropped_before[e]
        if dropped[e]:
            say(
                e,
                f": {dropped[e]} lines it wrote were dropped, not played, as no turn asked "
                f"for them (the last: {ext.last_dropped})",
            )
    if config.records is not None:
        path = Path(config.records) / f"set{set_index:05d}-rot{rotation}.json"
        path.write_text(dumps(game, labels, indent=1) + "\n", encoding="utf-8")
    tricks = [sum(h.points[seat_of[e]] for h in game.summaries) for e in range(4)]
    return GameResult(
        set_index=set_index,
        rotation=rotation,
        dealer=dealer,
        hands=len(game.summaries),
        tricks=tricks,
        totals=[game.totals[seat_of[e]] for e in range(4)],
        winner=entry_at[winner],
        faults=faults,
        random_moves=random_moves,
        move_times=times,
        fault_lines=lines,
        locks=[sum(h.times_locked[seat_of[e]] for h in game.summaries) for e in range(4)],
        dropped_lines=dropped,
        first_fault=first_fault,
    )


# ---------------------------------------------------------------------- workers

_worker_players: _Players | None = None
_worker_config: ArenaConfig | None = None


def _worker_init(config: ArenaConfig) -> None:
    global _worker_players, _worker_config
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    _worker_config = config
    _worker_players = _Players(config)
    # Close the outside bots when the pool shuts the worker down.
    mp_util.Finalize(None, _worker_players.close, exitpriority=10)


def _worker_play(task: tuple[int, int]) -> GameResult:
    assert _worker_config is not None and _worker_players is not None
    return play_game(_worker_config, task[0], task[1], _worker_players)


# ---------------------------------------------------------------------- the run


Progress = Callable[[int, int, float], None]
"""Called as games finish: (hands played so far, hands asked for, seconds elapsed)."""


def _prefix(config: ArenaConfig, by_set: dict[int, list[GameResult]]) -> int | None:
    """The number of sets to keep once sets 0..K-1 are complete and hold enough hands."""
    total = 0
    k = 0
    while k in by_set and len(by_set[k]) == 4:
        total += sum(r.hands for r in by_set[k])
        k += 1
        if total >= config.hands:
            return k
    return None


def _estimate(config: ArenaConfig, by_set: dict[int, list[GameResult]]) -> float:
    done = [r.hands for rs in by_set.values() for r in rs]
    if done:
        return 4.0 * sum(done) / len(done)
    return 4.0 * (config.rules.target / 3.0 + 1.0)


def run_arena(config: ArenaConfig, progress: Progress | None = None) -> dict[str, Any]:
    """Play the arena and return its summary (the ``--json`` document)."""
    if len(config.specs) != 4:
        raise ArenaError(f"the arena needs four bots, one a seat; got {len(config.specs)}")
    if config.hands < 1:
        raise ArenaError("--hands must be at least 1")
    for spec in config.specs:  # refuse bad options before playing anything
        if not spec.is_external:
            build_bot(
                spec, seed=0, time_per_move=config.time_per_move, iterations=config.iterations
            ).close()
    if config.records is not None:
        try:
            os.makedirs(config.records, exist_ok=True)
        except OSError as e:
            raise ArenaError(
                f"cannot create the records folder {config.records}: {e.strerror}"
            ) from None
    start = time.perf_counter()
    by_set: dict[int, list[GameResult]] = {}
    played = 0
    printed = [0, 0, 0, 0]

    def record(res: GameResult) -> None:
        nonlocal played
        by_set.setdefault(res.set_index, []).append(res)
        played += res.hands
        for e, line in res.fault_lines:
            if printed[e] < config.max_fault_lines:
                print(line, file=sys.stderr, flush=True)
            elif printed[e] == config.max_fault_lines:
                print(
                    f"arena: bot {config.specs[e].label(e)}: further faults are counted "
                    "in the summary, not printed",
                    file=sys.stderr,
                    flush=True,
                )
            printed[e] += 1
        if progress is not None:
            progress(played, config.hands, time.perf_counter() - start)

    if config.workers <= 1:
        players = _Players(config)
        try:
            k = 0
            while _prefix(config, by_set) is None:
                for r in range(4):
                    record(play_game(config, k, r, players))
                k += 1
        finally:
            players.close()
    else:
        _run_pool(config, by_set, record)
    keep = _prefix(config, by_set)
    assert keep is not None
    sets = [sorted(by_set[k], key=lambda r: r.rotation) for k in range(keep)]
    summary = summarize(config, sets, time.perf_counter() - start)
    if config.ratings:
        summary["ratings"] = rate_games(config.specs, [g for s in sets for g in s])
    return summary


def _run_pool(
    config: ArenaConfig,
    by_set: dict[int, list[GameResult]],
    record: Callable[[GameResult], None],
) -> None:
    done: queue.Queue[GameResult | BaseException] = queue.Queue()
    pool = multiprocessing.get_context("fork" if os.name == "posix" else "spawn").Pool(
        config.workers, initializer=_worker_init, initargs=(config,)
    )
    in_flight = 0
    next_set = 0
    pending: list[tuple[int, int]] = []
    clean = False
    try:
        while True:
            if _prefix(config, by_set) is not None:
                break
            # Submit while workers are free and the sets under way may not be enough.
            while in_flight < config.workers:
                if not pending:
                    est = _estimate(config, by_set)
                    have = sum(
                        sum(r.hands for r in by_set.get(k, []))
                        + est * (4 - len(by_set.get(k, []))) / 4.0
                        for k in range(next_set)
                    )
                    if have >= config.hands and next_set > 0:
                        break
                    pending = [(next_set, r) for r in range(4)]
                    next_set += 1
                task = pending.pop(0)
                pool.apply_async(_worker_play, (task,), callback=done.put, error_callback=done.put)
                in_flight += 1
            if in_flight == 0:
                # Estimates were too optimistic: play another set.
                pending = [(next_set, r) for r in range(4)]
                next_set += 1
                continue
            item = done.get()
            in_flight -= 1
            if isinstance(item, BaseException):
                raise ArenaError(f"a game failed: {type(item).__name__}: {item}") from item
            record(item)
        clean = True
    finally:
        if clean and any(s.is_external for s in config.specs):
            # Let the speculative games end so the workers close their outside bots.
            while in_flight:
                done.get()
                in_flight -= 1
            pool.close()
            pool.join()
        else:
            pool.terminate()
            pool.join()


# ---------------------------------------------------------------------- summary


def summarize(config: ArenaConfig, sets: list[list[GameResult]], elapsed: float) -> dict[str, Any]:
    """The arena summary from complete duplicate sets (each a list of its 4 games)."""
    specs = config.specs
    n_sets = len(sets)
    hands_per_set = [sum(g.hands for g in s) for s in sets]
    # Per set and entry: tricks per hand, share of the 4 games won.
    tph = [
        [sum(g.tricks[e] for g in s) / h for s, h in zip(sets, hands_per_set, strict=True)]
        for e in range(4)
    ]
    win = [[sum(1 for g in s if g.winner == e) / len(s) for s in sets] for e in range(4)]
    games = [g for s in sets for g in s]
    total_hands = sum(hands_per_set)
    deals = sum(max(g.hands for g in s) for s in sets)

    bots = []
    for e, spec in enumerate(specs):
        t = stats.mean_ci(tph[e])
        w = stats.mean_ci(win[e])
        move_times = [x for g in games for x in g.move_times[e]]
        faults = dict.fromkeys(FAULT_KINDS, 0)
        for g in games:
            for k, v in g.faults[e].items():
                faults[k] += v
        bots.append(
            {
                "entry": e,
                "label": spec.label(e),
                "name": spec.short_name,
                "spec": spec.text,
                "tricks_per_hand": t.mean,
                "tricks_per_hand_ci95": _clip(t.ci95, 0.0, 13.0),
                "game_win_rate": w.mean,
                "game_win_rate_ci95": _clip(w.ci95, 0.0, 1.0),
                "wins": sum(1 for g in games if g.winner == e),
                "games": len(games),
                "hands": total_hands,
                "tricks": sum(g.tricks[e] for g in games),
                "times_locked": sum(g.locks[e] for g in games),
                "faults": faults,
                "random_moves": sum(g.random_moves[e] for g in games),
                "dropped_lines": sum(g.dropped_lines[e] for g in games),
                "games_with_faults": sum(1 for g in games if any(g.faults[e].values())),
                "first_fault": next((g.first_fault[e] for g in games if g.first_fault[e]), None),
                "moves": len(move_times),
                "move_time_mean_s": (sum(move_times) / len(move_times)) if move_times else None,
                "move_time_p95_s": stats.percentile(move_times, 95),
                "move_time_max_s": max(move_times) if move_times else None,
            }
        )

    groups_idx: dict[str, list[int]] = {}
    for e, spec in enumerate(specs):
        groups_idx.setdefault(spec.text, []).append(e)
    group_tph = {
        k: [sum(tph[e][j] for e in es) / len(es) for j in range(n_sets)]
        for k, es in groups_idx.items()
    }
    group_win = {
        k: [sum(win[e][j] for e in es) / len(es) for j in range(n_sets)]
        for k, es in groups_idx.items()
    }
    groups = []
    for k, es in groups_idx.items():
        t = stats.mean_ci(group_tph[k])
        w = stats.mean_ci(group_win[k])
        groups.append(
            {
                "spec": k,
                "entries": es,
                "tricks_per_hand": t.mean,
                "tricks_per_hand_ci95": _clip(t.ci95, 0.0, 13.0),
                "game_win_rate": w.mean,
                "game_win_rate_ci95": _clip(w.ci95, 0.0, 1.0),
            }
        )

    def diff(
        a_label: str,
        b_label: str,
        a_t: list[float],
        b_t: list[float],
        a_w: list[float],
        b_w: list[float],
    ) -> dict[str, Any]:
        dt = stats.mean_ci([x - y for x, y in zip(a_t, b_t, strict=True)])
        dw = stats.mean_ci([x - y for x, y in zip(a_w, b_w, strict=True)])
        return {
            "a": a_label,
            "b": b_label,
            "tricks_per_hand": dt.mean,
            "tricks_per_hand_ci95": dt.ci95,
            "tricks_clear_of_zero": dt.clear_of_zero,
            "game_win_rate": dw.mean,
            "game_win_rate_ci95": dw.ci95,
            "win_rate_clear_of_zero": dw.clear_of_zero,
        }

    differences = []
    others = [1, 2, 3]
    differences.append(
        diff(
            specs[0].label(0),
            "mean of " + ", ".join(specs[e].label(e) for e in others),
            tph[0],
            [sum(tph[e][j] for e in others) / 3 for j in range(n_sets)],
            win[0],
            [sum(win[e][j] for e in others) / 3 for j in range(n_sets)],
        )
    )
    keys = list(groups_idx)
    if 1 < len(keys) < 4:
        for i, ka in enumerate(keys):
            for kb in keys[i + 1 :]:
                if len(groups_idx[ka]) == 1 and len(groups_idx[kb]) == 1:
                    continue  # the same as the pair of entries below
                differences.append(
                    diff(
                        group_label(ka, groups_idx[ka], specs),
                        group_label(kb, groups_idx[kb], specs),
                        group_tph[ka],
                        group_tph[kb],
                        group_win[ka],
                        group_win[kb],
                    )
                )
    for a in range(4):
        for b in range(a + 1, 4):
            differences.append(
                diff(specs[a].label(a), specs[b].label(b), tph[a], tph[b], win[a], win[b])
            )

    return {
        "format": FORMAT,
        "seed": config.seed,
        "rules": config.rules.to_dict(),
        "time_per_move": config.time_per_move,
        "iterations": config.iterations,
        "sets": n_sets,
        "games": len(games),
        "hands": total_hands,
        "deals": deals,
        "hands_asked": config.hands,
        "workers": config.workers,
        "elapsed_s": elapsed,
        "hands_per_s": total_hands / elapsed if elapsed > 0 else None,
        "bots": bots,
        "groups": groups,
        "differences": differences,
    }


def _clip(ci: list[float] | None, lo: float, hi: float) -> list[float] | None:
    """An interval cut to the values a rate can take."""
    return None if ci is None else [max(lo, ci[0]), min(hi, ci[1])]


def group_label(spec_text: str, entries: list[int], specs: tuple[BotSpec, ...]) -> str:
    """The label of the entries playing one spec in the summary's ``differences``:
    ``normal (1,2,3) mean``, or the entry's own label for a single entry."""
    name = specs[entries[0]].short_name
    if len(entries) == 1:
        return specs[entries[0]].label(entries[0])
    return f"{name} ({','.join(map(str, entries))}) mean"
