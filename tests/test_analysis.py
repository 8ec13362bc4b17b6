"""``lockup.analysis`` and ``lockup analyse``: the expert's judgement of a seat's cards.

Budgets are small (a few hundred sampled deals a decision) so the file runs in well
under a minute on two cores.
"""

from __future__ import annotations

import copy
import io
import itertools
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from lockup.analysis import (
    MARKS,
    Analysis,
    accuracy_of,
    analyse,
    hindsight_values,
    mark_of,
    search_values,
)
from lockup.analysis.cli import ProgressBar
from lockup.bots import hint
from lockup.cards import SUIT_MASKS, card_str, cards_of, parse_card
from lockup.cli import main
from lockup.engine import Game, SeatView
from lockup.record import IllegalRecord, RecordError, from_record, parse_record

FIXTURES = Path(__file__).parent / "fixtures"
GAME = FIXTURES / "won-21-20-19-18.json"
SMALL = 300
"""Deals sampled per decision in these tests."""


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def record(deal: list[str], events: str, dealer: int = 3) -> dict[str, Any]:
    """A one-hand record: ``deal`` as four strings of cards, events as ``seat:CARD``
    (a play) or ``seat!CARD`` (a lockup discard)."""
    evs: list[dict[str, Any]] = []
    for e in events.split():
        if ":" in e:
            seat, c = e.split(":")
            evs.append({"seat": int(seat), "play": c})
        else:
            seat, c = e.split("!")
            evs.append({"seat": int(seat), "discard": c})
    return {
        "format": "lockup-record/1",
        "rules": {},
        "hands": [{"dealer": dealer, "deal": [d.split() for d in deal], "events": evs}],
    }


# ---------------------------------------------------------------------- an exact oracle


def span(game: Game, seat: int) -> tuple[int, int]:
    """The fewest and most tricks ``seat`` can end the hand with, over every line of play
    of every seat and every lockup discard from here."""
    if game.phase in ("deal", "over"):
        return game.points[seat], game.points[seat]
    lo, hi = 99, -1
    due = game.discard_due
    options = game.hand(due) if due is not None else game.legal_cards()
    for c in options:
        g = game.clone()
        if due is not None:
            g.discard(c)
        else:
            g.play(c)
        a, b = span(g, seat)
        lo, hi = min(lo, a), max(hi, b)
    return lo, hi


def consistent_deals(view: SeatView) -> list[list[int]]:
    """Every deal of the unseen cards to the other seats that agrees with the view."""
    me = view.seat
    others = [s for s in range(4) if s != me]
    unseen = cards_of(view.unseen_mask)
    out = []
    for a in itertools.combinations(unseen, view.hand_sizes[others[0]]):
        rest = [c for c in unseen if c not in a]
        for b in itertools.combinations(rest, view.hand_sizes[others[1]]):
            last = [c for c in rest if c not in b]
            hands = [0, 0, 0, 0]
            hands[me] = view.hand_mask
            for s, cs in zip(others, (a, b, last), strict=True):
                hands[s] = sum(1 << c for c in cs)
            if all(
                not (view.voids[s] >> su) & 1 or not hands[s] & SUIT_MASKS[su]
                for s in others
                for su in range(4)
            ):
                out.append(hands)
    return out


def spans(view: SeatView) -> dict[int, tuple[int, int]]:
    """Per legal card: the fewest and most tricks over every deal the seat cannot tell
    apart from the true one and every line of play (an exact, policy-free bound)."""
    out = {}
    deals = consistent_deals(view)
    assert deals
    for c in view.legal_cards:
        lo, hi = 99, -1
        for hands in deals:
            g = Game.from_view(view, hands)
            g.play(c)
            a, b = span(g, view.seat)
            lo, hi = min(lo, a), max(hi, b)
        out[c] = (lo, hi)
    return out


# Two end positions from random play: the seat to play holds two legal cards at the
# 12th trick, and one of them ends the hand with at least one trick more than the other
# in every deal the seat cannot rule out, whatever anyone plays (checked by `spans`).
END_POSITIONS = [
    pytest.param(
        [
            "5D JH JC 5S 7D 8C 8S 6C 9S KC 9C 7C JS",
            "2H 2C 6D AC TH 8H AS 7H 9H 2D 7S QS 4H",
            "TS QC 3S 6H KS 4D 6S 4C 3C 2S TC QD 4S",
            "5H AD KH TD 9D QH JD 3D 5C 3H 8D KD AH",
        ],
        "0:7D 1:6D 2:4D 3:JD 3:TD 0:5D 1:2D 2:QD 2:6H 3:KH 0:JH 1:8H 3:3D 0:5S 1:2C 2:QC "
        "3!8D 0:JS 1:QS 2:KS 3!KD 2:6S 0:9S 1:AS 1:4H 2:4S 3:QH 0:JC 3!5H 0:8S 1:7S 2:TS "
        "2:3S 3:9D 0:KC 1:AC 2!TC 3:AH 0:6C 1:9H 2!4C 3!AD 0:7C 1:7H 0!8C",
        1,
        "TH",
        id="west-leads-the-ten",
    ),
    pytest.param(
        [
            "TC 2C 3H QS 4H 2S 8D TH 4C 9S 4D 7H 6S",
            "AS QC 7D 2H JC 3D 8C 5C TD 9C KD 9D 9H",
            "7S AC AD QH KS QD 3S 6C AH 3C 8S 2D JD",
            "JS 4S 7C 6D 6H TS 5D KC JH 8H 5S KH 5H",
        ],
        "0:3H 1:2H 2:QH 3:8H 2:8S 3:TS 0:QS 1:QC 0!4H 1:TD 2:2D 3:6D 1:7D 2:AD 3:5D 0:4D "
        "2:7S 3:5S 0:2S 1:AS 1:9H 2:AH 3:6H 0:7H 2:JD 3:JS 0:8D 1:3D 2:KS 3:KC 0:9S 1:5C "
        "2!QD 3:4S 0:6S 1:9D 2!3S 0:TH 1:8C 3:KH 3!7C 0:TC 1:9C 2:AC 2!3C 3:JH 0:4C",
        1,
        "KD",
        id="west-on-a-heart-lead",
    ),
]


@pytest.mark.parametrize(("deal", "events", "seat", "best"), END_POSITIONS)
def test_end_positions_mark_the_worse_card_and_not_the_best(
    deal: list[str], events: str, seat: int, best: str
) -> None:
    rec = record(deal, events)
    game = from_record(rec)
    view = game.view(seat)
    assert game.turn == seat and len(view.legal_cards) == 2
    exact = spans(view)
    b = parse_card(best)
    for c, (_lo, hi) in exact.items():
        if c != b:
            assert exact[b][0] >= hi + 1, (card_str(c), exact)
    for c in view.legal_cards:
        rec_c = copy.deepcopy(rec)
        rec_c["hands"][0]["events"].append({"seat": seat, "play": card_str(c)})
        a = analyse(rec_c, seat, iterations=SMALL, seed=3, workers=1)
        last = a.decisions[-1]
        assert (last.hand, last.trick, last.played) == (0, 11, c)
        assert last.best == b
        # The sampled deals agree with the view, so the exact bound holds for the mean.
        others = [x for x in view.legal_cards if x != b]
        assert all(last.values[b] >= last.values[x] + 1 for x in others), last.values
        if c == b:
            assert last.loss == 0 and last.mark is None
        else:
            assert last.loss >= 1.0 and last.mark == "blunder"
        assert not last.forced
        assert set(last.hindsight.values) == set(view.legal_cards)
        assert last.hindsight.best == b


def _swap_unseen(rec: dict[str, Any], seat: int, hand: int, upto: int) -> dict[str, Any]:
    """The record cut after ``upto`` events of ``hand``, with two cards of one suit that
    two other seats still hold then swapped in the deal: another true deal that agrees
    with everything ``seat`` has seen (same plays, same voids)."""
    cut = copy.deepcopy(rec)
    cut["hands"] = cut["hands"][: hand + 1]
    cut["hands"][hand]["events"] = cut["hands"][hand]["events"][:upto]
    game = from_record(cut)
    others = [s for s in range(4) if s != seat]
    for a, b in itertools.combinations(others, 2):
        for su in (3, 2, 1, 0):
            ca = cards_of(game.hands[a] & SUIT_MASKS[su])
            cb = cards_of(game.hands[b] & SUIT_MASKS[su])
            if ca and cb:
                x, y = card_str(ca[-1]), card_str(cb[0])
                other = copy.deepcopy(cut)
                deal = other["hands"][hand]["deal"]
                deal[a][deal[a].index(x)] = y
                deal[b][deal[b].index(y)] = x
                return other
    raise AssertionError("no two other seats hold the same suit")


def test_values_do_not_depend_on_the_hidden_cards() -> None:
    rec = load(GAME)
    cut = copy.deepcopy(rec)
    cut["hands"] = cut["hands"][:1]
    cut["hands"][0]["events"] = cut["hands"][0]["events"][:30]
    other = _swap_unseen(rec, 0, 0, 30)
    assert other["hands"][0]["deal"] != cut["hands"][0]["deal"]
    g1, g2 = from_record(cut), from_record(other)  # both legal
    assert g1.view(0) == g2.view(0)  # the seat's view is the same...
    assert g1.hands != g2.hands  # ...the true deals are not
    a1 = analyse(cut, 0, iterations=SMALL, seed=5, workers=1)
    a2 = analyse(other, 0, iterations=SMALL, seed=5, workers=1)
    assert len(a1.decisions) >= 5
    for d1, d2 in zip(a1.decisions, a2.decisions, strict=True):
        assert d1.values == d2.values
        assert d1.win_chance == d2.win_chance
        assert (d1.best, d1.loss, d1.mark) == (d2.best, d2.loss, d2.mark)
    # Only the hindsight view, labelled as such, may see the difference.
    assert all(d.to_dict()["hindsight"]["label"].startswith("hindsight") for d in a1.decisions)


def test_search_values_read_only_the_view() -> None:
    cut = load(GAME)
    cut["hands"] = cut["hands"][:1]
    cut["hands"][0]["events"] = cut["hands"][0]["events"][:9]
    game = from_record(cut)
    view = game.view(game.turn)
    values, win, n = search_values(view, seed=11, iterations=SMALL)
    assert n == SMALL and set(values) == set(view.legal_cards)
    assert win is None  # 0 points before the first hand: no one can reach 20 in it
    assert search_values(view, seed=11, iterations=SMALL)[0] == values


def test_values_are_the_hints_and_the_win_chance_reads_the_game_end() -> None:
    rec = load(GAME)
    events = rec["hands"][5]["events"]
    mine = [k for k, e in enumerate(events) if e.get("play") and e["seat"] == 0]
    views = []
    for k in (mine[0], mine[-1]):
        cut = copy.deepcopy(rec)
        cut["hands"][5]["events"] = events[:k]
        game = from_record(cut)
        views.append((game.view(0), tuple(game.hands)))
    (first, _), (last, hands) = views
    assert first.totals[0] == 18 and first.trick_number == 0
    values, win, n = search_values(first, seed=random.Random(7).getrandbits(32), iterations=SMALL)
    assert values == hint(first, iterations=SMALL, seed=7)  # the game term changes no trick
    assert win is not None and all(0 < p < 1 for p in win.values())
    # At its last card South already holds 20 or more, the others too far behind: won.
    assert last.points[0] + last.totals[0] >= 20
    values, win, n = search_values(last, seed=1, iterations=SMALL)
    h_values, h_win = hindsight_values(last, hands, seed=1)
    assert win == h_win == dict.fromkeys(last.legal_cards, 1.0)


def test_forced_cards_are_never_marked_and_the_whole_game_is_analysed() -> None:
    rec = load(GAME)
    start = time.perf_counter()
    a = analyse(rec, 1, iterations=SMALL, seed=0, workers=1)
    seconds = time.perf_counter() - start
    print(f"whole game, seat 1, {SMALL} deals a decision, 1 worker: {seconds:.1f} s")
    plays = sum(1 for h in rec["hands"] for e in h["events"] if e.get("play") and e["seat"] == 1)
    assert len(a.decisions) == plays and len(rec["hands"]) == 6
    assert {d.hand for d in a.decisions} == set(range(6))
    forced = [d for d in a.decisions if d.forced]
    assert forced, "the game has forced cards"
    for d in forced:
        assert d.loss == 0 and d.mark is None and len(d.values) == 1 and d.best == d.played
    for d in a.decisions:
        assert d.loss >= 0 and d.hindsight.loss >= 0
        assert d.values[d.best] == max(d.values.values())
        assert d.mark == mark_of(d.loss, d.forced)
        assert d.played in d.values
    # The game is at stake in the last hands (totals near 20), not in the first.
    assert all(d.win_chance is None for d in a.decisions if d.hand == 0)
    staked = [d for d in a.decisions if d.win_chance is not None]
    assert staked and all(0 <= p <= 1 for d in staked for p in d.win_chance.values())  # type: ignore[union-attr]
    assert a.accuracy == accuracy_of([d.loss for d in a.decisions if not d.forced])
    assert a.accuracy is not None and 0 <= a.accuracy <= 100
    assert [h.hand for h in a.hands] == list(range(6))
    assert sum(a.marks.values()) == sum(1 for d in a.decisions if d.mark)
    assert seconds < 60


def test_json_shape() -> None:
    cut = load(GAME)
    cut["hands"] = cut["hands"][:1]
    cut["hands"][0]["events"] = cut["hands"][0]["events"][:16]
    a = analyse(cut, 2, iterations=50, seed=1, workers=1)
    d = a.to_dict()
    json.dumps(d)
    assert d["seat"] == 2 and d["player"] == "Leifur"
    assert d["budget"] == {
        "iterations": 50,
        "time_per_move": None,
        "seed": 1,
        "deterministic": True,
        "hindsight_rollouts": 32,
    }
    assert d["thresholds"] == dict(MARKS)
    dec = d["decisions"][0]
    assert set(dec) >= {"hand", "trick", "played", "best", "values", "loss", "forced", "mark"}
    assert set(dec["hindsight"]) >= {"label", "values", "best", "loss"}
    assert all(parse_card(c) >= 0 for c in dec["values"])
    assert set(d["hands"][0]) >= {"hand", "accuracy", "loss"}


def test_accuracy_and_marks() -> None:
    assert mark_of(0.29) is None
    assert mark_of(0.3) == "inaccuracy"
    assert mark_of(0.6) == "mistake"
    assert mark_of(1.0) == "blunder"
    assert mark_of(5.0, forced=True) is None
    assert accuracy_of([]) is None
    assert accuracy_of([0.0, 0.0]) == 100.0
    assert 0 < accuracy_of([1.0]) < accuracy_of([0.3]) < 100  # type: ignore[operator]


def test_deterministic_across_workers() -> None:
    cut = load(GAME)
    cut["hands"] = cut["hands"][:1]
    cut["hands"][0]["events"] = cut["hands"][0]["events"][:32]
    seen: list[tuple[int, int]] = []
    one = analyse(cut, 3, iterations=200, seed=9, workers=1)
    two = analyse(
        cut, 3, iterations=200, seed=9, workers=2, progress=lambda d, t: seen.append((d, t))
    )
    assert one.to_dict() == two.to_dict()
    n = len(one.decisions)
    assert n >= 5 and two.workers == 2 and seen[0] == (0, n) and seen[-1] == (n, n)
    again = analyse(cut, 3, iterations=200, seed=10, workers=1)
    assert again.to_dict() != one.to_dict()


def test_time_budget_is_labelled_not_deterministic() -> None:
    cut = load(GAME)
    cut["hands"] = cut["hands"][:1]
    cut["hands"][0]["events"] = cut["hands"][0]["events"][:8]
    a = analyse(cut, 0, time_per_move=0.02, workers=1)
    assert not a.deterministic
    assert a.to_dict()["budget"]["time_per_move"] == 0.02
    assert all(d.iterations >= 8 for d in a.decisions)


def test_bad_input() -> None:
    with pytest.raises(RecordError):
        analyse({"format": "nope"}, 0)
    bad = load(GAME)
    bad["hands"][0]["events"][0]["seat"] = (bad["hands"][0]["events"][0]["seat"] + 1) % 4
    with pytest.raises(IllegalRecord):
        analyse(bad, 0)
    with pytest.raises(ValueError):
        analyse(load(GAME), 4)
    with pytest.raises(ValueError):
        analyse(load(GAME), 0, iterations=0)
    assert isinstance(parse_record(load(GAME)).hands, list)


def test_a_game_object_is_accepted() -> None:
    cut = load(GAME)
    cut["hands"] = cut["hands"][:1]
    cut["hands"][0]["events"] = cut["hands"][0]["events"][:8]
    a = analyse(from_record(cut), 0, iterations=50, workers=1)
    b = analyse(cut, 0, iterations=50, workers=1)
    assert isinstance(a, Analysis) and a.to_dict() == b.to_dict()


# ---------------------------------------------------------------------- the command


def _small_record(tmp_path: Path) -> Path:
    cut = load(GAME)
    cut["hands"] = cut["hands"][:1]
    cut["hands"][0]["events"] = cut["hands"][0]["events"][:20]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(cut), encoding="utf-8")
    return path


def test_cli_json_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _small_record(tmp_path)
    args = ["analyse", str(path), "--seat", "west", "--json", "-", "--iterations", "60"]
    assert main([*args, "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["seat"] == 1 and len(data["decisions"]) == 5
    # stderr is not a terminal: no bar, one final line.
    assert err.count("\n") == 1 and err.startswith("lockup analyse: 5 decisions of West")


def test_cli_table_and_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _small_record(tmp_path)
    out_file = tmp_path / "a.json"
    args = ["analyse", str(path), "--seat", "0", "--iterations", "60", "--workers", "1"]
    assert main([*args, "--json", str(out_file)]) == 0
    out, _ = capsys.readouterr()
    assert "hand trick  played best" in out and "game: accuracy" in out
    assert "hindsight" in out
    assert json.loads(out_file.read_text(encoding="utf-8"))["seat"] == 0


def test_cli_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "lockup-record/1", "hands": 3}', encoding="utf-8")
    assert main(["analyse", str(bad), "--seat", "0"]) == 2
    assert "not a record: hands must be a list" in capsys.readouterr().err
    illegal = load(GAME)
    illegal["hands"][0]["events"][0]["seat"] = (illegal["hands"][0]["events"][0]["seat"] + 1) % 4
    bad.write_text(json.dumps(illegal), encoding="utf-8")
    assert main(["analyse", str(bad), "--seat", "0"]) == 2
    assert "breaks a rule" in capsys.readouterr().err
    assert main(["analyse", str(tmp_path / "missing.json"), "--seat", "0"]) == 2
    assert "cannot read" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["analyse", str(bad), "--seat", "9"])
    assert exc.value.code == 2


def test_progress_bar_redraws_one_line_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    bar = ProgressBar(stream)
    for done in range(5):
        bar(done, 4)
    bar.finish("lockup analyse: 4 decisions")
    text = stream.getvalue()
    assert text.count("\r") == 5 and text.count("\n") == 2
    assert "[##############################] 4/4 decisions" in text
    quiet = io.StringIO()
    bar = ProgressBar(quiet)
    bar(2, 4)
    bar.finish("the end")
    assert quiet.getvalue() == "the end\n"
