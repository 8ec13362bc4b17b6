"""The game server over real WebSockets, against a real uvicorn on 127.0.0.1.

Each server is ``python -m lockup serve`` in a subprocess with a temporary SQLite file and
``random`` bots (fast). The stored game is read back with sqlite3 and replayed by
:func:`lockup.record.from_record` to check what the server said against what it stored.
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

from lockup.cards import card_str, parse_card
from lockup.engine import Game
from lockup.record import from_record

Msg = dict[str, Any]

UNPACED = ("--bot-delay", "0", "--bot-jitter", "0")
"""Bots' cards sent as soon as they are chosen (their pacing is tested on its own)."""


# ---------------------------------------------------------------------- helpers


class Player:
    """A player: an HTTP client holding the ``lockup_player`` cookie."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url, timeout=10)
        self.game: str = ""
        self.version = 0

    @property
    def cookie(self) -> str:
        return str(self.http.cookies["lockup_player"])

    def current(self) -> Msg:
        data: Msg = self.http.get("/api/game").json()
        self.game = data["game"]
        self.version = data["version"]
        return data

    def new_game(self, **options: Any) -> Msg:
        r = self.http.post("/api/games", json=options)
        assert r.status_code == 200, r.text
        data: Msg = r.json()
        self.game = data["game"]
        return data

    def connect(self, cookie: str | None = None) -> Any:
        c = self.cookie if cookie is None else cookie
        headers = {"Cookie": f"lockup_player={c}"} if c else {}
        return websockets.connect(self.server.ws_url, additional_headers=headers)


async def recv(ws: Any, timeout: float = 5.0) -> Msg:
    msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    return msg


async def drain(ws: Any, quiet: float = 0.3) -> list[Msg]:
    """Every frame until none comes for ``quiet`` seconds."""
    out = []
    while True:
        try:
            out.append(await recv(ws, quiet))
        except TimeoutError:
            return out


async def until_my_turn(ws: Any, first: list[Msg] | None = None) -> tuple[list[Msg], Msg]:
    """Frames until one whose view shows a legal card for us and nothing newer is pending
    (or the game is over); returns (frames, last frame)."""
    frames = list(first or [])
    while True:
        if frames:
            last = frames[-1]
            view = last.get("view")
            if view is not None and (view["legal"] or view["phase"] == "over"):
                more = await drain(ws, 0.15)
                if not more:
                    return frames, last
                frames += more
                continue
        frames.append(await recv(ws))


def stored(db: Path, game_id: str) -> tuple[dict[str, Any], list[tuple[str, int, str, int]]]:
    """The record the database holds for a game (assembled here with sqlite3), and its
    actions as (kind, seat, data, version)."""
    con = sqlite3.connect(db)
    try:
        g = con.execute("SELECT rules, players FROM games WHERE id = ?", (game_id,)).fetchone()
        rows = con.execute(
            "SELECT kind, seat, data, version FROM actions WHERE game_id = ? ORDER BY seq",
            (game_id,),
        ).fetchall()
    finally:
        con.close()
    hands: list[dict[str, Any]] = []
    for kind, seat, data, _ in rows:
        if kind == "deal":
            hands.append({"dealer": seat, "deal": json.loads(data), "events": []})
        else:
            hands[-1]["events"].append({"seat": seat, kind: data})
    record = {
        "format": "lockup-record/1",
        "rules": json.loads(g[0]),
        "players": json.loads(g[1]),
        "hands": hands,
    }
    return record, rows


def stored_game(db: Path, game_id: str) -> Game:
    return from_record(stored(db, game_id)[0])


def check_consecutive(frames: list[Msg], start: int) -> int:
    """Event versions run on from ``start`` with no gap; returns the last."""
    v = start
    for f in frames:
        if f["type"] == "event":
            assert f["version"] == v + 1, (f["version"], v)
            v = f["version"]
    return v


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("server") / "games.sqlite"
    s = Server(db, *UNPACED).start()
    yield s
    s.stop()


# ---------------------------------------------------------------------- HTTP


def test_pages_cookie_and_current_game(server: Server) -> None:
    p = Player(server)
    r = p.http.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    token = p.cookie
    assert len(token) >= 16
    assert "httponly" in r.headers["set-cookie"].lower()
    # The cookie is kept: a second visit sets none.
    assert "set-cookie" not in p.http.get("/").headers
    for path in ("/rules", "/help"):
        assert p.http.get(path).status_code == 200
    assert p.http.get("/healthz").text == "ok"
    first = p.current()
    assert first["seat"] == 0 and first["version"] >= 1 and isinstance(first["game"], str)
    assert p.current()["game"] == first["game"]  # resumed, not a new game
    other = Player(server)
    assert other.current()["game"] != first["game"]  # a new cookie, a new game
    assert other.cookie != token

    # A new player's first requests, all at once, find one game.
    fresh = Player(server)
    fresh.http.get("/")

    async def at_once() -> set[str]:
        cookies = {"lockup_player": fresh.cookie}
        async with httpx.AsyncClient(base_url=server.url, cookies=cookies) as http:
            answers = await asyncio.gather(*(http.get("/api/game") for _ in range(6)))
        return {r.json()["game"] for r in answers}

    assert len(asyncio.run(at_once())) == 1


def test_only_tokens_the_server_issued_are_adopted(server: Server) -> None:
    planted = "planted-by-an-attacker-0123456789"
    forged = "A" * 24 + "." + "B" * 22  # the signed form, a signature that does not match
    for token in (planted, forged):
        http = httpx.Client(base_url=server.url, cookies={"lockup_player": token}, timeout=10)
        r = http.get("/api/game")
        assert r.status_code == 200
        issued = r.cookies.get("lockup_player")
        assert issued and issued != token, "a token the server never issued was adopted"
        # The WebSocket does not know the planted token either.

        async def hello(tok: str = token) -> Msg:
            headers = {"Cookie": f"lockup_player={tok}"}
            async with websockets.connect(server.ws_url, additional_headers=headers) as ws:
                await ws.send(json.dumps({"type": "hello", "since": 0}))
                return await recv(ws)

        answer = asyncio.run(hello())
        assert answer["type"] == "error" and answer["code"] == "not-your-game"


def test_new_game_options_are_checked(server: Server) -> None:
    p = Player(server)
    before = p.current()["game"]
    bad: list[Any] = [
        {"target": 13},
        {"target": 55},
        {"target": "20"},
        {"picture_exception": "none"},
        {"lock_discards": "sometimes"},
        {"level": "grandmaster"},
        {"colour": "red"},
        [1, 2],
    ]
    for body in bad:
        r = p.http.post("/api/games", json=body)
        assert r.status_code == 400, body
        assert r.json()["reason"], body
    r = p.http.post(
        "/api/games", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400
    assert p.current()["game"] == before  # nothing changed
    new = p.new_game(target=10, picture_exception="any-club", lock_discards="upfront")
    assert new["game"] != before and p.current()["game"] == new["game"]

    async def go() -> Msg:
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": new["game"], "since": 0}))
            return await recv(ws)

    state = asyncio.run(go())
    assert state["type"] == "state"
    assert state["view"]["rules"] == {
        "picture_exception": "any-club",
        "lock_discards": "upfront",
        "target": 10,
    }
    assert state["players"] == ["You", "Þóra", "Leifur", "Vigdís"]


# ---------------------------------------------------------------------- the WebSocket


def test_hello_play_and_the_bots_reply(server: Server) -> None:
    p = Player(server)
    p.current()

    async def go() -> None:
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            state = await recv(ws)
            assert state["type"] == "state" and state["view"]["seat"] == 0
            assert len(state["view"]["hand"]) == state["view"]["hand_sizes"][0]
            frames, last = await until_my_turn(ws, [state])
            version = check_consecutive(frames[1:], state["version"])
            bot_plays = 0
            for _ in range(20):
                card = last["view"]["legal"][0]
                await ws.send(json.dumps({"type": "play", "card": card, "version": version}))
                ack = await recv(ws)
                assert ack["type"] == "event" and ack["version"] == version + 1
                assert ack["event"] == {"kind": "play", "seat": 0, "card": card}
                assert card not in ack["view"]["hand"]
                frames, last = await until_my_turn(ws, [ack])
                version = check_consecutive(frames[1:], ack["version"])
                bot_plays += sum(
                    1
                    for f in frames
                    if f["type"] == "event" and f["event"]["kind"] == "play" and f["event"]["seat"]
                )
                if bot_plays >= 3:
                    break
            assert bot_plays >= 3
            # What was sent is what is stored: the stored game is at our last view.
            game = stored_game(server.db, p.game)
            assert game.view(0).to_dict() == last["view"]

    asyncio.run(go())


def _find_illegal(view: Msg) -> str | None:
    illegal = [c for c in view["hand"] if c not in view["legal"]]
    return illegal[0] if view["legal"] and illegal else None


def test_illegal_card_is_refused_with_the_engines_reason(server: Server) -> None:
    p = Player(server)
    p.current()

    async def go() -> None:
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            frames, last = await until_my_turn(ws)
            for _ in range(60):
                if _find_illegal(last["view"]):
                    break
                card = last["view"]["legal"][-1]
                await ws.send(
                    json.dumps({"type": "play", "card": card, "version": last["version"]})
                )
                frames, last = await until_my_turn(ws)
                if last["view"]["phase"] == "over":
                    pytest.skip("the game ended before an illegal card came up")
            bad = _find_illegal(last["view"])
            assert bad is not None
            version = last["version"]
            _, rows_before = stored(server.db, p.game)
            game = stored_game(server.db, p.game)
            expected = game.why_not(parse_card(bad), 0)
            assert expected is not None
            await ws.send(json.dumps({"type": "play", "card": bad, "version": version}))
            err = await recv(ws)
            assert err["type"] == "error"
            assert err["code"] == expected.code and err["code"] in (
                "lead-club",
                "must-follow",
                "picture-rank",
            )
            assert err["rule"] == expected.rule and err["reason"] == expected.reason
            assert err["params"] == expected.params
            assert err["version"] == version
            assert await drain(ws) == []  # nothing happened
            _, rows_after = stored(server.db, p.game)
            assert rows_after == rows_before
            # The same version still plays: the game did not move.
            good = last["view"]["legal"][0]
            await ws.send(json.dumps({"type": "play", "card": good, "version": version}))
            ack = await recv(ws)
            assert ack["event"] == {"kind": "play", "seat": 0, "card": good}
            assert ack["version"] == version + 1

    asyncio.run(go())


def test_malformed_stale_and_foreign_messages_change_nothing(server: Server) -> None:
    p = Player(server)
    p.current()
    q = Player(server)
    q.current()

    async def go() -> None:
        async with p.connect() as ws:
            # Before hello: no game to play in.
            await ws.send(json.dumps({"type": "play", "card": "2C", "version": 1}))
            err = await recv(ws)
            assert err["code"] == "no-game" and err["version"] is None
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            frames, last = await until_my_turn(ws)
            version = last["version"]
            view = last["view"]
            legal = view["legal"][0]
            not_mine = next(
                card_str(c)
                for c in range(52)
                if card_str(c) not in view["hand"]
                and all(card_str(c) not in lost for lost in view["lost"])
            )
            _, rows_before = stored(server.db, p.game)
            cases: list[tuple[Any, str]] = [
                ("{not json", "bad-message"),
                ("[1, 2, 3]", "bad-message"),
                ('"hello"', "bad-message"),
                (json.dumps({"kind": "play"}), "bad-message"),
                (json.dumps({"type": "shout"}), "bad-message"),
                (json.dumps({"type": "play", "card": legal}), "bad-message"),
                (json.dumps({"type": "play", "card": legal, "version": "x"}), "bad-message"),
                (json.dumps({"type": "play", "card": "ZZ", "version": version}), "bad-message"),
                (json.dumps({"type": "play", "card": 7, "version": version}), "bad-message"),
                (json.dumps({"type": "play", "card": legal, "version": version + 5}), "stale"),
                (json.dumps({"type": "play", "card": legal, "version": 0}), "stale"),
                (
                    json.dumps({"type": "play", "card": not_mine, "version": version}),
                    "not-in-hand",
                ),
                (json.dumps({"type": "hello", "game": "nosuchgame", "since": 0}), "no-game"),
                (json.dumps({"type": "hello", "game": q.game, "since": 0}), "not-your-game"),
                (json.dumps({"type": "hello", "game": p.game, "since": -1}), "bad-message"),
                (json.dumps({"type": "hello", "game": 12, "since": 0}), "bad-message"),
                ("x" * 10_000, "bad-message"),
                (b"\x00\x01binary", "bad-message"),
            ]
            for text, code in cases:
                await ws.send(text)
                err = await recv(ws)
                assert err["type"] == "error" and err["code"] == code, (text, err)
                assert err["reason"] and isinstance(err["params"], dict)
                assert err["version"] == version, (text, err)
            await ws.send(json.dumps({"type": "ping"}))
            assert await recv(ws) == {"type": "pong"}
            assert await drain(ws) == []
            _, rows_after = stored(server.db, p.game)
            assert rows_after == rows_before
            # Still in the game, at the same version: the legal card plays.
            await ws.send(json.dumps({"type": "play", "card": legal, "version": version}))
            ack = await recv(ws)
            assert ack["event"]["card"] == legal and ack["version"] == version + 1
        # No cookie: nobody's game.
        async with p.connect(cookie="") as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            assert (await recv(ws))["code"] == "not-your-game"
        # Another origin may not use the player's cookie.
        with pytest.raises(websockets.InvalidStatus):
            async with websockets.connect(
                server.ws_url,
                additional_headers={"Cookie": f"lockup_player={p.cookie}"},
                origin=websockets.Origin("http://evil.example"),
            ) as ws:
                await ws.recv()

    asyncio.run(go())


def test_reconnect_with_since_gets_what_was_missed(server: Server) -> None:
    p = Player(server)
    p.current()

    async def go() -> None:
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            frames, last = await until_my_turn(ws)
            seen = last["version"]
            await ws.send(
                json.dumps({"type": "play", "card": last["view"]["legal"][0], "version": seen})
            )
            missed, last = await until_my_turn(ws)
        assert len(missed) >= 1
        # A second tab (or the page after a dropped connection) asks for what came after.
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": seen}))
            again = await drain(ws)
            assert again == missed
            assert check_consecutive(again, seen) == last["version"]
            # Up to date: nothing to send but that it is.
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": last["version"]}))
            assert await drain(ws) == [{"type": "synced", "version": last["version"]}]
            # No version, or one from the future: a full state.
            for since in (0, last["version"] + 100):
                await ws.send(json.dumps({"type": "hello", "game": p.game, "since": since}))
                state = await recv(ws)
                assert state["type"] == "state" and state["version"] == last["version"]
                assert state["view"] == last["view"]
            # No game named: the player's current game.
            await ws.send(json.dumps({"type": "hello"}))
            state = await recv(ws)
            assert state["type"] == "state" and state["version"] == last["version"]

    asyncio.run(go())


def test_a_page_that_stops_reading_while_another_plays_gets_the_state_and_holds_no_one_up(
    server: Server,
) -> None:
    """A hostile (or stuck) page: subscribed to its seat, it never reads while another page
    of the same person plays on; when it comes back with the version it had, it is sent
    one ``state`` of the game as it is (it missed more than the 16 frames a watched seat
    keeps). The other page and another person's game are served all along."""
    p, q = Player(server), Player(server)
    p.current()
    q.current()

    async def go() -> None:
        async with p.connect() as stuck, p.connect() as ws, q.connect() as other:
            await stuck.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            await other.send(json.dumps({"type": "hello", "game": q.game, "since": 0}))
            _, last = await until_my_turn(ws)
            _, theirs = await until_my_turn(other)
            seen = last["version"]  # what the stuck page had when it stopped reading

            async def first_legal(conn: Any, shown: dict[str, Any]) -> dict[str, Any]:
                """Play the first legal card ``shown`` offers; the frame of the next turn."""
                card = shown["view"]["legal"][0]
                await conn.send(
                    json.dumps({"type": "play", "card": card, "version": shown["version"]})
                )
                _, nxt = await until_my_turn(conn)
                return nxt

            for _ in range(8):  # 8 of p's cards (and the computers' after each)
                last = await first_legal(ws, last)
                theirs = await first_legal(other, theirs)
                assert theirs["view"]["legal"] or theirs["view"]["phase"] == "over"
            assert last["version"] - seen > 16
        async with p.connect() as back:
            await back.send(json.dumps({"type": "hello", "game": p.game, "since": seen}))
            got = await drain(back)
        # It was subscribed all along: past the 16 frames a watched seat keeps, the state.
        assert [f["type"] for f in got] == ["state"], got
        assert got[0]["version"] == last["version"] and got[0]["view"] == last["view"]

    asyncio.run(go())


def test_a_failed_commit_acknowledges_nothing_and_the_stored_game_wins(server: Server) -> None:
    p = Player(server)
    p.current()

    async def go() -> None:
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            _, last = await until_my_turn(ws)
            # Play on until we lead a trick that someone else will play to.
            for _ in range(80):
                v = last["view"]
                if not v["trick"] and len(v["legal"]) >= 2 and v["locks"][1:].count(0):
                    break
                await ws.send(
                    json.dumps({"type": "play", "card": v["legal"][0], "version": last["version"]})
                )
                _, last = await until_my_turn(ws)
            else:
                pytest.skip("no lead came up")
            stored_card, sent_card = last["view"]["legal"][:2]
            _, rows = stored(server.db, p.game)
            # Another writer takes the next row first: the server's commit fails.
            con = sqlite3.connect(server.db)
            with con:
                con.execute(
                    "INSERT INTO actions (game_id, seq, kind, seat, data, version) "
                    "VALUES (?, ?, 'play', 0, ?, ?)",
                    (p.game, len(rows), stored_card, last["version"] + 1),
                )
            con.close()
            await ws.send(
                json.dumps({"type": "play", "card": sent_card, "version": last["version"]})
            )
            # An error, no acknowledgement, and the server hangs up (1013): reconnect.
            frames = []
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    frames.append(await recv(ws))
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
            assert frames and all(f["type"] == "error" for f in frames)
            assert frames[0]["code"] == "unavailable"
        # The page reconnects: the stored game is the truth.
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            state = await recv(ws)
            assert state["type"] == "state"
            assert sent_card in state["view"]["hand"]
            assert stored_card not in state["view"]["hand"]
            played = [e for h in stored(server.db, p.game)[0]["hands"] for e in h["events"]]
            assert {"seat": 0, "play": stored_card} in played
            assert {"seat": 0, "play": sent_card} not in played[-4:]

    asyncio.run(go())


def test_hint_gives_values_of_the_legal_cards(server: Server) -> None:
    p = Player(server)
    p.current()

    async def go() -> None:
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            _, last = await until_my_turn(ws)
            await ws.send(json.dumps({"type": "hint", "version": last["version"]}))
            hint = await recv(ws, 30)
            assert hint["type"] == "hint", hint
            assert hint["version"] == last["version"]
            assert sorted(v["card"] for v in hint["values"]) == sorted(last["view"]["legal"])
            assert hint["best"] in last["view"]["legal"]
            assert hint["unit"] == "tricks"
            assert all(0 <= v["value"] <= 13 for v in hint["values"])
            await ws.send(json.dumps({"type": "hint", "version": last["version"] + 3}))
            assert (await recv(ws))["code"] == "stale"

    asyncio.run(go())


def test_an_expert_game_does_not_stall_another(server: Server) -> None:
    slow = Player(server)
    slow.new_game(level="expert")
    fast = Player(server)
    fast.new_game(level="random")

    async def go() -> tuple[float, list[float]]:
        async with slow.connect() as ws_slow, fast.connect() as ws_fast:
            await ws_slow.send(json.dumps({"type": "hello", "game": slow.game, "since": 0}))
            await ws_fast.send(json.dumps({"type": "hello", "game": fast.game, "since": 0}))
            _, s_last = await until_my_turn(ws_slow)
            _, f_last = await until_my_turn(ws_fast)
            # The experts start thinking (a search of 0.15 s or more a card, in processes)...
            t0 = time.monotonic()
            await ws_slow.send(
                json.dumps(
                    {
                        "type": "play",
                        "card": s_last["view"]["legal"][0],
                        "version": s_last["version"],
                    }
                )
            )
            # ... while the other game's cards are acknowledged at once.
            acks = []
            for _ in range(4):
                if f_last["view"]["phase"] != "play":
                    break
                t = time.monotonic()
                await ws_fast.send(
                    json.dumps(
                        {
                            "type": "play",
                            "card": f_last["view"]["legal"][0],
                            "version": f_last["version"],
                        }
                    )
                )
                ack = await recv(ws_fast)
                assert ack["event"]["seat"] == 0
                acks.append(time.monotonic() - t)
                _, f_last = await until_my_turn(ws_fast, [ack])
            _, s_last = await until_my_turn(ws_slow)
            return time.monotonic() - t0, acks

    slow_s, acks = asyncio.run(go())
    assert acks and max(acks) < 0.5, acks
    assert max(acks) < slow_s


def _cards_in(obj: Any) -> set[str]:
    """Every card code anywhere in a frame."""
    codes = {card_str(c) for c in range(52)}
    out: set[str] = set()
    if isinstance(obj, str):
        if obj in codes:
            out.add(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            out |= _cards_in(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= _cards_in(v)
    return out


def test_whole_game_no_hidden_card_leaves_the_server(server: Server) -> None:
    p = Player(server)
    p.new_game(target=10, level="random")

    async def go() -> list[Msg]:
        frames: list[Msg] = []
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            r = p.http.get(f"/api/games/{p.game}/record")
            assert r.status_code == 403  # not while the game is under way
            while True:
                got, last = await until_my_turn(ws)
                frames += got
                if last["view"]["phase"] == "over":
                    return frames
                await ws.send(
                    json.dumps(
                        {
                            "type": "play",
                            "card": last["view"]["legal"][0],
                            "version": last["version"],
                        }
                    )
                )

    frames = asyncio.run(go())
    assert frames[0]["type"] == "state"
    record, _ = stored(server.db, p.game)
    game = from_record(record)
    assert game.is_over
    assert frames[-1]["event"] == {"kind": "over", "winner": game.winner}
    check_consecutive(frames[1:], frames[0]["version"])
    # Every frame holds only our own cards and cards already shown to everyone: the cards
    # of this hand's stored plays and discards whose events are at or before the frame's
    # version (a card shown in an earlier hand is dealt again, hidden, in the next).
    _, rows = stored(server.db, p.game)
    shown: list[tuple[int, int, str]] = []  # (hand, first version of the action, card)
    before, hand = 0, -1
    for kind, _seat, data, version in rows:
        if kind == "deal":
            hand += 1
        else:
            shown.append((hand, before + 1, data))
        before = version
    for f in frames:
        hand_no = f["view"]["hand_number"]
        public = {card for h, v, card in shown if h == hand_no and v <= f["version"]}
        hidden = {c for s in (1, 2, 3) for c in record["hands"][hand_no]["deal"][s]} - public
        # Hand summaries name the cards lockup took in their own hand.
        summaries = list(f["view"]["summaries"])
        if f.get("event", {}).get("kind") == "hand":
            summaries.append(f["event"]["summary"])
        for summary in summaries:
            lost = {c for cs in summary["lost"] for c in cs}
            assert lost <= {card for h, _, card in shown if h == summary["number"]}
        event = {k: v for k, v in f.get("event", {}).items() if k != "summary"}
        rest = {**f, "view": {**f["view"], "summaries": []}, "event": event}
        leaked = _cards_in(rest) & hidden
        assert not leaked, (f["version"], leaked)
        assert set(f["view"]["hand"]) <= set(record["hands"][hand_no]["deal"][0])
        assert public.isdisjoint(f["view"]["hand"])
    # The events sent are the record stored, in order.
    sent = [
        (f["event"]["kind"], f["event"]["seat"], f["event"]["card"])
        for f in frames
        if f["type"] == "event" and f["event"]["kind"] in ("play", "discard")
    ]
    kept = [
        (k, e["seat"], e[k]) for h in record["hands"] for e in h["events"] for k in e if k != "seat"
    ]
    assert sent == kept[len(kept) - len(sent) :]
    deals = [f for f in frames if f.get("event", {}).get("kind") == "deal"]
    assert len(deals) == len(record["hands"]) - 1  # the first was before hello
    # Once over, the record downloads and replays to the same game.
    r = p.http.get(f"/api/games/{p.game}/record")
    assert r.status_code == 200
    assert "attachment" in r.headers["content-disposition"]
    assert json.loads(r.text) == record
    assert httpx.get(f"{server.url}/api/games/{p.game}/record").status_code == 403
    assert p.http.get("/api/games/nosuchgame/record").status_code == 404


def test_sigkill_mid_hand_then_restart_resumes(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite"
    s = Server(db, *UNPACED).start()
    p = Player(s)
    p.current()
    token = p.cookie

    async def play_until_lockup_then_kill() -> Msg:
        async with p.connect() as ws:
            await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
            _, last = await until_my_turn(ws)
            while True:
                v = last["view"]
                if (any(v["lost"]) and 2 <= v["trick_number"] <= 11) or v["phase"] == "over":
                    break
                await ws.send(
                    json.dumps({"type": "play", "card": v["legal"][0], "version": last["version"]})
                )
                _, last = await until_my_turn(ws)
            s.kill()  # with the page connected
            with pytest.raises(websockets.ConnectionClosed):
                await recv(ws)
            return last

    try:
        last = asyncio.run(play_until_lockup_then_kill())
    finally:
        s.stop()
    assert last["view"]["phase"] == "play", "the game ended before any lockup"

    def restart() -> tuple[Server, Player]:
        server = Server(db, *UNPACED).start()
        again = Player(server)
        again.http.cookies.set("lockup_player", token)
        return server, again

    plays_before = sum(
        1 for h in stored(db, p.game)[0]["hands"] for e in h["events"] if "play" in e
    )
    s2, p2 = restart()
    try:
        # Same game, same version, same view: the trick, the locks and the lost cards.
        assert p2.current() == {
            "game": p.game,
            "seat": 0,
            "version": last["version"],
            "level": "random",
        }

        async def resume_then_kill_after_ack() -> str:
            async with p2.connect() as ws:
                await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
                state = await recv(ws)
                assert state["type"] == "state" and state["version"] == last["version"]
                assert state["view"] == last["view"]
                card = state["view"]["legal"][0]
                await ws.send(
                    json.dumps({"type": "play", "card": card, "version": state["version"]})
                )
                ack = await recv(ws)
                assert ack["event"] == {"kind": "play", "seat": 0, "card": card}
                s2.kill()  # the card was acknowledged: it must survive
                return str(card)

        acked = asyncio.run(resume_then_kill_after_ack())
    finally:
        s2.stop()
    # The acknowledged card is stored, as the next card played after the first kill (the
    # bots may have played on behind it, several tricks when seat 0 was locked up).
    played = [e for h in stored(db, p.game)[0]["hands"] for e in h["events"] if "play" in e]
    assert played[plays_before] == {"seat": 0, "play": acked}

    s3, p3 = restart()
    try:

        async def play_on() -> None:
            async with p3.connect() as ws:
                await ws.send(json.dumps({"type": "hello", "game": p.game, "since": 0}))
                # The bots that had not played yet play on after the restart.
                frames, last3 = await until_my_turn(ws)
                assert frames[0]["type"] == "state"
                assert last3["version"] > last["version"]
                assert last3["view"] == stored_game(db, p.game).view(0).to_dict()
                if last3["view"]["phase"] == "play":
                    card = last3["view"]["legal"][0]
                    await ws.send(
                        json.dumps({"type": "play", "card": card, "version": last3["version"]})
                    )
                    ack = await recv(ws)
                    assert ack["event"] == {"kind": "play", "seat": 0, "card": card}

        asyncio.run(play_on())
    finally:
        s3.stop()
