"""``lockup arena --population``: one candidate bot against a population of sparring partners.

For each member M of the population the candidate C plays one duplicate arena
(:func:`lockup.arena.runner.run_arena`), by default with **two of each**, entries C, M,
C, M (the layout ``two-of-each``): the arena rotates them through the seats as always,
so each entry holds every seat's cards, and the two Cs never sit side by side. The
layout ``one-against-three`` seats one C against three Ms (entries C, M, M, M), as a
level is measured against the rules it must beat. A member's row is that arena's summary
read for the pair: the hands played, C's tricks a hand minus M's (each side pooled over
its entries, paired per duplicate set) with its 95% interval, and the game win rate of a
C seat and of an M seat side by side (par 25%: four players, one winner a game), with
the interval of their difference. The intervals are the arena's (docs/arena.md).

A member that cannot play on this machine (``openspiel-ismcts`` without OpenSpiel) is
listed as skipped with the reason, as is a member with the candidate's own spec; any
other bad spec stops the run before anything is played.

A long run can be taken in parts: the document is handed to a ``checkpoint`` after each
member (``--json FILE`` rewrites FILE then), and a later run of the same candidate and
settings keeps the members an earlier document holds (:func:`kept_rows`, ``--resume``)
and plays only the rest. Each member's arena is played on its own, from the same seed,
so a table made in parts is the table made at once.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..engine import Rules
from .runner import ArenaConfig, ArenaError, Progress, group_label, run_arena
from .specs import ISMCTS, BotSpec, build_bot

FORMAT = "lockup-population/1"
LAYOUTS = {"two-of-each": (0, 1, 0, 1), "one-against-three": (0, 1, 1, 1)}
"""The seating of each member's arena by name: for each of the four entries, the
candidate (0) or the member (1)."""
DEFAULT_LAYOUT = "two-of-each"
DEFAULT_CANDIDATE = "expert"
DEFAULT_POPULATION = ("pimc", "pimc+", "pimc-greedy", ISMCTS, "learned", "normal")
"""The sparring partners by default: the plain PIMC, the stronger one, the plain one with a
greedy playout, OpenSpiel's ISMCTS (where OpenSpiel is importable), the learned playout
policy alone, the ``normal`` rules."""


@dataclass(frozen=True)
class PopulationConfig:
    """What to play: the candidate, the members, and what every member's arena shares."""

    candidate: BotSpec
    members: tuple[BotSpec, ...]
    hands: int
    """Hands asked of each member's arena."""
    seed: int = 0
    rules: Rules = field(default_factory=Rules)
    workers: int = 1
    time_per_move: float | None = None
    iterations: int | None = None
    bot_timeout: float = 2.0
    layout: str = DEFAULT_LAYOUT
    """A key of :data:`LAYOUTS`: how the candidate and the member share the four seats."""

    def arena(self, member: BotSpec) -> ArenaConfig:
        """The arena of one member: entries candidate, member, candidate, member (or
        candidate, member, member, member: :attr:`layout`)."""
        pair = (self.candidate, member)
        return ArenaConfig(
            specs=tuple(pair[k] for k in LAYOUTS[self.layout]),
            hands=self.hands,
            seed=self.seed,
            rules=self.rules,
            workers=self.workers,
            time_per_move=self.time_per_move,
            iterations=self.iterations,
            bot_timeout=self.bot_timeout,
        )


def unavailable(spec: BotSpec) -> str | None:
    """Why ``spec`` cannot play on this machine (OpenSpiel not importable), or None."""
    if spec.name != ISMCTS:
        return None
    try:
        importlib.import_module("lockup.arena.ismcts")
    except ImportError as e:
        return f"OpenSpiel is not importable ({e})"
    return None


def skip_reason(config: PopulationConfig, member: BotSpec) -> str | None:
    """Why a member is skipped (see the module's description), or None to play it."""
    if member.text == config.candidate.text:
        return "the candidate itself (one spec on every seat: nothing to compare)"
    return unavailable(member)


def check(config: PopulationConfig) -> None:
    """Refuse a population that cannot run, before anything is played: raises
    :class:`ArenaError` or :class:`~lockup.arena.specs.SpecError` with the reason."""
    if not config.members:
        raise ArenaError("the population has no member")
    if config.layout not in LAYOUTS:
        raise ArenaError(f"no layout {config.layout!r}: it is one of {', '.join(sorted(LAYOUTS))}")
    if config.hands < 1:
        raise ArenaError("--hands must be at least 1")
    why = unavailable(config.candidate)
    if why is not None:
        raise ArenaError(f"the candidate {config.candidate.text!r} cannot play: {why}")
    texts = [m.text for m in config.members]
    twice = sorted({t for t in texts if texts.count(t) > 1})
    if twice:
        raise ArenaError(f"a member is named twice: {', '.join(twice)}")
    for spec in (config.candidate, *config.members):
        if spec.is_external or (spec is not config.candidate and skip_reason(config, spec)):
            continue
        build_bot(
            spec, seed=0, time_per_move=config.time_per_move, iterations=config.iterations
        ).close()


def member_row(
    config: PopulationConfig, member: BotSpec, summary: dict[str, Any]
) -> dict[str, Any]:
    """A played member's row, read from its arena's summary."""
    specs = config.arena(member).specs
    groups = {g["spec"]: g for g in summary["groups"]}
    cand, memb = groups[config.candidate.text], groups[member.text]
    a = group_label(config.candidate.text, cand["entries"], specs)
    b = group_label(member.text, memb["entries"], specs)
    diff = next(d for d in summary["differences"] if d["a"] == a and d["b"] == b)
    return {
        "member": member.text,
        "status": "played",
        "sets": summary["sets"],
        "games": summary["games"],
        "hands": summary["hands"],
        "tricks_diff": diff["tricks_per_hand"],
        "tricks_diff_ci95": diff["tricks_per_hand_ci95"],
        "tricks_clear_of_zero": diff["tricks_clear_of_zero"],
        "candidate_tricks_per_hand": cand["tricks_per_hand"],
        "member_tricks_per_hand": memb["tricks_per_hand"],
        "candidate_win_rate": cand["game_win_rate"],
        "candidate_win_rate_ci95": cand["game_win_rate_ci95"],
        "member_win_rate": memb["game_win_rate"],
        "member_win_rate_ci95": memb["game_win_rate_ci95"],
        "win_rate_diff": diff["game_win_rate"],
        "win_rate_diff_ci95": diff["game_win_rate_ci95"],
        "win_rate_clear_of_zero": diff["win_rate_clear_of_zero"],
        "faults": sum(sum(bot["faults"].values()) for bot in summary["bots"]),
        "elapsed_s": summary["elapsed_s"],
        "arena": summary,
    }


def _settings(config: PopulationConfig) -> dict[str, Any]:
    """What a kept member's arena must share with this run (its document's keys)."""
    return {
        "candidate": config.candidate.text,
        "seed": config.seed,
        "rules": config.rules.to_dict(),
        "hands_asked": config.hands,
        "time_per_move": config.time_per_move,
        "iterations": config.iterations,
        "layout": config.layout,
    }


def kept_rows(config: PopulationConfig, document: Any) -> dict[str, dict[str, Any]]:
    """The played members of an earlier run's document (finished or stopped part way)
    that this run keeps, by member spec; raises :class:`ArenaError` if the document is
    not a population of the same candidate and settings."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ArenaError(f"it is not a {FORMAT} document")
    mine = _settings(config)
    theirs = {"layout": DEFAULT_LAYOUT, **document}  # documents before layouts: two of each
    other = [
        f"{key} {theirs.get(key)!r}, not {value!r}"
        for key, value in mine.items()
        if theirs.get(key) != value
    ]
    if other:
        raise ArenaError("it was played with other settings: " + "; ".join(other))
    rows = document.get("members")
    if not isinstance(rows, list):
        raise ArenaError("it has no list of members")
    wanted = {m.text for m in config.members}
    return {
        row["member"]: row
        for row in rows
        if isinstance(row, dict) and row.get("status") == "played" and row.get("member") in wanted
    }


MemberProgress = Callable[[int, int, str], Progress | None]
"""Called before each member's arena as (index, members, member spec); may answer the
progress callback of that arena."""


def run_population(
    config: PopulationConfig,
    progress: MemberProgress | None = None,
    kept: Mapping[str, dict[str, Any]] | None = None,
    checkpoint: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Play every member's arena in turn; the result is the ``--json`` document.

    ``kept``: rows of members already played (:func:`kept_rows`), taken as they are.
    ``checkpoint`` is given the document so far after each member played (its
    ``complete`` false until the last)."""
    check(config)
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    kept = kept or {}
    for i, member in enumerate(config.members):
        why = skip_reason(config, member)
        if why is not None:
            rows.append({"member": member.text, "status": "skipped", "reason": why})
            continue
        if member.text in kept:
            rows.append(kept[member.text])
            continue
        bar = progress(i, len(config.members), member.text) if progress is not None else None
        summary = run_arena(config.arena(member), bar)
        rows.append(member_row(config, member, summary))
        if checkpoint is not None and i + 1 < len(config.members):
            checkpoint(_document(config, rows, start, kept, complete=False))
    return _document(config, rows, start, kept, complete=True)


def _document(
    config: PopulationConfig,
    rows: list[dict[str, Any]],
    start: float,
    kept: Mapping[str, dict[str, Any]],
    *,
    complete: bool,
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        **_settings(config),
        "workers": config.workers,
        "elapsed_s": time.perf_counter() - start,
        "complete": complete,
        "kept": [r["member"] for r in rows if r["member"] in kept],
        "members": list(rows),
    }


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _interval(ci: list[float] | None, scale: float, form: str) -> str:
    return "[n/a]" if ci is None else "[" + ", ".join(form.format(scale * x) for x in ci) + "]"


def format_population(result: dict[str, Any]) -> str:
    """The result as a table for people: one row a member."""
    r = result["rules"]
    budget = ", ".join(
        text
        for text, value in (
            (f"{result['time_per_move']} s a move", result["time_per_move"]),
            (f"{result['iterations']} iterations a move", result["iterations"]),
        )
        if value is not None
    )
    layout = result.get("layout", DEFAULT_LAYOUT)
    seating = ", ".join("CM"[k] for k in LAYOUTS.get(layout, LAYOUTS[DEFAULT_LAYOUT]))
    out = [
        f"Lockup arena population: {result['candidate']} (C) against each member (M), "
        f"{layout.replace('-', ' ')} (entries {seating}), at least {result['hands_asked']} "
        f"hands a member, seed "
        f"{result['seed']}; rules {r['picture_exception']}, {r['lock_discards']}, target "
        f"{r['target']}; {budget or 'default budgets'}; {result['elapsed_s']:.1f} s"
        + (
            f" (kept from an earlier run: {', '.join(result['kept'])})"
            if result.get("kept")
            else ""
        ),
        "",
        f"{'member':<24} {'hands':>6} {'C - M tricks/hand':>17} {'95% CI':>18} "
        f"{'C wins':>7} {'M wins':>7} {'C - M wins (95% CI)':>28} {'faults':>6}",
    ]
    for row in result["members"]:
        name = row["member"] if len(row["member"]) <= 24 else row["member"][:21] + "..."
        if row["status"] != "played":
            out.append(f"{name:<24} skipped: {row['reason']}")
            continue
        mark = " *" if row["tricks_clear_of_zero"] else "  "
        wmark = " *" if row["win_rate_clear_of_zero"] else "  "
        wins = (
            f"{100 * row['win_rate_diff']:+.1f}% "
            f"{_interval(row['win_rate_diff_ci95'], 100, '{:+.1f}%')}{wmark}"
        )
        out.append(
            f"{name:<24} {row['hands']:>6} {row['tricks_diff']:>+17.3f} "
            f"{_interval(row['tricks_diff_ci95'], 1, '{:+.3f}') + mark:>18} "
            f"{_pct(row['candidate_win_rate']):>7} {_pct(row['member_win_rate']):>7} "
            f"{wins:>28} {row['faults']:>6}"
        )
    out += [
        "",
        "C - M tricks/hand: the candidate's mean tricks a hand minus the member's, paired per",
        "duplicate set; C wins, M wins: the game win rate of one candidate seat and of one",
        "member seat (par 25%); * the 95% interval is clear of zero.",
    ]
    return "\n".join(out)
