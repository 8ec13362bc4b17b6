"""Lockup as an OpenSpiel game, OpenSpiel's algorithms on it, the ISMCTS arena seat."""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from lockup import openspiel_game as og  # noqa: E402
from lockup.arena.ismcts import OpenSpielISMCTSBot  # noqa: E402
from lockup.arena.runner import ArenaConfig, run_arena  # noqa: E402
from lockup.arena.specs import parse_spec  # noqa: E402
from lockup.cards import cards_of, parse_card  # noqa: E402
from lockup.engine import Game, Rules, SeatView  # noqa: E402

ALL_RULES = [
    Rules(),
    Rules(picture_exception="any-club", lock_discards="upfront"),
]


def _random_play(state: object, rng: np.random.RandomState) -> None:
    """Play a pyspiel state to its end with random chance outcomes and legal actions."""
    while not state.is_terminal():  # type: ignore[attr-defined]
        if state.is_chance_node():  # type: ignore[attr-defined]
            actions, probs = zip(*state.chance_outcomes(), strict=True)  # type: ignore[attr-defined]
            assert sum(probs) == pytest.approx(1.0)
            state.apply_action(int(rng.choice(actions, p=probs)))  # type: ignore[attr-defined]
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))  # type: ignore[attr-defined]


def test_the_game_loads_and_passes_openspiel_random_simulation_checks() -> None:
    game = pyspiel.load_game("python_lockup")
    assert game.num_players() == 4 and game.num_distinct_actions() == 52
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    upfront = pyspiel.load_game(
        "python_lockup", {"picture_exception": "any-club", "lock_discards": "upfront"}
    )
    assert upfront.rules == Rules(picture_exception="any-club", lock_discards="upfront")
    pyspiel.random_sim_test(upfront, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("rules", ALL_RULES)
def test_random_playouts_agree_with_the_engine(rules: Rules) -> None:
    game = og.load(rules)
    rng = np.random.RandomState(2)
    for _ in range(5):
        state = game.new_initial_state()
        assert state.is_chance_node() and len(state.chance_outcomes()) == 4
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            g = state.lockup_game
            assert state.current_player() == g.turn
            assert state.legal_actions() == g.legal_cards()
            state.apply_action(int(rng.choice(state.legal_actions())))
            moves += 1
        g = state.lockup_game
        returns = state.returns()
        assert returns == [float(p) for p in g.summaries[-1].points]
        assert sum(returns) == 13 - g.summaries[-1].empty_tricks
        assert moves == 52 - sum(len(x) for x in g.summaries[-1].lost)
        # OpenSpiel's record of the hand: 1 dealer + 52 cards dealt + plays and discards.
        assert len(state.history()) == 1 + 52 + 52


def test_information_state_and_observation() -> None:
    game = og.load()
    state = game.new_initial_state()
    state.apply_action(0)  # South deals
    for c in range(52):  # seat 0 gets 0..12 (all clubs), seat 1 the diamonds...
        state.apply_action(c)
    assert state.current_player() == 1
    west = state.information_state_string(1)
    assert west == "p1 dealer 0 dealt 52 hand " + " ".join(f"{r}D" for r in "23456789TJQKA")
    state.apply_action(parse_card("AD"))
    assert state.information_state_string(1).endswith("| 1AD")
    assert state.information_state_string(2).startswith("p2 dealer 0 dealt 52 hand 2H")
    obs = state.observation_string(2)
    assert (
        "trick 1:AD" in obs and "hand 2H" in obs and "AD" not in obs.split("hand")[1].split("\n")[0]
    )
    tensor = np.array(state.observation_tensor(2))
    assert tensor.shape == (552,)
    assert tensor[4 + 52 + 1 * 52 + parse_card("AD")] == 1  # West's card in the trick


def _views(rules: Rules, seed: int, count: int) -> list[SeatView]:
    """Views at random decision points of random games (locks and voids included)."""
    rng = random.Random(seed)
    out: list[SeatView] = []
    while len(out) < count:
        game = Game.new(rng, rules)
        while game.phase not in ("deal", "over"):
            if game.discard_due is not None:
                game.discard_random(rng)
                continue
            if rng.random() < 0.25:
                out.append(game.view(game.turn))
            game.play(rng.choice(game.legal_cards()))
    return out[:count]


@pytest.mark.parametrize("rules", ALL_RULES)
def test_state_from_view_and_resampling_honour_what_the_seat_knows(rules: Rules) -> None:
    game = og.load(rules)
    rng = random.Random(9)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    voids_seen = 0
    for view in _views(rules, 4, 40):
        state = og.state_from_view(view, rng, game)
        g = state.lockup_game
        assert state.legal_actions() == view.legal_cards
        assert g.hands[view.seat] == view.hand_mask
        assert g.lost == list(view.lost_masks) and g.voids == list(view.voids)
        assert tuple(h.bit_count() for h in g.hands) == view.hand_sizes
        key = state.information_state_string(view.seat)
        voids_seen += sum(1 for v in view.voids if v)
        for _ in range(3):
            other = state.resample_from_infostate(view.seat, sampler)
            o = other.lockup_game
            assert other.information_state_string(view.seat) == key
            assert other.legal_actions() == view.legal_cards
            assert o.lost == g.lost and o.played == g.played and o.voids == g.voids
            for s in range(4):
                assert o.hands[s].bit_count() == view.hand_sizes[s]
                for c in cards_of(o.hands[s]):  # nobody holds a suit it showed it lacks
                    assert not (view.voids[s] >> (c // 13)) & 1
    assert voids_seen > 0


def test_hidden_hands_are_sampled_uniformly() -> None:
    # Unseen: 2H 3H 4H 2S 3S; seats 1, 2, 3 hold 2, 2, 1 cards; seat 1 has shown no hearts.
    unseen = sum(1 << parse_card(c) for c in ["2H", "3H", "4H", "2S", "3S"])
    voids = [0, 1 << 2, 0, 0]
    sizes = [4, 2, 2, 1]
    cards = cards_of(unseen)
    consistent = []
    for owners in itertools.product([1, 2, 3], repeat=5):
        hands = [0, 0, 0, 0]
        for c, s in zip(cards, owners, strict=True):
            hands[s] |= 1 << c
        if [hands[s].bit_count() for s in (1, 2, 3)] != sizes[1:]:
            continue
        if any(c // 13 == 2 for c in cards_of(hands[1])):
            continue
        consistent.append(tuple(hands))
    assert len(consistent) == 3  # seat 1 must hold both spades; 3 ways for the hearts
    rng = random.Random(1)
    n = 3000
    counts = Counter(
        tuple(og.sample_hidden_hands(0, unseen=unseen, sizes=sizes, voids=voids, rng=rng))
        for _ in range(n)
    )
    assert set(counts) == set(consistent)
    for k in consistent:
        assert abs(counts[k] - n / 3) < 5 * (n * (1 / 3) * (2 / 3)) ** 0.5
    with pytest.raises(ValueError):
        og.sample_hidden_hands(
            0, unseen=unseen, sizes=[4, 2, 2, 1], voids=[0, 0b1100, 0, 0], rng=rng
        )


def test_openspiel_ismcts_bot_plays_a_hand_to_the_end() -> None:
    game = og.load()
    rng = np.random.RandomState(5)
    bots = [
        ismcts.ISMCTSBot(
            game,
            mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
            uct_c=2.0,
            max_simulations=8,
            random_state=rng,
        )
        for _ in range(4)
    ]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(int(action))
    assert sum(state.returns()) == 13 - state.lockup_game.summaries[-1].empty_tricks


def test_the_ismcts_seat_is_deterministic_with_iterations_and_keeps_its_time() -> None:
    views = [v for v in _views(Rules(), 8, 12) if len(v.legal_cards) > 1][:4]
    for view in views:
        a = OpenSpielISMCTSBot(seed=3, iterations=30).choose(view)
        b = OpenSpielISMCTSBot(seed=3, iterations=30).choose(view)
        assert a == b and a in view.legal_cards
    bot = OpenSpielISMCTSBot(seed=1, time_limit=0.15)
    start = time.perf_counter()
    assert bot.choose(views[0]) in views[0].legal_cards
    assert time.perf_counter() - start < 0.8
    slow = OpenSpielISMCTSBot(seed=1, iterations=5, evaluator="openspiel")
    assert slow.choose(views[1]) in views[1].legal_cards
    for bad in [{"iterations": 0}, {"time_limit": -1.0}, {"evaluator": "magic"}]:
        with pytest.raises(ValueError):
            OpenSpielISMCTSBot(**bad)  # type: ignore[arg-type]


def test_the_ismcts_seat_in_the_arena() -> None:
    specs = (
        parse_spec("openspiel-ismcts:iterations=10"),
        parse_spec("random"),
        parse_spec("random"),
        parse_spec("random"),
    )
    s = run_arena(ArenaConfig(specs=specs, hands=4, seed=1, rules=Rules(target=10)))
    b = s["bots"][0]
    assert b["name"] == "openspiel-ismcts" and b["moves"] > 0
    assert sum(b["faults"].values()) == 0
