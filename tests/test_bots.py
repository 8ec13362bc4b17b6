"""The computer opponents: legal answers only, no peeking, determinism, the hint, tactics.

The expert's search kernel is checked against the engine move for move (R4-R13), and its
compiled copy (numba) against plain Python.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator

import pytest

from lockup.bots import LEVELS, Bot, hint, make_bot
from lockup.bots import kernel as K
from lockup.bots.expert import ExpertBot
from lockup.cards import CLUB_MASK, SUIT_MASKS, card_str, cards_of, mask_of, parse_card
from lockup.engine import Game, Rules, SeatView

ALL_RULES = [
    Rules(picture_exception=p, lock_discards=d, target=t)
    for (p, d), t in zip(
        itertools.product(("same-rank", "any-club"), ("per-trick", "upfront")),
        (10, 20, 15, 50),
        strict=True,
    )
]

needs_numba = pytest.mark.skipif(not K.jit_available(), reason="numba is not installed")


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def step(game: Game, rng: random.Random, chooser: Bot | None = None) -> None:
    """Advance a game by one event: a discard, a deal or a card (random unless a bot)."""
    if game.discard_due is not None:
        game.discard_random(rng)
    elif game.phase == "deal":
        game.deal(rng=rng)
    else:
        view = game.view(game.turn)
        if chooser is None:
            game.play(rng.choice(game.legal_cards()))
        else:
            game.play(chooser.choose(view))


def positions(rules: Rules, seed: int, n: int) -> Iterator[tuple[Game, SeatView]]:
    """``n`` positions where a card is due, from games of normal bots and random play."""
    rng = random.Random(seed)
    normal = make_bot("normal")
    game = Game.new(rng, rules, record=False)
    got = 0
    while got < n:
        if game.is_over:
            game = Game.new(rng, rules, record=False)
        if game.phase == "play" and rng.random() < 0.5:
            yield game, game.view(game.turn)
            got += 1
        step(game, rng, normal if rng.random() < 0.7 else None)


def scrambled(game: Game, seat: int, rng: random.Random) -> Game:
    """The same public position with the other seats' hidden cards dealt again.

    Every hand keeps its size and no seat gets a suit it has shown it lacks.
    """
    view = game.view(seat)
    unseen = cards_of(view.unseen_mask)
    others = [s for s in range(4) if s != seat]
    for _ in range(20000):
        rng.shuffle(unseen)
        hands = [0, 0, 0, 0]
        hands[seat] = view.hand_mask
        i = 0
        for s in others:
            n = view.hand_sizes[s]
            hands[s] = mask_of(unseen[i : i + n])
            i += n
        if all(
            not (hands[s] & SUIT_MASKS[su])
            for s in others
            for su in range(4)
            if view.voids[s] >> su & 1
        ):
            return Game.from_view(view, hands)
    raise AssertionError("no consistent deal found")


# ---------------------------------------------------------------------------- the registry


def test_levels_and_errors() -> None:
    assert list(LEVELS) == ["random", "easy", "normal", "expert", "master"]
    for name in LEVELS:
        bot = make_bot(name, seed=1)
        assert isinstance(bot, Bot) and bot.name == name
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("grandmaster")
    with pytest.raises(ValueError, match="bad option"):
        make_bot("random", seed=1, iterations=5)
    for bad in ({"iterations": 0}, {"iterations": 2.5}, {"time_limit": -1}, {"time_limit": "1"}):
        with pytest.raises(ValueError):
            make_bot("expert", seed=1, **bad)
    for gone in ({"bravery": 3}, {"eps": 6}, {"see": 0}, {"tree": 4}, {"gwin": True}):
        with pytest.raises(ValueError, match="bad option"):
            make_bot("expert", seed=1, iterations=5, **gone)
    with pytest.raises(ValueError, match="risk"):
        make_bot("normal", risk=2)
    with pytest.raises(ValueError, match="noise"):
        make_bot("easy", noise=-0.1)


# ---------------------------------------------------------------------------- legal answers


@pytest.mark.parametrize(
    "rules", ALL_RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}"
)
def test_every_level_answers_only_legal_cards(rules: Rules) -> None:
    bots = {name: make_bot(name, seed=3) for name in ("random", "easy", "normal")}
    bots["expert"] = make_bot("expert", seed=3, iterations=6)
    locked_seen = 0
    trick_sizes: set[int] = set()
    for k, (_game, view) in enumerate(positions(rules, seed=len(rules.lock_discards), n=160)):
        locked_seen += any(view.locks)
        trick_sizes.add(len(view.trick))
        names = list(bots) if k % 4 == 0 else ["random", "easy", "normal"]
        for name in names:
            c = bots[name].choose(view)
            assert view.legal_mask >> c & 1, (name, card_str(c), view.to_dict())
    assert locked_seen > 5  # positions with locked seats were among them (R9)
    assert {0, 1, 2, 3} <= trick_sizes


@pytest.mark.parametrize(
    "rules", ALL_RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}"
)
def test_whole_games_between_all_levels(rules: Rules) -> None:
    """Four levels play full hands: every card legal, every discard and empty trick handled."""
    rng = random.Random(rules.target)
    seats = [
        make_bot("random", seed=1),
        make_bot("easy", seed=2),
        make_bot("normal", seed=3),
        make_bot("expert", seed=4, iterations=4),
    ]
    game = Game.new(rng, rules, record=False)
    for _ in range(2):  # two hands
        while game.phase not in ("deal", "over"):
            if game.discard_due is not None:
                game.discard_random(rng)
            else:
                game.play(seats[game.turn].choose(game.view(game.turn)))  # raises if illegal
        if game.is_over:
            break
        game.deal(rng=rng)


def test_all_club_hand_and_the_club_lead() -> None:
    """A hand of only clubs must lead a club (R5); every level does, then follows clubs."""
    game = Game(Rules(), dealer=3)  # South (0) leads
    game.deal(
        [
            cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
            cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"),
            cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"),
            cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"),
        ]
    )
    view = game.view(0)
    for name in LEVELS:
        bot = make_bot(name, seed=1, **({"iterations": 5} if name in ("expert", "master") else {}))
        c = bot.choose(view)
        assert c < 13, name
    assert make_bot("normal").choose(view) == parse_card("2C")  # lead low, hope to be overtaken


# ---------------------------------------------------------------------------- no peeking


@pytest.mark.parametrize("name", ["random", "easy", "normal", "expert"])
def test_bots_see_only_their_view(name: str) -> None:
    """Same view, other hidden hands: the same card with the same seed."""
    rng = random.Random(17)
    opts = {"iterations": 25} if name == "expert" else {}
    checked = 0
    for rules in ALL_RULES[:2]:
        for game, view in positions(rules, seed=5, n=12):
            other = scrambled(game, view.seat, rng)
            view2 = other.view(view.seat)
            assert view2.to_dict() == view.to_dict()
            differs = any(other.hands[s] != game.hands[s] for s in range(4))
            a = make_bot(name, seed=9, **opts).choose(view)
            b = make_bot(name, seed=9, **opts).choose(view2)
            assert a == b
            checked += differs
    assert checked > 5


# ---------------------------------------------------------------------------- determinism


def test_expert_and_hint_are_deterministic_with_seed_and_iterations() -> None:
    for _game, view in positions(Rules(), seed=21, n=6):
        a = ExpertBot(seed=5, iterations=60)
        b = ExpertBot(seed=5, iterations=60)
        assert a.choose(view) == b.choose(view)
        if a.last is not None:
            assert b.last is not None
            assert a.last.value == b.last.value and a.last.tricks == b.last.tricks
        assert hint(view, iterations=40, seed=2) == hint(view, iterations=40, seed=2)


@needs_numba
@pytest.mark.parametrize("lam", [1.0, 0.03])
def test_compiled_kernel_gives_identical_results(lam: float) -> None:
    for rules in ALL_RULES:
        for _game, view in positions(rules, seed=31, n=3):
            fast = K.search(view, iterations=12, seed=8, jit=True, lam=lam, wgame=3.0)
            slow = K.search(view, iterations=12, seed=8, jit=False, lam=lam, wgame=3.0)
            assert fast.cards == slow.cards
            assert fast.value == slow.value
            assert fast.tricks == slow.tricks


def test_time_budget() -> None:
    view = next(positions(Rules(), seed=2, n=1))[1]
    K.search(view, iterations=2, seed=1)  # load the kernel first
    start = time.perf_counter()
    r = K.search(view, time_limit=0.2, seed=1)
    spent = time.perf_counter() - start
    assert r.iterations >= 1 and 0.1 < spent < 0.6


# ---------------------------------------------------------------------------- the hint


def test_hint_values_exactly_the_legal_cards() -> None:
    for rules in ALL_RULES:
        for game, view in positions(rules, seed=41, n=4):
            h = hint(view, iterations=30, seed=1)
            assert set(h) == set(view.legal_cards)
            won = view.points[view.seat]
            for v in h.values():
                assert won <= v <= won + 13 - view.trick_number
            other = (view.seat + 1) % 4
            with pytest.raises(ValueError, match="no card is due"):
                hint(game.view(other))


def test_hint_within_a_second_by_default() -> None:
    view = next(positions(Rules(), seed=3, n=1))[1]
    hint(view, iterations=2)  # load the kernel first
    start = time.perf_counter()
    h = hint(view)
    assert time.perf_counter() - start < 1.0
    assert set(h) == set(view.legal_cards)


# ---------------------------------------------------------------------------- tactics


def _first_trick(deal: list[str], plays: list[str], dealer: int = 3) -> Game:
    game = Game(Rules(), dealer=dealer)
    game.deal([cards(h) for h in deal])
    for c in plays:
        game.play(parse_card(c))
    return game


DEAL = [
    "5S 3H 4H 6H 2D 3D 4D 5D 6D 7D 8D 9D TD",  # South leads
    "7S 4C 5C 6C 2H 7H 8H 9H TH 2S 3S 4S JD",  # West
    "9S QC 2C 3C QD KD AD 5H JH QH KH AH 6S",  # North
    "AS 8S 7C 8C 9C TC JC KC AC TS JS QS KS",  # East
]


def test_normal_ducks_a_trick_holding_a_club() -> None:
    game = Game(Rules(), dealer=3)  # South leads
    game.deal(
        [
            cards("9D 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"),
            cards("4C 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"),
            cards("2D 3D 4D 5D 6D 7D 8D TD JD QD KD AD AH"),
            cards("AS 2C 3C 5C 6C 7C 8C 9C TC JC QC KC AC"),
        ]
    )
    game.play(parse_card("9D"))
    game.play(parse_card("4C"))  # West has no diamond: a club lands on the trick
    view = game.view(2)  # North could win with the T♦ and up, or duck
    assert make_bot("normal").choose(view) == parse_card("8D")  # the highest card that loses


def test_normal_takes_a_clean_trick_cheaply_from_the_last_seat() -> None:
    game = Game(Rules(), dealer=3)
    game.deal(
        [
            cards("9D 2S 3S 5S 6S 7S 8S 9S TS JS QS KS AS"),
            cards("4S 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"),
            cards("2D 4D 5D 6D 7D 8D AH 2C 3C 4C 5C 6C 7C"),
            cards("3D TD JD QD KD AD 8C 9C TC JC QC KC AC"),
        ]
    )
    for c in ("9D", "4S", "2D"):
        game.play(parse_card(c))
    assert make_bot("normal").choose(game.view(3)) == parse_card("TD")


def test_normal_sheds_a_picture_club() -> None:
    """A king on the table lets the K♣ replace following suit (R7): normal sheds it."""
    game = Game(Rules(), dealer=3)
    game.deal(
        [
            cards("KH 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"),
            cards("2H KC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC"),
            cards("3H 4H 5H 6H 7H 8H 9H TH JH QH AH AS AC"),
            cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"),
        ]
    )
    game.play(parse_card("KH"))
    assert make_bot("normal").choose(game.view(1)) == parse_card("KC")


def test_expert_takes_a_sure_clean_trick_from_the_last_seat() -> None:
    # East (3) plays last to a clean spade trick; A♠ wins it for sure, the 8♠ loses it.
    game = _first_trick(DEAL, ["5S", "7S", "9S"])
    view = game.view(3)
    assert view.legal_cards == cards("8S TS JS QS KS AS")
    bot = ExpertBot(seed=1, iterations=300)
    choice = bot.choose(view)
    assert choice in cards("TS JS QS KS AS")  # wins the trick: never ducks with the 8♠
    h = hint(view, iterations=300, seed=1)
    assert h[choice] > h[parse_card("8S")] + 0.3


# ---------------------------------------------------------------------------- the kernel


# The kernel's rules (legal cards, tricks, locks, discards, voids) against the engine's,
# move by move: tests/test_conformance.py.


def test_sampled_deals_agree_with_the_view() -> None:
    km = K.kernel(False)
    for rules in ALL_RULES:
        for _game, view in positions(rules, seed=51, n=5):
            pos = K.Position(view, seed=4, jit=False)
            det = [0] * km.STATE_SIZE
            for _ in range(20):
                det[:] = pos.base
                km.sample_hidden(det, pos.tables, [0] * 13)
                pos.base[km.I_RNG] = det[km.I_RNG]
                union = 0
                for s in range(4):
                    assert det[s].bit_count() == view.hand_sizes[s]
                    assert not union & det[s]
                    union |= det[s]
                    for su in range(4):
                        if s != view.seat and view.voids[s] >> su & 1:
                            assert not det[s] & SUIT_MASKS[su]
                assert union == view.unseen_mask | view.hand_mask


def test_history_explains_normal_play() -> None:
    """Replaying normal bots' plays from the view with the true hands reproduces them: each
    row holds the hand its seat held then, lockup's discards (R10) taken out in the order
    they left, and so the rules' card is the card played."""
    km = K.kernel(False)
    pol = K.check_policy({})
    rng = random.Random(11)
    normal = make_bot("normal")
    total = misses = lost_rows = 0
    for g in range(8):
        game = Game.new(rng, ALL_RULES[g % 4], record=False)
        held: dict[int, tuple[int, int]] = {}  # card played -> (its seat's hand, cards lost)
        while game.phase not in ("deal", "over"):
            if game.discard_due is not None:
                game.discard_random(rng)
                continue
            view = game.view(game.turn)
            if game.trick_number in (6, 11) and not view.trick:
                rows, adds, played = K.history(view, km, pol)
                for row, add, c in zip(rows, adds, played, strict=True):
                    w = list(row)
                    seat = w[km.I_TURN]
                    w[seat] = game.hands[seat] | add
                    assert (w[seat], w[km.I_LOST]) == held[c]
                    lost_rows += w[km.I_LOST] != 0
                    lg = km.legal(w)
                    if lg & (lg - 1):
                        total += 1
                        misses += km.policy(w) != c
            card = normal.choose(view)
            lost = 0
            for cs in view.lost_order:
                for c in cs:
                    lost |= 1 << c
            held[card] = (game.hands[game.turn], lost)
            game.play(card)
    assert total > 100 and lost_rows > 20
    assert misses == 0


def test_expert_weighs_deals_only_by_seats_its_model_explains() -> None:
    """Deals are weighed by the plays of seats that play like ``normal``; a seat playing at
    random is soon judged unexplained and its plays are not used."""
    rng = random.Random(12)
    normal, wild = make_bot("normal"), make_bot("random", seed=1)
    players = [normal, normal, wild, wild]  # West plays by the rules, North and East not
    kept = {1: 0, 3: 0}
    judged = {1: 0, 3: 0}
    for _ in range(6):
        game = Game.new(rng, record=False)
        while game.phase not in ("deal", "over"):
            if game.discard_due is not None:
                game.discard_random(rng)
                continue
            view = game.view(game.turn)
            if game.turn == 0 and game.trick_number >= 7 and len(view.legal_cards) > 1:
                pos = K.Position(view, seed=3, lam=0.03, jit=False)
                for s in (1, 3):
                    if pos.fit[s][0] >= K.FIT_MIN_PLAYS:
                        judged[s] += 1
                        kept[s] += pos.lams[s] < 1.0
            game.play(players[game.turn].choose(view))
    assert judged[1] >= 5 and judged[3] >= 5
    assert kept[1] >= 0.8 * judged[1]  # normal (West): its plays weigh the deals
    assert kept[3] <= 0.2 * judged[3]  # random (East): ignored


def test_normal_is_fast() -> None:
    bot = make_bot("normal")
    times = []
    for _game, view in positions(Rules(), seed=61, n=80):
        start = time.perf_counter()
        bot.choose(view)
        times.append(time.perf_counter() - start)
    times.sort()
    assert times[int(0.95 * len(times))] < 0.02


def test_clubs_only_left_in_hand_still_answered() -> None:
    """Late in a hand a seat may hold only clubs (R5): all levels cope."""
    rng = random.Random(8)
    found = 0
    for _game, view in positions(Rules(lock_discards="upfront"), seed=71, n=400):
        if view.hand_mask and not view.hand_mask & ~CLUB_MASK and len(view.legal_cards) > 1:
            found += 1
            for name in LEVELS:
                small = {"iterations": 5} if name in ("expert", "master") else {}
                bot = make_bot(name, seed=rng.randrange(9), **small)
                assert view.legal_mask >> bot.choose(view) & 1
    assert found > 0


def test_a_bot_that_needs_only_the_legal_cards_says_so() -> None:
    """``choose_legal``: ``random`` answers from the legal cards alone, the same card its
    ``choose`` would draw for the same seed; every level that reads the view answers None
    (the caller then builds the view)."""
    rng = random.Random(4)
    game = Game.new(rng, record=False)
    a, b = make_bot("random", seed=9), make_bot("random", seed=9)
    played = 0
    while game.discard_due is None and not game.hand_over:
        view = game.view(game.turn)
        played += 1
        card = a.choose_legal(view.legal_mask)
        assert card == b.choose(view) and view.legal_mask >> card & 1
        game.play(card, game.turn)
    assert played >= 4
    for level in LEVELS:
        if level != "random":
            assert make_bot(level, seed=1).choose_legal(view.legal_mask) is None, level
