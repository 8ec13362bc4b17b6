"""Every implementation of the rules plays the same positions and ends in the same state.

The rules (docs/rules.md R4-R15) are written out four times, each for speed somewhere:

- the engine's checked step API (``Game.play``, ``Game.discard``), the reference; as
  installed (compiled by ``make engine``) and, when that is compiled, also run from its
  Python sources in the same process (``lockup._accel.source_package``);
- the engine's playout (``Game.playout``: :func:`lockup.playout.play_out`, compiled and
  from source likewise; tests/test_playout_build.py runs this file again with
  ``LOCKUP_PURE_PYTHON=1``);
- the expert's search kernel (:mod:`lockup.bots._kernel`) compiled by numba, and its
  Python twin (what ``LOCKUP_NO_JIT=1`` runs).

Generated positions: whole games from random seeds under every option set (R7
``same-rank``/``any-club`` x R10 ``per-trick``/``upfront`` x targets), cards chosen at
random, by the ``normal`` rules, greedily for clubs, or (in deals built for it) so that
everyone ends up locked at once and tricks go empty (R12). At every step the reference is
compared with each other implementation, whole state: hands, trick number, leader, the
seat to play, the trick so far, points, locks, tricks sat out, times locked, empty
tricks, lost cards, voids (and when they were shown), the completed tricks, totals and
summaries. The kernel keeps no trick list, sat-out or times-locked counts: the test builds
them from the kernel's state before and after each card (the trick's leader, plays,
winner by the point it scored, lock left plus the empty tricks that followed).

Random lockup discards (R10) are drawn the same way everywhere: the engines make the
kernel's discards by ``Game.chance_move`` fed the kernel's own random stream (its
xorshift32 numbers as ``u = r / 2**32``), so the kernel's draw and the engine's pick the
same card or the states part; the playouts draw theirs from the same generator as
``chance_move`` in the step-by-step reference (tests/conftest.py ``step_by_step``).
The kernel's view of the position comes from ``SeatView``'s trick fields, checked here
against the game's.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from enum import Enum
from typing import Any

import pytest
from conftest import step_by_step

from lockup._accel import source_package
from lockup.bots import kernel as K
from lockup.cards import cards_of
from lockup.engine import (
    DISCARD,
    LOCK_DISCARDS,
    PICTURE_EXCEPTIONS,
    PLAY,
    Game,
    Rules,
    implementation,
)
from lockup.playout import nth as nth_card

ALL_RULES = [Rules(p, d, t) for p in PICTURE_EXCEPTIONS for d in LOCK_DISCARDS for t in (10, 15)]
"""Every option set (R7 x R10), two targets each (R15, R16)."""

KERNELS = [K.kernel(False)] + ([K.kernel(True)] if K.jit_available() else [])
"""The search kernel's Python twin and, where numba is installed, its compiled copy."""

SOURCE: Any = source_package().engine if implementation() == "compiled" else None
"""The engine run from its Python sources, beside the compiled one (None when the engine
as installed already runs from them)."""


def rules_id(r: Rules) -> str:
    return f"{r.picture_exception}-{r.lock_discards}-{r.target}"


# ------------------------------------------------------------------------- the engines


def whole_state(game: Any) -> dict[str, Any]:
    """Every field of a game (its ``__slots__``), as plain values, to compare games of the
    compiled and the source engine alike."""

    def plain(v: Any) -> Any:
        if isinstance(v, Enum):
            return v.value
        if isinstance(v, list | tuple):
            return [plain(x) for x in v]
        if hasattr(v, "events"):  # a HandLog
            return (v.dealer, plain(v.deal), plain(v.events))
        if hasattr(v, "to_dict"):  # Rules
            return v.to_dict()
        return v

    return {n: plain(getattr(game, n)) for n in Game.__slots__}


def check_void_record(game: Any) -> None:
    """The engine's record of voids shown agrees with its masks: one entry per seat and
    suit, in the order of the plays, each at a play already made (R5, R6)."""
    masks = [0, 0, 0, 0]
    last = -1
    plays = [p for t in game.tricks for p in t.plays] + list(game.trick)
    for v in game.voids_shown:
        assert not (masks[v.seat] >> v.suit) & 1
        masks[v.seat] |= 1 << v.suit
        assert last <= v.play < len(plays)
        assert plays[v.play][0] == v.seat
        last = v.play
    assert masks == list(game.voids)


def check_playouts(games: list[Any], seed: int) -> None:
    """From each game's position: the playout (with and without an event log) ends the hand
    exactly as the step API does with the same random numbers, and every engine agrees."""
    ref = games[0].clone()
    step_by_step(ref, random.Random(seed))
    want = whole_state(ref)
    for g in games:
        for log in (True, False):
            c = g.clone()
            if not log:
                c.log = None
            c.playout(random.Random(seed))
            got = whole_state(c)
            if not log:
                got["log"] = want["log"]
            assert got == want


# ------------------------------------------------------------------------- the kernel


class KernelStream:
    """The kernel's random stream (:func:`lockup.bots._kernel.rand32`, run by its Python
    twin from a saved state) as the engine's ``RandomSource``: ``u = r / 2**32``."""

    def __init__(self, state: int) -> None:
        self.km = KERNELS[0]
        self.s = [0] * self.km.STATE_SIZE
        self.s[self.km.I_RNG] = state

    def random(self) -> float:
        return int(self.km.rand32(self.s)) / 4294967296.0

    def randrange(self, stop: int, /) -> int:  # pragma: no cover - a discard never asks
        raise AssertionError("chance_move draws a discard by random()")


class KernelRun:
    """One hand in a kernel, the state ``s``, with what the kernel does not keep built
    from its state around each card: the hand's tricks, sat-out counts, times locked,
    empty tricks."""

    def __init__(self, km: Any, game: Game) -> None:
        self.km = km
        view = game.view(game.turn)
        st = K.view_state(view, km, K.check_policy({}), seed=game.hand_number * 7919 + 1)
        self.s = K.to_array(km, st)
        for i in range(4):
            self.s[i] = game.hands[i]
        self.tricks: list[tuple[Any, ...]] = []
        self.sat_out = [0, 0, 0, 0]
        self.times_locked = [0, 0, 0, 0]
        self.empty = 0
        self.plays: list[tuple[int, int]] = []
        self.leader = -1
        self.rng_before = int(self.s[km.I_RNG])
        """The kernel's generator before the last card: where its discards were drawn."""

    def play(self, card: int) -> None:
        km, s = self.km, self.s
        number = int(s[km.I_TN])
        if s[km.I_NTR] == 0:
            self.plays = []
            self.leader = int(s[km.I_LEADER])
        self.plays.append((int(s[km.I_TURN]), card))
        locks = [int(s[km.I_LOCK + i]) for i in range(4)]
        points = [int(s[km.I_PTS + i]) for i in range(4)]
        self.rng_before = int(s[km.I_RNG])
        km.play(s, card)
        if int(s[km.I_TN]) == number:
            return
        # The trick is complete (R8, R9), and maybe empty tricks followed (R12).
        winner = next(i for i in range(4) if s[km.I_PTS + i] != points[i])
        empty = int(s[km.I_TN]) - number - 1
        lock = int(s[km.I_LOCK + winner]) + empty
        clubs = sum(1 for _, c in self.plays if c < 13)
        self.tricks.append((number, self.leader, tuple(self.plays), winner, clubs, lock))
        for k in range(empty):
            self.tricks.append((number + 1 + k, None, (), None, 0, 0))
        self.empty += empty
        for i in range(4):
            self.sat_out[i] += (locks[i] > 0) + empty
        if lock:
            self.times_locked[winner] += 1

    def check(self, game: Game) -> None:
        """The kernel's state is the game's (R4-R13), field by field."""
        km, s = self.km, self.s
        over = game.phase not in (PLAY, DISCARD)
        assert s[km.I_TN] == game.trick_number
        assert s[km.I_TURN] == (-1 if over else game.turn)
        for i in range(4):
            assert s[km.I_HAND + i] == game.hands[i]
            assert s[km.I_LOCK + i] == game.locks[i]
            assert s[km.I_PTS + i] == game.points[i]
        assert s[km.I_PLAYED] == game.played
        assert s[km.I_LOST] == game.lost[0] | game.lost[1] | game.lost[2] | game.lost[3]
        assert s[km.I_VOIDS] == sum(v << (4 * i) for i, v in enumerate(game.voids))
        assert [tuple(t) for t in game.tricks] == self.tricks
        assert self.sat_out == game.sat_out
        assert self.times_locked == game.times_locked
        assert self.empty == game.empty_tricks
        if over:
            return
        assert s[km.I_NOM] == game.nominal
        assert s[km.I_LEADER] == game.leader
        assert s[km.I_NPL] == game.players_in_trick
        assert s[km.I_NTR] == len(game.trick)
        assert s[km.I_LED] == game.led_suit
        assert s[km.I_BEST] == game.best_card
        assert s[km.I_BSEAT] == game.best_seat
        assert s[km.I_CLUBS] == game.clubs_in_trick
        assert s[km.I_PIC] == game.pic_clubs
        assert km.legal(s) == game.legal_mask()


def check_view_trick(game: Game) -> None:
    """The trick state a view carries (what the kernel and ``pimc`` start from) is the
    game's, and is what the plays so far make of it (R5 to R8)."""
    view = game.view(game.turn)
    led = best = seat = -1
    clubs = pic = 0
    for s, c in view.trick:
        if led < 0:
            led, best, seat = c // 13, c, s
        elif c // 13 == led and c > best:
            best, seat = c, s
        clubs += c < 13
        pic |= 1 << (c % 13) if 9 <= c % 13 <= 11 else 0
    known = (view.led_suit, view.best_card, view.best_seat)
    assert known == ((None, None, None) if led < 0 else (led, best, seat))
    assert (game.led_suit, game.best_card, game.best_seat) == (led, best, seat)
    assert view.clubs_in_trick == game.clubs_in_trick == clubs
    assert view.pic_clubs == game.pic_clubs == pic
    assert view.players_in_trick == game.players_in_trick == view.locks.count(0)


# ------------------------------------------------------------------------- positions


def lockdown_deal(rng: random.Random) -> tuple[int, list[list[int]]]:
    """A deal (and its dealer) built for a lockdown (R12), as in tests/test_rules.py: the
    leader holds seven low clubs and the top six of another suit; the next three seats
    hold 10-J-Q, 9-K and the A of clubs; the rest is dealt at random."""
    lead = rng.randrange(4)
    run = rng.randrange(1, 4)
    hands: list[list[int]] = [[], [], [], []]
    hands[lead] = list(range(7)) + [13 * run + r for r in range(7, 13)]
    for k, clubs in enumerate(([8, 9, 10], [7, 11], [12])):
        hands[(lead + 1 + k) % 4] = clubs
    rest = [c for c in range(13, 52) if c not in hands[lead]]
    rng.shuffle(rest)
    for k in range(1, 4):
        seat = (lead + k) % 4
        need = 13 - len(hands[seat])
        hands[seat] += rest[:need]
        rest = rest[need:]
    return (lead - 1) % 4, hands


Chooser = Callable[[Game, "KernelRun", random.Random], int]


def random_card(game: Game, kr: KernelRun, rng: random.Random) -> int:
    return nth_card(game.legal_mask(), rng.random())


def normal_card(game: Game, kr: KernelRun, rng: random.Random) -> int:
    """The ``normal`` level's card (the kernel's policy, R5-R7 aware)."""
    return int(kr.km.policy(kr.s))


def club_card(game: Game, kr: KernelRun, rng: random.Random) -> int:
    """The highest legal club when there is one (locks, discards, R7 exceptions)."""
    legal = game.legal_mask()
    clubs = legal & 0x1FFF
    return cards_of(clubs)[-1] if clubs else random_card(game, kr, rng)


def low_card(game: Game, kr: KernelRun, rng: random.Random) -> int:
    """The lowest legal non-club, else the lowest club: what turns a lockdown deal into
    four club tricks in a row and an empty one."""
    legal = game.legal_mask()
    return cards_of(legal & ~0x1FFF or legal)[0]


def play_game(seed: int, rules: Rules, lockdown: bool) -> dict[str, int]:
    """One whole game, every implementation compared with the reference at every step."""
    rng = random.Random(seed)
    dealer = rng.randrange(4)
    first: list[list[int]] | None = None
    if lockdown:
        dealer, first = lockdown_deal(rng)
    choosers: list[Chooser] = [random_card, normal_card, club_card]
    games: list[Any] = [Game(rules, dealer)]
    if SOURCE is not None:
        games.append(SOURCE.Game(SOURCE.Rules(**rules.to_dict()), dealer))
    ref = games[0]
    seen = {"steps": 0, "empty": 0, "hands": 0}
    while not ref.is_over:
        cards = first or (lambda d: [d[13 * s : 13 * s + 13] for s in range(4)])(
            rng.sample(range(52), 52)
        )
        first = None
        for g in games:
            g.deal(cards)
        seen["hands"] += 1
        chooser = low_card if lockdown and seen["hands"] == 1 else rng.choice(choosers)
        runs = [KernelRun(km, ref) for km in KERNELS]
        while ref.phase in (PLAY, DISCARD):
            seen["steps"] += 1
            for g in games[1:]:
                assert whole_state(g) == whole_state(ref)
            check_void_record(ref)
            if ref.phase == DISCARD or not ref.trick or seen["steps"] % 4 == 0:
                check_playouts(games, seed * 1000 + seen["steps"])
            if ref.phase == DISCARD:
                # The kernel made these lockup discards (R10) with its own generator: the
                # engine draws them by chance_move from that same stream, seat by seat as
                # they fall due, and every engine makes them; the kernel's state (hands,
                # lost cards) is then compared at the next card.
                stream = KernelStream(runs[0].rng_before)
                taken = int(runs[0].s[runs[0].km.I_LOST])
                for m in ref.lost:
                    taken &= ~m
                while ref.discard_due is not None:
                    move = ref.chance_move(stream, make=False)
                    assert move.kind == "discard" and move.seat == ref.discard_due
                    assert (taken >> move.card) & 1, "the kernel lost another card"
                    taken ^= 1 << move.card
                    for g in games:
                        g.discard(move.card, move.seat)
                assert taken == 0
                continue
            check_view_trick(ref)
            for kr in runs:
                kr.check(ref)
            for kr in runs[1:]:
                assert list(kr.s) == list(runs[0].s)  # numba and Python, to the last field
            mixed = chooser is not low_card and rng.random() < 0.2
            card = (random_card if mixed else chooser)(ref, runs[0], rng)
            for g in games:
                g.play(card)
            for kr in runs:
                kr.play(card)
        for kr in runs:
            kr.check(ref)
        assert ref.trick_number == 13
        seen["empty"] += ref.empty_tricks
        for g in games[1:]:
            assert whole_state(g) == whole_state(ref)
    return seen


@pytest.mark.parametrize("rules", ALL_RULES, ids=rules_id)
def test_every_implementation_plays_whole_games_alike(rules: Rules) -> None:
    total = {"steps": 0, "empty": 0, "hands": 0}
    for seed in range(2):
        for lockdown in (False, True):
            for k, v in play_game(seed * 2 + lockdown, rules, lockdown).items():
                total[k] += v
    assert total["hands"] >= 4
    assert total["empty"] >= 1  # R12 reached: everyone locked at once


def test_the_kernels_compared_include_numba_where_installed() -> None:
    assert len(KERNELS) == 1 + K.jit_available()
