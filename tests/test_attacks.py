"""A hostile client against a real ``lockup serve``, an innocent player measured beside.

Each test attacks as a script would (hint floods, game-creation floods, malformed frames,
timing analysis, forgery, a second server on the same file) from 127.0.0.2, while an
:class:`~attack_helpers.Innocent` plays against expert bots from 127.0.0.1: its card
acknowledgement p99 must stay under 250 ms, its bots keep moving and ``/healthz``
answers. The transport-level attacks (huge headers and bodies, half-open connections)
are in test_attack_http.py.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Innocent, Server

from lockup.cards import parse_card
from lockup.engine import Game, Rules

pytestmark = pytest.mark.serial  # timing measured: run alone (make pytest)

Msg = dict[str, Any]
ATTACKER = "127.0.0.2"
"""The attacker's own address: the innocent player plays from 127.0.0.1."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("attacks") / "games.sqlite"
    with Server(db) as s:
        yield s


def attacker(server: Server, cookie: str | None = None) -> httpx.Client:
    """An HTTP client of the attacker's address (optionally with a cookie)."""
    transport = httpx.HTTPTransport(local_address=ATTACKER)
    http = httpx.Client(base_url=server.url, transport=transport, timeout=30)
    if cookie:
        http.cookies.set("lockup_player", cookie)
    return http


def new_player(server: Server, level: str = "normal") -> tuple[str, str]:
    """A fresh cookie (from 127.0.0.1) and its new game of ``level``: (cookie, game)."""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        http.get("/")
        r = http.post("/api/games", json={"level": level, "target": 10})
        assert r.status_code == 200, r.text
        return str(http.cookies["lockup_player"]), r.json()["game"]


def ws_connect(server: Server, cookie: str, **kw: Any) -> Any:
    return websockets.connect(
        server.ws_url,
        additional_headers={"Cookie": f"lockup_player={cookie}"},
        max_queue=None,
        **kw,
    )


async def recv(ws: Any, timeout: float = 10.0) -> Msg:
    msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return msg


async def until_turn(ws: Any, timeout: float = 30.0) -> Msg:
    """Frames until one whose view shows a legal card for this seat; returns it."""
    deadline = time.monotonic() + timeout
    while True:
        msg = await recv(ws, max(0.1, deadline - time.monotonic()))
        view = msg.get("view")
        if view is not None and view["legal"]:
            return msg


def innocent(server: Server) -> Innocent:
    return Innocent(server.url, level="expert", target=10).start(warm_timeout=60)


MEASURE = 8.0
"""Each attack goes on at least this long, so the innocent player plays several cards."""


def rounds(seconds: float = MEASURE) -> Iterator[int]:
    """0, 1, 2, ... until ``seconds`` have passed (at least one round)."""
    end = time.monotonic() + seconds
    i = 0
    while i == 0 or time.monotonic() < end:
        yield i
        i += 1


# ---------------------------------------------------------------------- 1. hint flood


@pytest.mark.flaky(reruns=2)  # a gap measured against the clock on a machine the flood loads
def test_hint_flood_leaves_bots_and_other_players_alone(server: Server) -> None:
    players = [new_player(server) for _ in range(4)]
    player = innocent(server)
    answers: dict[str, int] = {}

    async def flood(cookie: str, game: str) -> None:
        async with ws_connect(server, cookie) as ws:
            await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
            turn = await until_turn(ws)
            for _ in range(200):
                await ws.send(json.dumps({"type": "hint", "version": turn["version"]}))
            t_end = time.monotonic() + MEASURE
            while time.monotonic() < t_end:
                try:
                    msg = await recv(ws, 1.0)
                except TimeoutError:
                    continue
                key = msg["type"] if msg["type"] != "error" else msg["code"]
                answers[key] = answers.get(key, 0) + 1
            await ws.send('{"type":"ping"}')  # the socket is still open and answers
            while (await recv(ws))["type"] != "pong":
                pass

    async def all_floods() -> None:
        await asyncio.gather(*(flood(c, g) for c, g in players))

    try:
        asyncio.run(all_floods())
    finally:
        report = player.stop()
    # Nothing but hints and refusals came back.
    assert set(answers) <= {"hint", "hint-busy", "rate-limited"}, answers
    # One hint at a time per connection, a few a player (6 at once): the rest refused at once,
    # as busy (a hint already running, or every hint worker taken on a loaded machine) or as
    # over the player's hints.
    assert 1 <= answers.get("hint", 0) <= 4 * 6, answers
    refused = answers.get("hint-busy", 0) + answers.get("rate-limited", 0)
    # Every message within the message rate (60 at once) is answered ...
    assert refused >= 4 * 50, answers
    # ... and past it the rest are dropped, with a rate-limited notice at most once a second.
    assert refused + answers.get("hint", 0) <= 4 * (60 + 7 * (MEASURE + 2)), answers
    assert answers.get("rate-limited", 0) >= 4, answers
    print(f"innocent: {report.summary()}")
    # Hints think in their own lower-priority process, but on two cores that process, the
    # four flooding clients and the server's loop answering 800 messages all take a share of
    # the CPU the bots' searches need: a bot's gap may pass 2 s here; a stall is far longer.
    report.assert_unharmed(ack_p99=0.25, max_bot_gap=3.0)


# ---------------------------------------------------------------------- 4. new games


def count_games(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("SELECT count(*) FROM games").fetchone()[0])
    finally:
        con.close()


def test_game_creation_flood_is_rate_limited(server: Server) -> None:
    player = innocent(server)
    before = count_games(server.db)
    statuses: dict[int, int] = {}
    reasons: set[str] = set()
    try:
        with attacker(server) as http:
            http.get("/")
            for _ in range(150):  # one cookie, as fast as it can
                r = http.post("/api/games", json={"level": "random"})
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                if r.status_code == 429:
                    reasons.add(r.json()["reason"])
                    assert int(r.headers["retry-after"]) >= 1
        for _ in range(150):  # a new cookie each time: the address is limited
            with attacker(server) as http:
                r = http.get("/api/game")
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
    finally:
        report = player.stop()
    assert statuses.get(200, 0) <= 10 + 30, statuses  # the two bursts at most
    assert statuses.get(429, 0) >= 260, statuses
    assert all("Too many new games" in r for r in reasons), reasons
    created = count_games(server.db) - before
    assert created <= 40 + 2, created  # the innocent's games too
    print(f"innocent: {report.summary()}")
    report.assert_unharmed(ack_p99=0.25, max_bot_gap=2.0)


def test_games_nobody_played_leave_memory_and_the_database(tmp_path: Path) -> None:
    with Server(tmp_path / "g.sqlite", "--purge-unplayed-after", "2") as s:
        cookie, played = new_player(s, level="random")

        async def play_one_card() -> None:
            async with ws_connect(s, cookie) as ws:
                await ws.send(json.dumps({"type": "hello", "game": played, "since": 0}))
                turn = await until_turn(ws)
                card = turn["view"]["legal"][0]
                await ws.send(
                    json.dumps({"type": "play", "card": card, "version": turn["version"]})
                )
                while True:
                    ev = (await recv(ws)).get("event", {})
                    if ev.get("kind") == "play" and ev.get("seat") == 0:
                        return

        asyncio.run(play_one_card())
        with attacker(s) as http:
            http.get("/")
            for _ in range(8):
                assert http.post("/api/games", json={"level": "random"}).status_code == 200
        assert count_games(s.db) == 9  # the attacker's 8 and the played one
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and count_games(s.db) > 1:
            time.sleep(0.5)
        assert count_games(s.db) == 1  # the game with a card played stays
        with httpx.Client(base_url=s.url, cookies={"lockup_player": cookie}) as http:
            assert http.get("/api/game").json()["game"] == played


# ---------------------------------------------------------------------- 5. crashes


HOSTILE_FRAMES = [
    '{"type":"play","card":"\\ud800","version":1}',
    '{"type":"play","card":"QD","version":' + "1" * 100 + "}",
    "[" * 2000 + "]" * 2000,
    '{"type":"hello","game":' + '{"a":' * 900 + "1" + "}" * 900 + "}",
    '{"type":"hint","version":-1}',
    "\x00\x01 not json",
    '{"type":"hello","since":1e999}',
]


def test_malformed_frames_and_bodies_get_clear_errors_and_the_socket_stays(
    server: Server,
) -> None:
    cookie, game = new_player(server)
    player = innocent(server)
    log_before = server.log_text()

    async def attack() -> list[Msg]:
        answers = []
        async with ws_connect(server, cookie) as ws:
            await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
            await recv(ws)
            for _ in rounds():
                for frame in HOSTILE_FRAMES:
                    await asyncio.sleep(0.17)  # within the message rate: each is answered
                    await ws.send(frame)
                    while True:
                        msg = await recv(ws)
                        if msg["type"] == "error":
                            answers.append(msg)
                            break
                await ws.send(b"\x00binary")
                answers.append(await recv(ws))
            await ws.send('{"type":"ping"}')
            while (await recv(ws))["type"] != "pong":
                pass
        return answers

    try:
        answers = asyncio.run(attack())
        bodies = [
            b'{"target": "\\ud800"}',
            b'{"level":' + b"[" * 5000 + b"]" * 5000 + b"}",
            b"[" * 3000 + b"]" * 3000,
            b'{"target": ' + b"9" * 100 + b"}",
            b"\xff\xfe not utf-8",
        ]
        with attacker(server) as http:
            http.get("/")
            statuses = [
                http.post(
                    "/api/games", content=body, headers={"content-type": "application/json"}
                ).status_code
                for body in bodies
            ]
    finally:
        report = player.stop()
    assert len(answers) % (len(HOSTILE_FRAMES) + 1) == 0 and answers
    assert {a["code"] for a in answers} == {"bad-message"}, answers
    assert statuses == [400] * len(bodies)
    log = server.log_text()[len(log_before) :]
    assert "Traceback" not in log, log[-2000:]
    assert log.count("\n") <= 5, log  # one short line, not one per message
    print(f"innocent: {report.summary()}")
    report.assert_unharmed(ack_p99=0.25, max_bot_gap=2.0)


# ---------------------------------------------------------------------- 6. timing


def legal_counts(db: Path, game_id: str) -> list[tuple[int, int]]:
    """(seat, number of legal cards) before each play of the stored game, in order."""
    con = sqlite3.connect(db)
    try:
        rules = json.loads(
            con.execute("SELECT rules FROM games WHERE id = ?", (game_id,)).fetchone()[0]
        )
        rows = con.execute(
            "SELECT kind, seat, data FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
    finally:
        con.close()
    game: Game | None = None
    out = []
    for kind, seat, data in rows:
        if kind == "deal":
            if game is None:
                game = Game(Rules.from_dict(rules), dealer=seat)
            game.deal([[parse_card(c) for c in hand] for hand in json.loads(data)])
        elif kind == "play":
            assert game is not None
            out.append((seat, len(game.legal_cards())))
            game.play(parse_card(data), seat)
        else:
            assert game is not None
            game.discard(parse_card(data), seat)
    return out


def auc(positives: list[float], negatives: list[float]) -> float:
    """How often a positive's value exceeds a negative's (0.5: no information)."""
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def test_a_bots_delay_does_not_tell_forced_cards_from_choices(server: Server) -> None:
    """The expert answers a forced card at once and a choice after a search; the server
    holds each bot card to the same floor plus jitter, so the delay a script measures
    says nothing of how many cards the bot could play (it would learn voids)."""
    cookie, game = new_player(server, level="expert")
    player = innocent(server)
    delays: list[tuple[int, float]] = []  # (seat, seconds since the previous frame)

    async def watch() -> None:
        async with ws_connect(server, cookie) as ws:
            await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
            last = time.monotonic()
            hands = 0
            waiting = False  # for our own card's event
            while hands < 2:
                msg = await recv(ws, 30)
                now = time.monotonic()
                if msg["type"] == "event":
                    ev = msg["event"]
                    if ev["kind"] == "play" and ev["seat"] != 0:
                        delays.append((ev["seat"], now - last))
                    elif ev["kind"] == "play":
                        waiting = False
                    elif ev["kind"] in ("hand", "over"):
                        hands += 1
                if msg["type"] in ("state", "event"):
                    view = msg["view"]
                    if view["legal"] and not waiting and view["phase"] == "play":
                        await asyncio.sleep(0.2)
                        card = view["legal"][0]
                        await ws.send(
                            json.dumps({"type": "play", "card": card, "version": msg["version"]})
                        )
                        waiting = True
                last = time.monotonic()

    try:
        asyncio.run(watch())
    finally:
        report = player.stop()
    counts = [n for seat, n in legal_counts(server.db, game) if seat != 0]
    n = len(delays)
    assert n >= 40 and len(counts) >= n
    forced = [d for (_, d), c in zip(delays, counts, strict=False) if c == 1]
    choice = [d for (_, d), c in zip(delays, counts, strict=False) if c > 1]
    assert len(forced) >= 5 and len(choice) >= 20, (len(forced), len(choice))
    score = auc(choice, forced)
    print(f"timing: {len(forced)} forced, {len(choice)} choices, AUC {score:.2f}")
    print(f"forced {sorted(round(x, 3) for x in forced)}")
    print(f"choice {sorted(round(x, 3) for x in choice)}")
    assert 0.25 <= score <= 0.75, f"the delay tells forced cards from choices: AUC {score:.2f}"
    held = sorted(d for _, d in delays)
    assert held[len(held) // 2] >= 0.35, held  # cards are held to the floor (a frame
    # delayed on a busy machine can make the next one look quicker: the median is robust)
    print(f"innocent: {report.summary()}")
    report.assert_unharmed(ack_p99=0.25, max_bot_gap=2.0)


# ---------------------------------------------------------------------- 7. forgery


def test_forgery_framing_and_foreign_hosts_are_refused(server: Server) -> None:
    cookie, game = new_player(server)
    player = innocent(server)
    try:
        for i in rounds():
            game = forge(server, cookie, game, same_site=i == 0)
    finally:
        report = player.stop()
    print(f"innocent: {report.summary()}")
    report.assert_unharmed(ack_p99=0.25, max_bot_gap=2.0)


def forge(server: Server, cookie: str, game: str, same_site: bool) -> str:
    """Every forgery, each checked refused; then what a page of the site itself may do
    (start a new game: its id is returned)."""
    evil = "http://evil.example"
    with attacker(server, cookie) as http:  # a victim's cookie, an attacker's page
        forged = [
            http.post(
                "/api/games",
                content='{"level":"random"}',
                headers={"Origin": evil, "Content-Type": "text/plain"},
            ),
            http.post(
                "/api/games",
                content='{"level":"random"}',
                headers={"Origin": evil, "Content-Type": "application/json"},
            ),
            http.post("/api/games", content='{"level":"random"}'),  # no type: a form
            http.post(
                "/api/games",
                content="level=random",
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            ),
        ]
        assert [r.status_code for r in forged] == [403, 403, 415, 415]
        assert all(r.json()["reason"] for r in forged)
        assert http.get("/api/game").json()["game"] == game  # nothing changed
        rebinding = http.get("/api/game", headers={"Host": "evil.example"})
        assert rebinding.status_code == 400
        page = http.get("/")
        csp = page.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "same-origin"
        if same_site:  # a page of the site itself may
            ok = http.post("/api/games", json={"level": "random"}, headers={"Origin": server.url})
            assert ok.status_code == 200
            game = ok.json()["game"]

    async def foreign_socket() -> None:
        with pytest.raises(websockets.InvalidStatus) as info:
            async with ws_connect(server, cookie, origin=evil):
                pass
        assert info.value.response.status_code == 403

    asyncio.run(foreign_socket())
    # Without --proxy-headers, a client cannot claim HTTPS.
    with httpx.Client(base_url=server.url, timeout=10) as http:
        r = http.get("/", headers={"X-Forwarded-Proto": "https"})
        assert "secure" not in r.headers["set-cookie"].lower()
    return game


def test_cookies_are_secure_over_https_behind_a_trusted_proxy(tmp_path: Path) -> None:
    with Server(tmp_path / "g.sqlite", "--proxy-headers") as s:
        with httpx.Client(base_url=s.url, timeout=10) as http:
            r = http.get("/", headers={"X-Forwarded-Proto": "https"})
            assert "; secure" in r.headers["set-cookie"].lower()
            assert r.headers["strict-transport-security"].startswith("max-age=")
            r = http.get("/")
            assert "secure" not in r.headers["set-cookie"].lower()


# ---------------------------------------------------------------------- 8. two servers


def test_a_second_server_on_the_same_file_is_refused(server: Server) -> None:
    player = innocent(server)
    try:
        start = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-m", "lockup", "serve", "--port", "0"]
            + ["--db", f"sqlite:///{server.db}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        time.sleep(max(0.0, MEASURE - (time.monotonic() - start)))
    finally:
        report = player.stop()
    assert second.returncode == 2, second.stderr
    assert "another lockup serve" in second.stderr and str(server.db) in second.stderr
    assert "Traceback" not in second.stderr
    print(f"innocent: {report.summary()}")
    report.assert_unharmed(ack_p99=0.25, max_bot_gap=2.0)
