"""Every rule of docs/rules.md (R1 to R16) and every worked example (1 to 7), under each option
the rule or example names. Deals are built card by card (``make_deal``) to reach each
situation; the records in ``tests/fixtures`` are real games that show the rest.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import (
    ALL_OPTIONS,
    FIXTURES,
    cards,
    make_deal,
    new_game,
    random_game,
    rules_id,
    state,
    step,
)

from lockup.cards import CLUBS, DIAMONDS, SPADES, card_str, parse_card
from lockup.engine import (
    DEFAULT_PLAYERS,
    SEAT_NAMES,
    Game,
    IllegalMove,
    Rules,
    SeatView,
    VoidShown,
)
from lockup.record import parse_record

S, W, N, E = 0, 1, 2, 3
SAME, ANY = "same-rank", "any-club"
PER, UP = "per-trick", "upfront"


def c(code: str) -> int:
    return parse_card(code)


def play(game: Game, text: str) -> None:
    """Play the cards of ``text`` in order, each from the seat whose turn it is."""
    for code in text.split():
        assert game.discard_due is None, f"a discard is due from {game.discard_due}"
        game.play(c(code))


def discard_all(game: Game, pick: str = "low") -> list[int]:
    """Make every due lockup discard (the lowest or highest card held); the seats, in order."""
    seats = []
    while game.discard_due is not None:
        seat = game.discard_due
        held = game.hand(seat)
        game.discard(held[0] if pick == "low" else held[-1], seat)
        seats.append(seat)
    return seats


def refused(game: Game, code: str, seat: int | None = None) -> IllegalMove:
    """Play ``code`` expecting a refusal; checks the state is left exactly as it was."""
    before = state(game)
    with pytest.raises(IllegalMove) as info:
        game.play(c(code), seat)
    assert state(game) == before
    refusal = game.why_not(c(code), seat)
    assert refusal is not None and refusal.code == info.value.code
    return info.value


def opts(picture: str | None = None, discards: str | None = None) -> list[Rules]:
    return [
        r
        for r in ALL_OPTIONS
        if picture in (None, r.picture_exception) and discards in (None, r.lock_discards)
    ]


def sizes(game: Game) -> list[int]:
    return [game.hand_size(s) for s in range(4)]


def after_trick(game: Game, pick: str = "low") -> list[int]:
    """At the end of a trick: check R10's even hands, then make the due discards.

    R10 says every hand has the same number of cards at the end of each trick. Under
    ``per-trick`` that holds as the trick ends (the next discards come at the next
    trick's start). Under ``upfront`` the locked seat loses its whole lock's cards at
    once, so what is equal, once they are gone, is cards held plus tricks still to sit
    out.
    """
    if game.rules.lock_discards == PER:
        assert len(set(sizes(game))) == 1, sizes(game)
    seats = discard_all(game, pick)
    if game.rules.lock_discards == UP:
        assert len({game.hand_size(s) + game.locks[s] for s in range(4)}) == 1
    return seats


def play_quiet(game: Game) -> None:
    """Play the lowest legal card that is not a club (the lowest card if all are clubs)."""
    legal = game.legal_cards()
    game.play(next((x for x in legal if x // 13 != CLUBS), legal[0]))


# ----------------------------------------------------------------------------- R1, R2


def test_r1_four_seats_clockwise_with_default_players() -> None:
    assert SEAT_NAMES == ("South", "West", "North", "East")
    assert DEFAULT_PLAYERS == ("You", "Þóra", "Leifur", "Vigdís")
    game = new_game({}, dealer=2)  # East (3) leads: left of North
    order = []
    for _ in range(4):
        order.append(game.turn)
        game.play(game.legal_cards()[0])
    assert order == [3, 0, 1, 2]  # clockwise: left of East is South


def test_r2_the_deck_is_52_cards_aces_high_and_no_trump() -> None:
    codes = [card_str(x) for x in range(52)]
    assert len(set(codes)) == 52
    assert all(parse_card(code) == x for x, code in enumerate(codes))
    # Ranks 2 (low) .. A (high): the A♦ beats the K♦; no suit beats the led suit.
    game = new_game({W: "KD", N: "AS", E: "AH", S: "AD"}, dealer=0, only={N: "HS", E: "HS"})
    play(game, "KD AS AH AD")
    assert game.tricks[0].winner == S
    game = new_game({W: "2D", N: "AS", E: "AH", S: "3D"}, dealer=0, only={N: "HS", E: "HS"})
    play(game, "2D AS AH 3D")  # two aces off-suit win nothing: no trump
    assert game.tricks[0].winner == S


# ----------------------------------------------------------------------------- R3


def test_r3_a_deal_gives_13_cards_to_each_seat_and_the_left_of_the_dealer_leads() -> None:
    dealers = Counter()
    for seed in range(40):
        game = Game.new(random.Random(seed))
        hands = [game.hand(s) for s in range(4)]
        assert [len(h) for h in hands] == [13] * 4
        assert sorted(x for h in hands for x in h) == list(range(52))
        assert game.turn == (game.dealer + 1) % 4
        dealers[game.dealer] += 1
    assert set(dealers) == {0, 1, 2, 3}  # the first dealer is drawn at random


def test_r3_the_shuffle_is_uniform_enough_and_comes_from_the_generator() -> None:
    a, b = Game(Rules(), 0), Game(Rules(), 0)
    a.deal(rng=random.Random(3))
    b.deal(rng=random.Random(3))
    assert [a.hand(s) for s in range(4)] == [b.hand(s) for s in range(4)]
    where = Counter()
    for seed in range(2000):
        game = Game(Rules(), 0)
        game.deal(rng=random.Random(seed))
        where[next(s for s in range(4) if c("AS") in game.hand(s))] += 1
    assert all(400 < where[s] < 600 for s in range(4)), where  # ~500 each


def test_r3_the_dealer_moves_one_seat_left_every_hand() -> None:
    game = random_game(4, Rules(target=50))
    dealers = [h.dealer for h in game.summaries]
    assert len(dealers) > 4
    assert all(b == (a + 1) % 4 for a, b in zip(dealers, dealers[1:], strict=False))


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("twelve", "is dealt 12."),
        ("fourteen", "is dealt 14."),
        ("twice", "dealt twice"),
        ("three seats", "exactly four seats"),
        ("not a card", "not a card"),
    ],
)
def test_r3_a_deal_that_is_not_52_distinct_cards_13_a_seat_is_refused(
    bad: str, reason: str
) -> None:
    deal = make_deal({})
    if bad == "twelve":
        deal[1] = deal[1][:12]
    elif bad == "fourteen":
        deal[0] = deal[0] + [deal[1].pop()]
    elif bad == "twice":
        deal[3][0] = deal[0][0]
    elif bad == "three seats":
        deal = deal[:3]
    else:
        deal[0][5] = 52
    game = Game(Rules(), 1)
    before = state(game)
    with pytest.raises(IllegalMove) as info:
        game.deal(deal)
    assert (info.value.code, info.value.rule) == ("bad-deal", "R3")
    assert reason in info.value.reason
    assert state(game) == before


def test_r3_no_deal_while_a_hand_is_under_way() -> None:
    game = new_game({}, dealer=0)
    before = state(game)
    with pytest.raises(IllegalMove) as info:
        game.deal(make_deal({}))
    assert info.value.rule == "R3"
    assert state(game) == before


# ----------------------------------------------------------------------------- R4, R5


def test_r4_a_locked_seat_plays_no_card_and_the_trick_has_fewer_cards() -> None:
    # Example 3's trick locks North for one trick: the next trick has three cards.
    game = new_game({S: "8S", W: "TS", N: "AS", E: "4C"}, dealer=3, only={E: "CDH"})
    play(game, "8S TS AS 4C")
    assert game.locks == [0, 0, 1, 0]
    discard_all(game)
    assert game.turn == E
    seen = []
    while game.trick_number == 1:
        seen.append(game.turn)
        err = game.why_not(game.hand(N)[0], N)
        assert err is not None and (err.code, err.rule) == ("locked", "R9")
        game.play(game.legal_cards()[0])
    assert seen == [E, S, W]
    assert len(game.tricks[1].plays) == 3


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r5_no_club_lead_while_holding_another_suit(rules: Rules) -> None:
    game = new_game({S: "2C AC 2D"}, dealer=3, rules=rules)
    assert game.turn == S
    err = refused(game, "AC")
    assert (err.code, err.rule) == ("lead-club", "R5")
    assert "lead a club" in err.reason
    assert not any(x // 13 == CLUBS for x in game.legal_cards())


# The lockdown: an all-clubs hand leads four club tricks in a row and everyone ends
# up locked at once (R5, R8, R9, R10, R11, R12). Seats: West holds 7 clubs and the 6 top
# spades, South the A♣, East 9♣ K♣, North 10♣ J♣ Q♣; the rest is diamonds and hearts
# (South, North) and hearts and low spades (East).
LOCKDOWN = {W: "AS KS QS JS TS 9S 2C 3C 4C 5C 6C 7C 8C", S: "AC", E: "9C KC", N: "TC JC QC"}
LOCKDOWN_ONLY = {S: "DHS", N: "DHS", E: "DHS"}


def lockdown_to_trick_6(rules: Rules) -> Game:
    game = new_game(LOCKDOWN, dealer=0, rules=rules, only=LOCKDOWN_ONLY)
    for _ in range(6):  # West runs its spades; nobody else plays a club
        assert game.turn == W
        game.play(max(game.legal_cards()))
        while game.turn != W or game.trick:
            legal = game.legal_cards()
            game.play(next((x for x in legal if x // 13 != CLUBS), legal[0]))
        assert game.locks == [0, 0, 0, 0]
    assert game.points == [0, 6, 0, 0]
    assert game.hand(W) == cards("2C 3C 4C 5C 6C 7C 8C")
    return game


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r5_an_all_clubs_hand_leads_a_club_and_clubs_become_the_led_suit(rules: Rules) -> None:
    game = lockdown_to_trick_6(rules)
    assert game.legal_cards() == cards("2C 3C 4C 5C 6C 7C 8C")  # R5: must lead a club
    play(game, "2C")
    assert game.view(S).voids[W] == 0b1110  # an all-clubs lead shows a void elsewhere
    # ... recorded when: in trick 6, by the hand's card 24 (6 tricks of 4 cards before it)
    shown = [v for v in game.view(S).voids_shown if v.seat == W]
    assert shown == [VoidShown(W, su, 6, 24) for su in (1, 2, 3)]
    assert game.turn == N
    err = refused(game, card_str(game.hand(N)[-1]))  # a heart
    assert (err.code, err.rule) == ("must-follow", "R6")
    assert "follow clubs" in err.reason
    play(game, "TC 9C AC")  # followers holding clubs follow; the highest club wins (R8)
    t = game.tricks[6]
    assert (t.winner, t.clubs, t.lock) == (S, 4, 4)  # locked for every club (R9)
    assert game.locks == [4, 0, 0, 0] and game.times_locked == [1, 0, 0, 0]


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r4_r8_r9_r10_r11_r12_the_lockdown_locks_everyone_and_empties_a_trick(
    rules: Rules,
) -> None:
    upfront = rules.lock_discards == UP
    game = lockdown_to_trick_6(rules)
    play(game, "2C TC 9C AC")
    # R10: South's 4 cards leave at once (upfront) or one at each of the next 4 tricks.
    assert after_trick(game) == ([S] * 4 if upfront else [S])
    assert game.turn == W  # R11: first unlocked seat from the winner's left
    play(game, "3C JC KC")  # three cards: South sits out (R4)
    assert (game.tricks[7].winner, game.tricks[7].clubs, game.tricks[7].lock) == (E, 3, 3)
    assert after_trick(game) == ([E] * 3 if upfront else [S, E])  # seat order (R10)
    assert game.turn == W  # left of East is South, locked: West (R11)
    play(game, "4C QC")
    assert (game.tricks[8].winner, game.tricks[8].lock) == (N, 2)
    assert after_trick(game) == ([N, N] if upfront else [S, N, E])
    assert game.turn == W  # East and South are locked
    play(game, "5C")  # a trick of one card, won by the one who played it (R8)
    t = game.tricks[9]
    assert (t.plays, t.winner, t.clubs, t.lock) == (((W, c("5C")),), W, 1, 1)
    assert game.locks == [1, 1, 1, 1]
    # R12: every seat is locked for the 11th trick. Nobody plays or scores it; it counts
    # one off every lock; per-trick discards still happen, in seat order.
    assert after_trick(game) == ([W] if upfront else [S, W, N, E])
    assert game.trick_number == 11
    empty = game.tricks[10]
    assert (empty.plays, empty.winner, empty.clubs, empty.lock) == ((), None, 0, 0)
    assert game.empty_tricks == 1 and game.locks == [0, 0, 0, 0]
    assert game.sat_out == [4, 1, 2, 3]
    assert sizes(game) == [2, 2, 2, 2]
    # The lead goes to the first unlocked seat from the one that would have led: the
    # seat left of the 10th trick's winner (West), North. (Every lock of a lockdown ends
    # with the empty trick, so that seat is always free.)
    assert game.turn == N
    while game.phase == "play" or game.discard_due is not None:
        discard_all(game)
        if game.phase == "play":
            game.play(game.legal_cards()[0])
    assert game.phase == "deal"
    summary = game.summaries[0]
    assert summary.points[W] >= 7 and min(summary.points) >= 1
    assert sum(summary.points) + summary.empty_tricks == 13  # R13
    assert summary.empty_tricks == 1
    assert [len(x) for x in summary.lost] == list(summary.tricks_sat_out)
    assert sizes(game) == [0, 0, 0, 0]


# ----------------------------------------------------------------------------- R6, R7


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r6_a_follower_holding_the_led_suit_must_follow(rules: Rules) -> None:
    game = new_game({W: "5D", N: "2D 3H 4C"}, dealer=0, rules=rules)
    play(game, "5D")
    for code in ("3H", "4C"):  # no picture on the table: no exception either
        err = refused(game, code)
        assert (err.code, err.rule) == ("must-follow", "R6")
        assert err.reason.startswith("You hold diamonds: you must follow diamonds.")
    assert "jack, queen or king" in refused(game, "4C").reason
    assert all(x // 13 == DIAMONDS for x in game.legal_cards())


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r6_a_follower_void_in_the_led_suit_may_play_any_card(rules: Rules) -> None:
    game = new_game({W: "5D", N: "2C 3H"}, dealer=0, rules=rules, only={N: "CHS"})
    play(game, "5D")
    assert game.legal_cards() == game.hand(N)
    play(game, "2C")  # a club included
    assert game.view(S).voids[N] == 1 << DIAMONDS
    assert game.view(S).voids_shown == (VoidShown(N, DIAMONDS, 0, 1),)


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
@pytest.mark.parametrize("picture", ["JD", "QD", "KD"])
def test_r7_a_picture_on_the_table_allows_the_club_of_its_rank(rules: Rules, picture: str) -> None:
    same = picture[0] + "C"
    others = [r + "C" for r in "JQK" if r != picture[0]] + ["5C"]
    game = new_game({W: picture, N: f"2D {' '.join(others)} {same}"}, dealer=0, rules=rules)
    play(game, picture)
    legal = {card_str(x) for x in game.legal_cards()}
    assert same in legal and "2D" in legal  # the exception is optional: following stays legal
    for other in others:
        if rules.picture_exception == ANY:
            assert other in legal
        else:
            err = refused(game, other)
            assert (err.code, err.rule) == ("picture-rank", "R7")
            assert f"{picture[0]}♣" in err.reason and "picture exception" in err.reason
    play(game, same)
    assert game.view(S).voids[N] == 0  # a club under the exception shows no void
    assert game.view(S).voids_shown == ()


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
@pytest.mark.parametrize("lead", ["TD", "AD", "9D"])
def test_r7_a_ten_an_ace_or_a_number_allows_nothing(rules: Rules, lead: str) -> None:
    game = new_game({W: lead, N: "2D JC QC KC 5C"}, dealer=0, rules=rules)
    play(game, lead)
    for club in ("JC", "QC", "KC", "5C"):
        err = refused(game, club)
        assert (err.code, err.rule) == ("must-follow", "R6")
    assert all(x // 13 == DIAMONDS for x in game.legal_cards())


def test_r7_same_rank_names_every_picture_on_the_table() -> None:
    game = new_game({W: "JD", N: "QD", E: "2D 5C KC"}, dealer=0)
    play(game, "JD QD")
    err = refused(game, "KC")
    assert (err.code, err.rule) == ("picture-rank", "R7")
    assert "J♣ or Q♣" in err.reason


@pytest.mark.parametrize("rules", opts(picture=ANY), ids=rules_id)
def test_r7_any_club_a_club_picture_on_the_table_counts(rules: Rules) -> None:
    # East, void in diamonds, plays the K♣: a king lies in the trick, so South, who holds
    # diamonds, may now play any club.
    game = new_game(
        {N: "2D", E: "KC", S: "3D 4C"}, dealer=1, rules=rules, only={E: "CHS", S: "DHS"}
    )
    play(game, "2D KC")
    assert c("4C") in game.legal_cards()
    play(game, "4C")
    game.play(game.legal_cards()[0])  # West has no diamond and no club left
    t = game.tricks[0]
    assert t.winner == N and t.clubs == 2  # a club played on another suit never wins


def test_r7_same_rank_a_club_picture_allows_only_its_own_rank() -> None:
    game = new_game({N: "2D", E: "KC", S: "3D 4C JC"}, dealer=1, only={E: "CHS", S: "CDH"})
    play(game, "2D KC")
    assert refused(game, "JC").code == "picture-rank"
    assert refused(game, "4C").code == "picture-rank"


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r7_a_club_played_under_the_exception_never_wins(rules: Rules) -> None:
    game = new_game({S: "QD", W: "2D", N: "QC 3D", E: "4D"}, dealer=3, rules=rules)
    play(game, "QD 2D QC 4D")
    assert game.tricks[0].winner == S  # the Q♦, not the Q♣ of the same rank
    assert game.tricks[0].clubs == 1 and game.locks[S] == 1


# ----------------------------------------------------------------------------- R8, R9


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r8_the_highest_card_of_the_led_suit_wins_whatever_the_trick_holds(rules: Rules) -> None:
    game = new_game({S: "9H", W: "AH", N: "2H", E: "KH"}, dealer=3, rules=rules)
    play(game, "9H AH 2H KH")
    assert game.tricks[0].winner == W and game.points == [0, 1, 0, 0]


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r9_a_locked_seat_cannot_win_so_locks_never_stack(rules: Rules) -> None:
    # Example 5's trick locks South for 2; South plays nothing while locked.
    game = new_game(
        {S: "QS 2H", W: "3C", N: "9C", E: "2S"}, dealer=3, rules=rules, only={W: "CDH", N: "CDH"}
    )
    play(game, "QS 3C 9C 2S")
    assert game.locks == [2, 0, 0, 0]
    for trick in (1, 2):
        discard_all(game)
        assert game.trick_number == trick
        while game.trick_number == trick:
            assert game.turn != S
            game.play(game.legal_cards()[0])
        assert game.tricks[trick].winner != S
        assert S not in [s for s, _ in game.tricks[trick].plays]
    assert game.sat_out[S] == 2
    assert game.locks[S] == 0 and game.times_locked[S] == 1


def apply(game: Game, events: list[tuple[str, int, int]]) -> None:
    """Make a record's events: plays and lockup discards."""
    for kind, seat, card in events:
        if kind == "play":
            game.play(card, seat)
        else:
            game.discard(card, seat)


def replay_fixture(name: str) -> tuple[Game, list[tuple[str, int, int]]]:
    """A fixture record's first hand: the game just dealt, and its events."""
    parsed = parse_record((FIXTURES / name).read_bytes())
    hand = parsed.hands[0]
    game = Game(parsed.rules, hand.dealer)
    game.deal(hand.deal)
    return game, hand.events


@pytest.mark.parametrize("discards", [PER, UP])
def test_example_6_and_r9_a_lock_never_outlasts_the_hand(discards: str) -> None:
    """A real hand: 3 clubs won on the 12th trick lock for 1 trick only; a club trick won
    on the 13th locks nobody and counts as no lock (R9)."""
    game, events = replay_fixture(f"lock-capped-{discards}.json")
    assert game.rules.lock_discards == discards
    for kind, seat, card in events:
        if game.trick_number == 11 and game.phase == "play" and not game.trick:
            assert game.locks == [0, 0, 0, 0]  # everyone plays the 12th trick
        if game.trick_number == 12 and game.phase == "play" and not game.trick:
            twelfth = game.tricks[11]
            assert (twelfth.clubs, len(twelfth.plays), twelfth.lock) == (3, 4, 1)
            locked = twelfth.winner
            assert game.locks == [1 if s == locked else 0 for s in range(4)]
            times_before = game.times_locked[:]
        apply(game, [(kind, seat, card)])
    last = game.tricks[12]
    assert last.clubs >= 1 and last.lock == 0
    assert locked not in [s for s, _ in last.plays]  # it sat out the 13th trick only
    assert game.times_locked == times_before  # the 13th trick's clubs locked nobody
    assert game.phase == "deal" and game.locks == [0, 0, 0, 0]
    assert sizes(game) == [0, 0, 0, 0]


# ----------------------------------------------------------------------------- R10


@pytest.mark.parametrize("rules", opts(discards=PER), ids=rules_id)
def test_r10_per_trick_one_random_card_at_the_start_of_each_trick_sat_out(rules: Rules) -> None:
    game = new_game(
        {S: "QS", W: "3C", N: "9C", E: "2S"},
        dealer=3,
        rules=rules,
        only={W: "DH", N: "DH", E: "HS"},
    )
    play(game, "QS 3C 9C 2S")
    assert game.discard_due == S and game.phase == "discard"
    err = game.why_not(game.hand(W)[0], W)
    assert err is not None and (err.code, err.rule) == ("discard-due", "R10")
    # The discard is random (discard_random), or given by a replay (discard).
    lost = game.discard_random(random.Random(1))
    assert lost not in game.hand(S) and game.lost_cards(S) == [lost]
    assert game.view(E).to_dict()["lost"][S] == [card_str(lost)]  # shown to everyone
    assert game.discard_due is None and game.turn == W
    while game.trick_number == 1:
        play_quiet(game)
    assert game.tricks[1].clubs == 0
    assert game.discard_due == S  # again at the start of the second trick sat out
    assert after_trick(game) == [S]
    while game.trick_number == 2:
        play_quiet(game)
    assert game.tricks[2].clubs == 0
    assert after_trick(game) == []  # the lock is over
    assert len(game.lost_cards(S)) == 2 and game.sat_out[S] == 2


@pytest.mark.parametrize("rules", opts(discards=UP), ids=rules_id)
def test_r10_upfront_the_whole_lock_leaves_right_after_the_locking_trick(rules: Rules) -> None:
    game = new_game(
        {S: "QS", W: "3C", N: "9C", E: "2S"},
        dealer=3,
        rules=rules,
        only={W: "DH", N: "DH", E: "HS"},
    )
    play(game, "QS 3C 9C 2S")
    assert game.trick_number == 1 and game.locks == [2, 0, 0, 0]
    assert game.discard_due == S
    game.discard_random(random.Random(2))
    assert game.discard_due == S
    game.discard_random(random.Random(3))
    assert game.discard_due is None and game.turn == W
    assert sizes(game) == [10, 12, 12, 12] and len(game.lost_cards(S)) == 2
    for trick in (1, 2):
        while game.trick_number == trick:
            assert game.discard_due is None  # nothing more while the lock runs
            play_quiet(game)
        assert game.tricks[trick].clubs == 0
        assert after_trick(game) == []
    assert len(set(sizes(game))) == 1 and game.locks == [0, 0, 0, 0]


def test_r10_a_discard_is_never_chosen_wrongly() -> None:
    game = new_game({S: "QS", W: "3C", N: "9C", E: "2S"}, dealer=3, only={W: "CDH", N: "CDH"})
    play(game, "QS 3C 9C 2S")
    before = state(game)
    for card, seat, code in [
        (game.hand(S)[0], W, "wrong-discard-seat"),
        (c("3C"), S, "not-in-hand"),  # played already
        (game.hand(W)[0], None, "not-in-hand"),  # another seat's card
    ]:
        with pytest.raises(IllegalMove) as info:
            game.discard(card, seat)
        assert (info.value.code, info.value.rule) == (code, "R10")
        assert state(game) == before
    discard_all(game)
    with pytest.raises(IllegalMove) as info:
        game.discard(game.hand(W)[0], W)
    assert (info.value.code, info.value.rule) == ("no-discard-due", "R10")


# ----------------------------------------------------------------------------- R11


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r11_after_a_trick_without_clubs_its_winner_leads(rules: Rules) -> None:
    game = new_game({S: "7D", W: "QD", N: "2D", E: "6D"}, dealer=3, rules=rules)
    play(game, "7D QD 2D 6D")
    assert game.turn == W and game.leader == W


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r11_after_a_club_trick_the_first_unlocked_seat_left_of_the_winner_leads(
    rules: Rules,
) -> None:
    # Example 3: North wins a club and is locked: East, on its left, leads.
    game = new_game({S: "8S", W: "TS", N: "AS", E: "4C"}, dealer=3, rules=rules, only={E: "CDH"})
    play(game, "8S TS AS 4C")
    discard_all(game)
    assert game.turn == E
    # The lockdown skips two locked seats (R11): see its test, trick 9.


# ----------------------------------------------------------------------------- R13, R14


def test_r13_r14_points_totals_and_the_hand_summary() -> None:
    game = random_game(9, Rules(target=50))
    totals = [0, 0, 0, 0]
    for number, h in enumerate(game.summaries):
        assert h.number == number
        assert sum(h.points) + h.empty_tricks == 13  # a point a trick, nothing subtracted
        totals = [t + p for t, p in zip(totals, h.points, strict=True)]
        assert list(h.totals) == totals  # running totals
        # Either way (R10), a locked seat loses one card for each trick it sits out.
        assert [len(lost) for lost in h.lost] == list(h.tricks_sat_out)
    assert game.totals == totals
    d = game.summaries[0].to_dict()
    assert set(d) == {
        "number",
        "dealer",
        "points",
        "totals",
        "times_locked",
        "tricks_sat_out",
        "lost",
        "empty_tricks",
    }
    assert all(re.fullmatch(r"[2-9TJQKA][CDHS]", x) for lost in d["lost"] for x in lost)


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_r14_the_summary_counts_locks_sat_out_tricks_and_lost_cards(rules: Rules) -> None:
    game = lockdown_to_trick_6(rules)
    play(game, "2C TC 9C AC")
    while game.phase != "deal":
        discard_all(game)
        if game.phase == "play":
            game.play(game.legal_cards()[0])
    h = game.summaries[0]
    assert h.dealer == 0 and h.number == 0
    assert h.points[W] >= 7 and h.points[S] >= 1 and sum(h.points) == 12
    assert h.times_locked == tuple(game.times_locked)
    assert min(h.times_locked) >= 1  # each seat was locked in the lockdown
    assert h.tricks_sat_out[S] == 4 and h.tricks_sat_out[W] >= 1
    assert [len(x) for x in h.lost] == list(h.tricks_sat_out)  # a card per trick sat out
    assert list(h.lost[S]) == game.lost_cards(S)
    assert h.empty_tricks == 1


# ----------------------------------------------------------------------------- R15, R16


def finish_hand_with_totals(totals_after: list[int], target: int = 20) -> Game:
    """A targeted state: a hand played out whose running totals are set, just before its
    last card, so that the hand ends on ``totals_after``."""
    game = new_game({}, dealer=0, rules=Rules(target=target))
    rng = random.Random(1)
    while True:
        assert game.phase != "deal"
        if game.phase == "play" and game.trick_number == 12:
            probe = game.clone()
            probe.play(probe.legal_cards()[0])
            if probe.phase == "deal":  # that was the hand's last card
                break
        step(game, rng)
    game.totals[:] = [t - p for t, p in zip(totals_after, probe.points, strict=True)]
    game.play(game.legal_cards()[0])
    assert game.totals == totals_after
    return game


def test_example_7_a_shared_top_total_wins_nothing_another_hand_is_dealt() -> None:
    # 22 + 22 + 17 + 9 = 70 needs empty tricks (70 is not 13 a hand), so the totals are set.
    game = finish_hand_with_totals([22, 22, 17, 9])
    assert game.winner is None and game.phase == "deal" and not game.is_over
    game.deal(make_deal({}))  # another hand is dealt
    assert game.phase == "play"


def test_example_7_the_sole_leader_at_or_above_the_target_wins() -> None:
    game = finish_hand_with_totals([21, 20, 19, 18])
    assert game.is_over and game.winner == 0
    with pytest.raises(IllegalMove) as info:
        game.deal(make_deal({}))
    assert (info.value.code, info.value.rule) == ("game-over", "R15")


def test_example_7_in_real_games() -> None:
    """Whole games from ``tests/fixtures``: 21, 20, 19, 18 after six hands and the 21
    wins; 22, 22, 17, 4 after five hands, nobody wins and the game goes on."""
    won = parse_record((FIXTURES / "won-21-20-19-18.json").read_bytes())
    game = Game(won.rules, won.hands[0].dealer)
    for hand in won.hands:
        assert not game.is_over
        game.deal(hand.deal)
        apply(game, hand.events)
    assert game.totals == [21, 20, 19, 18] and game.winner == 0 and len(won.hands) == 6
    assert all(max(h.totals) < 20 for h in game.summaries[:-1])

    tie = parse_record((FIXTURES / "tie-22-22-17-4.json").read_bytes())
    game = Game(tie.rules, tie.hands[0].dealer)
    for number, hand in enumerate(tie.hands):
        game.deal(hand.deal)
        apply(game, hand.events)
        if number == 4:
            assert game.totals == [22, 22, 17, 4] and game.phase == "deal"
    assert game.is_over and len(tie.hands) > 5
    best = max(game.totals)
    assert game.totals.count(best) == 1 and game.winner == game.totals.index(best)


def test_r15_hands_are_played_in_full_and_the_game_ends_only_between_hands() -> None:
    rng = random.Random(21)
    game = Game.new(rng, Rules(target=10))
    passed_mid_hand = False
    while not game.is_over:
        if (
            game.phase != "deal"
            and max(t + p for t, p in zip(game.totals, game.points, strict=True)) >= 10
        ):
            passed_mid_hand = passed_mid_hand or game.trick_number < 13
            assert game.winner is None
        step(game, rng)
    assert passed_mid_hand
    assert game.trick_number == 13 and game.winner is not None


@pytest.mark.parametrize("target", range(10, 55, 5))
def test_r16_the_target_is_10_to_50_in_steps_of_5(target: int) -> None:
    assert Rules(target=target).target == target
    game = random_game(target, Rules(target=target))
    best = max(game.totals)
    assert best >= target and game.totals.count(best) == 1
    assert all(
        max(h.totals) < target or list(h.totals).count(max(h.totals)) > 1
        for h in game.summaries[:-1]
    )


@pytest.mark.parametrize(
    "kw",
    [
        {"target": 17},
        {"target": 5},
        {"target": 55},
        {"target": 0},
        {"target": True},
        {"target": 20.0},
        {"target": "20"},
        {"picture_exception": "any"},
        {"lock_discards": "later"},
    ],
)
def test_r16_bad_options_raise_value_error(kw: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Rules(**kw)  # type: ignore[arg-type]


def test_r16_defaults() -> None:
    assert Rules() == Rules("same-rank", "per-trick", 20)
    assert Rules().to_dict() == {
        "picture_exception": "same-rank",
        "lock_discards": "per-trick",
        "target": 20,
    }


# ----------------------------------------------------------------------------- examples


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_example_1_the_queen_of_clubs_locks_the_ace(rules: Rules) -> None:
    game = new_game({W: "QD", N: "2D", E: "QC KC 3D", S: "AD"}, dealer=0, rules=rules)
    assert game.turn == W
    play(game, "QD 2D")
    if rules.picture_exception == SAME:  # East holds diamonds: only the Q♣ escapes
        err = refused(game, "KC")
        assert (err.code, err.rule) == ("picture-rank", "R7") and "Q♣" in err.reason
    else:
        assert c("KC") in game.legal_cards()
    play(game, "QC AD")
    assert game.points == [1, 0, 0, 0] and game.locks == [1, 0, 0, 0]
    assert game.tricks[0].clubs == 1
    # R10: one random card leaves South's hand, at the next trick's start or at once.
    assert game.discard_due == S
    lost = game.discard_random(random.Random(0))
    assert game.lost_cards(S) == [lost] and game.discard_due is None
    assert game.turn == W  # R11: West leads; South sits the trick out
    while game.trick_number == 1:
        assert game.turn != S
        game.play(game.legal_cards()[0])
    assert game.locks == [0, 0, 0, 0] and game.sat_out[S] == 1


def test_example_2_any_club_a_king_lets_north_play_a_small_club() -> None:
    for discards in (PER, UP):
        game = new_game(
            {S: "KH", W: "9H", N: "5C 2H", E: "JC"},
            dealer=3,
            rules=Rules(ANY, discards),
            only={E: "CDS"},
        )
        play(game, "KH 9H 5C JC")  # North holds hearts but plays the 5♣
        t = game.tricks[0]
        assert (t.winner, t.clubs, t.lock) == (S, 2, 2)
        assert game.points == [1, 0, 0, 0] and game.locks == [2, 0, 0, 0]
        assert discard_all(game) == ([S, S] if discards == UP else [S])
        assert game.turn == W


@pytest.mark.parametrize("rules", opts(picture=SAME), ids=rules_id)
def test_example_2_same_rank_refuses_norths_small_club(rules: Rules) -> None:
    game = new_game({S: "KH", W: "9H", N: "5C 2H", E: "JC"}, dealer=3, rules=rules, only={E: "CDS"})
    play(game, "KH 9H")
    err = refused(game, "5C")
    assert (err.code, err.rule) == ("picture-rank", "R7")
    assert "You hold hearts: you must follow hearts." in err.reason and "K♣" in err.reason


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_example_3_an_ace_takes_one_club_and_sits_out_one_trick(rules: Rules) -> None:
    game = new_game({S: "8S", W: "TS", N: "AS", E: "4C"}, dealer=3, rules=rules, only={E: "CDH"})
    play(game, "8S TS AS 4C")
    assert game.points == [0, 0, 1, 0] and game.locks == [0, 0, 1, 0]
    assert game.view(S).voids[E] == 1 << SPADES  # East showed it has no spade
    assert discard_all(game) == [N]
    assert len(game.lost_cards(N)) == 1
    while game.trick_number == 1:
        game.play(game.legal_cards()[0])
    assert N not in [s for s, _ in game.tricks[1].plays]
    assert game.locks[N] == 0 and game.sat_out[N] == 1 and len(game.lost_cards(N)) == 1


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_example_4_no_club_no_lock_and_the_winner_leads(rules: Rules) -> None:
    game = new_game({S: "7D", W: "QD", N: "2D", E: "6D"}, dealer=3, rules=rules)
    play(game, "7D QD 2D 6D")
    assert game.points == [0, 1, 0, 0] and game.locks == [0, 0, 0, 0]
    assert game.tricks[0].lock == 0 and game.times_locked == [0, 0, 0, 0]
    assert game.discard_due is None and game.turn == W


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_example_5_two_clubs_from_void_seats_lock_the_queen_for_two(rules: Rules) -> None:
    game = new_game(
        {S: "QS", W: "3C", N: "9C", E: "2S"}, dealer=3, rules=rules, only={W: "CDH", N: "CDH"}
    )
    play(game, "QS 3C 9C 2S")
    assert game.points == [1, 0, 0, 0] and game.locks == [2, 0, 0, 0]
    assert game.tricks[0].lock == 2


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_example_5_clubs_from_seats_holding_spades(rules: Rules) -> None:
    game = new_game({S: "QS", W: "3C 4S", N: "9C 5S", E: "2S"}, dealer=3, rules=rules)
    play(game, "QS")
    if rules.picture_exception == SAME:
        assert refused(game, "3C").code == "picture-rank"
        return
    play(game, "3C 9C 2S")  # under any-club, legal even from seats holding spades
    assert game.locks == [2, 0, 0, 0]
    assert game.view(E).voids == (0, 0, 0, 0)


# ----------------------------------------------------------------------------- refusals


def refusal_cases() -> list[tuple[str, Game, str, int | None, str, str, str]]:
    """(name, game, card, seat, code, rule, words in the reason) for each plain-words
    refusal at the end of docs/rules.md."""
    out = []
    g = new_game({S: "2C 3D"}, dealer=3)
    out.append(("lead a club", g, "2C", None, "lead-club", "R5", "lead a club"))
    g = new_game({W: "5D", N: "2D 3H"}, dealer=0)
    play(g, "5D")
    out.append(("not following", g, "3H", None, "must-follow", "R6", "must follow diamonds"))
    g = new_game({W: "QD", N: "2D KC"}, dealer=0)
    play(g, "QD")
    out.append(("picture not on table", g, "KC", None, "picture-rank", "R7", "Q♣"))
    g = new_game({W: "5D", N: "2D", S: "3D"}, dealer=0)
    play(g, "5D")
    out.append(("out of turn", g, "3D", S, "not-your-turn", "R4", "not your turn"))
    g = new_game({S: "QS", W: "3C", N: "9C", E: "2S"}, dealer=3, only={W: "CDH", N: "CDH"})
    play(g, "QS 3C 9C 2S")
    discard_all(g)
    out.append(("while locked", g, card_str(g.hand(S)[0]), S, "locked", "R9", "locked up"))
    g = new_game({W: "5D", N: "2D"}, dealer=0)
    play(g, "5D")
    out.append(
        (
            "not in hand",
            g,
            "AS" if c("AS") not in g.hand(N) else "AH",
            None,
            "not-in-hand",
            "R4",
            "do not hold",
        )
    )
    out.append(("already played", g, "5D", None, "not-in-hand", "R4", "already been played"))
    g = new_game({S: "QS", W: "3C", N: "9C", E: "2S"}, dealer=3, only={W: "CDH", N: "CDH"})
    play(g, "QS 3C 9C 2S")
    lost = g.hand(S)[0]
    g.discard(lost)
    while g.trick_number < 3 or g.turn != S:
        discard_all(g)
        g.play(g.legal_cards()[0])
    out.append(("lost to lockup", g, card_str(lost), S, "not-in-hand", "R4", "lockup took it"))
    g = new_game({S: "QS", W: "3C", N: "9C", E: "2S"}, dealer=3, only={W: "CDH", N: "CDH"})
    play(g, "QS 3C 9C 2S")
    out.append(("discard due", g, card_str(g.hand(W)[0]), W, "discard-due", "R10", "take a card"))
    g = random_game(1, Rules(target=10))
    out.append(("game over", g, "2C", None, "game-over", "R15", "over"))
    g = new_game({}, dealer=0)
    rng = random.Random(4)
    while g.phase != "deal":
        step(g, rng)
    out.append(("hand over", g, "2C", None, "hand-over", "R10", "hand is over"))
    return out


@pytest.mark.parametrize("case", refusal_cases(), ids=lambda case: case[0])
def test_refusals_in_plain_words(case: tuple[str, Game, str, int | None, str, str, str]) -> None:
    _, game, card, seat, code, rule, words = case
    before = state(game)
    refusal = game.why_not(c(card), seat)
    assert refusal is not None
    assert (refusal.code, refusal.rule) == (code, rule)
    assert words.lower() in refusal.reason.lower()
    assert refusal.reason[0].isupper() and refusal.reason.endswith(".")
    assert refusal.to_dict()["code"] == code
    with pytest.raises(IllegalMove) as info:
        game.play(c(card), seat)
    assert (info.value.code, info.value.rule, info.value.reason) == (code, rule, refusal.reason)
    assert info.value.refusal == refusal
    assert state(game) == before  # an illegal play changes nothing


def test_why_not_is_none_exactly_for_the_legal_cards() -> None:
    for seed in range(6):
        rng = random.Random(seed)
        rules = ALL_OPTIONS[seed % 4]
        game = Game.new(rng, rules)
        while game.hand_number == 0:
            if game.phase == "play":
                for seat in range(4):
                    for x in range(52):
                        assert (game.why_not(x, seat) is None) == (
                            seat == game.turn and x in game.legal_cards()
                        )
            step(game, rng)


def test_an_illegal_move_leaves_the_state_exactly_as_it_was() -> None:
    for seed in range(4):
        rng = random.Random(seed)
        game = Game.new(rng, ALL_OPTIONS[seed])
        while game.hand_number < 2:
            if game.phase == "play" and rng.random() < 0.3:
                before = state(game)
                for x in range(52):
                    for seat in range(4):
                        if game.why_not(x, seat) is not None:
                            with pytest.raises(IllegalMove):
                                game.play(x, seat)
                assert state(game) == before
            if game.phase == "discard":
                before = state(game)
                for x in game.hand((game.discard_due + 1) % 4):
                    with pytest.raises(IllegalMove):
                        game.discard(x)
                assert state(game) == before
            step(game, rng)


# ----------------------------------------------------------------------------- SeatView


def walk(value: object) -> list[object]:
    """Every leaf of a nested structure of dicts, lists, tuples and objects."""
    out: list[object] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list | tuple | set | frozenset):
            stack.extend(v)
        elif hasattr(v, "__dict__") and not isinstance(v, type):
            stack.extend(vars(v).values())
        elif hasattr(type(v), "__slots__") and not isinstance(v, int | str | float):
            stack.extend(getattr(v, n) for n in type(v).__slots__ if hasattr(v, n))
        else:
            out.append(v)
    return out


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_a_seat_view_never_holds_another_seats_cards(rules: Rules) -> None:
    rng = random.Random(7)
    game = Game.new(rng, rules)
    checked = 0
    while game.hand_number < 2:
        if game.phase != "deal":
            for seat in range(4):
                view = game.view(seat)
                others = {s: game.hand(s) for s in range(4) if s != seat}
                data = view.to_dict()
                assert data["hand"] == [card_str(x) for x in game.hand(seat)]
                public = dict(data)
                if game.hand_number > 0:
                    public.pop("summaries")  # last hands' lost cards are dealt again
                codes = {x for x in walk(public) if isinstance(x, str)}
                for s, hand in others.items():
                    assert not codes & {card_str(x) for x in hand}, (seat, s)
                # Nor, as a mask, anywhere in the view object itself.
                masks = {game.hands[s] for s in others if game.hands[s] >= 1 << 20}
                leaves = walk([getattr(view, n) for n in SeatView.__slots__])
                assert not masks & {x for x in leaves if isinstance(x, int)}
                assert data["hand_sizes"] == sizes(game)
                checked += 1
        step(game, rng)
    assert checked > 100


def test_voids_are_shown_by_not_following_only() -> None:
    # Same-rank: East plays the Q♣ on a queen while holding diamonds (no void shown);
    # North, void in diamonds, plays a heart (void shown).
    game = new_game({W: "QD", N: "2H", E: "QC 3D", S: "AD"}, dealer=0, only={N: "CHS"})
    play(game, "QD 2H QC AD")
    view = game.view(S)
    assert view.voids == (0, 0, 1 << DIAMONDS, 0)
    assert view.voids_shown == (VoidShown(N, DIAMONDS, 0, 1),)
    assert view.to_dict()["voids"] == [[], [], ["diamonds"], []]
    # A void seat playing a club the exception would not allow shows its void.
    game = new_game({W: "KD", N: "5C", E: "2D", S: "3D"}, dealer=0, only={N: "CHS"})
    play(game, "KD 5C")
    assert game.view(E).voids[N] == 1 << DIAMONDS
    # Any-club: a club on a picture shows nothing, void or not.
    game = new_game(
        {W: "KD", N: "5C", E: "2D", S: "3D"}, dealer=0, rules=Rules(ANY), only={N: "CHS"}
    )
    play(game, "KD 5C")
    assert game.view(E).voids[N] == 0
    assert game.view(E).voids_shown == ()
    # Leading (a non-club) or following shows nothing.
    assert game.view(N).voids[W] == 0 and game.view(N).voids[E] == 0


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_from_view_with_the_true_hands_gives_back_the_game(rules: Rules) -> None:
    rng = random.Random(3)
    game = Game.new(rng, rules)
    checked = 0
    while game.hand_number < 2:
        if game.phase != "deal" and rng.random() < 0.3:
            for seat in range(4):
                view = game.view(seat)
                back = Game.from_view(view, list(game.hands))
                a, b = state(game), state(back)
                for s in (a, b):
                    s.pop("log")
                assert a == b  # lost cards in the order they left, too
                assert back.legal_cards() == game.legal_cards()
                checked += 1
        step(game, rng)
    assert checked > 20
    view = game.view(0)
    wrong = list(game.hands)
    wrong[0], wrong[1] = wrong[1], wrong[0]
    with pytest.raises(ValueError):
        Game.from_view(view, wrong)


def test_a_view_is_a_snapshot_and_a_clone_is_independent() -> None:
    rng = random.Random(8)
    game = Game.new(rng, Rules())
    for _ in range(30):
        step(game, rng)
    view, before = game.view(0).to_dict(), state(game)
    twin = game.clone()
    other = random.Random(99)
    while not twin.is_over:
        step(twin, other)
    assert state(game) == before  # playing the clone to the end left the game alone
    assert game.view(0).to_dict() == view
    for _ in range(20):
        step(game, rng)
    assert view != game.view(0).to_dict()
    assert len(twin.log) > 1 and len(game.log) == 1  # the event logs are separate too


# ----------------------------------------------------------------------------- docs


def test_the_engine_doc_snippets_run() -> None:
    doc = Path(__file__).parent.parent / "docs" / "engine.md"
    text = doc.read_text(encoding="utf-8")
    blocks = list(re.finditer(r"```python\n(.*?)```", text, re.S))
    assert blocks
    namespace: dict[str, object] = {}
    for m in blocks:  # one script; padded so that errors name the doc's line
        code = "\n" * text.count("\n", 0, m.start(1)) + m.group(1)
        exec(compile(code, str(doc), "exec"), namespace)  # noqa: S102
