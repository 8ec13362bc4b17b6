"""The worked examples of docs/rules.md, each a test (R7, R9, R10, R11)."""

from lockup.cards import parse_card
from lockup.engine import Game, IllegalMove, Rules


def deal_of(*hands: str) -> list[list[int]]:
    return [[parse_card(c) for c in h.split()] for h in hands]


def test_example_1_default_rules_queen_of_clubs_locks_the_ace() -> None:
    # Dealer South (0): West (1) leads the first trick (R3).
    game = Game(Rules(), dealer=0)
    game.deal(
        deal_of(
            "AD 3D 4D 5D 6D 2H 3H 4H 5H 6H 7H 8H 9H",
            "QD 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
            "2D 7D 8D 9D TD JD AS TH JH QH KH AH 2C",
            "QC KD 3C 4C 5C 6C 7C 8C 9C TC JC KC AC",
        )
    )
    assert game.turn == 1
    game.play(parse_card("QD"))
    game.play(parse_card("2D"))
    # East holds diamonds: only the Q♣ escapes following suit (R7 same-rank).
    try:
        game.play(parse_card("KC"))
    except IllegalMove as e:
        assert e.rule == "R7" and e.code == "picture-rank"
        assert "Q♣" in e.reason
    else:
        raise AssertionError("K♣ must be refused")
    game.play(parse_card("QC"))
    game.play(parse_card("AD"))
    assert game.points == [1, 0, 0, 0]
    assert game.locks == [1, 0, 0, 0]
    assert game.discard_due == 0  # R10 per-trick: one random card at the next trick's start
    game.discard(parse_card("3D"))
    assert game.lost_cards(0) == [parse_card("3D")]
    assert game.turn == 1  # R11: first unlocked seat left of the winner
