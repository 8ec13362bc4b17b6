"""The expert's search parts: interchangeable cards, its rollout policies, the master level."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from lockup.bots import LEVELS, make_bot
from lockup.bots import _kernel as K
from lockup.bots.expert import MASTER_REC, MASTER_TIME_LIMIT, ExpertBot, MasterBot
from lockup.bots.kernel import (
    DEFAULT_POLICY,
    GREEDY_LAM,
    Position,
    check_policy,
    interchangeable,
    jit_available,
    search,
    view_state,
)
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
    for bad in ({"rec": 14}, {"rec": -1}, {"rec": True}, {"bravery": 1}, {"solve": 3}):
        with pytest.raises(ValueError):
            make_bot("master", seed=1, **bad)


def test_the_rollouts_others_play_the_normal_rules() -> None:
    """The rule-based policy of the rollouts, with its default settings, is the ``normal``
    level's card in every position; its settings are checked."""
    normal = make_bot("normal")
    for rules in RULES[:2]:
        for _game, view in _late_positions(rules, seed=11, left=13, n=40):
            assert K.policy(view_state(view, K, DEFAULT_POLICY)) == normal.choose(view)
    assert check_policy({}) == DEFAULT_POLICY == {"risk": 600, "duck": 1, "lead_low": 0}
    for bad in ({"risk": 1001}, {"duck": 0}, {"lead_low": 2}, {"lead_low": -1}, {"riskme": 1}):
        with pytest.raises(ValueError):
            check_policy(bad)
    with pytest.raises(ValueError):
        make_bot("normal", clean_last=False)


# ------------------------------------------------------------------ the greedy policy


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}")
def test_the_greedy_rollout_plays_as_pimc_greedys_playout(rules: Rules) -> None:
    """``greedy_card`` plays the greedy policy that ``pimc-greedy`` plays out with (written
    apart, in :mod:`lockup.arena.pimc_greedy`): the same legal card in every position,
    leads, follows and discards alike, the state left as it was."""
    from lockup.arena.pimc_greedy import greedy_card

    differs = 0
    for game, view in _late_positions(rules, seed=34, left=13, n=200):
        s = view_state(view, K, DEFAULT_POLICY)
        for i in range(4):
            s[K.I_HAND + i] = game.hands[i]
        before = list(s)
        card = K.greedy_card(s)
        assert s == before and view.legal_mask >> card & 1
        theirs = greedy_card(
            [s[K.I_HAND + i] for i in range(4)],
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


def test_greedy_rolls_out_the_searching_seat_by_the_greedy_policy() -> None:
    _game, view = _late_positions(Rules(), seed=24, left=13, n=1)[0]
    assert Position(view, seed=1, jit=False).base[K.I_GREEDY] == 0
    assert Position(view, seed=1, greedy=True, jit=False).base[K.I_GREEDY] == 1 << view.seat
    # A seat of I_GREEDY plays greedy_card, the others the rules.
    s = view_state(view, K, DEFAULT_POLICY)
    for greedy, expect in ((0, K.policy(s)), (1 << view.seat, K.greedy_card(s))):
        s[K.I_GREEDY] = greedy
        assert K.rollout_card(s) == expect
    rng = random.Random(5)
    game = Game.new(rng, Rules(picture_exception="any-club"), record=False)
    bots = [ExpertBot(seed=i, iterations=6, jit=False) for i in range(4)]
    for v in _turns(game, rng):
        c = bots[game.turn].choose(v)
        assert v.legal_mask >> c & 1
        game.play(c, game.turn)


@pytest.mark.skipif(not jit_available(), reason="numba is not installed")
@pytest.mark.parametrize("rec", [0, 2])
def test_compiled_and_plain_searches_agree_with_the_experts_options(rec: int) -> None:
    """The numba kernel and its plain Python copy: the same values to the last bit, with
    every part the levels use (the sampling chain, the greedy rollouts, merged cards,
    the game term, recursive rollouts for ``master``)."""
    for k, (_game, view) in enumerate(_late_positions(RULES[3], seed=25, left=13, n=5)):
        kw: dict[str, Any] = dict(iterations=5, seed=k, wgame=3.0, lam=0.03, greedy=True, rec=rec)
        a = search(view, jit=False, merge=True, **kw)
        b = search(view, jit=True, merge=True, **kw)
        assert a.cards == b.cards and a.value == b.value and a.tricks == b.tricks


def test_seats_the_rules_do_not_explain_are_rolled_out_greedily() -> None:
    """A seat whose plays the ``normal`` rules fail to explain is rolled out by the greedy
    policy, like the searching seat, and its plays weigh the deals by that policy (by
    nothing without it); a seat that plays by the rules keeps them."""
    rng = random.Random(6)
    game = Game.new(rng, Rules(), record=False)
    normal = make_bot("normal")
    wild = make_bot("random", seed=3)
    checked = 0
    for view in _turns(game, rng):
        me = game.turn
        if me == 0 and view.trick_number >= 6 and view.legal_mask & (view.legal_mask - 1):
            pos = Position(view, seed=1, lam=0.03, greedy=True, jit=False)
            assert pos.tables.model == 1 << 2, "its plays are weighed by the greedy policy"
            assert pos.lams[2] == GREEDY_LAM and pos.lams[1] == pos.lams[3] == 0.03
            assert pos.base[K.I_GREEDY] == (1 << me) | (1 << 2)
            plain = Position(view, seed=1, lam=0.03, jit=False)
            assert plain.base[K.I_GREEDY] == 0 and plain.tables.model == 0
            assert plain.lams[2] == 1.0, "without the greedy model its plays are not used"
            s = list(pos.base)
            for i in range(4):
                s[K.I_HAND + i] = game.hands[i]
            for seat, expect in ((me, K.greedy_card), (1, K.policy), (2, K.greedy_card)):
                s[K.I_TURN] = seat
                assert K.rollout_card(s) == expect(s)
            checked += 1
        bot = wild if me == 2 else normal
        game.play(bot.choose(view), me)
    assert checked >= 2, checked


def test_the_plays_of_greedy_seats_weigh_the_deals_by_the_greedy_policy() -> None:
    """Seats that play the greedy policy are judged so, and their plays then weigh the
    deals by it: the true deal explains every play of every seat (weight 1), deals that
    give them other cards often do not; the compiled kernel searches as the plain one."""
    rng = random.Random(9)
    normal = make_bot("normal")
    checked = lower = 0
    for g in range(6):
        game = Game.new(rng, RULES[g % 4], record=False)
        for view in _turns(game, rng):
            me = game.turn
            s = view_state(view, K, DEFAULT_POLICY)
            for i in range(4):
                s[K.I_HAND + i] = game.hands[i]
            if me == 0 and view.trick_number >= 7 and view.legal_mask & (view.legal_mask - 1):
                pos = Position(view, seed=g, lam=0.03, greedy=True, jit=False)
                if pos.tables.model == (1 << 2) | (1 << 3):
                    t = pos.tables._replace(use_chain=1)
                    w = [0] * K.STATE_SIZE
                    true = [game.hands[i] for i in range(4)] + [0] * (K.STATE_SIZE - 4)
                    assert K.likelihood(true, w, t) == 1.0
                    for _ in range(5):
                        other = list(pos.base)
                        K.sample_hidden(other, t, list(pos.work[2]))
                        other[0] = true[0]
                        lower += K.likelihood(other, w, t) < 1.0
                    kw: dict[str, Any] = dict(iterations=6, seed=g, lam=0.03, greedy=True)
                    a = search(view, jit=False, **kw)
                    b = search(view, jit=True, **kw)
                    assert a.cards == b.cards and a.value == b.value
                    checked += 1
            card = normal.choose(view) if me < 2 else K.greedy_card(s)
            game.play(card, me)
    assert checked >= 5 and lower >= checked, (checked, lower)


def test_the_game_term_ends_the_game_only_with_a_sole_leader() -> None:
    """The value's game term (R15): 1 for the seat alone at the top at or over the target,
    0 for the others; a tie at the top, or nobody at the target, goes on (the smooth
    estimate, between 0 and 1)."""
    s = [0] * K.STATE_SIZE

    def term(totals: list[int], me: int, target: int = 20) -> float:
        return K.utility(s, me, totals, target, 1.0)  # no tricks this hand: the term alone

    assert term([22, 10, 5, 3], 0) == 1.0
    assert term([22, 10, 5, 3], 1) == 0.0
    assert term([10, 22, 5, 3], 0) == 0.0
    for totals, me in (([22, 22, 5, 3], 0), ([22, 22, 5, 3], 2), ([19, 10, 5, 3], 0)):
        assert 0.0 < term(totals, me) < 1.0, (totals, me)
    assert term([22, 22, 5, 3], 0) > term([22, 22, 5, 3], 2)
    assert term([19, 10, 5, 3], 0) > 0.5 > term([19, 10, 5, 3], 1)
