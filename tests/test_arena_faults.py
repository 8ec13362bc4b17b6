"""The arena against small misbehaving outside bots (issue 13, faults 1 to 5).

Each bot is a few lines of Python written into ``tmp_path``. Every test has a timeout, so
an arena that hangs fails the test instead of freezing the run.
"""

from __future__ import annotations

import random
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from lockup.arena.cli import format_summary
from lockup.arena.external import BotFault, ExternalBot
from lockup.arena.runner import ArenaConfig, run_arena
from lockup.arena.specs import parse_spec
from lockup.engine import Game, Rules, SeatView

PY = sys.executable
TIMEOUT = 0.4

pytestmark = pytest.mark.timeout(90)

V2 = """\
import json, os, sys, time


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()


send({"type": "hello", "protocol": "lockup-bot/2"})
n = 0
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "game":
        n = 0
    if kind == "turn":
        n += 1
        legal = msg["view"]["legal"]
"""
"""The start of a ``lockup-bot/2`` bot: it says hello, then for every message runs the
test's body with ``msg``, ``kind``, and at a turn ``n`` (its turns this game) and ``legal``."""


def _program(tmp_path: Path, name: str, source: str) -> list[str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return [PY, str(path)]


def _v2(tmp_path: Path, name: str, body: str) -> list[str]:
    """A ``lockup-bot/2`` bot whose message loop runs ``body``."""
    return _program(tmp_path, name, V2 + textwrap.indent(textwrap.dedent(body), "    "))


def _arena(tmp_path: Path, command: list[str], hands: int = 8) -> dict[str, Any]:
    spec = parse_spec("cmd:" + " ".join(command))
    rnd = parse_spec("random")
    config = ArenaConfig(
        specs=(spec, rnd, rnd, rnd),
        hands=hands,
        seed=4,
        rules=Rules(target=10),
        bot_timeout=TIMEOUT,
        max_fault_lines=1000,
    )
    return run_arena(config)


def _view(seed: int = 1) -> SeatView:
    game = Game.new(random.Random(seed), Rules())
    return game.view(game.turn)


def _complete(s: dict[str, Any], hands: int = 8) -> None:
    """The arena played every game to its end, the innocent bots without a fault."""
    assert s["hands"] >= hands and s["games"] % 4 == 0
    for b in s["bots"][1:]:
        assert sum(b["faults"].values()) == 0 and b["random_moves"] == 0


# ---------------------------------------------------------------------- 1. writes time out


def test_a_bot_that_never_reads_times_out_on_the_arenas_writes(tmp_path: Path) -> None:
    # It never reads its input: once the pipe is full, a write cannot finish.
    bot = ExternalBot(
        _program(tmp_path, "deaf.py", "import time\ntime.sleep(60)\n"), timeout=TIMEOUT
    )
    try:
        assert bot.begin_game(0, {}) is None
        bot._fresh = False  # past the start-up grace
        big = {"type": "hand", "summary": "x" * 100_000}
        t0 = time.monotonic()
        faults = [bot.notify(big) for _ in range(20)]  # 2 MB: more than a pipe holds
        assert time.monotonic() - t0 < TIMEOUT + 2.0
        found = [f for f in faults if f is not None]
        assert len(found) == 1  # counted once: the program is stopped
        assert found[0].kind == "timeout" and found[0].fresh
        assert found[0].detail == f"did not read its input within {TIMEOUT:g} s"
        assert bot.down and bot.proc is None
        with pytest.raises(BotFault) as later:
            bot.choose(_view())
        assert not later.value.fresh
    finally:
        bot.close()


def test_a_bot_that_writes_but_never_reads_does_not_freeze_the_arena(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flood = _program(
        tmp_path,
        "flood.py",
        """
        import sys, time
        while True:  # never reads: writes a line every millisecond
            sys.stdout.write("chatter\\n")
            sys.stdout.flush()
            time.sleep(0.001)
        """,
    )
    t0 = time.monotonic()
    s = _arena(tmp_path, flood)
    assert time.monotonic() - t0 < 60
    _complete(s)
    b = s["bots"][0]
    err = capsys.readouterr().err
    stalls = err.count(f"timeout: did not read its input within {TIMEOUT:g} s")
    assert b["faults"]["timeout"] == stalls >= 1
    assert b["faults"]["timeout"] <= s["games"]  # at most once a game: then it is stopped
    assert b["faults"]["crash"] == 0


# ---------------------------------------------------------------------- 2. turn ids


def test_a_second_answer_is_dropped_not_played_at_the_next_turn(tmp_path: Path) -> None:
    # It answers its first legal card, then, a moment later, the last one again.
    twice = _v2(
        tmp_path,
        "twice.py",
        """
        if kind == "turn":
            send({"id": msg["id"], "card": legal[0]})
            time.sleep(0.05)
            send({"id": msg["id"], "card": legal[-1]})
        """,
    )
    bot = ExternalBot(twice, timeout=2.0)
    view = _view(5)  # the same view each time: the stale card is legal
    assert len(view.legal_cards) > 1
    try:
        bot.begin_game(view.seat, {})
        for _ in range(4):
            assert bot.choose(view) == view.legal_cards[0]
        assert bot.version == 2
        assert bot.dropped_lines == 3
        assert "an answer to turn 3, which is over" in bot.last_dropped
    finally:
        bot.close()


def test_unasked_lines_and_other_turns_ids_are_dropped(tmp_path: Path) -> None:
    chatty = _v2(
        tmp_path,
        "chatty.py",
        """
        if kind == "turn":
            send({"type": "log", "text": "thinking"})
            send({"id": msg["id"] + 1, "card": legal[-1]})
            send({"card": legal[-1]})
            print("not json", flush=True)
            send({"id": msg["id"], "card": legal[0]})
        """,
    )
    bot = ExternalBot(chatty, timeout=2.0)
    view = _view(5)
    try:
        bot.begin_game(view.seat, {})
        assert bot.choose(view) == view.legal_cards[0]
        assert bot.dropped_lines == 4
        assert bot.last_dropped == "'not json' (not an answer to turn 1)"
    finally:
        bot.close()


def test_a_bot_that_leaves_out_the_id_times_out_saying_why(tmp_path: Path) -> None:
    noid = _v2(tmp_path, "noid.py", 'if kind == "turn":\n    send({"card": legal[0]})')
    bot = ExternalBot(noid, timeout=TIMEOUT)
    try:
        bot.begin_game(0, {})
        bot._fresh = False
        with pytest.raises(BotFault) as fault:
            bot.choose(_view())
        assert fault.value.kind == "timeout"
        assert fault.value.detail.startswith(f"no answer within {TIMEOUT:g} s; dropped 1 line")
        assert "not an answer to turn 1" in fault.value.detail
    finally:
        bot.close()


def test_a_double_answering_bot_plays_whole_games_without_a_stale_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    twice = _v2(
        tmp_path,
        "twice.py",
        """
        if kind == "turn":
            send({"id": msg["id"], "card": legal[0]})
            send({"id": msg["id"], "card": legal[-1]})
        """,
    )
    s = _arena(tmp_path, twice)
    _complete(s)
    b = s["bots"][0]
    # A stale card taken as an answer would often be illegal: none was.
    assert sum(b["faults"].values()) == 0 and b["random_moves"] == 0
    assert 0 < b["dropped_lines"] <= b["moves"]
    err = capsys.readouterr().err
    assert "lines it wrote were dropped, not played" in err
    # The table `lockup arena` prints says so too.
    table = format_summary(s)
    assert f"{b['dropped_lines']} lines dropped (unasked or stale)" in table, table


def test_a_version_1_bot_still_plays(tmp_path: Path) -> None:
    old = _program(
        tmp_path,
        "v1.py",
        """
        import json, sys
        for line in sys.stdin:
            msg = json.loads(line)
            if msg["type"] == "turn":
                print(json.dumps({"card": msg["view"]["legal"][0]}), flush=True)
        """,
    )
    s = _arena(tmp_path, old)
    _complete(s)
    b = s["bots"][0]
    assert sum(b["faults"].values()) == 0 and b["random_moves"] == 0 and b["moves"] > 40
    assert b["dropped_lines"] == 0


def test_a_protocol_the_arena_does_not_speak_is_dropped_and_version_1_kept(
    tmp_path: Path,
) -> None:
    prog = _program(
        tmp_path,
        "v9.py",
        """
        import json, sys
        print(json.dumps({"type": "hello", "protocol": "lockup-bot/9"}), flush=True)
        for line in sys.stdin:
            msg = json.loads(line)
            if msg["type"] == "turn":
                print(json.dumps({"card": msg["view"]["legal"][0]}), flush=True)
        """,
    )
    bot = ExternalBot(prog, timeout=2.0)
    view = _view()
    try:
        bot.begin_game(view.seat, {})
        assert bot.choose(view) == view.legal_cards[0]
        assert bot.version == 1 and bot.dropped_lines == 1
        assert "not a protocol the arena speaks" in bot.last_dropped
    finally:
        bot.close()


# ---------------------------------------------------------------------- 3. crash between hands


def test_a_bot_that_exits_between_hands_is_a_crash_counted_once(tmp_path: Path) -> None:
    quits = _v2(
        tmp_path,
        "quits.py",
        """
        if kind == "turn":
            send({"id": msg["id"], "card": legal[0]})
        elif kind == "hand":
            sys.exit(5)
        """,
    )
    bot = ExternalBot(quits, timeout=2.0)
    try:
        assert bot.begin_game(0, {}) is None
        assert bot.notify({"type": "hand", "summary": {}}) is None  # it reads it, then exits
        assert bot.proc is not None
        bot.proc.wait(timeout=10)
        fault = bot.notify({"type": "game_over", "winner": 0, "totals": [0, 0, 0, 0]})
        assert fault is not None and fault.fresh
        assert (fault.kind, fault.detail) == ("crash", "the program exited with status 5")
        assert bot.notify({"type": "game_over"}) is None  # down: not counted again
        with pytest.raises(BotFault) as later:
            bot.choose(_view())
        assert not later.value.fresh
    finally:
        bot.close()


def test_a_bot_that_exits_after_each_game_is_counted_in_the_arena(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quits = _v2(
        tmp_path,
        "quits.py",
        """
        if kind == "turn":
            send({"id": msg["id"], "card": legal[0]})
        elif kind == "game_over":
            sys.exit(5)
        """,
    )
    s = _arena(tmp_path, quits)
    _complete(s)
    b = s["bots"][0]
    # Game 1 plays; its exit is found in game 2 (down all game); game 3 plays, restarted...
    # The exit after the last game ends the arena: nothing is played any more to count it.
    assert b["faults"]["crash"] == s["games"] // 2
    assert sum(b["faults"].values()) == b["faults"]["crash"]
    err = capsys.readouterr().err
    assert err.count("crash: the program exited with status 5") == b["faults"]["crash"]


# ---------------------------------------------------------------------- 4. over-long line


def test_an_answer_over_1_mib_is_malformed_and_the_bot_goes_on(tmp_path: Path) -> None:
    long = _v2(
        tmp_path,
        "long.py",
        """
        if kind == "turn":
            if n == 1:
                sys.stdout.write("x" * (3 << 20) + "\\n")
            send({"id": msg["id"], "card": legal[0]})
        """,
    )
    bot = ExternalBot(long, timeout=2.0)
    view = _view(2)
    try:
        bot.begin_game(view.seat, {})
        with pytest.raises(BotFault) as fault:
            bot.choose(view)
        assert fault.value.kind == "malformed" and fault.value.fresh
        assert fault.value.detail == "answered a line longer than 1 MiB"
        assert not bot.down and bot.proc is not None
        # The rest of the long line and the late answer to turn 1 are skipped.
        assert bot.choose(view) == view.legal_cards[0]
        assert bot.choose(view) == view.legal_cards[0]
        assert bot.restarts == 0
    finally:
        bot.close()


def test_an_answer_over_1_mib_in_the_arena_loses_one_decision(tmp_path: Path) -> None:
    long = _v2(
        tmp_path,
        "long.py",
        """
        if kind == "turn":
            if n == 2:
                sys.stdout.write("x" * (2 << 20) + "\\n")
            else:
                send({"id": msg["id"], "card": legal[0]})
        """,
    )
    s = _arena(tmp_path, long)
    _complete(s)
    b = s["bots"][0]
    assert b["faults"]["malformed"] == s["games"] == b["random_moves"]
    assert sum(b["faults"].values()) == s["games"]


# ---------------------------------------------------------------------- 5. the wording


def test_a_closed_standard_output_is_called_so(tmp_path: Path) -> None:
    prog = _program(tmp_path, "mute.py", "import os, time\nos.close(1)\ntime.sleep(60)\n")
    bot = ExternalBot(prog, timeout=2.0)
    try:
        bot.begin_game(0, {})
        with pytest.raises(BotFault) as fault:
            bot.choose(_view())
        assert fault.value.kind == "crash"
        assert fault.value.detail == "the program closed its standard output"
    finally:
        bot.close()


def test_a_closed_standard_input_is_called_so(tmp_path: Path) -> None:
    prog = _program(
        tmp_path,
        "deaf.py",
        "import os, sys, time\nsys.stdin.readline()\nos.close(0)\ntime.sleep(60)\n",
    )
    bot = ExternalBot(prog, timeout=2.0)
    try:
        bot.begin_game(0, {})  # hello is read, then the input closed
        time.sleep(0.5)
        fault = bot.notify({"type": "game_over"})
        assert fault is not None and fault.kind == "crash"
        assert fault.detail == "the program closed its standard input"
    finally:
        bot.close()


def test_a_bot_that_crashes_every_game_is_said_loudly_above_the_table(tmp_path: Path) -> None:
    """docs/pettingzoo.md's bot run by a Python without its packages: it dies at import in
    every game. The summary says so above the table, with the program's last error line,
    and the JSON summary counts the games."""
    import json
    import subprocess

    bot = tmp_path / "needs_numpy.py"
    bot.write_text("import lockup_no_such_module_xyz  # noqa\n")
    out = tmp_path / "summary.json"
    r = subprocess.run(
        [
            PY,
            "-m",
            "lockup",
            "arena",
            "--bots",
            f"cmd:{PY} {bot},random,random,random",
            "--hands",
            "4",
            "--workers",
            "1",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=80,
    )
    assert r.returncode == 0, r.stderr
    head = r.stdout.split("bot ", 1)[0]  # what comes before the table
    assert "!! WARNING: 0:needs_numpy.py failed in 4 of 4 games (crash 4)" in head, r.stdout
    assert "were played at random for it" in head
    assert (
        "!! its first failure: crash: the program exited with status 1: ModuleNotFoundError: "
        "No module named 'lockup_no_such_module_xyz'"
    ) in head
    # The program's own traceback still reaches the arena's standard error.
    assert "Traceback (most recent call last)" in r.stderr
    summary = json.loads(out.read_text())
    b0 = summary["bots"][0]
    assert b0["games_with_faults"] == 4 and b0["random_moves"] == b0["moves"] > 0
    assert "lockup_no_such_module_xyz" in b0["first_fault"]
    assert all(b["games_with_faults"] == 0 for b in summary["bots"][1:])
    # A clean run says nothing of the kind.
    assert "WARNING" not in format_summary({**summary, "bots": summary["bots"][1:]})
