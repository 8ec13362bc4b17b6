"""``lockup arena --population``: one candidate against each sparring partner (issue 24)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from lockup.arena.learned import LearnedPolicyBot
from lockup.arena.population import DEFAULT_POPULATION, PopulationConfig, run_population
from lockup.arena.runner import ArenaError
from lockup.arena.specs import build_bot, parse_spec
from lockup.cli import build_parser
from lockup.cli import main as lockup_main
from lockup.engine import Rules

TINY = ["--iterations", "5", "--hands", "8", "--workers", "1", "--target", "10", "--seed", "2"]


def _no_openspiel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make OpenSpiel unimportable, as on a machine without it (its submodules too: one
    another test imported stays in ``sys.modules``, and an import finds it there)."""
    for name in [m for m in sys.modules if m == "open_spiel" or m.startswith("open_spiel.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "open_spiel", None)
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    monkeypatch.delitem(sys.modules, "lockup.arena.ismcts", raising=False)


def test_population_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "population.json"
    argv = ["arena", "--population", "pimc,learned,normal", "--candidate", "pimc+", *TINY]
    assert lockup_main([*argv, "--json", str(out)]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    header = next(line for line in lines if line.startswith("member"))
    for column in ("hands", "C - M tricks/hand", "95% CI", "C wins", "M wins", "faults"):
        assert column in header
    rows = {line.split()[0]: line for line in lines[lines.index(header) + 1 :] if line.strip()}
    assert {"pimc", "learned", "normal"} <= set(rows)
    assert "pimc+ (C) against each member" in captured.out
    assert "arena: member 1 of 3: pimc+ against pimc" in captured.err  # progress

    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["format"] == "lockup-population/1" and doc["candidate"] == "pimc+"
    assert doc["iterations"] == 5 and doc["seed"] == 2 and doc["rules"]["target"] == 10
    assert [m["member"] for m in doc["members"]] == ["pimc", "learned", "normal"]
    for m in doc["members"]:
        assert m["status"] == "played" and m["hands"] >= 8 and m["games"] == 4 * m["sets"]
        arena = m["arena"]
        assert [b["spec"] for b in arena["bots"]] == ["pimc+", m["member"], "pimc+", m["member"]]
        # The pair's figures: tricks and wins pooled over each side's two entries.
        diff = m["candidate_tricks_per_hand"] - m["member_tricks_per_hand"]
        assert m["tricks_diff"] == pytest.approx(diff)
        assert m["candidate_win_rate"] + m["member_win_rate"] == pytest.approx(0.5)
        assert m["win_rate_diff"] == pytest.approx(m["candidate_win_rate"] - m["member_win_rate"])
        for key in ("tricks_diff_ci95", "candidate_win_rate_ci95", "win_rate_diff_ci95"):
            assert key in m
        assert f"{m['tricks_diff']:+.3f}" in rows[m["member"]]
        assert f"{100 * m['candidate_win_rate']:.1f}%" in rows[m["member"]]
    assert doc["members"][0]["arena"]["sets"] >= 1


def test_same_seed_same_table(capsys: pytest.CaptureFixture[str]) -> None:
    """With iterations the whole population run depends only on the seed."""
    argv = ["arena", "--population", "learned,easy", "--candidate", "pimc+", "--quiet", *TINY]
    docs = []
    for _ in range(2):
        assert lockup_main([*argv, "--json", "-"]) == 0
        doc = json.loads(capsys.readouterr().out)
        docs.append(
            [
                {k: v for k, v in m.items() if k not in ("arena", "elapsed_s")}
                for m in doc["members"]
            ]
        )
    assert docs[0] == docs[1]


def test_default_population_and_candidate(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser("arena").parse_args(["arena", "--population"])
    assert args.population.split(",") == list(DEFAULT_POPULATION)
    assert DEFAULT_POPULATION == (
        "pimc",
        "pimc+",
        "pimc-greedy",
        "openspiel-ismcts",
        "learned",
        "normal",
    )
    # The default candidate is the expert.
    argv = ["arena", "--population", "normal", "--quiet", *TINY]
    assert lockup_main([*argv, "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["candidate"] == "expert"
    assert [b["name"] for b in doc["members"][0]["arena"]["bots"]] == [
        "expert",
        "normal",
        "expert",
        "normal",
    ]


def test_missing_openspiel_is_listed_as_skipped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_openspiel(monkeypatch)
    argv = ["arena", "--population", "openspiel-ismcts,pimc+", "--candidate", "learned"]
    assert lockup_main([*argv, "--quiet", "--json", "-", *TINY]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    skipped, played = doc["members"]
    assert skipped["member"] == "openspiel-ismcts" and skipped["status"] == "skipped"
    assert "OpenSpiel is not importable" in skipped["reason"]
    assert "arena" not in skipped
    assert played["member"] == "pimc+" and played["status"] == "played"
    row = next(line for line in captured.err.splitlines() if line.startswith("openspiel-ismcts"))
    assert "skipped: OpenSpiel is not importable" in row


def test_the_candidate_in_its_own_population_is_skipped() -> None:
    config = PopulationConfig(
        candidate=parse_spec("learned"),
        members=(parse_spec("learned"), parse_spec("random")),
        hands=4,
        seed=1,
        rules=Rules(target=10),
    )
    doc = run_population(config)
    assert doc["members"][0]["status"] == "skipped"
    assert "the candidate itself" in doc["members"][0]["reason"]
    assert doc["members"][1]["status"] == "played"
    # The learned policy beats random play even over a few hands.
    assert doc["members"][1]["tricks_diff"] > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--population", "pimc,wizard"], "unknown bot 'wizard'"),
        (["--population", "pimc:depth=3"], "no option 'depth'"),
        (["--population", "normal", "--candidate", "wizard"], "unknown bot 'wizard'"),
        (["--population", "normal,normal"], "named twice"),
        (["--population", "normal", "--bots", "random,random,random,random"], "leave out --bots"),
        (["--population", "normal", "--records", "/tmp/x"], "do not go with --population"),
        (["--population", "normal", "--hands", "0"], "--hands"),
        (["--bots", "random,random,random,random", "--candidate", "normal"], "--population"),
        (["--population", "normal", "--resume"], "--resume needs --json FILE"),
        (["--population", "normal", "--resume", "--json", "-"], "--resume needs --json FILE"),
        (["--bots", "random,random,random,random", "--resume"], "--resume goes with --population"),
        (
            ["--bots", "random,random,random,random", "--layout", "one-against-three"],
            "--layout goes with --population",
        ),
    ],
)
def test_bad_population_is_a_clear_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert lockup_main(["arena", "--workers", "1", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert "arena: member" not in err  # nothing was played


def test_a_stopped_population_run_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--json FILE`` is rewritten after each member, so a run stopped part way keeps what
    it played; ``--resume`` plays only the rest, and the table made in two parts is the
    table made at once."""
    from lockup.arena import population

    out = tmp_path / "population.json"
    argv = ["arena", "--population", "learned,easy,random", "--candidate", "pimc+", *TINY]
    real_arena = population.run_arena
    played: list[str] = []

    def stopped_at_the_third(config: Any, bar: Any) -> Any:
        played.append(config.specs[1].text)
        if len(played) == 3:
            raise KeyboardInterrupt
        return real_arena(config, bar)

    monkeypatch.setattr(population, "run_arena", stopped_at_the_third)
    assert lockup_main([*argv, "--json", str(out)]) == 130
    assert "interrupted" in capsys.readouterr().err
    part = json.loads(out.read_text(encoding="utf-8"))
    assert part["complete"] is False and part["kept"] == []
    assert [m["member"] for m in part["members"]] == ["learned", "easy"]

    played.clear()
    assert lockup_main([*argv, "--json", str(out), "--resume"]) == 0
    captured = capsys.readouterr()
    assert played == ["random"]  # only the member not played yet
    assert "member 3 of 3: pimc+ against random" in captured.err
    assert "member 1 of 3" not in captured.err and "member 2 of 3" not in captured.err
    assert "kept from an earlier run: learned, easy" in captured.out
    whole = json.loads(out.read_text(encoding="utf-8"))
    assert whole["complete"] is True and whole["kept"] == ["learned", "easy"]
    assert whole["members"][:2] == part["members"]  # kept as they were
    assert not (tmp_path / "population.json.tmp").exists()

    # Resuming a finished run plays nothing; the table is the one made at once.
    played.clear()
    assert lockup_main([*argv, "--json", str(out), "--resume", "--quiet"]) == 0
    assert played == []
    assert "kept from an earlier run: learned, easy, random" in capsys.readouterr().out
    monkeypatch.setattr(population, "run_arena", real_arena)
    assert lockup_main([*argv, "--json", "-", "--quiet"]) == 0
    at_once = json.loads(capsys.readouterr().out)

    def figures(doc: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in m.items() if k not in ("arena", "elapsed_s")} for m in doc["members"]
        ]

    assert figures(whole) == figures(at_once)


def test_resume_refuses_a_file_of_other_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "population.json"
    argv = ["arena", "--population", "random", "--candidate", "easy", "--quiet", *TINY]
    assert lockup_main([*argv, "--json", str(out)]) == 0
    before = out.read_text(encoding="utf-8")
    capsys.readouterr()
    other = [*argv, "--seed", "3", "--json", str(out), "--resume"]
    assert lockup_main(other) == 2
    err = capsys.readouterr().err
    assert "cannot resume from" in err and "seed 2, not 3" in err
    assert out.read_text(encoding="utf-8") == before
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    bad = [*argv, "--json", str(tmp_path / "bad.json"), "--resume"]
    assert lockup_main(bad) == 2
    assert "cannot resume from" in capsys.readouterr().err
    (tmp_path / "other.json").write_text('{"format": "lockup-record/1"}', encoding="utf-8")
    assert lockup_main([*argv, "--json", str(tmp_path / "other.json"), "--resume"]) == 2
    assert "not a lockup-population/1 document" in capsys.readouterr().err


def test_missing_openspiel_candidate_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_openspiel(monkeypatch)
    argv = ["arena", "--population", "normal", "--candidate", "openspiel-ismcts", *TINY]
    assert lockup_main(argv) == 2
    err = capsys.readouterr().err
    assert "cannot play: OpenSpiel is not importable" in err


def test_learned_spec_plays_the_legal_card_of_highest_score() -> None:
    """``learned`` plays the legal card of highest ``LEARNED_W . card_features`` (the lowest
    on a tie); the features mark the ``normal`` rules' card and the bolder rules' card, and
    working them out leaves the position as it was."""
    import random

    from lockup.arena.learned import BOLD, LEARNED_W, N_FEATURES, card_features
    from lockup.bots import _kernel as K
    from lockup.bots.kernel import DEFAULT_POLICY, view_state
    from lockup.bots.registry import make_bot
    from lockup.engine import Game

    bot = build_bot(parse_spec("learned"), seed=1)
    assert isinstance(bot, LearnedPolicyBot)
    normal = make_bot("normal")
    game = Game.new(random.Random(4), record=False)
    rng = random.Random(5)
    moves = 0
    while not game.is_over and moves < 120:
        if game.phase == "discard":
            game.discard_random(rng)
        elif game.phase == "deal":
            game.deal(rng=rng)
        else:
            view = game.view(game.turn)
            card = bot.choose(view)
            assert view.legal_mask >> card & 1
            if view.legal_mask & (view.legal_mask - 1):
                s = view_state(view, K, DEFAULT_POLICY)
                before = list(s)
                rule, bold = K.policy(s), K.policy(view_state(view, K, BOLD))
                assert rule == normal.choose(view)
                unknown = K.FULL & ~(s[K.I_PLAYED] | s[K.I_LOST] | view.hand_mask)
                ms = K.masters(view.hand_mask, unknown)
                scores = {}
                for c in view.legal_cards:
                    out = card_features(s, c, rule, bold, unknown, ms)
                    assert len(out) == N_FEATURES
                    assert out[0] == (c == rule) and out[1] == (c == bold)
                    assert out[16] == (c < 13)  # a club
                    scores[c] = sum(w * f for w, f in zip(LEARNED_W, out, strict=True))
                assert s == before
                top = max(scores.values())
                assert card == min(c for c, v in scores.items() if v == top)
            game.play(card, game.turn)
            moves += 1
    assert moves == 120


def test_one_against_three_seats_the_candidate_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--layout one-against-three``: entries C, M, M, M in every member's arena, the
    pair's figures read from one candidate seat and three member seats."""
    out = tmp_path / "population.json"
    argv = ["arena", "--population", "random,easy", "--candidate", "normal", *TINY]
    argv += ["--layout", "one-against-three", "--quiet"]
    assert lockup_main([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "one against three (entries C, M, M, M)" in printed
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["layout"] == "one-against-three"
    for m in doc["members"]:
        arena = m["arena"]
        assert [b["spec"] for b in arena["bots"]] == ["normal"] + 3 * [m["member"]]
        groups = {g["spec"]: g for g in arena["groups"]}
        assert groups["normal"]["entries"] == [0]
        assert groups[m["member"]]["entries"] == [1, 2, 3]
        # Every game has one winner: one candidate seat and three member seats share it.
        assert m["candidate_win_rate"] + 3 * m["member_win_rate"] == pytest.approx(1.0)
        diff = m["candidate_tricks_per_hand"] - m["member_tricks_per_hand"]
        assert m["tricks_diff"] == pytest.approx(diff)
    # The rules beat random play: the lone `normal` wins more than its share of tricks.
    assert all(m["tricks_diff"] > 0 for m in doc["members"])

    # A run of the other layout cannot resume from it; one of the same layout keeps it all.
    two = ["arena", "--population", "random,easy", "--candidate", "normal", *TINY, "--quiet"]
    assert lockup_main([*two, "--json", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "layout 'one-against-three', not 'two-of-each'" in err
    assert lockup_main([*argv, "--json", str(out), "--resume"]) == 0
    assert "kept from an earlier run: random, easy" in capsys.readouterr().out
    # Through the API, a layout that is not one is refused before anything is played.
    bad = PopulationConfig(candidate=parse_spec("normal"), members=(parse_spec("random"),), hands=1)
    with pytest.raises(ArenaError, match="no layout 'three'"):
        run_population(replace(bad, layout="three"))


def test_a_document_from_before_layouts_resumes_as_two_of_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "population.json"
    argv = ["arena", "--population", "random", "--candidate", "easy", "--quiet", *TINY]
    assert lockup_main([*argv, "--json", str(out)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc.pop("layout") == "two-of-each"
    out.write_text(json.dumps(doc), encoding="utf-8")
    capsys.readouterr()
    assert lockup_main([*argv, "--json", str(out), "--resume"]) == 0
    assert "kept from an earlier run: random" in capsys.readouterr().out
    argv3 = [*argv, "--layout", "one-against-three", "--json", str(out), "--resume"]
    assert lockup_main(argv3) == 2
    assert "layout 'two-of-each', not 'one-against-three'" in capsys.readouterr().err
