"""The arena: duplicate structure, statistics, the command line, records (issue 3)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from lockup.arena import stats
from lockup.arena.runner import (
    ArenaConfig,
    ArenaError,
    GameResult,
    deal_cards,
    discard_order,
    first_dealer,
    run_arena,
    summarize,
)
from lockup.arena.specs import SpecError, bot_options, build_bot, parse_spec, split_bots
from lockup.bots import registry
from lockup.bots.base import Bot
from lockup.cards import Card, cards_of
from lockup.cli import main as lockup_main
from lockup.engine import Rules, SeatView
from lockup.record import parse_record, replay

RANDOM4 = tuple(parse_spec("random") for _ in range(4))


# ---------------------------------------------------------------------- statistics


def test_t_quantiles_match_tables() -> None:
    # Student t, 97.5th percentile, from printed tables.
    for df, t in [(1, 12.7062), (2, 4.3027), (4, 2.7764), (10, 2.2281), (30, 2.0423)]:
        assert stats.t_quantile(0.975, df) == pytest.approx(t, abs=1e-4)
    assert stats.t_quantile(0.025, 4) == pytest.approx(-2.7764, abs=1e-4)


def test_mean_ci_hand_computed() -> None:
    # 1..5: mean 3, sd sqrt(2.5), se sqrt(0.5), t(0.975, 4) = 2.776445.
    e = stats.mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    half = 2.776445 * math.sqrt(0.5)
    assert e.mean == 3.0 and e.n == 5
    assert e.lo == pytest.approx(3.0 - half, abs=1e-5)
    assert e.hi == pytest.approx(3.0 + half, abs=1e-5)
    assert e.clear_of_zero
    assert stats.mean_ci([2.0]).ci95 is None
    assert not stats.mean_ci([-1.0, 1.0]).clear_of_zero
    # Sets that all agree have no spread: no interval, and never "clear of zero".
    same = stats.mean_ci([0.5, 0.5, 0.5])
    assert same.mean == 0.5 and same.ci95 is None and not same.clear_of_zero
    # ... also when they differ only by the rounding of how each was computed.
    rounded = stats.mean_ci([0.1 + 0.2, 0.3, 6 / 23 + 0.3 - 6 / 23])
    assert rounded.ci95 is None and not rounded.clear_of_zero
    assert stats.percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5


def _game(set_index: int, rotation: int, hands: int, tricks: list[int], winner: int) -> GameResult:
    return GameResult(
        set_index=set_index,
        rotation=rotation,
        dealer=0,
        hands=hands,
        tricks=tricks,
        totals=tricks,
        winner=winner,
        faults=[dict.fromkeys(("crash",), 0) for _ in range(4)],
        random_moves=[0, 0, 0, 0],
        move_times=[[0.001], [0.002], [0.003], [0.004]],
        fault_lines=[],
    )


def test_summary_intervals_are_over_duplicate_sets() -> None:
    """Per-set means, then a t interval over sets; paired differences per set."""
    # Three sets of four games, each game 2 hands (8 hands a set).
    # Entry 0 takes 24, 16, 20 tricks in the sets: per-set means 3, 2, 2.5 tricks a hand.
    sets = []
    per_set_tricks0 = [24, 16, 20]
    for k, t0 in enumerate(per_set_tricks0):
        games = []
        for r in range(4):
            share = t0 // 4
            rest = (26 - share) // 3
            tricks = [share, rest, rest, 26 - share - 2 * rest]
            games.append(_game(k, r, 2, tricks, winner=0 if r < k + 1 else 1))
        sets.append(games)
    config = ArenaConfig(specs=RANDOM4, hands=24)
    s = summarize(config, sets, elapsed=2.0)
    b0 = s["bots"][0]
    assert b0["tricks_per_hand"] == pytest.approx(2.5)
    half = stats.t_quantile(0.975, 2) * 0.5 / math.sqrt(3)  # sd of (3, 2, 2.5) is 0.5
    assert b0["tricks_per_hand_ci95"] == pytest.approx([2.5 - half, 2.5 + half])
    # Entry 0 wins 1, 2, 3 of the 4 games: per-set rates 0.25, 0.5, 0.75.
    assert b0["game_win_rate"] == pytest.approx(0.5)
    assert b0["wins"] == 6 and b0["games"] == 12 and b0["hands"] == 24
    assert s["sets"] == 3 and s["games"] == 12 and s["hands"] == 24
    # Paired difference of entry 0 against the mean of the others, per set.
    others = [
        [(sum(g.tricks[e] for g in st) / 8) for e in (1, 2, 3)] for st in sets
    ]  # per set, entries 1..3
    d = [t0 / 8 - sum(o) / 3 for t0, o in zip(per_set_tricks0, others, strict=True)]
    expect = stats.mean_ci(d)
    first = s["differences"][0]
    assert first["a"] == "0:random" and first["b"].startswith("mean of")
    assert first["tricks_per_hand"] == pytest.approx(expect.mean)
    assert first["tricks_per_hand_ci95"] == pytest.approx(expect.ci95)
    assert b0["move_time_p95_s"] == pytest.approx(0.001)


# ---------------------------------------------------------------------- specs


def test_split_and_parse_specs() -> None:
    assert split_bots("expert:iterations=200,uct=1,normal,random") == [
        "expert:iterations=200,uct=1",
        "normal",
        "random",
    ]
    assert split_bots("cmd:python3 bot.py --x=1,random") == ["cmd:python3 bot.py --x=1", "random"]
    spec = parse_spec("random:a=1:b=0.5,c=true,d=text")
    assert spec.name == "random"
    assert dict(spec.options) == {"a": 1, "b": 0.5, "c": True, "d": "text"}
    cmd = parse_spec("cmd:python3 examples/simple_bot.py")
    assert cmd.is_external and cmd.command == ("python3", "examples/simple_bot.py")
    assert cmd.label(2) == "2:simple_bot.py"
    for bad in ["", "nosuchbot", "random:x", "random:x=1:x=2", "cmd:", "cmd:/no/such/program"]:
        with pytest.raises(SpecError):
            parse_spec(bad)


class _BudgetBot(Bot):
    name = "budget"

    def __init__(
        self, seed: int | None = None, *, time_limit: float | None = None, iterations: int = 5
    ) -> None:
        self.time_limit = time_limit
        self.iterations = iterations

    def choose(self, view: SeatView) -> Card:
        return cards_of(view.legal_mask)[0]


def test_time_per_move_reaches_bots_that_take_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.LEVELS, "budget", _BudgetBot)
    spec = parse_spec("budget")
    assert bot_options(spec, time_per_move=0.2, iterations=9) == {
        "time_limit": 0.2,
        "iterations": 9,
    }
    own = parse_spec("budget:iterations=3")
    assert bot_options(own, iterations=9) == {"iterations": 3}
    assert bot_options(parse_spec("random"), time_per_move=0.2, iterations=9) == {}
    bot = build_bot(spec, seed=1, time_per_move=0.5)
    assert isinstance(bot, _BudgetBot) and bot.time_limit == 0.5
    with pytest.raises(SpecError, match="no option 'depth'"):
        bot_options(parse_spec("random:depth=3"))
    with pytest.raises(SpecError, match="seeds every bot"):
        bot_options(parse_spec("random:seed=3"))


# ---------------------------------------------------------------------- duplicate play


def test_deals_and_discard_orders_are_fixed_by_the_set() -> None:
    a = deal_cards(7, 3, 2)
    assert a == deal_cards(7, 3, 2)
    assert sorted(c for hand in a for c in hand) == list(range(52))
    assert all(len(hand) == 13 for hand in a)
    assert a != deal_cards(7, 3, 3) and a != deal_cards(7, 4, 2) and a != deal_cards(8, 3, 2)
    assert sorted(discard_order(7, 3, 2)) == list(range(52))
    assert first_dealer(7, 3) == first_dealer(7, 3) in range(4)


def _records(folder: Path) -> dict[tuple[int, int], dict]:
    out = {}
    for path in sorted(folder.glob("set*-rot*.json")):
        k = int(path.name[3:8])
        r = int(path.name.split("rot")[1][0])
        out[(k, r)] = json.loads(path.read_text(encoding="utf-8"))
    return out


def test_duplicate_sets_rotate_bots_over_the_same_deals(tmp_path: Path) -> None:
    config = ArenaConfig(
        specs=RANDOM4, hands=8, seed=11, rules=Rules(target=10), records=str(tmp_path)
    )
    summary = run_arena(config)
    assert summary["hands"] >= 8
    recs = _records(tmp_path)
    sets = sorted({k for k, _ in recs})
    assert len(recs) == 4 * len(sets) == summary["games"]
    for k in sets:
        games = [recs[(k, r)] for r in range(4)]
        # Entry i sits at seat (i + r) % 4: every entry holds every seat once.
        for r, g in enumerate(games):
            assert g["players"] == [f"{(s - r) % 4}:random" for s in range(4)]
        for e in range(4):
            assert sorted(g["players"].index(f"{e}:random") for g in games) == [0, 1, 2, 3]
        # The same deals, hand by hand, and the same first dealer, in every rotation.
        assert len({g["hands"][0]["dealer"] for g in games}) == 1
        for h in range(min(len(g["hands"]) for g in games)):
            deals = [g["hands"][h]["deal"] for g in games]
            assert all(d == deals[0] for d in deals)
        # Replays are legal games with a winner, and their totals are in the summary.
        for g in games:
            res = replay(parse_record(json.dumps(g)))
            assert res.error is None and res.game.winner is not None


def test_records_replay_with_the_command(tmp_path: Path) -> None:
    run_arena(
        ArenaConfig(specs=RANDOM4, hands=4, seed=2, rules=Rules(target=10), records=str(tmp_path))
    )
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 4
    for f in files[:1]:  # one through a real process, the rest in this one
        done = subprocess.run(
            [sys.executable, "-m", "lockup", "replay", str(f)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert json.loads(done.stdout)["status"] == "finished"
    for f in files[1:]:
        assert lockup_main(["replay", str(f)]) == 0


def test_same_seed_same_result_whatever_the_workers(tmp_path: Path) -> None:
    base = dict(specs=RANDOM4, hands=40, seed=5, rules=Rules(target=10))
    one = run_arena(ArenaConfig(workers=1, **base))  # type: ignore[arg-type]
    two = run_arena(ArenaConfig(workers=2, **base))  # type: ignore[arg-type]
    keys = ["tricks_per_hand", "tricks_per_hand_ci95", "game_win_rate", "wins", "tricks"]
    assert [[b[k] for k in keys] for b in one["bots"]] == [
        [b[k] for k in keys] for b in two["bots"]
    ]
    assert one["hands"] == two["hands"] and one["sets"] == two["sets"]
    other = run_arena(ArenaConfig(workers=1, **{**base, "seed": 6}))  # type: ignore[arg-type]
    assert [b["tricks"] for b in other["bots"]] != [b["tricks"] for b in one["bots"]]


class _LowestBot(Bot):
    """Plays its lowest legal card: a fixed strategy to compare with random."""

    name = "lowest"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def choose(self, view: SeatView) -> Card:
        return cards_of(view.legal_mask)[0]


class _BrokenBot(Bot):
    """Raises on every third call and answers a card it does not hold otherwise."""

    name = "broken"

    def __init__(self, seed: int | None = None) -> None:
        self.n = 0

    def choose(self, view: SeatView) -> Card:
        self.n += 1
        if self.n % 3 == 0:
            raise RuntimeError("boom")
        return next(c for c in range(52) if not (view.hand_mask >> c) & 1)


def test_discards_do_not_depend_on_who_sits_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four copies of one deterministic bot: every rotation is the very same game,
    lockup discards included (they come from the set, not from the seats' bots)."""
    monkeypatch.setitem(registry.LEVELS, "lowest", _LowestBot)
    specs = tuple(parse_spec("lowest") for _ in range(4))
    run_arena(
        ArenaConfig(specs=specs, hands=4, seed=8, rules=Rules(target=10), records=str(tmp_path))
    )
    recs = _records(tmp_path)
    games = [recs[(0, r)]["hands"] for r in range(4)]
    assert any("discard" in e for h in games[0] for e in h["events"])
    assert all(g == games[0] for g in games)


def test_a_broken_builtin_bot_loses_its_decisions_and_the_arena_goes_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(registry.LEVELS, "broken", _BrokenBot)
    specs = (parse_spec("broken"), *RANDOM4[1:])
    s = run_arena(ArenaConfig(specs=specs, hands=4, seed=3, rules=Rules(target=10)))
    b = s["bots"][0]
    assert b["faults"]["error"] > 0 and b["faults"]["illegal"] > 0
    assert b["random_moves"] == b["moves"] == b["faults"]["error"] + b["faults"]["illegal"]
    err = capsys.readouterr().err
    assert "illegal: played" in err and "(R4)" in err and "error: raised RuntimeError: boom" in err
    assert "further faults are counted" in err


# ---------------------------------------------------------------------- the command


def test_cli_json_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(registry.LEVELS, "lowest", _LowestBot)
    out = tmp_path / "out.json"
    status = lockup_main(
        [
            "arena",
            "--bots",
            "lowest,random,random,random",
            "--hands",
            "12",
            "--seed",
            "7",
            "--target",
            "10",
            "--workers",
            "1",
            "--json",
            str(out),
        ]
    )
    assert status == 0
    captured = capsys.readouterr()
    assert "tricks/hand" in captured.out and "0:lowest" in captured.out
    assert "arena:" in captured.err  # progress lines (no terminal)
    s = json.loads(out.read_text(encoding="utf-8"))
    assert s["format"] == "lockup-arena/1" and s["hands"] >= 12
    assert s["rules"] == {
        "picture_exception": "same-rank",
        "lock_discards": "per-trick",
        "target": 10,
    }
    for b in s["bots"]:
        for key in ("name", "tricks_per_hand", "tricks_per_hand_ci95", "game_win_rate", "faults"):
            assert key in b
        lo, hi = b["tricks_per_hand_ci95"]
        assert lo <= b["tricks_per_hand"] <= hi
    assert [b["name"] for b in s["bots"]] == ["lowest", "random", "random", "random"]
    pooled = [g for g in s["groups"] if g["entries"] == [1, 2, 3]]
    assert pooled and pooled[0]["spec"] == "random"
    pairs = {(d["a"], d["b"]) for d in s["differences"]}
    assert ("0:lowest", "random (1,2,3) mean") in pairs and ("1:random", "3:random") in pairs
    assert sum(b["wins"] for b in s["bots"]) == s["games"]


def test_cli_json_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    status = lockup_main(
        ["arena", "--bots", "random,random,random,random", "--hands", "4", "--target", "10",
         "--workers", "1", "--json", "-", "--quiet"]
    )  # fmt: skip
    assert status == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["format"] == "lockup-arena/1"
    assert "tricks/hand" in captured.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "random,random,random"], "four bots"),
        (["--bots", "random,random,random,wizard"], "unknown bot 'wizard'"),
        (["--bots", "random:depth=2,random,random,random"], "no option 'depth'"),
        (["--bots", "random,random,random,random", "--hands", "0"], "--hands"),
        (["--bots", "random,random,random,random", "--workers", "0"], "--workers"),
        (
            ["--bots", "random,random,random,random", "--json", "/no/such/dir/x.json"],
            "cannot write",
        ),
        (["--bot", "cmd:no-such-program-xyz", "--bots", "random,random,random"], "cannot find"),
        ([], "name four bots"),
    ],
)
def test_cli_bad_input_is_a_clear_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert lockup_main(["arena", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_help_texts_render(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["arena", "--help"]):
        with pytest.raises(SystemExit) as exit_info:
            lockup_main(argv)
        assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "arena" in out and "--time-per-move" in out and "95% confidence" in out


def test_cli_bad_option_value_is_refused_by_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        lockup_main(["arena", "--bots", "random,random,random,random", "--target", "12"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_arena_config_is_checked() -> None:
    with pytest.raises(ArenaError):
        run_arena(ArenaConfig(specs=RANDOM4[:3], hands=4))
    with pytest.raises(ArenaError):
        run_arena(ArenaConfig(specs=RANDOM4, hands=0))
