"""A person's hold on their seat (:class:`~lockup.server.session.attendance.Attendance`)
and a room's seating when someone abandons a game under way, without a server.

The hold is a small state machine: present, away (a computer plays until the person is
back) and abandoned (for good). These tests drive it step by step, and then through
every short sequence of what may happen, against a plain model of the rules.
"""

from __future__ import annotations

import itertools
import json
import re
import typing
from pathlib import Path

import pytest

from lockup.server.protocol import ProtocolError
from lockup.server.rooms import CLOSED, OVER, PLAYING, Seating, Sitter
from lockup.server.session import TableOptions
from lockup.server.session.attendance import (
    ABANDON_AFTER,
    ABANDONED,
    AWAY,
    GONE,
    LEFT,
    PRESENT,
    TIMEOUTS,
    WHYS,
    Attendance,
)

ROOM_CORE = Path(__file__).resolve().parent.parent / "lockup/web/static/js/room-core.js"


def test_k_timeouts_abandon_the_seat_once() -> None:
    assert ABANDON_AFTER == 3 and TableOptions().abandon_after == ABANDON_AFTER
    hold = Attendance()
    assert [hold.timed_out() for _ in range(ABANDON_AFTER - 1)] == [None, None]
    assert hold.state == PRESENT and hold.timeouts == 2
    assert hold.timed_out() == TIMEOUTS
    assert hold.abandoned and hold.why == TIMEOUTS and hold.timeouts == 3
    # For good: nothing more happens to it, and it is never taken back.
    assert hold.timed_out() is None and hold.timeouts == 3
    assert hold.gone(rated=True) is None and hold.left() is None
    assert not hold.back() and hold.state == ABANDONED and hold.why == TIMEOUTS


def test_gone_at_a_rated_table_is_for_good_and_elsewhere_until_back() -> None:
    rated = Attendance()
    assert rated.gone(rated=True) == GONE and rated.abandoned
    assert not rated.back() and rated.state == ABANDONED
    friends = Attendance()
    assert friends.gone(rated=False) is None and friends.state == AWAY
    assert friends.gone(rated=False) is None and friends.state == AWAY  # once
    assert friends.back() and friends.state == PRESENT
    assert not friends.back()  # there already
    # Away, the person may still leave the game, or run out of time when back.
    friends.gone(rated=False)
    assert friends.left() == LEFT and friends.why == LEFT
    k1 = Attendance(limit=1)
    assert k1.timed_out() == TIMEOUTS


def test_every_short_history_against_the_rules() -> None:
    """Every sequence of up to five happenings: the hold is abandoned exactly when the
    rules say (the K-th timeout, gone at a rated table, leaving), says why once, and an
    abandoned hold never changes again."""
    steps = ("timeout", "gone-rated", "gone-unrated", "back", "left")
    for n in range(6):
        for history in itertools.product(steps, repeat=n):
            hold = Attendance()
            state, timeouts, why = PRESENT, 0, None
            answers = []
            for step in history:
                if step == "timeout":
                    answers.append(hold.timed_out())
                    if state != ABANDONED:
                        timeouts += 1
                        if timeouts >= ABANDON_AFTER:
                            state, why = ABANDONED, TIMEOUTS
                            assert answers[-1] == TIMEOUTS
                elif step.startswith("gone"):
                    answers.append(hold.gone(step == "gone-rated"))
                    if state == PRESENT:
                        if step == "gone-rated":
                            state, why = ABANDONED, GONE
                            assert answers[-1] == GONE
                        else:
                            state = AWAY
                elif step == "back":
                    back = hold.back()
                    assert back == (state == AWAY), history
                    if back:
                        state = PRESENT
                else:
                    answers.append(hold.left())
                    if state != ABANDONED:
                        state, why = ABANDONED, LEFT
                        assert answers[-1] == LEFT
                assert (hold.state, hold.timeouts, hold.why) == (state, timeouts, why), history
            # One abandonment at most, said once.
            assert sum(a is not None for a in answers) == (state == ABANDONED), history


def seating() -> Seating:
    s = Seating("a", [Sitter("a", "Ann"), Sitter("b", "Bo"), None, Sitter("c", "Cy")])
    s.start("a")
    return s


def test_abandoning_during_a_game_frees_the_seat_and_passes_the_host() -> None:
    s = seating()
    assert s.status == PLAYING
    assert s.abandon("a") == 0
    assert s.seat_of("a") is None and s.seats[0] is None and s.host in ("b", "c")
    assert s.status == PLAYING  # the game goes on, the computer plays the seat
    assert s.abandon("c") == 3 and s.host == "b"
    with pytest.raises(ProtocolError) as e:
        s.abandon("a")  # gone already
    assert e.value.code == "not-seated"
    s.game_over()
    assert s.status == OVER and s.people() == ["b"]
    with pytest.raises(ProtocolError) as e:
        s.abandon("b")  # no game under way: ``leave`` is the way out
    assert e.value.code == "game-over"


def test_a_table_everyone_abandoned_closes_when_its_game_ends() -> None:
    s = seating()
    for p in ("b", "a", "c"):
        s.abandon(p)
    assert s.people() == [] and s.status == PLAYING  # computers play it to the end
    s.game_over()
    assert s.status == CLOSED


def test_leaving_a_game_under_way_is_still_refused_by_leave() -> None:
    s = seating()
    with pytest.raises(ProtocolError) as e:
        s.leave("b")
    assert e.value.code == "game-under-way" and s.seat_of("b") == 1


def test_the_abandon_event_and_the_page_s_constants() -> None:
    """The ``abandon`` event is a note of the protocol (typed, never with a token), and the
    page's copies of K and of the reasons are the server's."""
    from lockup.server import protocol as P

    ev = P.note_event("abandon", 2, {"why": LEFT})
    assert ev == {"kind": "abandon", "seat": 2, "why": "left"}
    hints = typing.get_type_hints(P.AbandonEvent)
    assert set(hints) == set(ev) and typing.get_args(hints["why"]) == WHYS
    assert P.AbandonEvent in typing.get_args(P.NoteEvent) and "abandon" in P.NOTE_KINDS
    text = ROOM_CORE.read_text(encoding="utf-8")

    def js(name: str) -> typing.Any:
        m = re.search(rf"export const {name} = (.+?);\n", text)
        assert m, name
        return json.loads(m.group(1))

    assert js("ABANDON_AFTER") == ABANDON_AFTER and tuple(js("ABANDON_WHYS")) == WHYS
