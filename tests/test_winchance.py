"""The expert's chance-to-win value (``gwin``, issue 24): the table of each seat's chance to
win the game for every way a hand's points can fall (lockup.bots.winchance)."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lockup.bots import _kernel as K
from lockup.bots import make_bot
from lockup.bots.kernel import jit_available, kernel, search
from lockup.bots.winchance import HAND_POINTS, compute_table, win_chances
from lockup.engine import Game, Rules


def _key(p: tuple[int, int, int, int]) -> int:
    return int(K.points_key(*p))


def _ways() -> list[tuple[int, int, int, int]]:
    """Every way a hand's points can fall (13 tricks at most)."""
    return [
        (a, b, c, d)
        for a in range(14)
        for b in range(14 - a)
        for c in range(14 - a - b)
        for d in range(14 - a - b - c)
    ]


def test_the_points_of_self_play_are_hands_of_lockup() -> None:
    assert sum(r[4] for r in HAND_POINTS) >= 10000
    for *pts, count in HAND_POINTS:
        assert count > 0 and sum(pts) <= 13 and pts == sorted(pts, reverse=True)
    # Almost every hand has all 13 tricks won (an empty trick needs every seat locked).
    full = sum(r[4] for r in HAND_POINTS if sum(r[:4]) == 13)
    assert full > 0.9 * sum(r[4] for r in HAND_POINTS)


def test_a_hand_that_ends_the_game_is_won_or_lost_for_certain() -> None:
    km = kernel(False)
    table = compute_table(km, (18, 10, 12, 9), 20, sims=32, seed=7)
    k = _key((2, 4, 4, 3))  # seat 0 reaches 20, alone at the top (R15)
    assert [table[s * K.P4 + k] for s in range(4)] == [1.0, 0.0, 0.0, 0.0]
    k = _key((1, 4, 8, 0))  # seat 2 reaches 20 and seat 0 only 19
    assert [table[s * K.P4 + k] for s in range(4)] == [0.0, 0.0, 1.0, 0.0]
    k = _key((2, 0, 8, 3))  # seats 0 and 2 tie at 20: the game goes on, either may win
    tie = [table[s * K.P4 + k] for s in range(4)]
    assert 0.0 < tie[0] < 1.0 and 0.0 < tie[2] < 1.0 and tie[0] + tie[2] > 0.9


def test_each_way_of_falling_shares_one_win_among_the_seats() -> None:
    km = kernel(False)
    table = compute_table(km, (3, 9, 5, 0), 20, sims=2, seed=7)
    for p in _ways():
        k = _key(p)
        assert sum(table[s * K.P4 + k] for s in range(4)) == pytest.approx(1.0)


def test_one_point_more_never_wins_less_often() -> None:
    """Every way of falling meets the same continuations (common random numbers), so a
    seat's chance grows with its points."""
    km = kernel(False)
    table = compute_table(km, (12, 15, 9, 14), 20, sims=8, seed=7)
    for p in _ways():
        if sum(p) == 13:
            continue
        for s in range(4):
            q = list(p)
            q[s] += 1
            assert table[s * K.P4 + _key(tuple(q))] >= table[s * K.P4 + _key(p)]  # type: ignore[arg-type]


def test_the_leader_near_the_target_is_the_favourite_and_equals_are_equal() -> None:
    table = win_chances(None, (16, 12, 11, 10), 20)
    k = _key((3, 4, 3, 3))  # 19 against 16, 14, 13: the game goes on
    chances = [float(table[s * K.P4 + k]) for s in range(4)]
    assert chances[0] > 0.6 and chances[0] == max(chances)
    start = win_chances(None, (0, 0, 0, 0), 20)
    even = [float(start[s * K.P4 + _key((3, 3, 3, 3))]) for s in range(4)]
    assert all(0.1 < c < 0.4 for c in even)


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
def test_compiled_and_plain_tables_agree() -> None:
    for totals, target in [((12, 15, 9, 14), 20), ((30, 41, 38, 22), 50), ((0, 0, 0, 0), 10)]:
        plain = compute_table(kernel(False), totals, target, sims=3, seed=7)
        compiled = compute_table(kernel(True), totals, target, sims=3, seed=7)
        assert list(plain) == [float(x) for x in compiled]


def test_the_table_is_kept_and_the_same_for_the_same_totals() -> None:
    a = win_chances(None, (5, 7, 2, 9), 20)
    assert win_chances(None, (5, 7, 2, 9), 20) is a
    assert list(win_chances(None, (5, 7, 2, 9), 25)) != list(a)


def _a_position(seed: int) -> Any:
    """A view late in a game, with a choice of cards."""
    rng = random.Random(seed)
    game = Game.new(rng, Rules(), record=False)
    game.totals[:] = [16, 17, 12, 15]
    normal = make_bot("normal")
    while True:
        if game.discard_due is not None:
            game.discard_random(rng)
            continue
        view = game.view(game.turn)
        if view.trick_number >= 6 and view.legal_mask & (view.legal_mask - 1):
            return view
        game.play(normal.choose(view), game.turn)


def test_the_search_values_a_card_by_its_tricks_plus_the_chance_to_win() -> None:
    view = _a_position(3)
    flat = search(view, iterations=60, seed=2, wgame=1.0, lam=0.03)
    gwin = search(view, iterations=60, seed=2, wgame=1.0, lam=0.03, gwin=True)
    # The same deals and rollouts: the tricks agree, the game term differs.
    assert gwin.tricks == flat.tricks
    assert gwin.value != flat.value
    for value, tricks in zip(gwin.value, gwin.tricks, strict=True):
        assert tricks <= value <= tricks + 1.0


def test_an_expert_with_the_chance_to_win_plays_whole_games_deterministically() -> None:
    def play(seed: int) -> list[int]:
        rng = random.Random(seed)
        game = Game.new(rng, Rules(target=10), record=False)
        bots = [make_bot("expert", seed=i, iterations=20, gwin=1) for i in range(4)]
        cards = []
        while not game.is_over:
            if game.discard_due is not None:
                game.discard_random(rng)
                continue
            if game.hand_over:
                game.deal(rng=rng)
                continue
            card = bots[game.turn].choose(game.view(game.turn))
            cards.append(card)
            game.play(card, game.turn)
        return cards

    assert play(4) == play(4)


SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "winchance.py"


def test_the_collector_records_whole_games_hand_by_hand() -> None:
    spec = importlib.util.spec_from_file_location("bench_winchance", SCRIPT)
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    games = bench.play_games("learned", hands=30, seed=5)
    assert sum(len(g) for g in games) >= 30
    for hands in games:
        totals = [0, 0, 0, 0]
        for before, pts in hands:
            assert before == totals and sum(pts) <= 13
            totals = [t + p for t, p in zip(totals, pts, strict=True)]
        assert K.game_winner(totals, 20) >= 0  # each recorded game is played to its end
        assert all(K.game_winner(b, 20) < 0 for b, _ in hands)


def test_the_script_prints_the_pool_as_python() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--hands", "40", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = eval(done.stdout.split("=", 1)[1])  # the literal HAND_POINTS holds
    assert sum(r[4] for r in rows) >= 40
    assert all(sum(r[:4]) <= 13 and list(r[:4]) == sorted(r[:4], reverse=True) for r in rows)


def test_the_kernels_end_of_game_is_the_engines() -> None:
    """R15 lives in the engine; the kernel's copy (game_winner) names the same winner, or
    none, after every hand of whole games under several targets."""
    rng = random.Random(11)
    bot = make_bot("normal")
    checked = 0
    for target in (10, 15, 20):
        for _ in range(6):
            game = Game.new(rng, Rules(target=target), record=False)
            while not game.is_over:
                if game.hand_over:
                    game.deal(rng=rng)
                elif game.discard_due is not None:
                    game.discard_random(rng)
                else:
                    game.play(bot.choose(game.view(game.turn)), game.turn)
                if game.hand_over:
                    engine = game.winner if game.is_over else -1
                    assert K.game_winner(list(game.totals), target) == engine
                    checked += 1
    assert checked > 30
