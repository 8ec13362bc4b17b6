"""The expert's search parts of issue 13: the exact endgame, interchangeable cards, master."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from lockup.bots import LEVELS, make_bot
from lockup.bots import _kernel as K
from lockup.bots.expert import MASTER_REC, MASTER_TIME_LIMIT, ExpertBot, MasterBot
from lockup.bots.kernel import Position, interchangeable, jit_available, search, view_state
from lockup.cards import parse_card
from lockup.engine import Game, Rules, SeatView

RULES = [
    Rules(),
    Rules(picture_exception="any-club"),
    Rules(lock_discards="upfront"),
    Rules(picture_exception="any-club", lock_discards="upfront"),
]


def _late_positions(rules: Rules, seed: int, left: int, n: int) -> list[tuple[Game, SeatView]]:
    """Positions (the game, the view of the seat to play) with at most ``left`` tricks to go."""
    rng = random.Random(seed)
    out: list[tuple[Game, SeatView]] = []
    normal = make_bot("normal")
    while len(out) < n:
        game = Game.new(rng, rules, record=False)
        while not game.hand_over:
            if game.discard_due is not None:
                game.discard_random(rng)
                continue
            view = game.view(game.turn)
            if 13 - view.trick_number <= left and view.legal_mask & (view.legal_mask - 1):
                out.append((game.clone(), view))
            game.play(normal.choose(view), game.turn)
    return out[:n]


def _turns(game: Game, rng: random.Random) -> Iterator[SeatView]:
    """The view of the seat to play at each turn until the hand ends (the caller plays;
    lockup discards are made here at random)."""
    while not game.hand_over:
        if game.discard_due is not None:
            game.discard_random(rng)
            continue
        yield game.view(game.turn)


def _brute(s: list[int], t: Any) -> float:
    """Plain minimax with every legal card tried (no pruning, no table)."""
    if s[K.I_TURN] < 0:
        return float(K.utility(s, t.me, t.totals, t.target, t.wgame, t.gtab))
    seat = s[K.I_TURN]
    if seat != t.me and s[K.I_SMODE]:
        cards = [K.policy(s)]
    else:
        lg = K.legal(s)
        cards = [c for c in range(52) if lg >> c & 1]
    values = []
    for c in cards:
        nxt = list(s)
        K.play(nxt, c)
        values.append(_brute(nxt, t))
    return max(values) if seat == t.me else min(values)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}")
@pytest.mark.parametrize("smode", [0, 1])
def test_the_endgame_solver_is_exact(rules: Rules, smode: int) -> None:
    """On the true deal, with 3 tricks to go: alpha-beta with its table and its merged
    cards gives the value plain minimax gives, game term included."""
    for k, (game, view) in enumerate(_late_positions(rules, seed=smode + 7, left=3, n=12)):
        pos = Position(view, seed=k, jit=False, solve=3, smode=smode, wgame=2.0)
        t = pos.tables
        st = view_state(view, K, {**pos_policy()}, seed=k)
        for s in range(4):
            st[K.I_HAND + s] = game.hands[s]
        st[K.I_SOLVE] = 3
        st[K.I_SMODE] = smode
        st[K.I_SALT] = 12345 + k
        stack = [[0] * K.STATE_SIZE for _ in range(K.SOLVE_ROWS)]
        for c in view.legal_cards:
            root = list(st)
            K.play(root, c)
            stack[0] = list(root)
            assert K.solve(stack, t) == pytest.approx(_brute(root, t)), (k, c)


def pos_policy() -> dict[str, int]:
    from lockup.bots.kernel import DEFAULT_POLICY

    return dict(DEFAULT_POLICY)


def test_deterministic_discards_follow_the_hand() -> None:
    s = [0] * K.STATE_SIZE
    hand = (1 << 5) | (1 << 17) | (1 << 30) | (1 << 44)
    picks = set()
    for salt in range(1, 60):
        s[0] = hand
        s[K.I_SALT] = salt
        s[K.I_RNG] = 99
        K._discard(s, 0)
        lost = hand ^ s[0]
        assert lost & hand == lost and bin(lost).count("1") == 1
        assert s[K.I_RNG] == 99  # no random number drawn
        picks.add(lost)
    assert len(picks) == 4  # every card can go


def test_interchangeable_cards() -> None:
    game = Game(Rules(), dealer=3)  # South leads
    game.deal(
        [
            [parse_card(c) for c in "2D 3D 4D 6D 9D TD JD QD 2H 3H 5S 6S 7S".split()],
            [parse_card(c) for c in "5D 7D 8D KD AD 4H 5H 6H 2S 3S 4S 8S 9S".split()],
            [parse_card(c) for c in "7H 8H 9H TH JH QH KH AH TS JS QS KS AS".split()],
            [parse_card(c) for c in "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC".split()],
        ]
    )
    rep = interchangeable(game.view(0))
    d = {x: parse_card(x) for x in "2D 3D 4D 6D 9D TD JD QD 2H 3H 5S 6S 7S".split()}
    assert rep[d["2D"]] == rep[d["3D"]] == rep[d["4D"]] == d["4D"]
    assert rep[d["6D"]] == d["6D"]  # the 5D is out
    assert rep[d["9D"]] == rep[d["TD"]] == d["TD"]  # the ten is no picture
    assert rep[d["JD"]] == d["JD"] and rep[d["QD"]] == d["QD"]  # pictures stand alone
    assert rep[d["2H"]] == rep[d["3H"]] == d["3H"]
    assert rep[d["5S"]] == rep[d["6S"]] == rep[d["7S"]] == d["7S"]
    # Merged or not, every legal card gets a value; merged cards share theirs.
    r = search(game.view(0), iterations=20, seed=1, jit=False, merge=True)
    assert sorted(r.cards) == sorted(d.values())
    v = dict(zip(r.cards, r.value, strict=True))
    assert v[d["2D"]] == v[d["4D"]] and v[d["5S"]] == v[d["7S"]]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}")
def test_expert_with_the_solver_plays_legal_cards(rules: Rules) -> None:
    bot = ExpertBot(seed=1, iterations=3, solve=3, merge=True, jit=False)
    rng = random.Random(4)
    game = Game.new(rng, rules, record=False)
    for view in _turns(game, rng):
        c = bot.choose(view)
        assert view.legal_mask >> c & 1
        game.play(c, game.turn)


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
def test_compiled_and_plain_solver_agree() -> None:
    for k, (_game, view) in enumerate(_late_positions(Rules(), seed=3, left=4, n=6)):
        a = search(view, iterations=6, seed=k, solve=4, merge=True, jit=False, wgame=1.0)
        b = search(view, iterations=6, seed=k, solve=4, merge=True, jit=True, wgame=1.0)
        assert a.value == pytest.approx(b.value) and a.tricks == pytest.approx(b.tricks)


def test_master_level() -> None:
    assert "master" in LEVELS and list(LEVELS)[-1] == "master"
    bot = make_bot("master", seed=1)
    assert isinstance(bot, MasterBot) and bot.name == "master"
    assert bot.time_limit == MASTER_TIME_LIMIT and bot.iterations is None
    assert bot.rec == MASTER_REC == 2
    quick = make_bot("master", seed=1, iterations=4)
    assert quick.time_limit is None and quick.iterations == 4
    # Its rollouts choose its own first two decisions by a search of their own (rec=2):
    # the same search as the expert's with rec=2, not the expert's flat one.
    game = Game.new(random.Random(8), record=False)
    view = game.view(game.turn)
    quick.choose(view)
    rec2 = make_bot("expert", seed=1, iterations=4, rec=2)
    rec2.choose(view)
    flat = make_bot("expert", seed=1, iterations=4)
    flat.choose(view)
    assert quick.last is not None and rec2.last is not None and flat.last is not None
    assert quick.last.value == rec2.last.value and quick.last.value != flat.last.value
    assert make_bot("master", seed=1, rec=0).rec == 0
    for bad in ({"solve": 9}, {"smode": 2}, {"bravery": 1}, {"tmode": 3}, {"tree": -1}):
        with pytest.raises(ValueError):
            make_bot("master", seed=1, **bad)


def test_the_expert_rolls_out_normal_others_and_a_bolder_self() -> None:
    """The others in the expert's rollouts play exactly the ``normal`` rules; its own seat
    plays them bolder; ``riskme``/``lead_lowme`` -1 mean "as the others" (normal's own
    options keep working)."""
    from lockup.bots.kernel import DEFAULT_POLICY, ROLLOUT_POLICY, check_policy

    assert {k: ROLLOUT_POLICY[k] for k in ("risk", "duck", "lead_low")} == {
        k: DEFAULT_POLICY[k] for k in ("risk", "duck", "lead_low")
    }
    assert ExpertBot(seed=1).policy == check_policy(ROLLOUT_POLICY)
    same = check_policy({"riskme": 600, "lead_lowme": 0})
    bold = check_policy({"riskme": 900, "lead_lowme": 1, "duckme": 13})
    differs = 0
    for rules in RULES[:2]:
        for _game, view in _late_positions(rules, seed=11, left=13, n=40):
            a = view_state(view, K, check_policy({}))
            b = view_state(view, K, same)
            c = view_state(view, K, bold)
            assert K.policy(a) == K.policy(b)
            a[K.I_ME] = c[K.I_ME] = (view.seat + 1) % 4  # searching seat elsewhere
            assert K.policy(a) == K.policy(c)
            c[K.I_ME] = view.seat
            differs += K.policy(a) != K.policy(c)
    assert differs > 0
    with pytest.raises(ValueError):
        check_policy({"riskme": -2})
    with pytest.raises(ValueError):
        check_policy({"lead_low": -1})


def test_adapt_rolls_out_unexplained_seats_boldly() -> None:
    """Against three plain PIMC players, the seats the normal rules fail to explain are
    rolled out by the expert's own bolder settings (``adapt``); without it, none are."""
    from lockup.arena.pimc import PlainPIMCBot

    rng = random.Random(1)
    game = Game.new(rng, record=False)
    others = [PlainPIMCBot(seed=i, iterations=20) for i in range(4)]
    flagged = 0
    for view in _turns(game, rng):
        if game.turn == 0 and view.trick_number >= 8 and view.legal_mask & (view.legal_mask - 1):
            on = Position(view, seed=1, lam=0.03, adapt=True, jit=False)
            off = Position(view, seed=1, lam=0.03, adapt=False, jit=False)
            assert off.base[K.I_BOLD] == 0
            flagged |= on.base[K.I_BOLD]
            assert not on.base[K.I_BOLD] & 1  # never its own seat
        game.play(others[game.turn].choose(view), game.turn)
    assert flagged


# ------------------------------------------------------------------ the tree search (tree=)


@pytest.mark.parametrize("tmode", [0, 2])
@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}")
def test_the_tree_search_plays_legal_cards_and_counts_every_descent(
    rules: Rules, tmode: int
) -> None:
    bot = ExpertBot(seed=2, iterations=4, tree=3, tmode=tmode, merge=False, jit=False)
    rng = random.Random(6)
    game = Game.new(rng, rules, record=False)
    searched = 0
    for view in _turns(game, rng):
        c = bot.choose(view)
        assert view.legal_mask >> c & 1
        if bot.last is not None:
            r = bot.last
            assert r.visits is not None and sum(r.visits) == 12 == r.hands
            ranked = zip(r.visits, r.value, [-x for x in r.cards], r.cards, strict=True)
            assert c == max(ranked)[3]
            searched += 1
        game.play(c, game.turn)
    assert searched > 3


def test_the_tree_search_tries_every_candidate_and_stops_growing_when_full() -> None:
    view = next(
        v
        for _g, v in _late_positions(Rules(), seed=8, left=13, n=30)
        if v.legal_mask.bit_count() >= 3
    )
    pos = Position(view, seed=3, tree=5, jit=False)  # tmode 0
    n = len(pos.cards)
    pos._tree = ([-1] * (52 * 4), [0.0] * (K.TREE_STATS * 4), [1, 4, 1000, 0], [0] * 64)
    pos.run(n)
    r = pos.result()
    assert pos._tree[2][0] == 4  # the root and three nodes, then no more
    assert r.visits is not None and sum(r.visits) == 5 * n == r.hands
    assert sum(1 for v in r.visits if v) == 3  # the three candidates that got a node
    roomy = search(view, iterations=n, seed=3, tree=5, jit=False)
    assert roomy.visits is not None and all(v >= 1 for v in roomy.visits)


def test_a_tree_per_deal_searches_every_candidate_in_every_deal() -> None:
    views = [v for _g, v in _late_positions(Rules(), seed=10, left=13, n=20)]
    for view in [v for v in views if v.legal_mask.bit_count() >= 3][:3]:
        n = view.legal_mask.bit_count()
        r = search(view, iterations=3, seed=1, tree=2, tmode=1, jit=False, wgame=0.0)
        assert r.visits is not None and sum(r.visits) == 3 * n == r.hands  # at least n each
        assert all(v == 3 for v in r.visits)  # one descent per candidate and deal
        more = search(view, iterations=2, seed=1, tree=4 * n, tmode=1, jit=False, wgame=0.0)
        assert more.visits is not None and sum(more.visits) == 8 * n
        assert all(0 <= t <= 13 for t in more.tricks) and more.value == more.tricks


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
@pytest.mark.parametrize("tmode", [0, 1, 2])
def test_compiled_and_plain_tree_search_agree(tmode: int) -> None:
    for k, (_game, view) in enumerate(_late_positions(Rules(), seed=9, left=13, n=5)):
        kw: dict[str, Any] = dict(iterations=5, seed=k, wgame=3.0, lam=0.03, solve=4, smode=1)
        a = search(view, jit=False, tree=4, tmode=tmode, merge=True, adapt=True, **kw)
        b = search(view, jit=True, tree=4, tmode=tmode, merge=True, adapt=True, **kw)
        assert a.visits == b.visits
        assert a.value == pytest.approx(b.value) and a.tricks == pytest.approx(b.tricks)


# ------------------------------------------------------------------ the learned policy (learn=)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}")
def test_the_learned_policy_plays_the_legal_card_of_highest_score(rules: Rules) -> None:
    """``learned`` picks a legal card, the one of highest ``LEARNED_W . card_features``;
    the features mark the ``normal`` rules' card and the bolder rules' card, and working
    them out leaves the position as it was."""
    from lockup.bots.kernel import DEFAULT_POLICY, ROLLOUT_POLICY

    normal = make_bot("normal")
    seen = 0
    for _game, view in _late_positions(rules, seed=21, left=13, n=60):
        s = view_state(view, K, ROLLOUT_POLICY)
        before = list(s)
        card = K.learned(s)
        assert s == before and view.legal_mask >> card & 1
        rule, bold = K.rule_cards(s)
        assert s == before
        assert rule == normal.choose(view)
        assert bold == K.policy(view_state(view, K, ROLLOUT_POLICY))
        assert rule == K.policy(view_state(view, K, DEFAULT_POLICY))
        hand = view.hand_mask
        unknown = K.FULL & ~(s[K.I_PLAYED] | s[K.I_LOST] | hand)
        ms = K.masters(hand, unknown)
        scores = {}
        for c in (c for c in range(52) if view.legal_mask >> c & 1):
            out = K._zeros(K.N_FEATURES)
            K.card_features(s, c, rule, bold, unknown, ms, out)
            assert out[0] == (c == rule) and out[1] == (c == bold)
            assert out[16] == (c < 13)  # a club
            scores[c] = sum(w * f for w, f in zip(K.LEARNED_W, out, strict=True))
        assert scores[card] == max(scores.values())
        assert card == min(c for c, v in scores.items() if v == scores[card])
        seen += 1
    assert seen == 60


def test_learn_rolls_out_the_searching_seat_or_every_seat_by_the_learned_policy() -> None:
    from lockup.bots.kernel import ROLLOUT_POLICY

    _game, view = _late_positions(Rules(), seed=22, left=13, n=1)[0]
    assert Position(view, seed=1, jit=False).base[K.I_LEARN] == 0
    assert Position(view, seed=1, learn=1, jit=False).base[K.I_LEARN] == 1 << view.seat
    assert Position(view, seed=1, learn=2, jit=False).base[K.I_LEARN] == 15
    # A rollout plays the learned card for a seat of I_LEARN, the rules' card otherwise.
    s = view_state(view, K, ROLLOUT_POLICY)
    for bits, expect in ((0, K.policy(s)), (1 << view.seat, K.learned(s))):
        s[K.I_LEARN] = bits
        assert K.rollout_card(s) == expect
    for bad in (-1, 4, True, 1.5):
        with pytest.raises(ValueError):
            make_bot("expert", seed=1, learn=bad)
    rng = random.Random(4)
    game = Game.new(rng, Rules(lock_discards="upfront"), record=False)
    bots = [ExpertBot(seed=i, iterations=6, learn=1 + i % 2, jit=False) for i in range(4)]
    for v in _turns(game, rng):
        c = bots[game.turn].choose(v)
        assert v.legal_mask >> c & 1
        game.play(c, game.turn)


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
@pytest.mark.parametrize("learn", [1, 2])
def test_compiled_and_plain_learned_rollouts_agree(learn: int) -> None:
    for k, (_game, view) in enumerate(_late_positions(RULES[3], seed=23, left=13, n=5)):
        kw: dict[str, Any] = dict(iterations=5, seed=k, wgame=3.0, lam=0.03, solve=4, smode=1)
        a = search(view, jit=False, learn=learn, merge=True, adapt=True, eps=6, **kw)
        b = search(view, jit=True, learn=learn, merge=True, adapt=True, eps=6, **kw)
        assert a.value == pytest.approx(b.value) and a.tricks == pytest.approx(b.tricks)


# ------------------------------------------------------------------ the clairvoyant policy (see=)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}")
@pytest.mark.parametrize("duck", [1, 2, 3])
def test_the_clairvoyant_rollout_plays_as_pimc_plus_playout(rules: Rules, duck: int) -> None:
    """``see_card`` reads the whole (sampled) deal and plays the club-aware policy that
    ``pimc+`` plays out with (written apart, in :mod:`lockup.arena.pimc_plus`): the same
    legal card in every position, the state left as it was."""
    from lockup.arena.pimc_plus import club_aware
    from lockup.bots.kernel import ROLLOUT_POLICY

    differs = 0
    for game, view in _late_positions(rules, seed=31 + duck, left=13, n=150):
        s = view_state(view, K, ROLLOUT_POLICY)
        for i in range(4):
            s[K.I_HAND + i] = game.hands[i]
        s[K.I_SEEDUCK] = duck
        before = list(s)
        card = K.see_card(s)
        assert s == before and view.legal_mask >> card & 1
        theirs = club_aware(
            duck,
            [s[K.I_HAND + i] for i in range(4)],
            [s[K.I_LOCK + i] for i in range(4)],
            s[K.I_TURN],
            s[K.I_NTR],
            s[K.I_NPL],
            s[K.I_LED],
            s[K.I_BEST],
            s[K.I_CLUBS],
            s[K.I_PIC],
            bool(s[K.I_ANY]),
        )
        assert card == theirs, (view.to_dict(), card, theirs)
        differs += card != K.policy(s)
    assert differs > 10  # it is not the rules' policy under another name


def test_see_rolls_out_the_searching_seat_or_every_seat_clairvoyantly() -> None:
    from lockup.bots.kernel import ROLLOUT_POLICY

    _game, view = _late_positions(Rules(), seed=24, left=13, n=1)[0]
    base = Position(view, seed=1, jit=False).base
    assert base[K.I_SEE] == 0 and base[K.I_SEEDUCK] == 2
    assert Position(view, seed=1, see=1, jit=False).base[K.I_SEE] == 1 << view.seat
    assert Position(view, seed=1, see=2, see_duck=3, jit=False).base[K.I_SEE] == 15
    assert Position(view, seed=1, see=2, see_duck=3, jit=False).base[K.I_SEEDUCK] == 3
    # A seat of I_SEE plays see_card, before I_LEARN; the others as before.
    s = view_state(view, K, ROLLOUT_POLICY)
    s[K.I_SEEDUCK] = 2
    me = 1 << view.seat
    for see, learn, expect in ((0, 0, K.policy(s)), (0, me, K.learned(s)), (me, me, K.see_card(s))):
        s[K.I_SEE], s[K.I_LEARN] = see, learn
        assert K.rollout_card(s) == expect
    for bad in ({"see": -1}, {"see": 4}, {"see": True}, {"sduck": 0}, {"sduck": 14}):
        with pytest.raises(ValueError):
            make_bot("expert", seed=1, **bad)
    rng = random.Random(5)
    game = Game.new(rng, Rules(picture_exception="any-club"), record=False)
    bots = [ExpertBot(seed=i, iterations=6, see=1 + i % 2, jit=False) for i in range(4)]
    for v in _turns(game, rng):
        c = bots[game.turn].choose(v)
        assert v.legal_mask >> c & 1
        game.play(c, game.turn)


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
@pytest.mark.parametrize("see", [1, 2])
def test_compiled_and_plain_clairvoyant_rollouts_agree(see: int) -> None:
    for k, (_game, view) in enumerate(_late_positions(RULES[3], seed=25, left=13, n=5)):
        kw: dict[str, Any] = dict(iterations=5, seed=k, wgame=3.0, lam=0.03, solve=4, smode=1)
        a = search(view, jit=False, see=see, merge=True, adapt=True, eps=6, **kw)
        b = search(view, jit=True, see=see, merge=True, adapt=True, eps=6, **kw)
        assert a.value == pytest.approx(b.value) and a.tricks == pytest.approx(b.tricks)


def test_see_3_rolls_out_clairvoyantly_itself_and_the_seats_the_rules_do_not_explain() -> None:
    """With ``see=3`` a seat whose plays the ``normal`` rules fail to explain (as for
    ``adapt``) is rolled out by the clairvoyant policy, like the searching seat; a seat
    that plays by the rules keeps them."""
    rng = random.Random(6)
    game = Game.new(rng, Rules(), record=False)
    normal = make_bot("normal")
    wild = make_bot("random", seed=3)
    checked = 0
    for view in _turns(game, rng):
        me = game.turn
        if me == 0 and view.trick_number >= 6 and view.legal_mask & (view.legal_mask - 1):
            pos = Position(view, seed=1, lam=0.03, adapt=True, see=3, jit=False)
            unexplained = {s for s in range(4) if pos.lams[s] == 1.0 and s != me}
            assert 2 in unexplained and 1 not in unexplained and 3 not in unexplained
            assert pos.base[K.I_SEE] == (1 << me) | (1 << 2)
            assert pos.base[K.I_BOLD] == 1 << 2
            # learn=3: the same seats by the learned policy; see=1 keeps itself clairvoyant.
            mixed = Position(view, seed=1, lam=0.03, see=1, learn=3, jit=False)
            assert mixed.base[K.I_SEE] == 1 << me
            assert mixed.base[K.I_LEARN] == 1 << 2
            s = list(mixed.base)
            for i in range(4):
                s[K.I_HAND + i] = game.hands[i]
            for seat, expect in ((me, K.see_card), (1, K.policy), (2, K.learned)):
                s[K.I_TURN] = seat
                assert K.rollout_card(s) == expect(s)
            checked += 1
        bot = wild if me == 2 else normal
        game.play(bot.choose(view), me)
    assert checked >= 2, checked
