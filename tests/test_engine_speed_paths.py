"""The engine's fast paths do exactly what the checked step-by-step API does."""

import random

import pytest

from lockup._accel import pure_python_requested
from lockup.cards import cards_of
from lockup.engine import DISCARD, PLAY, Game, Rules, implementation, nth_card

ALL_RULES = [
    Rules(p, d, t)
    for p in ("same-rank", "any-club")
    for d in ("per-trick", "upfront")
    for t in (10, 20)
]


def state(game: Game) -> dict[str, object]:
    return {name: getattr(game, name) for name in Game.__slots__ if name != "log"} | {
        "log": None if game.log is None else [(h.dealer, h.deal, h.events) for h in game.log]
    }


# The playout against the step-by-step API (and the search kernel), from every position of
# whole games under every option: tests/test_conformance.py.


def test_nth_card_picks_the_kth_lowest_card() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        mask = rng.getrandbits(52) or 1 << rng.randrange(52)
        u = rng.random()
        assert nth_card(mask, u) == cards_of(mask)[int(u * mask.bit_count())]
    assert nth_card(1 << 51, 0.999999) == 51 and nth_card(0b101, 0.5) == 2


@pytest.mark.parametrize(
    "rules", ALL_RULES[::2], ids=lambda r: f"{r.picture_exception}-{r.lock_discards}"
)
def test_the_kept_legal_mask_is_the_rule_worked_out_afresh(rules: Rules) -> None:
    # Game.play and legal_mask read a mask the engine keeps up to date as cards fall; at
    # every step it must be what R5 to R7 give from the state, and agree with why_not.
    for seed in range(12):
        rng = random.Random(seed)
        game = Game.new(rng, rules, record=seed % 2 == 0)
        while not game.is_over:
            if game.phase == PLAY:
                turn = game.turn
                kept = game.legal_mask()
                assert kept and kept == game._legal_now() == game.legal_mask(turn)
                for s in range(4):
                    assert s == turn or game.legal_mask(s) == 0
                for c in cards_of(game.hands[turn]):
                    assert (game.why_not(c) is None) == bool(kept >> c & 1)
                game.play(nth_card(kept, rng.random()))
            else:
                assert game.legal_mask() == 0 and game.legal_cards() == []
                if game.phase == DISCARD:
                    game.discard_random(rng)
                else:
                    game.deal(rng=rng)


def test_playout_between_hands_does_nothing() -> None:
    game = Game(Rules(), 0)
    before = state(game)
    game.playout(random.Random(1))
    assert state(game) == before


def test_whole_games_by_playout_end_with_a_sole_leader() -> None:
    rng = random.Random(5)
    for rules in ALL_RULES:
        game = Game.new(rng, rules)
        while not game.is_over:
            game.playout(rng)
            if game.phase == "deal":
                game.deal(rng=rng)
        best = max(game.totals)
        assert best >= rules.target and game.totals.count(best) == 1
        assert game.winner == game.totals.index(best)


def test_the_playout_runs_from_source_when_asked() -> None:
    # test_playout_build.py runs this file with LOCKUP_PURE_PYTHON=1, so that the
    # equivalence tests above check the Python source as well as the compiled build.
    if not pure_python_requested():
        pytest.skip("only under LOCKUP_PURE_PYTHON=1")
    assert implementation() == "python"
