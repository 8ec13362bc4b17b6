"""The arena's plain PIMC with a greedy playout (``pimc-greedy``, lockup/arena/pimc_greedy.py).

Its playout policy, branch by branch, on hand-made positions with the card it must play;
its playout against the engine's step API (the same cards, the same random discards);
its sampler against brute force; whole games, legal and deterministic with a seed.
"""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter

import pytest

from lockup.arena.pimc_greedy import (
    PRUNE_EVERY,
    GreedyPIMCBot,
    Sampler,
    game_value,
    greedy_card,
    interchangeable,
    playout,
)
from lockup.arena.population import DEFAULT_POPULATION
from lockup.arena.specs import SpecError, build_bot, parse_spec
from lockup.bots import make_bot
from lockup.cards import cards_of, mask_of, parse_card
from lockup.engine import Game, Rules, SeatView

RULES = [
    Rules(),
    Rules(picture_exception="any-club"),
    Rules(lock_discards="upfront"),
    Rules(picture_exception="any-club", lock_discards="upfront"),
]


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def trick_of(game: Game) -> tuple[int, int, int, int, int, int, int]:
    """The trick under way as the playout takes it: ntr, npl, led, best, best seat, clubs,
    picture-club bits (-1 for none)."""
    view = game.view(game.turn)
    return (
        len(view.trick),
        view.players_in_trick,
        -1 if view.led_suit is None else view.led_suit,
        -1 if view.best_card is None else view.best_card,
        -1 if view.best_seat is None else view.best_seat,
        view.clubs_in_trick,
        view.pic_clubs,
    )


def policy_card(game: Game) -> int:
    """The policy's card for the seat to play in a real game (every hand known)."""
    ntr, npl, led, best, _, clubs, pic = trick_of(game)
    any_club = game.rules.picture_exception == "any-club"
    return greedy_card(list(game.hands), game.turn, ntr, npl, led, best, clubs, pic, any_club)


def position(deal: list[str], plays: str = "", rules: Rules | None = None) -> Game:
    """A first trick: South (0) leads; ``deal`` is the four hands, ``plays`` the cards so far."""
    game = Game(rules or Rules(), dealer=3)
    game.deal([cards(h) for h in deal])
    for c in plays.split():
        game.play(parse_card(c))
    return game


# ---------------------------------------------------------------------------- the policy

SPADES_HIGH = [
    "2D 3D 4D 5D 6D 7D 2H 3H 4H 2S 3S 4S 5S",
    "8D 9D TD 5H 6H 7H 8H 6S 7S 8S 2C 3C 4C",
    "JD QD KD AD 9H TH JH 9S TS JS 5C 6C 7C",
    "QH KH AH QS KS AS 8C 9C TC JC QC KC AC",
]


def test_leading_without_a_master_plays_the_lowest_card_of_its_longest_suit() -> None:
    game = position(SPADES_HIGH)
    assert policy_card(game) == parse_card("2D")  # diamonds: six cards, no master


def test_leading_cashes_a_master_of_its_longest_suit() -> None:
    game = position(
        [
            "AH AS KS QS 2S 2D 3D 4D 5D 6D 7D 8D 9D",  # masters: A♥ (1 card), A♠ (4)
            "TD JD 2H 3H 4H 5H 6H 3S 4S 5S 2C 3C 4C",
            "QD KD AD 7H 8H 9H TH 6S 7S 8S 5C 6C 7C",
            "JH QH KH 9S TS JS 8C 9C TC JC QC KC AC",
        ]
    )
    assert policy_card(game) == parse_card("AS")
    # A master is the best card left in its suit, wherever the others are: the K♠ once
    # the A♠ is out of every hand.
    hands = list(game.hands)
    hands[0] &= ~mask_of(cards("AS AH"))
    assert greedy_card(hands, 0, 0, 4, -1, -1, 0, 0, False) == parse_card("KS")


def test_an_all_club_hand_leads_a_club() -> None:
    hands = [mask_of(cards("3C 9C")), mask_of(cards("2H 4C")), mask_of(cards("AC 5D")), 0]
    assert greedy_card(hands, 0, 0, 3, -1, -1, 0, 0, False) == parse_card("3C")  # R5
    hands[2] = mask_of(cards("8C 5D"))
    assert greedy_card(hands, 0, 0, 3, -1, -1, 0, 0, False) == parse_card("9C")  # a master


def test_last_to_play_takes_a_clean_trick_with_its_cheapest_winning_card() -> None:
    game = position(
        [
            "9D 2H 3H 4H 5H 6H 7H 8H 2S 3S 4S 5S 6S",
            "4D 9H TH JH QH KH AH 7S 8S 9S TS 2C 3C",
            "2D 3D 5D 6D JS QS KS AS 4C 5C 6C 7C 8C",
            "7D 8D TD JD QD KD AD 9C TC JC QC KC AC",
        ],
        "9D 4D 2D",
    )
    assert policy_card(game) == parse_card("TD")


def test_a_seat_not_last_takes_the_trick_with_its_top_card() -> None:
    game = position(
        [
            "9D 2H 3H 4H 5H 6H 7H 8H 2S 3S 4S 5S 6S",
            "TD QD 2D 9H TH JH QH KH AH 7S 8S 9S 2C",
            "3D 4D 5D 6D TS JS QS KS AS 3C 4C 5C 6C",
            "7D 8D JD KD AD 7C 8C 9C TC JC QC KC AC",
        ],
        "9D",
    )
    assert policy_card(game) == parse_card("QD")


def test_a_trick_holding_two_clubs_is_still_taken() -> None:
    game = position(
        [
            "KD 2H 3H 4H 5H 6H 7H 8H 2S 3S 4S 5S 6S",
            "2C 3C 9H TH JH QH KH AH 7S 8S 9S TS JS",
            "4C 5C 6C 7C 8C 9C TC JC QC KC QS KS AS",
            "AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD AC",
        ],
        "KD 2C 4C",  # West and North are void in diamonds: two clubs
    )
    assert policy_card(game) == parse_card("AD")


def test_a_trick_holding_three_clubs_is_ducked_with_its_lowest_card() -> None:
    # Clubs led (an all-club hand, R5), two followers' clubs: three in the trick, the 7C
    # best. East could win with the 9C but will not.
    hands = [0, mask_of(cards("4H")), mask_of(cards("5H")), mask_of(cards("3C 6C 9C 2D"))]
    assert greedy_card(hands, 3, 3, 4, 0, parse_card("7C"), 3, 0, False) == parse_card("3C")
    # Every card wins: still the lowest.
    hands[3] = mask_of(cards("8C 9C 2D"))
    assert greedy_card(hands, 3, 3, 4, 0, parse_card("7C"), 3, 0, False) == parse_card("8C")


def test_a_trick_it_will_not_take_gets_a_club_the_picture_exception_allows() -> None:
    # Diamonds led with a king on the table, three clubs in it: East could win with the A♦
    # but will not, and plays the K♣ (R7, same-rank) rather than duck.
    hands = [0, 0, 0, mask_of(cards("AD 2D KC 4C"))]
    kd = parse_card("KD")
    kc_bit = 1 << 11
    assert greedy_card(hands, 3, 3, 4, 1, kd, 3, kc_bit, False) == parse_card("KC")
    # Under any-club, its lowest club.
    assert greedy_card(hands, 3, 3, 4, 1, kd, 3, kc_bit, True) == parse_card("4C")


def test_a_trick_it_cannot_take_gets_a_club_the_picture_exception_allows() -> None:
    game = position(
        [
            "KH 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
            "2H KC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC",
            "3H 4H 5H 6H 7H 8H 9H TH JH QH AH AS AC",
            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        ],
        "KH",
    )
    assert policy_card(game) == parse_card("KC")  # R7: a king on the table
    anyclub = position(
        [
            "KH 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
            "2H 3H KC 2C 3C 4C 5C 6C 7C 8C 9C TC JC",
            "4H 5H 6H 7H 8H 9H TH JH QH AH AS AC QC",
            "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
        ],
        "KH",
        Rules(picture_exception="any-club"),
    )
    assert policy_card(anyclub) == parse_card("2C")  # any club: the lowest


def test_a_trick_it_cannot_take_without_a_club_is_ducked() -> None:
    game = position(
        [
            "TD 2H 3H 4H 5H 6H 7H 8H 2S 3S 4S 5S 6S",
            "9D 5D 2D 9H TH JH QH KH AH 7S 8S 9S TS",
            "3D 4D 6D 7D 8D JS QS KS AS 2C 3C 4C 5C",
            "JD QD KD AD 6C 7C 8C 9C TC JC QC KC AC",
        ],
        "TD",
    )
    assert policy_card(game) == parse_card("2D")  # its lowest card of the suit


def test_void_it_throws_its_lowest_club_else_its_lowest_card() -> None:
    game = position(
        [
            "9D 2H 3H 4H 5H 6H 7H 8H 2S 3S 4S 5S 6S",
            "8C 4C 9H TH JH QH KH AH 7S 8S 9S TS JS",
            "2D 3D 4D 5D 6D 7D 8D QS KS AS 2C 3C 5C",
            "TD JD QD KD AD 6C 7C 9C TC JC QC KC AC",
        ],
        "9D",
    )
    assert policy_card(game) == parse_card("4C")
    hands = list(game.hands)
    hands[1] = mask_of(cards("5H 3S 9H"))
    ntr, npl, led, best, _, clubs, pic = trick_of(game)
    assert greedy_card(hands, 1, ntr, npl, led, best, clubs, pic, False) == parse_card("3S")


def test_the_policy_alone_beats_normal() -> None:
    """Played alone (no search) against three ``normal``, every deal four times with the
    policy in each seat: about +0.5 tricks a hand, as its description says (+0.48 over
    4,800 hands; here 400, seeded)."""
    normal = make_bot("normal")

    def alone(view: SeatView) -> int:
        hands = [0, 0, 0, 0]
        hands[view.seat] = view.hand_mask
        hands[(view.seat + 1) % 4] = view.unseen_mask  # what is left (masters), no more
        led = -1 if view.led_suit is None else view.led_suit
        best = -1 if view.best_card is None else view.best_card
        any_club = view.rules.picture_exception == "any-club"
        ntr, npl = len(view.trick), view.players_in_trick
        return greedy_card(
            hands, view.seat, ntr, npl, led, best, view.clubs_in_trick, view.pic_clubs, any_club
        )

    diffs = []
    for d in range(100):
        deck = list(range(52))
        random.Random(d).shuffle(deck)
        for seat in range(4):
            game = Game(Rules(), dealer=d % 4)
            game.deal([deck[13 * s : 13 * s + 13] for s in range(4)])
            rng = random.Random(1000 + d)
            while not game.hand_over:
                if game.discard_due is not None:
                    game.discard_random(rng)
                    continue
                view = game.view(game.turn)
                game.play(alone(view) if game.turn == seat else normal.choose(view))
            points = game.summaries[-1].points
            diffs.append(points[seat] - (sum(points) - points[seat]) / 3)
    assert sum(diffs) / len(diffs) > 0.25


def test_the_value_of_a_playout() -> None:
    assert game_value([22, 10, 5, 3], 0, 20) == 2.0  # the game ends, this seat wins
    assert game_value([22, 10, 5, 3], 1, 20) == -2.0  # another seat wins
    assert game_value([22, 22, 5, 3], 0, 20) == 0.0  # a tie at the top: on (R15)
    assert game_value([19, 10, 5, 3], 0, 20) == 0.0  # nobody at the target


# ---------------------------------------------------------------------------- the playout


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}")
def test_its_playout_is_the_engine_step_by_step(rules: Rules) -> None:
    """From positions of whole games: the playout ends the hand with exactly the points
    (and the empty hands) the engine's step API reaches with the policy's cards and the
    same random discards."""
    checked = 0
    for g in range(3):
        rng = random.Random(g)
        game = Game.new(rng, rules, record=False)
        for k in range(300):
            if game.is_over:
                break
            if game.phase == "discard":
                game.discard_random(rng)
                continue
            if game.phase == "deal":
                game.deal(rng=rng)
                continue
            card = policy_card(game)
            assert game.legal_mask() >> card & 1
            if k % 4 == 0:
                ref = game.clone()
                stream = random.Random(k)
                hand = ref.hand_number
                while ref.hand_number == hand and not ref.hand_over:
                    if ref.phase == "discard":
                        ref.discard_random(stream)
                    else:
                        ref.play(policy_card(ref))
                ntr, npl, led, best, bseat, clubs, pic = trick_of(game)
                hands = list(game.hands)
                points = list(game.points)
                playout(
                    hands, list(game.locks), points, game.trick_number, ntr, npl, led, best,
                    bseat, clubs, pic, game.turn, -1, rules.picture_exception == "any-club",
                    rules.lock_discards == "upfront", random.Random(k),
                )  # fmt: skip
                assert hands == [0, 0, 0, 0]
                assert points == list(ref.summaries[-1].points)
                checked += 1
            game.play(card)
    assert checked > 30


# ---------------------------------------------------------------------------- the sampler


def brute_force(
    seat: int, unseen: int, sizes: list[int], voids: list[int]
) -> list[tuple[int, ...]]:
    """Every consistent deal (the three other hands, in seat order), by trying every owner."""
    others = [s for s in range(4) if s != seat]
    out = []
    for owners in itertools.product(range(3), repeat=unseen.bit_count()):
        hands = [0, 0, 0]
        for c, k in zip(cards_of(unseen), owners, strict=True):
            hands[k] |= 1 << c
        if all(hands[k].bit_count() == sizes[s] for k, s in enumerate(others)) and all(
            not (hands[k] >> (13 * su)) & 0x1FFF or not (voids[s] >> su) & 1
            for k, s in enumerate(others)
            for su in range(4)
        ):
            out.append(tuple(hands))
    return out


# seat, unseen, sizes, voids: two suits lacked by one seat, a suit lacked by two, a seat
# that shows an all-club hand (it led a club: no diamonds, hearts or spades, R5).
HANDMADE = [
    (0, 0b111 | (0b11 << 13) | (0b11 << 26), [0, 3, 2, 2], [0, 0b0010, 0b0001, 0]),
    (1, (0b111 << 13) | (0b11 << 26) | 0b11, [2, 0, 3, 2], [0b0101, 0, 0b0010, 0b1000]),
    (2, (0b1111 << 39) | (0b11 << 13), [3, 2, 0, 1], [0b0110, 0b1000, 0, 0]),
    (3, 0b111 | (0b111 << 26) | (1 << 40), [3, 2, 2, 0], [0b1110, 0b0001, 0, 0]),
]


@pytest.mark.parametrize("seat,unseen,sizes,voids", HANDMADE)
def test_the_sampler_is_uniform_among_consistent_deals(
    seat: int, unseen: int, sizes: list[int], voids: list[int]
) -> None:
    deals = brute_force(seat, unseen, sizes, voids)
    sampler = Sampler(seat, unseen, sizes, voids)
    assert sampler.total == len(deals)
    rng = random.Random(seat)
    n = 150 * len(deals)
    seen = Counter(tuple(sampler.sample(rng)) for _ in range(n))
    assert set(seen) == set(deals)
    for deal in deals:  # each about 150 times (binomial sd about 12)
        assert 90 < seen[deal] < 215


def test_the_sampler_keeps_to_the_views_of_real_games() -> None:
    """Every sampled deal gives each seat its hand size of the unseen cards and no card
    of a suit the engine recorded it lacks."""
    rng = random.Random(4)
    checked = 0
    for rules in RULES:
        game = Game.new(rng, rules, record=False)
        while game.phase not in ("deal", "over"):
            if game.discard_due is not None:
                game.discard_random(rng)
                continue
            view = game.view(game.turn)
            sampler = Sampler.of(view)
            for _ in range(5):
                hidden = sampler.sample(rng)
                assert sum(hidden) == view.unseen_mask
                for k, s in enumerate(sampler.seats):
                    assert hidden[k].bit_count() == view.hand_sizes[s]
                    for su in range(4):
                        assert (
                            not (view.voids[s] >> su) & 1 or not (hidden[k] >> (13 * su)) & 0x1FFF
                        )
            checked += 1
            game.play(rng.choice(game.legal_cards()))
    assert checked > 100


# ---------------------------------------------------------------------------- the search


def test_interchangeable_cards_are_searched_once() -> None:
    game = position(
        [
            "2D 3D 5D 6D 9D TD JD QD 2H 3H 4H 2S 3S",
            "4D 7D 8D KD 5H 6H 7H 8H 4S 5S 6S 7S 2C",
            "AD 9H TH JH QH KH AH 8S 9S TS 3C 4C 5C",
            "JS QS KS AS 6C 7C 8C 9C TC JC QC KC AC",
        ]
    )
    rep = interchangeable(game.view(0))
    d = parse_card
    assert rep[d("2D")] == rep[d("3D")] == d("2D")  # nothing live between them
    assert rep[d("5D")] == rep[d("6D")] == d("5D")  # the 4♦ is live: a new run
    assert rep[d("9D")] == rep[d("TD")] == d("9D")  # the 7♦ and 8♦ are live
    assert rep[d("JD")] == d("JD") and rep[d("QD")] == d("QD")  # pictures stand alone
    assert rep[d("2H")] == rep[d("4H")] == d("2H")
    assert rep[d("2S")] == rep[d("3S")] == d("2S")
    assert set(rep) == set(cards_of(game.legal_mask()))


def test_a_clearly_worse_card_is_dropped_every_forty_samples() -> None:
    bot = GreedyPIMCBot(seed=1, iterations=100)
    cands = [1, 2, 3]
    values: list[list[float]] = [
        [1.0 + (i % 2) for i in range(PRUNE_EVERY)],  # mean 1.5
        [2.0 + (i % 2) for i in range(PRUNE_EVERY)],  # mean 2.5: the best
        [2.0 + (i % 3 == 0) for i in range(PRUNE_EVERY)],  # a little below, noisy
    ]
    assert bot._prune([0, 1, 2], values, cands) == [1, 2]
    assert bot.pruned == [1]


def test_a_position_with_one_card_to_search_answers_at_once() -> None:
    game = position(SPADES_HIGH, "2D")  # West follows with the 8, 9 or 10 of diamonds
    view = game.view(1)
    assert set(interchangeable(view).values()) == {parse_card("8D")}
    bot = GreedyPIMCBot(seed=1, iterations=50)
    assert bot.choose(view) == parse_card("8D")
    assert bot.samples == 0


# ---------------------------------------------------------------------------- whole games


def play_game(rules: Rules, seed: int, hands: int) -> list[int]:
    """The cards of a game of four ``pimc-greedy`` seats (iterations, seeded)."""
    rng = random.Random(seed)
    bots = [GreedyPIMCBot(seed=seed * 4 + i, iterations=24) for i in range(4)]
    game = Game.new(rng, rules, record=False)
    out = []
    while not game.is_over and len(game.summaries) < hands:
        if game.phase == "discard":
            game.discard_random(rng)
        elif game.phase == "deal":
            game.deal(rng=rng)
        else:
            view: SeatView = game.view(game.turn)
            card = bots[game.turn].choose(view)
            assert view.legal_mask >> card & 1
            game.play(card)  # the engine refuses an illegal card
            out.append(card)
    return out


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.picture_exception}-{r.lock_discards}")
def test_whole_games_are_legal_and_deterministic_with_a_seed(rules: Rules) -> None:
    first = play_game(rules, 7, 1)
    assert len(first) >= 26
    assert play_game(rules, 7, 1) == first


def test_its_time_budget() -> None:
    game = Game.new(random.Random(3), record=False)
    view = game.view(game.turn)
    bot = GreedyPIMCBot(seed=1)
    assert bot.time_limit == 0.1 and bot.iterations is None
    start = time.perf_counter()
    card = bot.choose(view)
    assert view.legal_mask >> card & 1
    assert time.perf_counter() - start < 0.6  # 0.1 s asked; generous on a loaded machine
    assert bot.samples >= 1
    fixed = GreedyPIMCBot(seed=1, iterations=7)
    fixed.choose(view)
    assert fixed.samples <= 7
    with pytest.raises(ValueError):
        GreedyPIMCBot(time_limit=0)
    with pytest.raises(ValueError):
        GreedyPIMCBot(iterations=0)


def test_arena_spec_and_population() -> None:
    bot = build_bot(parse_spec("pimc-greedy"), seed=1, time_per_move=0.2)
    assert isinstance(bot, GreedyPIMCBot) and bot.time_limit == 0.2
    bot = build_bot(parse_spec("pimc-greedy:iterations=30"), seed=1)
    assert isinstance(bot, GreedyPIMCBot) and bot.iterations == 30
    with pytest.raises(SpecError):
        build_bot(parse_spec("pimc-greedy:duck=3"), seed=1)
    assert "pimc-greedy" in DEFAULT_POPULATION
