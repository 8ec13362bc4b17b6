"""Property tests: random whole games under every option combination (docs/rules.md R3-R16).

Each example is a seed; the game is random legal play with random lockup discards, and
the invariants are checked after every single step (deal, play or discard).
"""

from __future__ import annotations

import random

import pytest
from conftest import rules_id, state, step
from hypothesis import given, settings
from hypothesis import strategies as st

from lockup.engine import Game, Rules
from lockup.record import dumps, loads, summary

EVERY_OPTION = [
    Rules(picture, discards, target)
    for picture in ("same-rank", "any-club")
    for discards in ("per-trick", "upfront")
    for target in (10, 25)
]
"""The 8 combinations: both ``picture_exception`` values x both ``lock_discards`` values
x two targets."""

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = settings(max_examples=30, deadline=None)
"""30 games per option combination and test: 480 in all, well under a minute."""


def accounted(game: Game) -> None:
    """The 52 cards, each exactly once: in a hand, played to a trick of this hand, or
    lost to lockup this hand (between hands: in the last hand's tricks and lost cards)."""
    held = [x for s in range(4) for x in game.hand(s)]
    played = [x for t in game.tricks for _, x in t.plays] + [x for _, x in game.trick]
    lost = [x for s in range(4) for x in game.lost_cards(s)]
    if game.hand_number < 0:
        assert held == played == lost == []
        return
    assert sorted(held + played + lost) == list(range(52))


def check_hand_end(game: Game, rules: Rules) -> None:
    h = game.summaries[-1]
    assert len(game.tricks) == 13 and game.trick_number == 13  # a hand is 13 tricks
    assert sum(h.points) + h.empty_tricks == 13  # R13: a point a trick, empty ones none
    assert h.empty_tricks == sum(1 for t in game.tricks if t.winner is None)
    assert game.locks == [0, 0, 0, 0]  # R9: no lock outlasts the hand
    assert all(t.lock <= 12 - t.number for t in game.tricks)
    assert [game.hand_size(s) for s in range(4)] == [0, 0, 0, 0]  # all run out together
    assert [len(x) for x in h.lost] == list(h.tricks_sat_out)  # R10: a card a trick sat out
    best = max(game.totals)
    sole = game.totals.count(best) == 1 and best >= rules.target
    assert game.is_over == sole  # R15: the game ends exactly when a sole leader is there
    if sole:
        assert game.winner == game.totals.index(best)
    else:
        assert game.winner is None and game.phase == "deal"


def play_checked(seed: int, rules: Rules) -> Game:
    """A whole random game, every invariant checked after every step."""
    rng = random.Random(seed)
    game = Game.new(rng, rules)
    upfront = rules.lock_discards == "upfront"
    totals = [0, 0, 0, 0]
    hands_done = 0
    while not game.is_over:
        hand, tricks = game.hand_number, game.trick_number
        turn = game.to_play
        if turn is not None:
            assert game.locks[turn] == 0  # R4: a locked seat never plays
            for s in game.locked_seats():
                for x in game.hand(s):
                    refusal = game.why_not(x, s)
                    assert refusal is not None and refusal.code == "locked"
        step(game, rng)
        accounted(game)
        if game.phase in ("play", "discard") and game.hand_number == hand:
            assert game.trick_number >= tricks
            assert sum(game.points) == sum(1 for t in game.tricks if t.winner is not None)
        # R10: every seat holds the same number of cards after every trick (see
        # test_rules.after_trick: under upfront, cards held plus tricks still locked).
        if not upfront and (game.trick_number != tricks or game.hand_number != hand):
            if game.hand_number == hand:
                assert len({game.hand_size(s) for s in range(4)}) == 1
        if upfront and game.phase != "discard" and not game.trick:
            assert len({game.hand_size(s) + game.locks[s] for s in range(4)}) == 1
        if len(game.summaries) > hands_done:  # a hand just ended
            hands_done += 1
            check_hand_end(game, rules)
            new_totals = list(game.summaries[-1].totals)
            assert all(b >= a for a, b in zip(totals, new_totals, strict=True))  # R13
            totals = new_totals
    assert game.totals == totals and max(totals) >= rules.target
    return game


@pytest.mark.parametrize("rules", EVERY_OPTION, ids=rules_id)
@FAST
@given(seed=SEEDS)
def test_every_invariant_holds_through_whole_random_games(rules: Rules, seed: int) -> None:
    game = play_checked(seed, rules)
    assert game.is_over


@pytest.mark.parametrize("rules", EVERY_OPTION, ids=rules_id)
@FAST
@given(seed=SEEDS, cut=st.floats(min_value=0.0, max_value=1.0))
def test_write_read_replay_gives_the_same_state(rules: Rules, seed: int, cut: float) -> None:
    """A game stopped anywhere (or finished): its record read back is the same game, and
    both go on identically."""
    rng = random.Random(seed)
    game = Game.new(rng, rules)
    # Stop at a random point of the game (some 400 steps make a game); cut=1.0: its end.
    stop = int(cut * 400)
    n = 0
    while not game.is_over and (cut == 1.0 or n < stop):
        step(game, rng)
        n += 1
    text = dumps(game)
    back = loads(text)
    assert dumps(back) == text
    assert state(back) == state(game)
    for seat in range(4):
        assert back.view(seat).to_dict() == game.view(seat).to_dict()
    assert summary(back) == summary(game)
    # Both go on identically (a game under way is saved and loaded to the same state).
    a, b = random.Random(seed + 2), random.Random(seed + 2)
    while not game.is_over:
        step(game, a)
        step(back, b)
    assert dumps(back) == dumps(game) and back.winner == game.winner
