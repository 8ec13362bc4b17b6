"""Shared helpers for the rules, property and record tests, and the browser tests'
fixtures (kept small on purpose)."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import random
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lockup.cards import parse_card
from lockup.engine import Game, Rules

FIXTURES = Path(__file__).parent / "fixtures"

_RERUNS: list[str] = []
"""Why each test marked flaky was run again: printed at the end, so a CI log says it."""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.outcome == "rerun":
        errors = [ln[1:].strip() for ln in report.longreprtext.splitlines() if ln.startswith("E ")]
        _RERUNS.append(f"{report.nodeid}: {' | '.join(errors[:3]) or report.longreprtext[-300:]}")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _RERUNS:
        terminalreporter.section("why tests were run again")
        for line in _RERUNS:
            terminalreporter.line(line[:1000])


ALL_OPTIONS = [
    Rules(picture, discards)
    for picture in ("same-rank", "any-club")
    for discards in ("per-trick", "upfront")
]
"""The four combinations of ``picture_exception`` and ``lock_discards`` (target 20)."""


def rules_id(rules: Rules) -> str:
    return f"{rules.picture_exception}/{rules.lock_discards}/{rules.target}"


def cards(text: str) -> list[int]:
    """``"QD 2c 10♦"`` -> card numbers."""
    return [parse_card(c) for c in text.split()]


def make_deal(fixed: dict[int, str], only: dict[int, str] | None = None) -> list[list[int]]:
    """A full deal: the ``fixed`` cards of each seat, the rest filled in card-number order.

    ``only[seat]`` lists the suit letters (``"DS"``) the filler may give that seat, so a
    test can make a seat void in a suit. Seats with fewer allowed suits are filled first.
    """
    only = only or {}
    hands = {s: cards(fixed.get(s, "")) for s in range(4)}
    used = {c for h in hands.values() for c in h}
    assert len(used) == sum(len(h) for h in hands.values()), "a card is fixed twice"
    rest = [c for c in range(52) if c not in used]
    for seat in sorted(range(4), key=lambda s: len(only.get(s, "CDHS"))):
        suits = ["CDHS".index(x) for x in only.get(seat, "CDHS")]
        while len(hands[seat]) < 13:
            pick = next((c for c in rest if c // 13 in suits), None)
            assert pick is not None, f"cannot fill seat {seat} from suits {only.get(seat)}"
            rest.remove(pick)
            hands[seat].append(pick)
        assert len(hands[seat]) == 13, f"seat {seat} has {len(hands[seat])} fixed cards"
    return [hands[s] for s in range(4)]


def new_game(fixed: dict[int, str], dealer: int, rules: Rules | None = None, **kw: Any) -> Game:
    """``Game(rules, dealer)`` dealt ``make_deal(fixed, **kw)``."""
    game = Game(rules or Rules(), dealer)
    game.deal(make_deal(fixed, **kw))
    return game


def state(game: Game) -> dict[str, Any]:
    """A deep copy of every field of the game, for before/after comparisons."""
    # Game.__slots__ lists every field, also for the compiled Game (make engine): a native
    # class, which has neither real slots nor a __dict__ (the engine lists them for it).
    out = {n: copy.deepcopy(getattr(game, n)) for n in Game.__slots__ if hasattr(game, n)}
    if out.get("log") is not None:
        out["log"] = [(h.dealer, h.deal, h.events) for h in out["log"]]
    return out


def run_store(url: str, fn: Callable[[Any], Awaitable[Any]]) -> Any:
    """Start a :class:`~lockup.server.store.Store` on ``url``, run ``fn`` with it, close
    it; ``fn``'s answer."""
    from lockup.server.store import Store

    async def go() -> Any:
        store = Store(url)
        await store.start()
        try:
            return await fn(store)
        finally:
            await store.close()

    return asyncio.run(go())


def step(game: Game, rng: random.Random) -> None:
    """One random step: a deal, a lockup discard or a random legal card."""
    if game.phase == "deal":
        game.deal(rng=rng)
    elif game.discard_due is not None:
        game.discard_random(rng)
    else:
        legal = game.legal_cards()
        game.play(legal[rng.randrange(len(legal))])


def step_by_step(game: Any, rng: random.Random) -> None:
    """The rest of the hand through the checked API: random legal cards (drawn as the
    playout draws them, :func:`lockup.playout.nth`) and random lockup discards."""
    from lockup.engine import DISCARD, PLAY
    from lockup.playout import nth

    while True:
        if game.phase == PLAY:
            game.play(nth(game.legal_mask(), rng.random()))
        elif game.phase == DISCARD:
            game.discard_random(rng)
        else:
            return


def replay_actions(rules: dict[str, Any], rows: Any) -> tuple[Game, list[list[set[str]]]]:
    """A stored game's action rows, ``(kind, seat, data)`` in order, replayed; and each
    hand's four dealt hands (as card codes)."""
    game: Game | None = None
    deals: list[list[set[str]]] = []
    for kind, seat, data in rows:
        if kind == "deal":
            hands = json.loads(data)
            deals.append([set(h) for h in hands])
            if game is None:
                game = Game(Rules.from_dict(rules), dealer=seat)
            game.deal([[parse_card(c) for c in h] for h in hands])
        elif kind == "play":
            assert game is not None
            game.play(parse_card(data), seat)
        else:
            assert game is not None
            game.discard(parse_card(data), seat)
    assert game is not None
    return game, deals


def hidden_cards_seen(
    frames: list[dict[str, Any]], seat: int | None, deals: list[list[set[str]]]
) -> set[str]:
    """Cards of other seats' hidden hands that appear in a frame's ``hand`` field of a
    viewer at ``seat`` (None: a spectator, who sees no hand at all)."""
    leaks: set[str] = set()
    for f in frames:
        view = f.get("view")
        if not view:
            continue
        hand = set(view["hand"])
        if seat is None:
            leaks |= hand
            assert view["legal"] == [] and view["seat"] is None
            continue
        hand_no = view["hand_number"]
        if 0 <= hand_no < len(deals):
            leaks |= hand - deals[hand_no][seat]
    return leaks


def random_game(seed: int, rules: Rules) -> Game:
    """A whole game of random legal play (deterministic for a seed)."""
    rng = random.Random(seed)
    game = Game.new(rng, rules)
    while not game.is_over:
        step(game, rng)
    return game


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright for Python: one per test module."""
    from browser_helpers import CHROMIUM, CHROMIUM_ARGS

    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where a module's screenshots go: ``$LOCKUP_SCREENSHOTS`` if set, else a temporary
    directory (the tests print each path; ``pytest -s`` shows them)."""
    where = os.environ.get("LOCKUP_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


# ---------------------------------------------------------------------- databases


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """One real PostgreSQL server for the session (private port and data directory);
    skips when its binaries are absent (``make test`` installs them)."""
    from services import postgres

    with postgres() as pg:
        yield pg


@pytest.fixture(scope="module")
def stack() -> Iterator[Any]:
    """A PostgreSQL and a Redis of the module's own (private ports and data directories),
    for the tests that stop and start them; skips when their binaries are absent."""
    from services import Postgres, Redis, need_postgres, need_redis

    need_postgres()
    need_redis()
    pg, redis = Postgres(), Redis()
    try:
        pg.start()
        redis.start()
        yield pg, redis
    finally:
        redis.remove()
        pg.remove()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new empty database: an SQLite file, or a fresh database on the test PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'lockup.sqlite'}"
    pg = request.getfixturevalue("pg_server")
    url: str = pg.new_database()
    return url
