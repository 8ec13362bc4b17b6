"""The engine's fast paths do exactly what the checked step-by-step API does."""

import random

import pytest

from lockup._accel import pure_python_requested
from lockup.cards import cards_of
from lockup.engine import DISCARD, PLAY, Game, IllegalMove, Rules, implementation, nth_card

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


def test_the_trick_rules_masks_are_the_cards_modules() -> None:
    # lockup.playout holds the trick's rules for the engine and the playout alike, with
    # its own copies of the masks (it imports nothing of the package, to compile alone).
    from lockup import cards, playout

    assert playout.CLUB_MASK == cards.CLUB_MASK
    assert playout.NON_CLUB_MASK == cards.NON_CLUB_MASK
    assert playout.SUIT_MASKS == cards.SUIT_MASKS


@pytest.mark.parametrize(
    "rules", ALL_RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}"
)
def test_chance_move_draws_every_deal_and_discard(rules: Rules) -> None:
    # Game.chance_move is the one draw of chance: the deal is deal(rng=)'s shuffle, the
    # discard discard_random's card, and make=False draws the same move and changes nothing.
    rng, twin = random.Random(11), random.Random(11)
    game = Game(rules, 2)
    other = Game(rules, 2)
    moves = 0
    while not game.is_over and moves < 400:
        if game.phase == PLAY:
            card = nth_card(game.legal_mask(), rng.random())
            twin.random()
            game.play(card)
            other.play(card)
            continue
        before = repr(state(game))
        peek = game.chance_move(random.Random(moves), make=False)
        assert repr(state(game)) == before
        assert peek == game.chance_move(random.Random(moves), make=False)
        if game.phase == DISCARD:
            seat = game.discard_due
            move = game.chance_move(rng)
            assert move == ("discard", seat, move.card, None)
            assert other.discard_random(twin) == move.card
            assert move.card in game.lost_cards(move.seat)
        else:
            dealer = game.dealer if game.hand_number < 0 else (game.dealer + 1) % 4
            move = game.chance_move(rng)
            other.deal(rng=twin)
            assert move.kind == "deal" and move.seat == dealer == game.dealer
            assert move.card == -1 and move.deal == game.log[-1].deal
        assert state(game) == state(other)
        moves += 1
    assert game.is_over
    with pytest.raises(IllegalMove) as over:
        game.chance_move(rng)
    assert over.value.code == "game-over"
    playing = Game.new(random.Random(1), rules)
    with pytest.raises(IllegalMove) as due:
        playing.chance_move(rng)
    assert due.value.code == "no-discard-due"
