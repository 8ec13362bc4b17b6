"""``lockup replay FILE`` and ``lockup replay -``: the real console script, run as a
subprocess, on good records and on malformed and hostile ones (docs/records.md).

Exit 0 and the summary; exit 1 and the first offending hand, event, rule and reason;
exit 2 and a reason for anything that is not a record. Never a traceback: standard
error stays empty and standard output is exactly one JSON object.

Every input is built when the module loads and the ~60 runs of the script are made
together, in parallel, the first time a test needs one.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, new_game

from lockup.cards import card_str, parse_card
from lockup.engine import Game
from lockup.record import dumps, loads, summary

LOCKUP = Path(sys.executable).with_name("lockup")
if not LOCKUP.exists():  # pragma: no cover - an environment without the venv's script
    LOCKUP = Path(shutil.which("lockup") or "lockup")

WON = json.loads((FIXTURES / "won-21-20-19-18.json").read_text(encoding="utf-8"))
"""A finished game of six hands (same-rank, per-trick, target 20)."""
ONE_HAND = json.loads((FIXTURES / "lock-capped-per-trick.json").read_text(encoding="utf-8"))
"""A game under way: one complete hand."""

Input = tuple[bytes | None, Path | None]
_PENDING: list[Input] = []
_RESULTS: dict[Input, tuple[int, bytes, bytes]] = {}


def _run(key: Input) -> tuple[int, bytes, bytes]:
    data, path = key
    args = [str(LOCKUP), "replay", str(path) if path else "-"]
    done = subprocess.run(args, input=data, capture_output=True, timeout=120, check=False)
    return done.returncode, done.stdout, done.stderr


def ahead(data: bytes | None, path: Path | None = None) -> Input:
    """An input for the script (bytes on standard input, or a file), queued to run with
    the others."""
    _PENDING.append((data, path))
    return data, path


def replay(key: Input) -> tuple[int, dict[str, Any]]:
    """The exit status and the JSON object ``lockup replay`` printed for an input."""
    if key not in _RESULTS:
        todo = list(dict.fromkeys([*_PENDING, key]))
        _PENDING.clear()
        with ThreadPoolExecutor(max_workers=8) as pool:
            _RESULTS.update(zip(todo, pool.map(_run, todo), strict=True))
    rc, stdout, stderr = _RESULTS[key]
    assert stderr == b"", stderr.decode(errors="replace")  # never a traceback
    lines = stdout.decode("utf-8").splitlines()
    assert len(lines) == 1, lines
    return rc, json.loads(lines[0])


def as_bytes(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


def edit(change: Callable[[dict[str, Any]], object], base: dict[str, Any] = WON) -> bytes:
    """The base record (a finished game) changed in place by ``change``, as bytes."""
    record = copy.deepcopy(base)
    change(record)
    return as_bytes(record)


def events_with_state(record: dict[str, Any], hand: int) -> Iterator[tuple[int, Game, dict]]:
    """Replay one hand of a record: (index, the game before the event, the event)."""
    start = {**record, "hands": [*record["hands"][:hand], {**record["hands"][hand], "events": []}]}
    game = loads(as_bytes(start))
    for i, e in enumerate(record["hands"][hand]["events"]):
        yield i, game, e
        if "play" in e:
            game.play(parse_card(e["play"]), e["seat"])
        else:
            game.discard(parse_card(e["discard"]), e["seat"])


# ----------------------------------------------------------------------------- exit 0

WON_FILE = ahead(None, FIXTURES / "won-21-20-19-18.json")
WON_STDIN = ahead(as_bytes(WON))
UNDER_WAY = ahead((FIXTURES / "in-progress.json").read_bytes())
ONE_HAND_FILE = ahead(None, FIXTURES / "lock-capped-per-trick.json")
FIXTURE_FILES = [ahead(None, p) for p in sorted(FIXTURES.glob("*.json"))]


def test_a_finished_game_from_a_file_and_from_standard_input() -> None:
    rc, out = replay(WON_FILE)
    assert rc == 0
    assert out == summary(loads(as_bytes(WON)))
    assert out["status"] == "finished" and out["winner"] == 0
    assert out["totals"] == [21, 20, 19, 18] and len(out["hands"]) == 6
    keys = {"dealer", "points", "times_locked", "tricks_sat_out", "empty_tricks"}
    assert all(set(h) == keys for h in out["hands"])
    assert replay(WON_STDIN) == (rc, out)


def test_a_game_under_way() -> None:
    rc, out = replay(UNDER_WAY)
    assert rc == 0 and out["status"] == "in-progress" and out["winner"] is None
    assert len(out["hands"]) == 2  # the last one as far as it goes
    rc, out = replay(ONE_HAND_FILE)
    assert rc == 0 and out["status"] == "in-progress" and len(out["hands"]) == 1
    assert sum(out["hands"][0]["points"]) == 13


def test_every_fixture_replays() -> None:
    assert FIXTURE_FILES
    for key in FIXTURE_FILES:
        assert replay(key)[0] == 0, key


# ----------------------------------------------------------------------------- exit 2

NOT_A_RECORD = [
    ("truncated JSON", as_bytes(WON)[:1000], "not JSON"),
    ("empty file", b"", "not JSON"),
    ("not UTF-8", b"\xff\xfe{}", "not UTF-8"),
    ("a list", b"[]", "a record is a JSON object"),
    ("a number", b"42", "a record is a JSON object"),
    ("a string", b'"lockup-record/1"', "a record is a JSON object"),
    ("no format", edit(lambda r: r.pop("format")), "unknown format"),
    ("unknown format", edit(lambda r: r.update(format="lockup-record/9")), "unknown format"),
    ("bad target", edit(lambda r: r["rules"].update(target=17)), "target"),
    ("unknown option", edit(lambda r: r["rules"].update(trumps="hearts")), "unknown rule option"),
    ("three players", edit(lambda r: r.update(players=["a", "b", "c"])), "players"),
    ("hands not a list", edit(lambda r: r.update(hands={})), "hands must be a list"),
    ("unknown card in a deal", edit(lambda r: r["hands"][0]["deal"][2].__setitem__(4, "1X")),
     'hands[0].deal[2][4]: "1X" is not a card'),
    ("unknown card in an event", edit(lambda r: r["hands"][1]["events"][3].update(play="ZZ")),
     'hands[1].events[3].play: "ZZ" is not a card'),
    ("a card as a number", edit(lambda r: r["hands"][0]["deal"][0].__setitem__(0, 51)),
     "a card must be a string"),
    ('seat "1"', edit(lambda r: r["hands"][0]["events"][0].update(seat="1")),
     "hands[0].events[0].seat must be an integer"),
    ("seat 4", edit(lambda r: r["hands"][0]["events"][0].update(seat=4)), "seat 0..3"),
    ("deal not a list", edit(lambda r: r["hands"][0].update(deal="AS KS QS")),
     "hands[0].deal must be a list"),
    ("dealer a string", edit(lambda r: r["hands"][0].update(dealer="2")), "dealer must be an integer"),
    ("no events", edit(lambda r: r["hands"][0].pop("events")), "has no 'events'"),
    ("play and discard", edit(lambda r: r["hands"][0]["events"][0].update(discard="2C")),
     "hands[0].events[0] must be"),
    ("nested far too deep", b"[" * 200_000, "nested"),
    ("an integer of 5000 digits", b'{"format": "lockup-record/1", "hands": [{"dealer": '
     + b"7" * 5000 + b', "deal": [], "events": []}]}', "not JSON"),
]  # fmt: skip
NOT_A_RECORD_RUNS = {name: ahead(data) for name, data, _ in NOT_A_RECORD}


@pytest.mark.parametrize("name, words", [(n, w) for n, _, w in NOT_A_RECORD])
def test_what_is_not_a_record_exits_2(name: str, words: str) -> None:
    rc, out = replay(NOT_A_RECORD_RUNS[name])
    assert rc == 2
    assert out["status"] == "invalid" and set(out) == {"status", "reason"}
    assert words in out["reason"]


def test_a_file_that_cannot_be_read_exits_2(tmp_path: Path) -> None:
    rc, out = replay((None, tmp_path / "missing.json"))
    assert rc == 2 and out["status"] == "invalid" and "cannot read" in out["reason"]
    rc, out = replay((None, tmp_path))
    assert rc == 2 and "cannot read" in out["reason"]


# ----------------------------------------------------------------------------- exit 1


def illegal(key: Input) -> dict[str, Any]:
    rc, out = replay(key)
    assert rc == 1, out
    assert set(out) == {"status", "hand", "event", "rule", "reason"}
    assert out["status"] == "illegal" and out["reason"]
    return out


def _duplicate(r: dict[str, Any]) -> None:
    r["hands"][2]["deal"][1][0] = r["hands"][2]["deal"][3][5]


def _hand_after_the_end(r: dict[str, Any]) -> None:
    extra = copy.deepcopy(r["hands"][0])
    extra["dealer"] = (r["hands"][-1]["dealer"] + 1) % 4
    r["hands"].append(extra)


DUPLICATED = ahead(edit(_duplicate))
DEAL_OF_12 = ahead(edit(lambda r: r["hands"][0]["deal"][3].pop()))
DEALS_OF_12 = ahead(edit(lambda r: [cs.pop() for cs in r["hands"][1]["deal"]]))
WRONG_DEALER = ahead(edit(lambda r: r["hands"][3].update(dealer=(r["hands"][2]["dealer"] + 2) % 4)))
AFTER_THE_END = ahead(edit(_hand_after_the_end))
AFTER_13 = ahead(
    edit(lambda r: r["hands"][0]["events"].append({"seat": 0, "play": "2C"}), ONE_HAND)
)
AFTER_GAME = ahead(edit(lambda r: r["hands"][5]["events"].append({"seat": 1, "discard": "AS"})))
STOPS_SHORT = ahead(edit(lambda r: r["hands"][1].update(events=r["hands"][1]["events"][:30])))


def test_duplicated_cards_in_a_deal() -> None:
    out = illegal(DUPLICATED)
    assert (out["hand"], out["event"], out["rule"]) == (2, None, "R3")
    assert "dealt twice" in out["reason"]


def test_a_deal_of_12() -> None:
    out = illegal(DEAL_OF_12)
    assert (out["hand"], out["event"], out["rule"]) == (0, None, "R3")
    assert "East is dealt 12." in out["reason"]
    out = illegal(DEALS_OF_12)  # 12 to every seat
    assert (out["hand"], out["event"], out["rule"]) == (1, None, "R3")


def test_a_wrong_dealer() -> None:
    out = illegal(WRONG_DEALER)
    assert (out["hand"], out["event"], out["rule"]) == (3, None, "R3")
    assert "dealer" in out["reason"]


def test_a_hand_after_the_games_end() -> None:
    out = illegal(AFTER_THE_END)
    assert (out["hand"], out["event"], out["rule"]) == (6, None, "R15")
    assert "over" in out["reason"]


def test_an_event_after_the_13th_trick() -> None:
    out = illegal(AFTER_13)
    n = len(ONE_HAND["hands"][0]["events"])
    assert (out["hand"], out["event"], out["rule"]) == (0, n, "R10")
    assert "13 tricks" in out["reason"]
    out = illegal(AFTER_GAME)  # after the last hand of a finished game: it is over
    n = len(WON["hands"][5]["events"])
    assert (out["hand"], out["event"], out["rule"]) == (5, n, "R15")


def test_a_hand_that_stops_short_followed_by_another() -> None:
    out = illegal(STOPS_SHORT)
    assert (out["hand"], out["event"], out["rule"]) == (1, 30, "R15")  # the events it holds
    assert "played in full" in out["reason"]


def _missing_discard() -> tuple[Input, int]:
    record = copy.deepcopy(WON)
    events = record["hands"][0]["events"]
    i = next(i for i, e in enumerate(events[:-1]) if "discard" in e and "play" in events[i + 1])
    del events[i]  # a play now stands where the discard is due
    return ahead(as_bytes(record)), i


def _wrong_discard_seat() -> tuple[Input, int]:
    record = copy.deepcopy(WON)
    events = record["hands"][0]["events"]
    i = next(i for i, e in enumerate(events) if "discard" in e)
    events[i]["seat"] = (events[i]["seat"] + 1) % 4
    return ahead(as_bytes(record)), i


MISSING_DISCARD = _missing_discard()
WRONG_DISCARD_SEAT = _wrong_discard_seat()
DISCARD_NOT_DUE = ahead(
    edit(
        lambda r: r["hands"][0]["events"].insert(
            0, {"seat": 0, "discard": r["hands"][0]["deal"][0][0]}
        )
    )
)


def test_a_missing_discard() -> None:
    key, i = MISSING_DISCARD
    out = illegal(key)
    assert (out["hand"], out["event"], out["rule"]) == (0, i, "R10")
    assert "must first take a card" in out["reason"]


def test_a_discard_from_the_wrong_seat() -> None:
    key, i = WRONG_DISCARD_SEAT
    out = illegal(key)
    assert (out["hand"], out["event"], out["rule"]) == (0, i, "R10")
    assert "discard due now is from" in out["reason"]


def test_a_discard_where_none_is_due() -> None:
    out = illegal(DISCARD_NOT_DUE)
    assert (out["hand"], out["event"], out["rule"]) == (0, 0, "R10")


def _not_following() -> tuple[Input, int]:
    record = copy.deepcopy(WON)
    for i, game, e in events_with_state(record, 0):
        if "play" in e and game.trick:
            led = game.trick[0][1] // 13
            held = game.hand(e["seat"])
            other = [x for x in held if x // 13 not in (led, 0)]
            if any(x // 13 == led for x in held) and other:
                e["play"] = card_str(other[0])
                return ahead(as_bytes(record)), i
    raise AssertionError("no trick to break")  # pragma: no cover


def _example_1() -> dict[str, Any]:
    game = new_game({1: "QD", 2: "2D", 3: "QC KC 3D", 0: "AD"}, dealer=0)
    for code in ("QD", "2D", "QC", "AD"):
        game.play(parse_card(code))
    return json.loads(dumps(game))


NOT_FOLLOWING = _not_following()
EXAMPLE_1 = ahead(as_bytes(_example_1()))
KING_OF_CLUBS = ahead(edit(lambda r: r["hands"][0]["events"][2].update(play="KC"), _example_1()))
KING_ANY_CLUB = ahead(
    edit(
        lambda r: (
            r["hands"][0]["events"][2].update(play="KC"),
            r["rules"].update(picture_exception="any-club"),
        ),
        _example_1(),
    )
)
LEAD_A_CLUB = ahead(
    edit(
        lambda r: r["hands"][0].update(events=[{"seat": 0, "play": "2C"}]),
        json.loads(dumps(new_game({0: "2C 3D"}, dealer=3))),
    )
)


def test_not_following_suit() -> None:
    key, i = NOT_FOLLOWING
    out = illegal(key)
    assert (out["hand"], out["event"], out["rule"]) == (0, i, "R6")
    assert "must follow" in out["reason"]


def test_a_picture_club_of_a_rank_not_on_the_table() -> None:
    # Example 1 under same-rank: East plays the K♣ on West's Q♦ while holding diamonds.
    assert replay(EXAMPLE_1)[0] == 0
    out = illegal(KING_OF_CLUBS)
    assert (out["hand"], out["event"], out["rule"]) == (0, 2, "R7")
    assert "Q♣" in out["reason"]
    assert replay(KING_ANY_CLUB)[0] == 0  # the same events under any-club are legal


def test_leading_a_club() -> None:
    out = illegal(LEAD_A_CLUB)
    assert (out["hand"], out["event"], out["rule"]) == (0, 0, "R5")


def _out_of_turn(r: dict[str, Any]) -> None:
    first = r["hands"][0]["events"][0]
    other = (first["seat"] + 1) % 4
    first.update(seat=other, play=r["hands"][0]["deal"][other][0])


def _not_in_hand(r: dict[str, Any]) -> None:
    first = r["hands"][0]["events"][0]
    first["play"] = r["hands"][0]["deal"][(first["seat"] + 2) % 4][0]


def _while_locked() -> tuple[Input, int]:
    record = copy.deepcopy(WON)
    for i, game, e in events_with_state(record, 0):
        if "play" in e and game.locked_seats():
            locked = game.locked_seats()[0]
            e.update(seat=locked, play=card_str(game.hand(locked)[0]))
            return ahead(as_bytes(record)), i
    raise AssertionError("nobody locked")  # pragma: no cover


OUT_OF_TURN = ahead(edit(_out_of_turn))
NOT_IN_HAND = ahead(edit(_not_in_hand))
WHILE_LOCKED = _while_locked()


def test_out_of_turn_not_in_hand_and_while_locked() -> None:
    out = illegal(OUT_OF_TURN)
    assert (out["hand"], out["event"], out["rule"]) == (0, 0, "R4")
    assert "not your turn" in out["reason"]
    out = illegal(NOT_IN_HAND)
    assert (out["hand"], out["event"], out["rule"]) == (0, 0, "R4")
    assert "do not hold" in out["reason"]
    key, i = WHILE_LOCKED
    out = illegal(key)
    assert (out["hand"], out["event"], out["rule"]) == (0, i, "R9")
    assert "locked up" in out["reason"]


def _lock_of_two() -> tuple[int, int]:
    for h in range(len(WON["hands"])):
        for i, game, e in events_with_state(WON, h):
            if "discard" in e and game.tricks and game.tricks[-1].lock >= 2 and not game.trick:
                if game.tricks[-1].winner == e["seat"] and game.locks[e["seat"]] >= 2:
                    return h, i
    raise AssertionError("no lock of 2")  # pragma: no cover


LOCK_OF_TWO = _lock_of_two()
AS_UPFRONT = ahead(edit(lambda r: r["rules"].update(lock_discards="upfront")))


def test_the_options_of_the_record_decide() -> None:
    """A per-trick game read as upfront: after a lock of 2, the second discard is due at
    once, and a play stands there (R10). (A game whose locks are all 1 reads the same
    under both options: one discard, right after the locking trick.)"""
    h, i = LOCK_OF_TWO
    out = illegal(AS_UPFRONT)
    assert (out["hand"], out["rule"]) == (h, "R10")
    assert out["event"] == i + 1 and "must first take a card" in out["reason"]


def test_no_traceback_when_standard_output_is_not_utf8() -> None:
    """The JSON is escaped (still valid JSON) where standard output cannot take ♦."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run(
        [str(LOCKUP), "replay", "-"],
        input=DUPLICATED[0],
        capture_output=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.stderr == b""
    assert done.returncode == 1 and json.loads(done.stdout)["rule"] == "R3"
    assert (
        "♦" in json.loads(done.stdout)["reason"]
        or "dealt twice" in json.loads(done.stdout)["reason"]
    )


def test_no_traceback_when_the_reader_stops_early() -> None:
    """`lockup replay FILE | true`: a reader gone before the output is not a crash."""
    done = subprocess.run(
        f"{LOCKUP} replay - | true",
        shell=True,
        input=DUPLICATED[0],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.stderr == b""
