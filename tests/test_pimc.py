"""The arena's plain PIMC sparring partner (``pimc``, lockup/arena/pimc.py; issue 13)."""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter

import pytest

from lockup.arena.pimc import DealSampler, PlainPIMCBot, _greedy, playout
from lockup.arena.specs import SpecError, build_bot, parse_spec
from lockup.engine import Game, Rules, SeatView

RULES = [
    Rules(),
    Rules(picture_exception="any-club"),
    Rules(lock_discards="upfront"),
    Rules(picture_exception="any-club", lock_discards="upfront"),
]


def trick_state(view: SeatView) -> tuple[int, int, int, int, int]:
    """The trick under way as the view carries it, as the playout takes it (-1 for none)."""

    def known(x: int | None) -> int:
        return -1 if x is None else x

    return (
        known(view.led_suit),
        known(view.best_card),
        known(view.best_seat),
        view.clubs_in_trick,
        view.pic_clubs,
    )


def _greedy_card(view: SeatView) -> int:
    led, best, _, clubs, pic = trick_state(view)
    last = len(view.trick) == view.players_in_trick - 1
    any_club = view.rules.picture_exception == "any-club"
    return _greedy(view.hand_mask, len(view.trick), led, best, clubs, pic, last, any_club)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}")
def test_plays_legal_cards_and_its_playout_is_the_engine(rules: Rules) -> None:
    """Whole games: every card it answers is legal, so is every greedy card, and its
    playout ends each hand exactly as the engine's step API does with the same cards and
    the same random discards."""
    checked = 0
    for g in range(3):
        game = Game.new(random.Random(g), rules, record=False)
        bot = PlainPIMCBot(seed=g, iterations=2)
        rng = random.Random(100 + g)
        for k in range(400):
            if game.is_over:
                break
            if game.phase == "discard":
                game.discard_random(rng)
                continue
            if game.phase == "deal":
                game.deal(rng=rng)
                continue
            seat = game.turn
            view = game.view(seat)
            card = bot.choose(view)
            assert view.legal_mask >> card & 1
            assert view.legal_mask >> _greedy_card(view) & 1
            if k % 5 == 0:
                ref = game.clone()
                stream = random.Random(k)
                hand = ref.hand_number
                ref.play(card, seat)
                while ref.hand_number == hand and not ref.hand_over:
                    if ref.phase == "discard":
                        ref.discard_random(stream)
                    else:
                        ref.play(_greedy_card(ref.view(ref.turn)), ref.turn)
                led, best, bseat, clubs, pic = trick_state(view)
                hands = list(game.hands)
                points = list(view.points)
                playout(
                    hands, list(view.locks), points, view.trick_number, len(view.trick),
                    view.players_in_trick, led, best, bseat, clubs, pic,
                    seat, card, rules.picture_exception == "any-club",
                    rules.lock_discards == "upfront", random.Random(k),
                )  # fmt: skip
                assert hands == [0, 0, 0, 0]
                assert points == list(ref.summaries[-1].points)
                checked += 1
            game.play(card, seat)
    assert checked > 20


def test_deals_uniform_among_consistent_deals() -> None:
    """Against brute force: 7 unseen cards to seats holding 3, 2 and 2, one seat void in
    diamonds and another in spades."""
    unseen = [0, 1, 13, 14, 26, 39, 40]
    mask = sum(1 << c for c in unseen)
    caps = [3, 2, 2]
    voids = [1 << 1, 0, 1 << 3]
    consistent = []
    for perm in set(itertools.permutations([0, 0, 0, 1, 1, 2, 2])):
        hands = [0, 0, 0]
        for c, k in zip(unseen, perm, strict=True):
            hands[k] |= 1 << c
        if all(
            not (hands[k] >> (13 * su)) & 0x1FFF or not (voids[k] >> su) & 1
            for k in range(3)
            for su in range(4)
        ):
            consistent.append(tuple(hands))
    sampler = DealSampler(mask, caps, voids)
    rng = random.Random(5)
    n = 200 * len(consistent)
    seen = Counter(tuple(sampler.sample(rng)) for _ in range(n))
    assert set(seen) == set(consistent)
    for deal in consistent:  # each about 200 times (binomial sd about 14)
        assert 120 < seen[deal] < 290


def test_respects_its_time_budget() -> None:
    game = Game.new(random.Random(3), record=False)
    view = game.view(game.turn)
    bot = PlainPIMCBot(seed=1, time_limit=0.05)
    start = time.perf_counter()
    card = bot.choose(view)
    spent = time.perf_counter() - start
    assert view.legal_mask >> card & 1
    assert bot.deals >= 1
    assert spent < 0.5  # 0.05 s asked; generous for a loaded machine
    fixed = PlainPIMCBot(seed=1, iterations=7)
    fixed.choose(view)
    assert fixed.deals == 7
    assert PlainPIMCBot(seed=9, iterations=20).choose(view) == PlainPIMCBot(
        seed=9, iterations=20
    ).choose(view)


def test_arena_spec() -> None:
    bot = build_bot(parse_spec("pimc:bonus=1"), seed=1, time_per_move=0.2)
    assert isinstance(bot, PlainPIMCBot)
    assert bot.time_limit == 0.2 and bot.bonus == 1.0
    with pytest.raises(SpecError):
        build_bot(parse_spec("pimc:depth=3"), seed=1)
    with pytest.raises(SpecError):
        build_bot(parse_spec("pimc:time_limit=0"), seed=1)
