"""Game records, ``lockup-record/1`` (docs/records.md): write, read, replay, round trips."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ALL_OPTIONS, FIXTURES, rules_id, state, step

from lockup.cards import card_str, parse_card
from lockup.engine import Game, Rules
from lockup.record import (
    FORMAT,
    IllegalRecord,
    RecordError,
    dumps,
    from_record,
    loads,
    parse_record,
    players_of,
    replay,
    summary,
    to_record,
)

CODE = re.compile(r"[2-9TJQKA][CDHS]")


def game_until(seed: int, rules: Rules, steps: int | None = None) -> Game:
    rng = random.Random(seed)
    game = Game.new(rng, rules)
    n = 0
    while not game.is_over and (steps is None or n < steps):
        step(game, rng)
        n += 1
    return game


def all_codes(record: dict) -> list[str]:
    out = []
    for hand in record["hands"]:
        out += [x for cs in hand["deal"] for x in cs]
        out += [e.get("play", e.get("discard")) for e in hand["events"]]
    return out


# ----------------------------------------------------------------------------- writing


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
def test_a_record_holds_rules_players_deals_and_events(rules: Rules) -> None:
    game = game_until(1, rules)
    record = to_record(game)
    assert record["format"] == FORMAT == "lockup-record/1"
    assert record["rules"] == rules.to_dict()
    assert record["players"] == ["You", "Þóra", "Leifur", "Vigdís"]
    assert len(record["hands"]) == len(game.summaries)
    for hand, h in zip(record["hands"], game.summaries, strict=True):
        assert hand["dealer"] == h.dealer
        assert [len(x) for x in hand["deal"]] == [13, 13, 13, 13]
        assert sorted(parse_card(x) for cs in hand["deal"] for x in cs) == list(range(52))
        plays = [e for e in hand["events"] if "play" in e]
        discards = [e for e in hand["events"] if "discard" in e]
        assert all(
            set(e) == {"seat", "play"} or set(e) == {"seat", "discard"} for e in hand["events"]
        )
        assert len(plays) + len(discards) == 52
        assert len(discards) == sum(h.tricks_sat_out)
    assert all(CODE.fullmatch(x) for x in all_codes(record))  # writers write 2 characters
    assert json.loads(dumps(game)) == record
    assert to_record(game, ["A", "B", "C", "D"])["players"] == ["A", "B", "C", "D"]


def test_discards_stand_where_the_rules_put_them() -> None:
    """Per-trick: before a trick's first play, one per locked seat in seat order.
    Upfront: right after the last play of the locking trick, from the locked seat."""
    for rules in ALL_OPTIONS:
        game = game_until(2, rules)
        for hand in game.log:
            replay_game = Game(rules, hand.dealer)
            replay_game.deal(hand.deal)
            for kind, seat, card in hand.events:
                if kind == "discard":
                    assert replay_game.discard_due == seat
                    if rules.lock_discards == "per-trick":
                        assert replay_game.locks[seat] > 0 and not replay_game.trick
                    else:
                        last = replay_game.tricks[-1]
                        assert last.winner == seat and last.lock > 0
                    replay_game.discard(card, seat)
                else:
                    replay_game.play(card, seat)
            assert replay_game.trick_number == 13
        assert game.log[0].events  # something was checked


def test_a_game_without_an_event_log_cannot_be_written() -> None:
    game = Game.new(random.Random(1), record=False)
    with pytest.raises(ValueError):
        to_record(game)


# ----------------------------------------------------------------------------- reading


@pytest.mark.parametrize("rules", ALL_OPTIONS, ids=rules_id)
@pytest.mark.parametrize("steps", [0, 1, 30, 77, 200, None])
def test_round_trip_finished_and_in_progress(rules: Rules, steps: int | None) -> None:
    game = game_until(5, rules, steps)
    text = dumps(game)
    back = loads(text)
    assert state(back) == state(game)  # the identical state, log included
    assert dumps(back) == text
    for seat in range(4):
        assert back.view(seat).to_dict() == game.view(seat).to_dict()
    assert back.is_over == (steps is None)
    if not back.is_over:  # and it goes on
        rng = random.Random(0)
        while not back.is_over:
            step(back, rng)


def test_the_fixtures_read_back_to_what_they_hold() -> None:
    for path in sorted(FIXTURES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        game = from_record(path.read_bytes())
        assert to_record(game, players_of(data)) == data, path.name
    game = loads((FIXTURES / "in-progress.json").read_text(encoding="utf-8"))
    assert game.discard_due is not None and game.hand_number == 1  # stopped mid-hand
    assert game.rules == Rules("any-club", "upfront", 15)


def variant(code: str, how: str) -> str:
    rank, suit = code[0], code[1]
    if how == "ten" and rank == "T":
        return "10" + suit
    if how == "lower":
        return code.lower()
    if how == "symbols":
        return ("10" if rank == "T" else rank) + "♣♦♥♠"["CDHS".index(suit)]
    if how == "mixed":
        return ("10" if rank == "T" else rank.lower()) + "♣♦♥♠"["CDHS".index(suit)]
    return code


@pytest.mark.parametrize("how", ["ten", "lower", "symbols", "mixed"])
def test_the_reader_accepts_10_lower_case_and_suit_symbols(how: str) -> None:
    game = game_until(6, Rules(), 120)
    record = to_record(game)
    for hand in record["hands"]:
        hand["deal"] = [[variant(x, how) for x in cs] for cs in hand["deal"]]
        for e in hand["events"]:
            kind = "play" if "play" in e else "discard"
            e[kind] = variant(e[kind], how)
    text = json.dumps(record, ensure_ascii=False)
    assert text != dumps(game)
    back = loads(text)
    assert state(back) == state(game)
    assert dumps(back) == dumps(game)  # written back in the two-character form


@pytest.mark.parametrize(
    "text, card",
    [("QD", "QD"), ("TD", "TD"), ("10D", "TD"), ("td", "TD"), ("q♦", "QD"), ("10♦", "TD"),
     ("A♠", "AS"), ("2♣", "2C"), ("k♥", "KH"), ("jc", "JC")],
)  # fmt: skip
def test_card_codes(text: str, card: str) -> None:
    assert card_str(parse_card(text)) == card


@pytest.mark.parametrize("text", ["", "Q", "1D", "11D", "QX", "XD", "QDD", "♦Q", "10", "0D"])
def test_not_card_codes(text: str) -> None:
    with pytest.raises(ValueError):
        parse_card(text)


def test_missing_options_and_players_take_their_defaults() -> None:
    game = game_until(7, Rules(), 60)
    record = to_record(game)
    del record["players"]
    record["rules"] = {"lock_discards": "per-trick"}
    parsed = parse_record(json.dumps(record))
    assert parsed.rules == Rules() and parsed.players == ["You", "Þóra", "Leifur", "Vigdís"]
    del record["rules"]
    assert state(loads(json.dumps(record))) == state(game)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda r: r.pop("format"), "unknown format"),
        (lambda r: r.update(format="lockup-record/2"), "unknown format"),
        (lambda r: r.update(rules={"target": 17}), "target"),
        (lambda r: r.update(rules={"trumps": "hearts"}), "unknown rule option"),
        (lambda r: r.update(rules=[]), "rules"),
        (lambda r: r.update(players=["A", "B", "C"]), "players"),
        (lambda r: r.pop("hands"), "hands"),
        (lambda r: r["hands"][0].pop("deal"), "deal"),
        (lambda r: r["hands"][0].update(dealer="0"), "dealer"),
        (lambda r: r["hands"][0].update(dealer=4), "dealer"),
        (lambda r: r["hands"][0].update(deal="AS KS"), "deal"),
        (lambda r: r["hands"][0]["deal"][0].__setitem__(0, "1X"), "not a card"),
        (lambda r: r["hands"][0]["deal"][0].__setitem__(0, 12), "a card must be a string"),
        (lambda r: r["hands"][0].update(events={}), "events"),
        (lambda r: r["hands"][0]["events"][0].update(seat="1"), "seat"),
        (lambda r: r["hands"][0]["events"][0].update(seat=True), "seat"),
        (lambda r: r["hands"][0]["events"][0].update(discard="2C"), "events[0]"),
        (lambda r: r["hands"][0]["events"][0].update(play="ZZ"), "not a card"),
    ],
)
def test_what_is_not_a_record_raises_record_error(change: object, words: str) -> None:
    record = to_record(game_until(8, Rules(), 20))
    change(record)  # type: ignore[operator]
    with pytest.raises(RecordError) as info:
        parse_record(json.dumps(record))
    assert words in str(info.value)


@pytest.mark.parametrize(
    "data",
    [b"", b"{", b"[]", b"42", b'"lockup-record/1"', b"\xff\xfe", b"[" * 100_000,
     b'{"format": "lockup-record/1", "hands": [{"dealer": ' + b"9" * 5000 + b"}]}"],
)  # fmt: skip
def test_hostile_bytes_are_a_record_error_never_another_exception(data: bytes) -> None:
    with pytest.raises(RecordError):
        parse_record(data)


def test_a_byte_order_mark_is_tolerated() -> None:
    text = dumps(game_until(9, Rules(), 10))
    assert state(loads(("\ufeff" + text).encode("utf-8"))) == state(loads(text))


def test_a_rule_breach_is_an_illegal_record_with_hand_event_and_rule() -> None:
    record = to_record(game_until(10, Rules(), 30))
    first = record["hands"][0]["events"][0]
    first["seat"] = (first["seat"] + 1) % 4
    with pytest.raises(IllegalRecord) as info:
        from_record(json.dumps(record))
    assert (info.value.hand, info.value.event, info.value.rule) == (0, 0, "R4")
    result = replay(parse_record(json.dumps(record)))
    assert result.error is not None and result.to_dict()["status"] == "illegal"
    assert result.game.trick_number == 0  # the game as far as it is legal


# ----------------------------------------------------------------------------- summaries


def test_the_summary_of_a_finished_and_of_an_unfinished_game() -> None:
    game = game_until(11, Rules(target=10))
    s = summary(game)
    assert s["status"] == "finished" and s["winner"] == game.winner
    assert s["totals"] == game.totals and len(s["hands"]) == len(game.summaries)
    assert set(s["hands"][0]) == {
        "dealer",
        "points",
        "times_locked",
        "tricks_sat_out",
        "empty_tricks",
    }
    game = game_until(11, Rules(target=10), 90)  # mid second hand
    s = summary(game)
    assert s["status"] == "in-progress" and s["winner"] is None
    assert len(s["hands"]) == game.hand_number + 1  # the last one as far as it goes
    assert s["hands"][-1]["points"] == game.points
    assert s["totals"] == [t + p for t, p in zip(game.totals, game.points, strict=True)]


def test_the_record_doc_snippets_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    doc = Path(__file__).parent.parent / "docs" / "records.md"
    text = doc.read_text(encoding="utf-8")
    blocks = list(re.finditer(r"```python\n(.*?)```", text, re.S))
    assert blocks
    namespace: dict[str, object] = {}
    for m in blocks:  # one script; padded so that errors name the doc's line
        code = "\n" * text.count("\n", 0, m.start(1)) + m.group(1)
        exec(compile(code, str(doc), "exec"), namespace)  # noqa: S102


def test_replay_steps_yields_each_event_before_it_is_made_and_each_hand_end() -> None:
    # The one replay loop (record.replay, the review, the analysis): each step shows the
    # game before its event; an "end" step closes every hand.
    from lockup.record import replay_steps

    rng = random.Random(4)
    game = Game.new(rng, Rules(target=10))
    while not game.is_over:
        if game.phase == "play":
            game.play(rng.choice(game.legal_cards()))
        else:
            game.chance_move(rng)
    parsed = parse_record(to_record(game))
    seen: list[tuple[str, int, int]] = []
    ends = 0
    for st in replay_steps(parsed):
        if st.kind == "end":
            assert st.game.hand_over and st.event == len(parsed.hands[st.hand].events)
            assert st.game.summaries[-1] == game.summaries[st.hand]
            ends += 1
            continue
        assert st.event == len(st.game.log[-1].events)  # not made yet
        if st.kind == "play":
            assert st.game.turn == st.seat and st.game.is_legal(st.card)
        else:
            assert st.game.discard_due == st.seat
        seen.append((st.kind, st.seat, st.card))
    assert ends == len(game.summaries)
    assert seen == [e for h in game.log for e in h.events]


def test_replay_steps_raise_at_the_first_broken_rule() -> None:
    from lockup.record import IllegalRecord, replay_steps

    rng = random.Random(6)
    game = Game.new(rng, Rules())
    for _ in range(3):
        game.play(game.legal_cards()[0])
    data = to_record(game)
    data["hands"][0]["events"][1]["seat"] = data["hands"][0]["events"][0]["seat"]
    steps = replay_steps(parse_record(data))
    assert next(steps).event == 0
    assert next(steps).event == 1
    with pytest.raises(IllegalRecord) as err:
        next(steps)
    assert (err.value.hand, err.value.event, err.value.rule) == (0, 1, "R4")


def test_a_trick_as_json_is_the_one_view_and_reviews_and_bots_send() -> None:
    from lockup.arena.external import view_message
    from lockup.server.reviews import replay_hands

    rng = random.Random(9)
    game = Game.new(rng, Rules(target=10))
    while game.hand_number == 0 and not game.hand_over:
        if game.phase == "play":
            game.play(rng.choice(game.legal_cards()))
        else:
            game.chance_move(rng)
    trick = game.tricks[0]
    assert trick.to_dict() == {
        "number": 0,
        "leader": trick.leader,
        "plays": [{"seat": s, "card": card_str(c)} for s, c in trick.plays],
        "winner": trick.winner,
        "clubs": trick.clubs,
        "lock": trick.lock,
    }
    game.chance_move(rng)
    game.play(game.legal_cards()[0])
    view = game.view(game.turn)
    assert view_message(view)["tricks"] == [t.to_dict() for t in view.tricks]
    last = game.view(0).to_dict()["last_trick"]
    assert last is None or last == view.tricks[-1].to_dict()
    _, hands = replay_hands(to_record(game))
    assert len(hands) == 1
    assert hands[0] == [{"hand": 0, **t.to_dict()} for t in _first_hand(game)]


def _first_hand(game: Game) -> list[Any]:
    """The first hand's tricks, replayed from the game's own log."""
    replay = Game(game.rules, game.log[0].dealer)
    replay.deal(game.log[0].deal)
    for kind, seat, card in game.log[0].events:
        (replay.play if kind == "play" else replay.discard)(card, seat)
    return list(replay.tricks)
