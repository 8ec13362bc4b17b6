"""Accounts over HTTP and WebSockets on a real ``lockup serve`` (uvicorn, SQLite):
signing up carries the guest's games into the account, signing in elsewhere finds them,
signing out and ending sessions take effect at once, junk changes nothing, sign-ups and
sign-in attempts are limited, and no display name passes for a computer's.

Each person is an httpx client with cookies of its own, from an address of 127.0.0.0/8
of its own where a test counts what one address may do.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Server

UNPACED = ("--bot-delay", "0", "--bot-jitter", "0")
CHEAP = ("--password-time-cost", "1", "--password-memory", "1024")
"""Passwords hashed at a small cost, so that the tests' many sign-ins take little time
(the default's 64 MiB and three passes are measured in test_accounts.py)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("accounts") / "games.sqlite"
    with Server(db, *UNPACED, *CHEAP) as s:
        yield s


_next_address = iter(range(10, 250))


class Browser:
    """A browser: its cookies, from an address of its own (``address``: a given one)."""

    def __init__(self, server: Server, address: str | None = None) -> None:
        self.server = server
        self.address = address or f"127.0.0.{next(_next_address)}"
        self.http = httpx.Client(
            base_url=server.url,
            timeout=20,
            transport=httpx.HTTPTransport(local_address=self.address),
        )

    def cookie(self, name: str = "lockup_player") -> str | None:
        value = self.http.cookies.get(name)
        return None if value is None else str(value)

    def signup(self, name: str, password: str = "correct horse") -> httpx.Response:
        return self.http.post("/api/account/signup", json={"name": name, "password": password})

    def login(self, name: str, password: str = "correct horse") -> httpx.Response:
        return self.http.post("/api/account/login", json={"name": name, "password": password})

    def account(self) -> httpx.Response:
        return self.http.get("/api/account")

    def ws(self) -> Any:
        cookies = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        return websockets.connect(
            self.server.ws_url, additional_headers={"Cookie": cookies}, open_timeout=10
        )


def count(db: Path, table: str) -> int:
    with sqlite3.connect(db) as con:
        return int(con.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


async def hello(browser: Browser, game: str) -> dict[str, Any]:
    """The first frame a page gets for ``game``: its state (or an error)."""
    async with browser.ws() as ws:
        await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        return frame


async def play_a_card(browser: Browser, game: str) -> None:
    """Play the first legal card of ``game`` on our turn: a game taken part in, which the
    history lists (a game dealt and never played is not)."""
    async with browser.ws() as ws:
        await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            view, event = msg.get("view") or {}, msg.get("event") or {}
            if event.get("kind") == "play" and event.get("seat") == view.get("seat"):
                return
            if view.get("legal"):
                card = view["legal"][0]
                await ws.send(json.dumps({"type": "play", "card": card, "version": msg["version"]}))


# ---------------------------------------------------------------------- the flows


def test_signing_up_carries_the_guest_s_games_and_signing_in_elsewhere_finds_them(
    server: Server,
) -> None:
    home = Browser(server)
    game = home.http.get("/api/game").json()["game"]
    asyncio.run(play_a_card(home, game))
    guest = home.cookie()
    assert guest and home.http.get("/api/history").json()["games"][0]["game"] == game
    assert home.account().json()["name"] is None  # a guest

    r = home.signup("Hanna")
    assert r.status_code == 200, r.text
    assert r.json()["name"] == "Hanna" and len(r.json()["session"]) == 43
    cookies = {c.split("=", 1)[0]: c for c in r.headers.get_list("set-cookie")}
    session_cookie = cookies["lockup_session"].lower()
    assert "httponly" in session_cookie and "samesite=lax" in session_cookie
    assert "secure" not in session_cookie  # plain http here; https sets it
    assert home.cookie() != guest  # the browser has a guest token of its own again
    assert home.account().json()["name"] == "Hanna"

    # Another browser signs in: the same current game, history, statistics and rating.
    away = Browser(server)
    away.http.get("/")
    own_guest = away.cookie()
    assert away.login("hanna").status_code == 200
    assert away.cookie() == own_guest  # it keeps its own browser id
    assert away.http.get("/api/game").json()["game"] == game
    for path in ("/api/history", "/api/stats", "/api/ratings/me", "/api/leaderboard"):
        assert away.http.get(path).json() == home.http.get(path).json(), path
    assert [g["game"] for g in away.http.get("/api/history").json()["games"]] == [game]
    # And over the WebSocket the account holds the game's seat.
    state = asyncio.run(hello(away, game))
    assert state["type"] == "state" and state["view"]["seat"] == 0

    # The old guest token alone is nobody's guest any more: a new one, with nothing.
    thief = Browser_with(server, {"lockup_player": guest})
    assert thief.http.get("/api/history").json() == {"games": []}
    assert thief.http.get("/api/game").json()["game"] != game
    assert thief.cookie() not in (None, guest)
    refused = asyncio.run(hello(Browser_with(server, {"lockup_player": guest}), game))
    assert refused["type"] == "error"

    # Signing out: this browser is its own guest again, never the account.
    out = away.http.post("/api/account/logout", json={})
    assert out.status_code == 200 and "lockup_session" not in away.http.cookies
    assert away.account().json() == {
        "name": None,
        "guest": True,
        "reason": away.account().json()["reason"],
    }
    assert away.http.get("/api/history").json() == {"games": []}
    assert away.http.get("/api/game").json()["game"] != game
    assert home.account().json()["name"] == "Hanna"  # the other session goes on


def Browser_with(server: Server, cookies: dict[str, str]) -> Browser:  # noqa: N802
    """A browser holding exactly ``cookies``."""
    b = Browser(server)
    for k, v in cookies.items():
        b.http.cookies.set(k, v, domain="127.0.0.1")
    return b


def test_ending_other_sessions_and_a_new_password_take_effect_at_once(server: Server) -> None:
    first, second, third = Browser(server), Browser(server), Browser(server)
    assert first.signup("Ragna").status_code == 200
    assert second.login("Ragna").status_code == 200
    assert third.login("RAGNA").status_code == 200
    game = first.http.get("/api/game").json()["game"]

    listed = second.http.get("/api/account/sessions").json()["sessions"]
    assert len(listed) == 3 and sum(s["current"] for s in listed) == 1
    assert {"id", "agent", "created_at", "last_seen", "current"} == set(listed[0])
    assert first.account().json()["sessions"] == 3

    async def ended_while_open() -> tuple[int | None, dict[str, Any]]:
        # The first browser's table is open while the second ends every other session:
        # its WebSocket is closed (1012, "come back"), and comes back as its guest.
        async with first.ws() as ws:
            await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
            await asyncio.wait_for(ws.recv(), 10)
            r = await asyncio.to_thread(
                second.http.post, "/api/account/sessions/end-others", json={}
            )
            assert r.json() == {"ended": 2}
            try:
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            except websockets.ConnectionClosed as e:
                code = e.rcvd.code if e.rcvd else None
        return code, await hello(first, game)

    code, again = asyncio.run(ended_while_open())
    assert code == 1012 and again["type"] == "error"
    for b in (first, third):
        r = b.account()
        assert r.status_code == 200 and r.json()["name"] is None
    assert second.account().json()["sessions"] == 1

    # A new password: the old one is asked for, and the other sessions end.
    assert first.login("Ragna").status_code == 200
    r = second.http.post("/api/account/password", json={"old": "wrong horse", "new": "new horse!"})
    assert r.status_code == 403 and r.json()["error"] == "wrong-password"
    r = second.http.post("/api/account/password", json={"old": "correct horse", "new": "short"})
    assert r.status_code == 400 and r.json()["why"] == "short"
    assert first.account().status_code == 200  # nothing changed
    r = second.http.post(
        "/api/account/password", json={"old": "correct horse", "new": "new horse!"}
    )
    assert r.status_code == 200 and r.json()["ended"] == 1
    assert first.account().json()["name"] is None and second.account().json()["name"]
    assert first.login("Ragna").status_code == 401
    assert first.login("Ragna", "new horse!").status_code == 200


def test_names_are_unique_by_case_and_by_look(server: Server) -> None:
    assert Browser(server).signup("Sunna").status_code == 200
    for other in ("sunna", "SUNNA", "\u0405unna", "Sunn\u0430"):  # Cyrillic Ѕ, а
        r = Browser(server).signup(other)
        assert r.status_code == 409 and r.json()["error"] == "name-taken", other
    for reserved in ("Þóra", "Expert", "Normal computer", "Vigd\u0456s"):
        r = Browser(server).signup(reserved)
        assert r.status_code == 400 and r.json()["why"] == "reserved", reserved
    for blank in ("\u2800\u2800", "\u3164", "\u200b"):
        r = Browser(server).signup(blank)
        assert r.status_code == 400 and r.json()["why"] == "blank", blank


def test_a_wrong_password_does_not_say_whether_the_name_exists(server: Server) -> None:
    Browser(server).signup("Embla")
    b = Browser(server)
    wrong, unknown = b.login("Embla", "wrong horse"), b.login("Nobody Here", "wrong horse")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() and wrong.json()["error"] == "bad-login"
    assert "lockup_session" not in b.http.cookies


def test_junk_is_refused_and_changes_nothing(server: Server) -> None:
    b = Browser(server)
    accounts, sessions = count(server.db, "accounts"), count(server.db, "account_sessions")
    headers = {"Content-Type": "application/json"}
    for path in ("/api/account/signup", "/api/account/login"):
        for body in (
            b"not json",
            b"[]",
            b"null",
            b'"Ann"',
            b'{"name": "Ann"}',
            b'{"name": 1, "password": "correct horse"}',
            b'{"name": "Ann", "password": ["correct horse"]}',
            b'{"name": "Ann", "password": "correct horse", "admin": true}',
            b'{"name": "Ann", "password": "correct horse"' + b" " * 5000 + b"}",
            b"\xff\xfe",
            b"",
        ):
            r = b.http.post(path, content=body, headers=headers)
            assert r.status_code == 400, (path, body[:40], r.text)
            assert r.json()["error"] == "bad-message" and r.json()["reason"]
        huge = b.http.post(path, content=b"x" * 20000, headers=headers)
        assert huge.status_code == 413
        form = b.http.post(path, data={"name": "Ann", "password": "correct horse"})
        assert form.status_code == 415  # no cross-site form can post here
    # Too short, too long: said, with which rule.
    r = b.signup("Ann", "short")
    assert r.status_code == 400 and r.json()["error"] == "bad-password"
    r = b.signup("Ann", "x" * 201)
    assert r.status_code == 400 and r.json()["why"] == "long"
    r = b.signup("x" * 25)
    assert r.status_code == 400 and r.json()["why"] == "too-long"
    assert (count(server.db, "accounts"), count(server.db, "account_sessions")) == (
        accounts,
        sessions,
    )
    # Signed out, the account's own routes say so.
    assert b.account().json()["name"] is None  # a guest is an answer, not an error
    for method, path in (
        ("GET", "/api/account/sessions"),
        ("POST", "/api/account/sessions/end-others"),
        ("POST", "/api/account/password"),
    ):
        r = b.http.request(method, path, json={"old": "a", "new": "b"})
        assert r.status_code == 401 and r.json()["error"] == "signed-out", path
    # A forged or ended session cookie is a guest, and the page is told to drop it.
    for path in ("/api/account", "/account"):
        b.http.cookies.set("lockup_session", "A" * 43, domain="127.0.0.1")
        r = b.http.get(path)
        assert r.status_code == 200
        assert any(c.startswith('lockup_session=""') for c in r.headers.get_list("set-cookie"))
        assert "lockup_session" not in b.http.cookies


def test_sign_ups_are_limited_per_address(server: Server) -> None:
    address = "127.0.1.1"
    made = [Browser(server, address).signup(f"Maker {i}") for i in range(10)]
    assert [r.status_code for r in made] == [200] * 10
    r = Browser(server, address).signup("Maker 10")
    assert r.status_code == 429 and r.json()["error"] == "rate-limited"
    assert int(r.headers["Retry-After"]) > 60
    assert Browser(server, "127.0.1.2").signup("Maker 10").status_code == 200


def test_sign_in_attempts_are_limited_per_name_and_per_address(server: Server) -> None:
    Browser(server).signup("Guarded")
    guesser = Browser(server, "127.0.2.1")
    for _ in range(10):
        assert guesser.login("Guarded", "wrong horse").status_code == 401
    r = guesser.login("Guarded")  # the right password now: too late
    assert r.status_code == 429 and r.json()["error"] == "rate-limited"
    assert int(r.headers["Retry-After"]) >= 1
    # The name is guarded from any address (by its key: another case or look too).
    r = Browser(server, "127.0.2.2").login("GUARDED")
    assert r.status_code == 429
    # One address trying many names: 30 at once, then one every 10 seconds.
    wide = Browser(server, "127.0.2.3")
    started, codes = time.monotonic(), list[int]()
    while 429 not in codes and len(codes) < 60:
        codes.append(wide.login(f"Someone {len(codes)}", "wrong horse").status_code)
    refilled = int((time.monotonic() - started) / 10)  # each check takes a while
    assert codes[:30] == [401] * 30 and 30 <= codes.index(429) <= 30 + refilled


def test_no_display_name_passes_for_a_computer_or_shows_nothing(server: Server) -> None:
    b = Browser(server)
    for name in ("Þóra", "Leifur", "Expert", "Normal computer", "\u2800\u2800", "\u3164", "ⅤIGDÍS"):
        r = b.http.post("/api/profile", json={"name": name})
        assert r.status_code == 400, name
        r = b.http.post("/api/rooms", json={"name": name})
        assert r.status_code == 400, name
        r = b.http.post("/api/quickplay", json={"name": name})
        assert r.status_code == 400, name
    assert b.http.post("/api/profile", json={"name": "Ásta"}).json() == {"name": "Ásta"}
