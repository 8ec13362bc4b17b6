"""Lockup as a PettingZoo environment: PettingZoo's own checks, knowledge, rewards, chance."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
# api_test would rather see a Box observation space: the classic games' Dict with an
# action mask is what PettingZoo documents for card games.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent", "ignore:Observation is not a NumPy array"
)

from pettingzoo.test import api_test, seed_test  # noqa: E402

from lockup.arena.external import ExternalBot, view_message  # noqa: E402
from lockup.cards import cards_of  # noqa: E402
from lockup.engine import Game, IllegalMove, Rules  # noqa: E402
from lockup.pettingzoo import (  # noqa: E402
    AGENTS,
    LAYOUT,
    OBS_SIZE,
    env,
    observation_from_turn,
    observation_of,
    raw_env,
)

EVERY_OPTION = [Rules(p, d) for p in ("same-rank", "any-club") for d in ("per-trick", "upfront")]


def bits(row: np.ndarray) -> int:
    """A row of 52 card bits back to a card mask."""
    return sum(1 << int(c) for c in np.flatnonzero(row))


@pytest.mark.parametrize(
    "rules", EVERY_OPTION, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}"
)
def test_pettingzoo_api_test_passes(rules: Rules) -> None:
    api_test(env(rules=rules), num_cycles=200)


@pytest.mark.parametrize("options", [{}, {"reward": "hand", "episode": "game"}])
def test_pettingzoo_seed_test_passes(options: dict[str, str]) -> None:
    seed_test(lambda: env(**options), num_cycles=100)


def test_api_test_passes_for_whole_games_rewarded_by_hand() -> None:
    api_test(env(rules=Rules(target=10), reward="hand", episode="game"), num_cycles=300)


def play_episode(e: raw_env, seed: int, check: bool = False) -> dict[str, float]:
    """Random legal cards to the end of the episode; the rewards each agent collected."""
    rng = random.Random(seed)
    e.reset(seed=seed)
    total = dict.fromkeys(AGENTS, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        if check:
            check_observation(e, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
    return total


def check_observation(e: raw_env, agent: str, obs: dict[str, np.ndarray]) -> None:
    """The observation says exactly what the engine's SeatView says, seats relative."""
    seat = AGENTS.index(agent)
    view = e.game.view(seat)
    o = obs["observation"]
    assert o.shape == (OBS_SIZE,) and o.dtype == np.int8
    assert bits(o[LAYOUT["hand"]]) == view.hand_mask
    assert bits(obs["action_mask"]) == view.legal_mask != 0
    order = [(seat + r) % 4 for r in range(4)]
    trick = o[LAYOUT["trick_by_seat"]].reshape(4, 52)
    for r, s in enumerate(order):
        assert bits(trick[r]) == sum(1 << c for p, c in view.trick if p == s)
    lost = o[LAYOUT["lost_by_seat"]].reshape(4, 52)
    assert [bits(x) for x in lost] == [view.lost_masks[s] for s in order]
    played = o[LAYOUT["played_by_seat"]].reshape(4, 52)
    assert sum(bits(x) for x in played) == view.played_mask
    assert list(o[LAYOUT["locks_by_seat"]]) == [view.locks[s] for s in order]
    assert list(o[LAYOUT["hand_sizes_by_seat"]]) == [view.hand_sizes[s] for s in order]
    assert list(o[LAYOUT["points_by_seat"]]) == [view.points[s] for s in order]
    assert list(o[LAYOUT["totals_by_seat"]]) == [view.totals[s] for s in order]
    voids = o[LAYOUT["voids_by_seat"]].reshape(4, 4)
    assert [sum(int(b) << i for i, b in enumerate(v)) for v in voids] == [
        view.voids[s] for s in order
    ]
    assert o[LAYOUT["trick_number"]][0] == view.trick_number
    # nothing of the other hands: their cards appear only once played or lost
    hidden = sum(e.game.hands[s] for s in range(4) if s != seat)
    assert not bits(o[: LAYOUT["voids_by_seat"].start]) & hidden
    for other in AGENTS:
        if other != agent:
            assert not e.observe(other)["action_mask"].any()
    # A trained policy sees the same numbers as a bot (from a SeatView) and as an outside
    # bot (from the arena's lockup-bot/1 turn message).
    for again in (observation_of(view), observation_from_turn(view_message(view))):
        assert again.keys() == obs.keys()
        assert all(np.array_equal(again[k], obs[k]) for k in obs)


@pytest.mark.parametrize(
    "rules", EVERY_OPTION, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}"
)
def test_observations_hold_only_the_seats_knowledge(rules: Rules) -> None:
    e = raw_env(rules=rules)
    for seed in range(6):
        play_episode(e, seed, check=True)


def test_trick_rewards_are_the_points_of_the_hand() -> None:
    e = raw_env()
    for seed in range(10):
        total = play_episode(e, seed)
        points = e.game.summaries[-1].points
        assert [total[a] for a in AGENTS] == list(points)
        assert sum(points) + e.game.summaries[-1].empty_tricks == 13  # R13


def test_hand_rewards_come_at_the_end_and_games_run_to_a_winner() -> None:
    e = raw_env(rules=Rules(target=10), reward="hand", episode="game")
    e.reset(seed=3)
    rng = random.Random(3)
    rewarded = []
    for _agent in e.agent_iter():
        term = e.last()[2]
        if term:
            e.step(None)
            continue
        hand = e.game.hand_number
        e.step(int(rng.choice(e.legal_cards())))
        if any(e.rewards.values()):
            rewarded.append(hand)
            assert e.game.hand_number == hand + 1 or e.game.is_over  # only at a hand's end
    assert e.game.is_over and e.game.winner is not None
    assert rewarded == list(range(e.game.hand_number + 1))


def test_seeds_repeat_deals_and_lockup_discards() -> None:
    runs = []
    for _ in range(2):
        e = raw_env(rules=Rules(lock_discards="upfront"))
        play_episode(e, 11)
        runs.append([list(s.lost) for s in e.game.summaries])
    assert runs[0] == runs[1] and runs[0] != [[(), (), (), ()]]
    e = raw_env()
    e.reset(seed=1)
    first = e.observe(e.agent_selection)["observation"]
    e.reset(seed=2)
    assert not np.array_equal(first, e.observe(e.agent_selection)["observation"])


def test_an_illegal_card_ends_the_game_for_env_and_raises_for_raw_env(
    caplog: pytest.LogCaptureFixture,
) -> None:
    wrapped = env()
    wrapped.reset(seed=5)
    agent = wrapped.agent_selection
    obs = wrapped.observe(agent)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    wrapped.step(illegal)
    assert "Illegal move" in caplog.text
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] == -1

    raw = raw_env()
    raw.reset(seed=5)
    before = raw.observe(raw.agent_selection)["observation"].copy()
    with pytest.raises(IllegalMove) as refused:
        raw.step(illegal)
    assert refused.value.rule in ("R4", "R5", "R6", "R7")
    assert np.array_equal(before, raw.observe(raw.agent_selection)["observation"])


def test_numpy_actions_and_the_legal_cards_helper() -> None:
    e = raw_env()
    e.reset(seed=8)
    legal = e.legal_cards()
    assert legal == cards_of(e.game.legal_mask())
    e.step(np.int64(legal[0]))
    assert e.game.trick[0][1] == legal[0]


def test_options_are_checked_and_render_shows_the_table() -> None:
    with pytest.raises(ValueError):
        raw_env(reward="game")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        raw_env(episode="match")  # type: ignore[arg-type]
    e = raw_env(render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert text is not None and "South" in text and "trick 1" in text
    e.step(e.legal_cards()[0])
    assert "trick: " in (e.render() or "")


def test_the_training_example_learns_and_its_bot_plays_in_the_arena(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parent.parent / "examples"
    sys.path.insert(0, str(examples))
    try:
        import train_policy
    finally:
        sys.path.remove(str(examples))
    weights, hands = train_policy.train(seconds=2.0, opponents="random", seed=1, lr=0.02)
    assert hands > 20 and weights.shape == (len(train_policy.FEATURES),) and weights.any()
    saved = tmp_path / "policy.npz"
    np.savez(saved, weights=weights, features=np.array(train_policy.FEATURES))
    bot = ExternalBot([sys.executable, str(examples / "policy_bot.py"), str(saved)], timeout=20)
    game = Game.new(random.Random(4), Rules())
    rng = random.Random(4)
    try:
        bot.begin_game(0, {"rules": game.rules.to_dict(), "game": "0.0"})
        while game.phase != "deal":
            if game.phase == "discard":
                game.discard_random(rng)
            elif game.turn == 0:
                view = game.view(0)
                legal, rows = train_policy.features(observation_of(view))
                greedy = int(legal[int(np.argmax(rows @ weights))])
                card = bot.choose(view)
                assert card == greedy and card in view.legal_cards
                game.play(card)
            else:
                game.play(rng.choice(game.legal_cards()))
    finally:
        bot.close()
