"""The option ``rec`` (the ``master`` level's): the searching seat's decisions inside a
rollout chosen by a search of their own over the deals it cannot tell apart (recursive
PIMC); and the expert's memory of how each seat played in the game's earlier hands."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_strength_parts import RULES, _late_positions, _turns

from lockup.bots import _kernel as K
from lockup.bots import make_bot
from lockup.bots.expert import MAX_REC, ExpertBot
from lockup.bots.kernel import DEFAULT_POLICY, Position, jit_available, search, view_state
from lockup.engine import Game, Rules, SeatView


def _true_state(km: Any, game: Game, view: SeatView, seed: int) -> list[int]:
    """The kernel state of ``view``'s position with every hand filled in from ``game``."""
    s = view_state(view, km, DEFAULT_POLICY, seed=seed)
    for i in range(4):
        s[K.I_HAND + i] = game.hands[i]
    return s


def _voids_kept(s: list[int]) -> bool:
    for seat in range(4):
        for su in range(4):
            if (s[K.I_VOIDS] >> (4 * seat + su)) & 1 and (s[seat] >> (13 * su)) & 8191:
                return False
    return True


def test_mixing_keeps_what_the_seat_knows_and_reaches_the_uniform_deals() -> None:
    """``mix_others`` keeps the seat's hand, every hand's size, the others' cards together
    and every void shown; the deals it walks to hold each card in each seat about as
    often as the exact uniform sampler's (the deals the seat cannot tell apart)."""
    rng = random.Random(3)
    found = 0
    for game, view in _late_positions(Rules(), seed=31, left=9, n=40):
        if not any(view.voids[s] & 15 for s in range(4) if s != view.seat):
            continue
        found += 1
        me = view.seat
        s = _true_state(K, game, view, seed=rng.getrandbits(32) | 1)
        others = [x for x in range(4) if x != me]
        union = sum(s[x] for x in others)
        sizes = [bin(s[x]).count("1") for x in range(4)]
        assert _voids_kept(s)
        counts_mix = [[0] * 52 for _ in range(4)]
        counts_uni = [[0] * 52 for _ in range(4)]
        pos = Position(view, seed=5, jit=False)
        det = list(pos.base)
        n = 1500
        for _ in range(n):
            K.mix_others(s, me, 4 * sum(sizes[x] for x in others))
            assert s[me] == view.hand_mask
            assert [bin(s[x]).count("1") for x in range(4)] == sizes
            assert sum(s[x] for x in others) == union
            assert _voids_kept(s)
            K.sample_hidden(det, pos.tables, [0] * 13)
            for x in others:
                for c in range(52):
                    counts_mix[x][c] += (s[x] >> c) & 1
                    counts_uni[x][c] += (det[x] >> c) & 1
        worst = max(abs(counts_mix[x][c] - counts_uni[x][c]) / n for x in others for c in range(52))
        assert worst < 0.1, worst
        if found == 3:
            break
    assert found == 3


def test_rec_card_agrees_with_the_seat_s_own_search_where_it_is_clear(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The card ``rec_card`` picks, given many deals, is the one the searching seat's own
    flat search (the same rollouts, uniform deals) finds best wherever that search finds
    one clearly best."""
    monkeypatch.setattr(K, "REC_DEALS", 1500)  # the plain kernel reads it at each call
    checked = 0
    for k, (game, view) in enumerate(_late_positions(Rules(), seed=32, left=11, n=60)):
        if view.trick_number > 9:
            continue
        flat = search(view, iterations=1500, seed=k, wgame=3.0, merge=True, jit=None)
        ranked = sorted(zip(flat.value, flat.cards, strict=True), reverse=True)
        if ranked[0][0] - ranked[1][0] < 0.4:
            continue
        pos = Position(view, seed=k, wgame=3.0, rec=1, jit=False)
        s = list(pos.base)  # the same rules for the rollouts, every hand filled in
        for i in range(4):
            s[K.I_HAND + i] = game.hands[i]
        assert K.rec_card(s, pos.work[4:], pos.tables) == ranked[0][1]
        checked += 1
        if checked == 6:
            break
    assert checked >= 4, checked


def test_rec_reaches_the_rollouts() -> None:
    _game, view = _late_positions(Rules(), seed=33, left=13, n=1)[0]
    base = Position(view, seed=1, jit=False).base
    assert base[K.I_REC] == 0
    pos = Position(view, seed=1, rec=3, jit=False)
    assert pos.base[K.I_REC] == 3 and len(pos.work) == 4 + 2
    assert make_bot("expert", seed=1).rec == 0 and make_bot("master", seed=1).rec == 2
    for bad in (-1, MAX_REC + 1, True, 1.5):
        with pytest.raises(ValueError):
            make_bot("expert", seed=1, rec=bad)
    for gone in ({"recn": 8}, {"recs": 2}, {"rcache": 1}, {"narrow": 2}):
        with pytest.raises(ValueError):
            make_bot("master", seed=1, **gone)


def test_an_expert_with_rec_plays_legal_cards_to_the_hand_s_end() -> None:
    rng = random.Random(8)
    game = Game.new(rng, RULES[3], record=False)
    bots = [ExpertBot(seed=i, iterations=3, rec=2, jit=False) for i in range(4)]
    assert _plays_a_hand(game, rng, bots) >= 13


def _plays_a_hand(game: Game, rng: random.Random, bots: list[Any]) -> int:
    """Let ``bots`` (one a seat) play the hand out, checking each card is legal; the plays."""
    plays = 0
    for v in _turns(game, rng):
        c = bots[game.turn].choose(v)
        assert v.legal_mask >> c & 1
        game.play(c, game.turn)
        plays += 1
    return plays


def test_rec_changes_the_values_it_searches() -> None:
    """Searched decisions are not the rollout policy's under another name: over a few
    positions the values move."""
    moved = 0
    for k, (_game, view) in enumerate(_late_positions(Rules(), seed=34, left=12, n=6)):
        kw: dict[str, Any] = dict(iterations=40, seed=k, wgame=3.0, jit=False)
        moved += search(view, **kw).value != search(view, rec=2, **kw).value
    assert moved >= 4


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
def test_compiled_and_plain_recursive_search_agree() -> None:
    for k, (_game, view) in enumerate(_late_positions(RULES[3], seed=35, left=13, n=4)):
        kw: dict[str, Any] = dict(
            iterations=4, seed=k, wgame=3.0, lam=0.03, greedy=True, merge=True
        )
        a = search(view, jit=False, rec=3, **kw)
        b = search(view, jit=True, rec=3, **kw)
        assert a.value == b.value and a.tricks == b.tricks


def test_memory_judges_a_seat_by_its_plays_in_the_whole_game() -> None:
    """The expert counts, over the hands played so far, the plays of each seat that the
    ``normal`` rules would not make: at the next hand's first trick a seat that played at
    random is already rolled out as the searching seat is (greedily), where this hand's
    few plays alone would not tell."""
    rng = random.Random(8)
    game = Game.new(rng, Rules(), record=False)
    expert = ExpertBot(seed=1, iterations=3, jit=False)
    others = {1: make_bot("normal"), 2: make_bot("random", seed=4), 3: make_bot("normal")}
    while not game.hand_over:
        if game.discard_due is not None:
            game.discard_random(rng)
            continue
        seat = game.turn
        view = game.view(seat)
        bot = expert if seat == 0 else others[seat]
        game.play(bot.choose(view), seat)
    game.deal(rng=rng)
    checked = 0
    for view in _turns(game, rng):
        seat = game.turn
        if seat == 0 and view.legal_mask & (view.legal_mask - 1) and view.trick_number < 2:
            prior = expert._remember(view)
            assert prior[2][1] > 0.15 * prior[2][0] >= 0.6
            assert prior[1][1] <= 0.15 * prior[1][0] and prior[1][0] >= 4
            with_memory = Position(view, seed=1, lam=0.03, greedy=True, prior=prior, jit=False)
            alone = Position(view, seed=1, lam=0.03, greedy=True, jit=False)
            assert with_memory.base[K.I_GREEDY] == 1 | 1 << 2
            assert alone.base[K.I_GREEDY] == 1
            checked += 1
        bot = expert if seat == 0 else others[seat]
        game.play(bot.choose(view), seat)
        if view.trick_number >= 2:
            break
    assert checked >= 1
    # A new game starts afresh.
    fresh = Game.new(rng, Rules(), record=False)
    assert expert._remember(fresh.view(0)) == [(0, 0)] * 4
