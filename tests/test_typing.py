"""The library's typed surface: py.typed, the phase enum, the option literals, SeatView."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
import tomllib
import typing
from pathlib import Path

import pytest

import lockup
from lockup.engine import (
    DEAL,
    DISCARD,
    LOCK_DISCARDS,
    OVER,
    PICTURE_EXCEPTIONS,
    PLAY,
    Game,
    LockDiscards,
    Phase,
    PictureException,
    Rules,
    SeatView,
)

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_ships_its_py_typed_marker() -> None:
    assert (Path(lockup.__file__).parent / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["lockup"]
    assert config["tool"]["mypy"]["strict"] is True


def test_the_phase_is_a_str_enum_whose_members_are_the_old_strings() -> None:
    assert [p.value for p in Phase] == ["deal", "discard", "play", "over"]
    assert (DEAL, DISCARD, PLAY, OVER) == ("deal", "discard", "play", "over")
    assert PLAY == "play" and isinstance(PLAY, str) and f"{PLAY}" == "play"
    assert json.dumps({"phase": PLAY}) == '{"phase": "play"}'
    game = Game.new(random.Random(1))
    assert game.phase is Phase.PLAY and game.phase == "play"


def test_rule_options_are_literal_types_with_properties() -> None:
    assert typing.get_args(PictureException) == PICTURE_EXCEPTIONS == ("same-rank", "any-club")
    assert typing.get_args(LockDiscards) == LOCK_DISCARDS == ("per-trick", "upfront")
    assert not Rules().any_club and not Rules().upfront
    house = Rules("any-club", "upfront", 30)
    assert house.any_club and house.upfront
    with pytest.raises(ValueError, match="picture_exception must be one of"):
        Rules(picture_exception="any")  # type: ignore[arg-type]


def test_seat_view_is_a_frozen_dataclass() -> None:
    game = Game.new(random.Random(4))
    view = game.view(game.turn)
    assert dataclasses.is_dataclass(view)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.seat = 1  # type: ignore[misc]
    assert view == game.view(game.turn)  # a value: equal views of an equal state
    assert view.legal_cards == game.legal_cards() and view.hand == game.hand(view.seat)
    assert SeatView.of(game, 0) == game.view(0)
    # The server hands views to its bot workers in other processes.
    again = pickle.loads(pickle.dumps(view))
    assert again == view and again.to_dict() == view.to_dict()
    assert Game.from_view(again, list(game.hands)).legal_mask() == game.legal_mask()


def test_seat_view_json_is_unchanged() -> None:
    # The server sends to_dict() to pages: the same bytes as before SeatView became a
    # dataclass (this position was printed by the earlier implementation).
    game = Game.new(random.Random(11), Rules("any-club", "upfront", 15))
    rng = random.Random(2)
    for _ in range(23):
        if game.phase == DISCARD:
            game.discard_random(rng)
        else:
            game.play(game.legal_cards()[0])
    expected = (
        '{"seat": 2, "rules": {"picture_exception": "any-club", "lock_discards": "upfront", '
        '"target": 15}, "phase": "play", "hand_number": 0, "dealer": 3, "trick_number": 5, '
        '"turn": 2, "leader": 1, "discard_due": null, "hand": ["9D", "AD", "4H", "TH", "QH", '
        '"4S", "6S", "QS"], "legal": ["4H", "TH", "QH"], "trick": [{"seat": 1, "card": "3H"}], '
        '"last_trick": {"number": 4, "leader": 0, "plays": [{"seat": 0, "card": "QD"}, '
        '{"seat": 1, "card": "QC"}, {"seat": 2, "card": "AC"}], "winner": 0, "clubs": 2, '
        '"lock": 2}, "hand_sizes": [6, 7, 8, 8], "locks": [2, 0, 0, 0], "lost": [["JS", "TS", '
        '"7C", "7S", "5S"], [], [], ["3C"]], "tricks": [2, 1, 0, 2], "times_locked": [2, 0, 0, '
        '1], "tricks_sat_out": [3, 0, 0, 1], "totals": [0, 0, 0, 0], "summaries": [], '
        '"winner": null, "voids": [[], ["diamonds"], [], []]}'
    )
    assert json.dumps(game.view(2).to_dict(), ensure_ascii=False) == expected
