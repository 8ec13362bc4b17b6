"""The expert's option ``rec`` (issue 24): decisions inside a rollout chosen by a search
of their own over the deals the deciding seat cannot tell apart (recursive PIMC)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_strength_parts import RULES, _late_positions, _turns

from lockup.bots import _kernel as K
from lockup.bots import make_bot
from lockup.bots.expert import ExpertBot
from lockup.bots.kernel import (
    ROLLOUT_POLICY,
    Position,
    jit_available,
    kernel,
    search,
    view_state,
)
from lockup.engine import Game, Rules, SeatView


def _true_state(km: Any, game: Game, view: SeatView, seed: int) -> list[int]:
    """The kernel state of ``view``'s position with every hand filled in from ``game``."""
    s = view_state(view, km, ROLLOUT_POLICY, seed=seed)
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


def test_rec_card_agrees_with_the_seat_s_own_search_where_it_is_clear() -> None:
    """The card ``rec_card`` picks is the one the searching seat's own flat search (the
    same rollouts, uniform deals) finds best wherever that search finds one clearly best."""
    km = kernel()
    checked = 0
    for k, (game, view) in enumerate(_late_positions(Rules(), seed=32, left=11, n=60)):
        if view.trick_number > 9:
            continue
        flat = search(view, iterations=1500, seed=k, wgame=3.0, merge=True, jit=None)
        ranked = sorted(zip(flat.value, flat.cards, strict=True), reverse=True)
        if ranked[0][0] - ranked[1][0] < 0.4:
            continue
        pos = Position(view, seed=k, wgame=3.0, rec=(1, 1500, 1), jit=None)
        s = pos.base.copy()  # the same rules for the rollouts, every hand filled in
        for i in range(4):
            s[K.I_HAND + i] = game.hands[i]
        rows = pos.work[4 + km.SOLVE_ROWS :]
        assert km.rec_card(s, rows, pos.tables) == ranked[0][1]
        checked += 1
        if checked == 6:
            break
    assert checked >= 4, checked


def test_rec_options_reach_the_rollouts() -> None:
    _game, view = _late_positions(Rules(), seed=33, left=13, n=1)[0]
    base = Position(view, seed=1, jit=False).base
    assert base[K.I_REC] == 0
    pos = Position(view, seed=1, rec=(3, 20, 2), jit=False)
    assert (pos.base[K.I_REC], pos.base[K.I_RECN], pos.base[K.I_RECSEATS]) == (3, 20, 15)
    assert len(pos.work) == 4 + K.SOLVE_ROWS + 2
    own = Position(view, seed=1, rec=(2, 8, 1), jit=False)
    assert own.base[K.I_RECSEATS] == 1 << view.seat
    for bad in ({"rec": -1}, {"rec": 14}, {"recn": 0}, {"recn": 1001}, {"recs": 0}, {"recs": 3}):
        with pytest.raises(ValueError):
            make_bot("expert", seed=1, **bad)


@pytest.mark.parametrize("recs", [1, 2])
def test_an_expert_with_rec_plays_legal_cards_to_the_hand_s_end(recs: int) -> None:
    rng = random.Random(7 + recs)
    game = Game.new(rng, RULES[1 + recs], record=False)
    bots = [ExpertBot(seed=i, iterations=3, rec=2, recn=3, recs=recs, jit=False) for i in range(4)]
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
        moved += search(view, **kw).value != search(view, rec=(2, 6, 1), **kw).value
    assert moved >= 4


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
@pytest.mark.parametrize("recs", [1, 2])
def test_compiled_and_plain_recursive_search_agree(recs: int) -> None:
    for k, (_game, view) in enumerate(_late_positions(RULES[3], seed=35, left=13, n=4)):
        kw: dict[str, Any] = dict(iterations=4, seed=k, wgame=3.0, lam=0.03, solve=4, smode=1)
        opts: dict[str, Any] = dict(merge=True, adapt=True, eps=6, rec=(3, 4, recs))
        a = search(view, jit=False, **opts, **kw)
        b = search(view, jit=True, **opts, **kw)
        assert a.value == pytest.approx(b.value) and a.tricks == pytest.approx(b.tricks)


def test_memory_judges_a_seat_by_its_plays_in_the_whole_game() -> None:
    """With ``memory`` the expert counts, over the hands played so far, the plays of each
    seat that the ``normal`` rules would not make: at the next hand's first trick a seat
    that played at random is already rolled out as the searching seat is (``see=3``),
    where this hand's few plays alone would not tell."""
    rng = random.Random(8)
    game = Game.new(rng, Rules(), record=False)
    expert = ExpertBot(seed=1, iterations=3, lam=0.03, see=3, memory=True, jit=False)
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
            with_memory = Position(
                view, seed=1, lam=0.03, see=3, adapt=True, prior=prior, jit=False
            )
            alone = Position(view, seed=1, lam=0.03, see=3, adapt=True, jit=False)
            assert with_memory.base[K.I_SEE] == 1 | 1 << 2
            assert alone.base[K.I_SEE] == 1
            checked += 1
        bot = expert if seat == 0 else others[seat]
        game.play(bot.choose(view), seat)
        if view.trick_number >= 2:
            break
    assert checked >= 1
    # A new game starts afresh.
    fresh = Game.new(rng, Rules(), record=False)
    assert expert._remember(fresh.view(0)) == [(0, 0)] * 4


def _wide_positions(seed: int, n: int) -> list[SeatView]:
    """Views of the seat to play with at least three candidate cards once interchangeable
    cards are merged."""
    out = []
    for _game, view in _late_positions(Rules(), seed=seed, left=12, n=8 * n):
        if len(Position(view, seed=1, merge=True, jit=False).cards) >= 3:
            out.append(view)
    return out[:n]


def test_narrow_searches_the_flat_search_s_best_cards_again_with_rec() -> None:
    """``narrow=2``: the same deals as the flat search first, then its two cards of highest
    value (the cards that play the same as one of them with it) searched again with
    ``rec``, whose means the result gives."""
    views = _wide_positions(36, 4)
    assert len(views) == 4
    moved = 0
    for k, view in enumerate(views):
        kw: dict[str, Any] = dict(iterations=30, seed=k, wgame=3.0, merge=True, jit=False)
        flat = search(view, **kw)
        two = search(view, rec=(2, 4, 1), narrow=2, **kw)
        rep = Position(view, seed=1, merge=True, jit=False).rep
        ranked = sorted(zip(flat.value, flat.cards, strict=True), key=lambda x: (-x[0], x[1]))
        top = list(dict.fromkeys(rep[c] for _v, c in ranked))[:2]
        assert sorted(two.cards) == sorted(c for c in flat.cards if rep[c] in top)
        assert two.iterations == 30
        assert two.best() in two.cards
        by_card = dict(zip(flat.cards, flat.value, strict=True))
        moved += [by_card[c] for c in two.cards] != two.value
    assert moved >= 3


def test_narrow_with_no_more_candidates_than_it_keeps_is_the_recursive_search() -> None:
    for k, view in enumerate(_wide_positions(37, 3)):
        kw: dict[str, Any] = dict(iterations=12, seed=k, wgame=3.0, lam=0.03, jit=False)
        alone = search(view, rec=(2, 4, 1), **kw)
        wide = search(view, rec=(2, 4, 1), narrow=13, **kw)
        assert wide.cards == alone.cards and wide.value == alone.value
        assert search(view, narrow=2, **kw).value == search(view, **kw).value  # no rec: flat


def test_narrow_keeps_to_its_time() -> None:
    view = _wide_positions(38, 1)[0]
    result = search(view, time_limit=0.2, seed=1, rec=(2, 8, 1), narrow=2, merge=True)
    assert result.cards and all(view.legal_mask >> c & 1 for c in result.cards)
    assert result.iterations >= 1 and result.seconds < 1.0


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
def test_compiled_and_plain_narrowed_search_agree() -> None:
    for k, view in enumerate(_wide_positions(39, 3)):
        kw: dict[str, Any] = dict(iterations=6, seed=k, wgame=3.0, lam=0.03, merge=True)
        a = search(view, jit=False, rec=(2, 4, 1), narrow=2, **kw)
        b = search(view, jit=True, rec=(2, 4, 1), narrow=2, **kw)
        assert a.cards == b.cards
        assert a.value == pytest.approx(b.value) and a.tricks == pytest.approx(b.tricks)


def test_a_master_that_narrows_plays_legal_cards_and_checks_its_options() -> None:
    rng = random.Random(12)
    game = Game.new(rng, Rules(), record=False)
    bots = [make_bot("master", seed=i, iterations=3, recn=3, narrow=2, jit=False) for i in range(4)]
    assert _plays_a_hand(game, rng, bots) >= 13
    for bad in ({"narrow": -1}, {"narrow": 14}, {"nshare": 0.01}, {"nshare": 1.0}):
        with pytest.raises(ValueError):
            make_bot("master", seed=1, **bad)
    with pytest.raises(ValueError, match="flat search only"):
        search(_wide_positions(41, 1)[0], iterations=2, rec=(2, 4, 1), narrow=2, tree=4)


def test_info_key_is_what_the_seat_to_play_knows() -> None:
    """``info_key`` is the same however the unseen cards lie among the other seats, and
    changes with the seat's own hand and with every card played."""
    rng = random.Random(4)
    checked = 0
    for game, view in _late_positions(Rules(), seed=42, left=10, n=6):
        me = view.seat
        s = _true_state(K, game, view, seed=rng.getrandbits(32) | 1)
        key = K.info_key(s)
        assert 0 <= key < 1 << 62
        others = [x for x in range(4) if x != me]
        for _ in range(20):
            K.mix_others(s, me, 40)
            assert K.info_key(s) == key
        moved = list(s)
        a, b = others[0], others[1]
        if moved[a] and moved[b]:  # one card more in one hidden hand, one fewer in another
            c = (moved[a] & -moved[a]).bit_length() - 1
            moved[a] ^= 1 << c
            moved[b] ^= 1 << c
            assert K.info_key(moved) != key
        swapped = list(s)  # the seat's own card exchanged with a hidden one
        mine = (s[me] & -s[me]).bit_length() - 1
        theirs = (s[a] & -s[a]).bit_length() - 1
        swapped[me] ^= (1 << mine) | (1 << theirs)
        swapped[a] ^= (1 << mine) | (1 << theirs)
        assert K.info_key(swapped) != key
        after = list(s)
        K.play(after, K.lowest(K.legal(after)))
        assert K.info_key(after) != key
        checked += 1
    assert checked == 6


def test_rcache_searches_a_state_of_knowledge_once() -> None:
    """With ``rcache`` a decision is searched the first time its seat's state of knowledge
    comes up; in any deal that seat cannot tell apart the same card is played at once,
    without a search (the generator does not move), and another state is searched anew."""
    km = K
    checked = 0
    for k, (game, view) in enumerate(_late_positions(Rules(), seed=43, left=11, n=30)):
        if len(Position(view, seed=1, merge=True, jit=False).cards) < 2:
            continue
        pos = Position(view, seed=k, wgame=3.0, rec=(1, 6, 1), rcache=1, jit=False)
        assert len(pos.tables.rc_key) == K.RC_SIZE
        rows = pos.work[4 + km.SOLVE_ROWS :]
        s = list(pos.base)  # the search's settings (``recn`` deals), every hand filled in
        for i in range(4):
            s[K.I_HAND + i] = game.hands[i]
        assert s[K.I_RECN] == 6
        first = km.rec_card(s, rows, pos.tables)
        assert view.legal_mask >> first & 1
        assert sum(1 for x in pos.tables.rc_key if x >= 0) == 1
        for _ in range(5):
            km.mix_others(s, view.seat, 40)
            rng_before = s[K.I_RNG]
            assert km.rec_card(s, rows, pos.tables) == first
            assert s[K.I_RNG] == rng_before
        assert sum(1 for x in pos.tables.rc_key if x >= 0) == 1
        plain = Position(view, seed=k, wgame=3.0, rec=(1, 6, 1), jit=False)
        assert len(plain.tables.rc_key) == 1
        rng_before = s[K.I_RNG]
        km.rec_card(s, rows, plain.tables)
        assert s[K.I_RNG] != rng_before  # without the cache every call searches
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_rcache_reaches_the_search_from_the_bot() -> None:
    assert make_bot("expert", seed=1, rcache=1).search_options()["rcache"] == 1
    assert make_bot("expert", seed=1).search_options()["rcache"] == 0
    for bad in (-1, 3, True):
        with pytest.raises(ValueError, match="rcache"):
            make_bot("expert", seed=1, rcache=bad)
    rng = random.Random(13)
    game = Game.new(rng, Rules(), record=False)
    bots = [
        ExpertBot(seed=i, iterations=3, rec=2, recn=3, rcache=1 + i % 2, jit=False)
        for i in range(4)
    ]
    assert _plays_a_hand(game, rng, bots) >= 13


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
@pytest.mark.parametrize("rcache", [1, 2])
def test_compiled_and_plain_cached_recursive_search_agree(rcache: int) -> None:
    for k, (_game, view) in enumerate(_late_positions(RULES[2], seed=44, left=13, n=4)):
        kw: dict[str, Any] = dict(iterations=8, seed=k, wgame=5.0, lam=0.03, see=3, merge=True)
        a = search(view, jit=False, rec=(2, 4, 1), rcache=rcache, **kw)
        b = search(view, jit=True, rec=(2, 4, 1), rcache=rcache, **kw)
        assert a.cards == b.cards
        assert a.value == pytest.approx(b.value) and a.tricks == pytest.approx(b.tricks)


def test_rcache_2_adds_a_deal_to_a_state_at_every_visit() -> None:
    """With ``rcache=2`` the first visit of a state searches ``recn`` deals into that
    state's sums; each later visit adds one deal (the generator moves, the sums grow) and
    plays the card of highest sum."""
    checked = 0
    for k, (game, view) in enumerate(_late_positions(Rules(), seed=45, left=11, n=30)):
        if len(Position(view, seed=1, merge=True, jit=False).cards) < 2:
            continue
        pos = Position(view, seed=k, wgame=3.0, rec=(1, 6, 1), rcache=2, jit=False)
        rows = pos.work[4 + K.SOLVE_ROWS :]
        s = list(pos.base)
        for i in range(4):
            s[K.I_HAND + i] = game.hands[i]
        K.rec_card(s, rows, pos.tables)
        (slot,) = [h for h, x in enumerate(pos.tables.rc_key) if x >= 0]
        sums = pos.tables.rc_sum
        for _ in range(4):
            before = list(sums[52 * slot : 52 * slot + 52])
            K.mix_others(s, view.seat, 40)
            rng_before = s[K.I_RNG]
            card = K.rec_card(s, rows, pos.tables)
            assert s[K.I_RNG] != rng_before
            now = sums[52 * slot : 52 * slot + 52]
            changed = [c for c in range(52) if now[c] != before[c]]
            assert len(changed) >= 2 and all(view.legal_mask >> c & 1 for c in changed)
            assert card == max(changed, key=lambda c: (now[c], -c))
        assert sum(1 for x in pos.tables.rc_key if x >= 0) == 1
        checked += 1
        if checked == 3:
            break
    assert checked == 3
