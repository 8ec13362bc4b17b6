"""Outside bots over lockup-bot/2 and /1: real subprocesses, good and misbehaving (issue 3;
the faults of issue 13 are in test_arena_faults.py)."""

from __future__ import annotations

import json
import random
import shutil
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lockup.arena.external import BotFault, ExternalBot
from lockup.arena.runner import ArenaConfig, run_arena
from lockup.arena.specs import parse_spec
from lockup.engine import Game, Rules, SeatView

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "simple_bot.py"
PY = sys.executable
TIMEOUT = 0.4


def _script(tmp_path: Path, name: str, body: str) -> Path:
    """A ``lockup-bot/1`` program: ``body`` handles ``msg`` (a turn) with ``n`` the turn
    count."""
    path = tmp_path / name
    path.write_text(
        "import json, sys, time\n"
        "n = 0\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg['type'] != 'turn':\n"
        "        continue\n"
        "    n += 1\n" + textwrap.indent(textwrap.dedent(body), "    "),
        encoding="utf-8",
    )
    return path


def _arena(tmp_path: Path, spec: str, hands: int = 8) -> dict:
    specs = (parse_spec(spec), parse_spec("random"), parse_spec("random"), parse_spec("random"))
    config = ArenaConfig(
        specs=specs,
        hands=hands,
        seed=4,
        rules=Rules(target=10),
        bot_timeout=TIMEOUT,
        records=str(tmp_path / "records"),
    )
    return run_arena(config)


def _view(seed: int = 1) -> SeatView:
    game = Game.new(random.Random(seed), Rules())
    return game.view(game.turn)


def test_the_example_bot_plays_whole_games_without_faults(tmp_path: Path) -> None:
    s = _arena(tmp_path, f"cmd:{PY} {EXAMPLE}")
    b = s["bots"][0]
    assert b["name"] == "simple_bot.py" and b["spec"].startswith("cmd:")
    assert b["moves"] > 40 and b["random_moves"] == 0
    assert sum(b["faults"].values()) == 0 and b["dropped_lines"] == 0
    assert s["hands"] >= 8


@pytest.mark.parametrize(
    "command",
    [
        [PY, str(EXAMPLE)],
        pytest.param(
            ["node", str(ROOT / "examples" / "simple_bot.js")],
            marks=pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js"),
        ),
    ],
)
def test_the_examples_speak_version_2(command: list[str]) -> None:
    bot = ExternalBot(command, timeout=5.0)
    view = _view(2)
    try:
        bot.begin_game(view.seat, {})
        assert bot.choose(view) in view.legal_cards
        assert bot.version == 2 and bot.dropped_lines == 0
    finally:
        bot.close()


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_javascript_example_plays_like_the_python_one(tmp_path: Path) -> None:
    py = _arena(tmp_path / "py", f"cmd:{PY} {EXAMPLE}")
    js = _arena(tmp_path / "js", f"cmd:node {ROOT / 'examples' / 'simple_bot.js'}")
    assert sum(js["bots"][0]["faults"].values()) == 0
    # The same strategy and the same seed: the same games, card for card.
    for rec in sorted((tmp_path / "py" / "records").glob("*.json")):
        other = tmp_path / "js" / "records" / rec.name
        a, b = json.loads(rec.read_text()), json.loads(other.read_text())
        assert a["hands"] == b["hands"]
    assert [x["tricks"] for x in py["bots"]] == [x["tricks"] for x in js["bots"]]


def test_a_crashing_bot_is_replaced_by_random_cards_and_restarted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = _script(
        tmp_path,
        "crash.py",
        """
        if n == 2:
            sys.exit(3)
        print(json.dumps({"card": msg["view"]["legal"][0]}), flush=True)
        """,
    )
    s = _arena(tmp_path, f"cmd:{PY} {bot}")
    b = s["bots"][0]
    games = s["games"]
    # It crashes at its second turn of every game, and is restarted for the next game.
    assert b["faults"]["crash"] == games
    assert b["random_moves"] == b["moves"] - 1 * games
    err = capsys.readouterr().err
    assert "crash: the program exited with status 3" in err


def test_a_stalling_bot_times_out_and_the_arena_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = _script(
        tmp_path,
        "stall.py",
        """
        if n == 3:
            time.sleep(30)
        print(json.dumps({"card": msg["view"]["legal"][-1]}), flush=True)
        """,
    )
    s = _arena(tmp_path, f"cmd:{PY} {bot}", hands=4)
    b = s["bots"][0]
    assert b["faults"]["timeout"] == s["games"]
    assert b["move_time_max_s"] < TIMEOUT + 1.0
    assert f"timeout: no answer within {TIMEOUT:g} s" in capsys.readouterr().err


def test_an_illegal_card_is_refused_with_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = _script(
        tmp_path,
        "illegal.py",
        """
        view = msg["view"]
        held = set(view["hand"])
        wrong = next(c for c in ["2C", "3C", "4C", "5C", "2D", "3D"] if c not in held)
        print(json.dumps({"card": wrong}), flush=True)
        """,
    )
    s = _arena(tmp_path, f"cmd:{PY} {bot}", hands=4)
    b = s["bots"][0]
    assert b["faults"]["illegal"] == b["moves"] == b["random_moves"] > 0
    err = capsys.readouterr().err
    assert "illegal: answered" in err and "(R4)" in err


@pytest.mark.parametrize(
    ("answer", "expect"),
    [
        ("print('QD', flush=True)", "which is not JSON"),
        ("print(json.dumps({'play': 'QD'}), flush=True)", 'not {"card": CARD}'),
        ("print(json.dumps({'card': 'ZZ'}), flush=True)", "which is not a card"),
    ],
)
def test_malformed_answers_are_faults(tmp_path: Path, answer: str, expect: str) -> None:
    bot = ExternalBot([PY, str(_script(tmp_path, "bad.py", answer))], timeout=TIMEOUT)
    try:
        bot.begin_game(0, {})
        with pytest.raises(BotFault) as fault:
            bot.choose(_view())
        assert fault.value.kind == "malformed" and expect in fault.value.detail
        assert not bot.down  # a bad answer does not stop the program
    finally:
        bot.close()


def test_the_protocol_messages(tmp_path: Path) -> None:
    """The program sees hello, game and turn (with the view and the hand's tricks)."""
    log = tmp_path / "log.jsonl"
    prog = tmp_path / "echo.py"
    prog.write_text(
        textwrap.dedent(
            f"""
            import json, sys
            with open({str(log)!r}, "a") as out:
                for line in sys.stdin:
                    out.write(line)
                    out.flush()
                    msg = json.loads(line)
                    if msg["type"] == "turn":
                        print(json.dumps({{"card": msg["view"]["legal"][0]}}), flush=True)
            """
        ),
        encoding="utf-8",
    )
    bot = ExternalBot([PY, str(prog)], timeout=2.0, time_per_move=0.25, label="0:echo")
    view = _view(3)
    bot.begin_game(view.seat, {"rules": view.rules.to_dict(), "game": "0.0"})
    card = bot.choose(view)
    assert card == view.legal_cards[0]
    bot.close()
    assert bot.proc is None
    msgs = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert [m["type"] for m in msgs] == ["hello", "game", "turn", "bye"]
    assert msgs[0]["protocol"] == "lockup-bot/2" and msgs[0]["time_per_move"] == 0.25
    assert msgs[0]["protocols"] == ["lockup-bot/2", "lockup-bot/1"]
    assert msgs[1]["seat"] == view.seat
    turn = msgs[2]
    assert turn["id"] == 1 and bot.version == 1  # it never said hello: version 1
    assert turn["view"] == view.to_dict() and turn["tricks"] == []
    assert turn["view"]["legal"] and set(turn["view"]["legal"]) <= set(turn["view"]["hand"])


def test_a_stalled_program_is_stopped(tmp_path: Path) -> None:
    bot = ExternalBot([PY, str(_script(tmp_path, "sleep.py", "time.sleep(30)"))], timeout=0.2)
    bot.begin_game(0, {})
    bot._fresh = False  # past the start-up grace
    with pytest.raises(BotFault) as fault:
        bot.choose(_view())
    assert fault.value.kind == "timeout" and bot.down and bot.proc is None
    with pytest.raises(BotFault) as again:
        bot.choose(_view())
    assert not again.value.fresh  # counted once, not at every later turn
    bot.begin_game(0, {})  # restarted for the next game
    assert bot.proc is not None and not bot.down and bot.restarts == 1
    bot.close()


def test_a_program_that_cannot_start_is_a_crash(tmp_path: Path) -> None:
    missing = tmp_path / "missing-program"
    bot = ExternalBot([str(missing)], timeout=0.2)
    fault = bot.begin_game(0, {})  # the arena counts it at the game's start
    assert fault is not None and fault.kind == "crash" and fault.fresh
    assert "cannot start" in fault.detail
    with pytest.raises(BotFault) as again:
        bot.choose(_view())
    assert not again.value.fresh


def test_lines_written_unasked_are_ignored(tmp_path: Path) -> None:
    prog = tmp_path / "chatty.py"
    prog.write_text(
        textwrap.dedent(
            """
            import json, sys
            for line in sys.stdin:
                msg = json.loads(line)
                if msg["type"] in ("hello", "game"):
                    print(json.dumps({"type": "ready"}), flush=True)
                elif msg["type"] == "turn":
                    print(json.dumps({"card": msg["view"]["legal"][-1]}), flush=True)
            """
        ),
        encoding="utf-8",
    )
    bot = ExternalBot([PY, str(prog)], timeout=2.0)
    try:
        view = _view(5)
        bot.begin_game(view.seat, {})
        time.sleep(0.5)  # let the unasked lines arrive
        assert bot.choose(view) == view.legal_cards[-1]
        assert bot.choose(view) == view.legal_cards[-1]
    finally:
        bot.close()
