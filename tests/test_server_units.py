"""The server's small parts on their own: the protocol parser, the history, the rate
limiter and slots, tokens and the host and origin checks."""

from __future__ import annotations

import asyncio
import json

import pytest

from lockup.cards import parse_card
from lockup.server.net.limits import Rate, RateLimiter, Slots
from lockup.server.net.security import allowed_hosts, host_name, same_origin
from lockup.server.net.tokens import Tokens, legacy_form
from lockup.server.protocol import (
    MAX_MESSAGE,
    Hello,
    Hint,
    Ping,
    Play,
    ProtocolError,
    error_of,
    parse_client,
)
from lockup.server.session.history import History

# ---------------------------------------------------------------------- protocol


def test_good_messages_parse_into_typed_messages() -> None:
    assert parse_client('{"type":"ping"}') == Ping()
    assert parse_client('{"type":"play","card":"QD","version":12}') == Play(parse_card("QD"), 12)
    assert parse_client('{"type":"play","card":"10♦","version":0}') == Play(parse_card("TD"), 0)
    assert parse_client('{"type":"hint","version":3}') == Hint(3)
    assert parse_client('{"type":"hello"}') == Hello(None, 0)
    assert parse_client('{"type":"hello","game":"abc","since":null}') == Hello("abc", 0)
    assert parse_client('{"type":"hello","game":"abc","since":9}') == Hello("abc", 9)


HOSTILE = [
    None,
    b'{"type":"ping"}',
    "",
    "not json",
    "[1,2]",
    "42",
    '{"type": 7}',
    '{"type":"nope"}',
    '{"type":"\\ud800"}',
    '{"type":"play","card":"\\ud800","version":1}',
    '{"type":"play","card":"\\udfff\\ud800","version":1}',
    '{"type":"play","card":"QD","version":' + "9" * 100 + "}",
    '{"type":"play","card":"QD","version":1e400}',
    '{"type":"play","card":"QD","version":-1}',
    '{"type":"play","card":"QD","version":true}',
    '{"type":"play","card":"QD","version":"3"}',
    '{"type":"play","card":"ZZ","version":1}',
    '{"type":"play","card":"' + "Q" * 3000 + '","version":1}',
    '{"type":"play","card":["QD"],"version":1}',
    '{"type":"play","version":1}',
    '{"type":"hint"}',
    '{"type":"hello","since":-5}',
    '{"type":"hello","since":"x"}',
    '{"type":"hello","game":5}',
    '{"type":"hello","game":"' + "g" * 40 + '"}',
    "[" * 2000 + "]" * 2000,
    '{"a":' * 1500 + "1" + "}" * 1500,
    "x" * (MAX_MESSAGE + 1),
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_frames_are_bad_messages_and_the_error_frame_encodes(text: object) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_client(text)  # type: ignore[arg-type]
    assert info.value.code == "bad-message"
    frame = json.loads(error_of(info.value, 4))  # never a lone surrogate in the answer
    assert frame["type"] == "error" and frame["code"] == "bad-message" and frame["reason"]


# ---------------------------------------------------------------------- history


def test_history_gives_what_was_missed_or_asks_for_a_state() -> None:
    h = History(size=3)
    for v in range(1, 6):
        h.add(v, f"frame{v}")
    assert h.since(5, 5) == []
    assert h.since(4, 5) == ["frame5"]
    assert h.since(2, 5) == ["frame3", "frame4", "frame5"]
    assert h.since(1, 5) is None  # frame 2 is gone: a state instead
    assert h.since(0, 5) is None  # a page with nothing
    assert h.since(9, 5) is None  # a page from another life of the game
    assert History().since(3, 7) is None  # nothing kept (a game loaded from the store)
    assert History().since(7, 7) == []


# ---------------------------------------------------------------------- limits


def test_rate_limiter_bursts_then_refills() -> None:
    now = [0.0]
    limiter = RateLimiter(Rate.parse("3/30"), clock=lambda: now[0])
    assert [limiter.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.take("a") == pytest.approx(10.0)
    assert limiter.take("b") == 0.0  # another key has its own bucket
    now[0] = 10.0
    assert limiter.take("a") == 0.0
    assert limiter.take("a") > 0


def test_rate_limiter_memory_is_bounded() -> None:
    limiter = RateLimiter(Rate(1, 60.0), max_keys=100)
    for i in range(10_000):
        limiter.take(f"k{i}")
    assert len(limiter) == 100


def test_rate_parse() -> None:
    assert Rate.parse("0").unlimited and RateLimiter(Rate.parse("0")).take("x") == 0.0
    assert str(Rate.parse("10/60")) == "10/60"
    for bad in ("ten", "0/5", "5/0", "5/-1", "1/2/3"):
        with pytest.raises(ValueError):
            Rate.parse(bad)


def test_slots_serve_lower_priority_numbers_first() -> None:
    async def go() -> list[str]:
        slots = Slots(1)
        order: list[str] = []
        await slots.acquire()

        async def want(name: str, priority: int) -> None:
            async with slots.hold(priority):
                order.append(name)

        tasks = [
            asyncio.create_task(want("new-1", 1)),
            asyncio.create_task(want("new-2", 1)),
            asyncio.create_task(want("in-play", 0)),
        ]
        cancelled = asyncio.create_task(want("gone", 0))
        await asyncio.sleep(0)
        cancelled.cancel()
        slots.release()
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(go()) == ["in-play", "new-1", "new-2"]


def test_slots_never_starve_a_lower_priority() -> None:
    """Priority-0 waiters arriving without end (games in play under load) hold a new
    game's creation (priority 2) back at most two steps of waiting, not forever."""

    async def go() -> tuple[int, int]:
        slots = Slots(1, step=0.05)
        served: list[str] = []

        async def want(name: str, priority: int) -> None:
            async with slots.hold(priority):
                served.append(name)
                await asyncio.sleep(0.01)

        moves = [asyncio.create_task(want("move", 0)) for _ in range(3)]
        await asyncio.sleep(0)
        creation = asyncio.create_task(want("create", 2))
        for _ in range(30):  # a new move every 10 ms, each holding the slot 10 ms
            moves.append(asyncio.create_task(want("move", 0)))
            await asyncio.sleep(0.01)
        await asyncio.gather(creation, *moves)
        return served.index("create"), len(served)

    at, total = asyncio.run(go())
    assert 3 <= at <= 15 < total, (at, total)  # behind the moves already there, then in


# ---------------------------------------------------------------------- tokens


def test_tokens_are_signed_and_checked() -> None:
    tokens = Tokens(b"k" * 32)
    t = tokens.mint()
    assert tokens.valid(t) and t != tokens.mint()
    assert not Tokens(b"x" * 32).valid(t)  # another server's key
    body, mac = t.split(".")
    assert not tokens.valid(f"{body}.{'A' * 22}")
    assert not tokens.valid(body) and not tokens.valid("") and not tokens.valid(None)
    assert legacy_form("a" * 32) and not legacy_form("a;b") and not legacy_form(None)


# ---------------------------------------------------------------------- hosts and origins


def test_host_names_and_origins() -> None:
    assert host_name("Example.org:8000") == "example.org"
    assert host_name("[::1]:8000") == "::1" and host_name("::1") == "::1"
    hosts = allowed_hosts("0.0.0.0", ["lockup.example"])
    assert hosts is not None and {"localhost", "127.0.0.1", "::1", "lockup.example"} <= hosts
    assert "0.0.0.0" not in hosts
    assert allowed_hosts("127.0.0.1", ["*"]) is None
    assert same_origin("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert not same_origin("http://evil.example", "127.0.0.1:8000")
    assert not same_origin("null", "127.0.0.1:8000")
