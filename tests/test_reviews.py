"""History, review, analysis, uploads and statistics over HTTP, against a real
``lockup serve`` (the page's side is test_browser_review.py)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Server

from lockup.record import from_record

FIXTURES = Path(__file__).parent / "fixtures"
Msg = dict[str, Any]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("reviews") / "games.sqlite"
    with Server(
        db,
        "--bot-delay", "0", "--bot-jitter", "0",
        "--new-games-per-address", "0", "--new-games-per-player", "0",
        "--analysis-iterations", "40",
    ) as s:  # fmt: skip
        yield s


def client(server: Server) -> httpx.Client:
    http = httpx.Client(base_url=server.url, timeout=30)
    http.get("/")
    return http


def play_game(server: Server, http: httpx.Client, until_hands: int | None = None) -> str:
    """A new game against random bots, target 10, played (first legal card) to its end, or
    until ``until_hands`` hands are finished; its id. Against unpaced bots the cards come
    faster than the server's 6 messages a second: a card refused as ``rate-limited`` is
    played again when the server says, as a person would."""
    game = http.post("/api/games", json={"level": "random", "target": 10}).json()["game"]
    cookie = http.cookies["lockup_player"]

    async def go() -> None:
        headers = {"Cookie": f"lockup_player={cookie}"}
        async with websockets.connect(server.ws_url, additional_headers=headers) as ws:
            await ws.send(json.dumps({"type": "hello", "game": game}))
            sent = None
            card = ""
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if msg["type"] == "error" and msg["code"] == "rate-limited" and sent is not None:
                    await asyncio.sleep(msg["params"]["retry_after"])
                    await ws.send(json.dumps({"type": "play", "card": card, "version": sent}))
                    continue
                view = msg.get("view")
                if not view:
                    continue
                if view["phase"] == "over":
                    return
                if until_hands is not None and len(view["summaries"]) >= until_hands:
                    return
                if view["legal"] and sent != msg["version"]:
                    sent = msg["version"]
                    card = view["legal"][0]
                    await ws.send(json.dumps({"type": "play", "card": card, "version": sent}))

    asyncio.run(go())
    return str(game)


def wait_analysis(http: httpx.Client, game: str, timeout: float = 120) -> Msg:
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        a: Msg = http.get(f"/api/games/{game}/analysis").json()
        seen.append(a["status"])
        if a["status"] in ("done", "failed"):
            return a
        time.sleep(0.5)
    raise AssertionError(f"the analysis did not finish: {seen[-5:]}")


def test_a_game_under_way_is_reviewed_hand_by_hand_and_its_analysis_is_stored(
    server: Server,
) -> None:
    http = client(server)
    game = play_game(server, http, until_hands=1)
    review = http.get(f"/api/games/{game}/review").json()
    assert review["seat"] == 0 and review["over"] is False
    # Only the finished hand: the current one stays on the server.
    done = len(review["summaries"])
    assert done >= 1 and len(review["record"]["hands"]) == done == len(review["tricks"])
    assert all(len(hand) == 13 for hand in review["tricks"])
    first = review["tricks"][0][0]
    assert {"leader", "plays", "winner", "clubs", "lock"} <= set(first)
    assert review["analysis"]["status"] == "none"
    started = http.post(f"/api/games/{game}/analysis", json={}).json()
    assert started["status"] in ("queued", "running", "done")
    result = wait_analysis(http, game)
    assert result["status"] == "done" and result["hands"] == done
    decisions = result["result"]["decisions"]
    assert decisions and all(d["hand"] < done for d in decisions)
    assert all(d["loss"] >= 0 for d in decisions)
    assert all(d["mark"] is None for d in decisions if d["forced"])
    # Stored: asking again answers at once, and it runs once.
    again = http.post(f"/api/games/{game}/analysis", json={}).json()
    assert again["status"] == "done" and again["result"] == result["result"]
    # Another player may not review it.
    stranger = client(server)
    assert stranger.get(f"/api/games/{game}/review").status_code == 403
    assert stranger.post(f"/api/games/{game}/analysis", json={}).status_code == 403
    hist = stranger.get("/api/history").json()["games"]
    assert all(g["game"] != game for g in hist)


def test_history_uploads_and_statistics(server: Server) -> None:
    http = client(server)
    finished = play_game(server, http)
    record = (FIXTURES / "won-21-20-19-18.json").read_text()
    up = http.post(
        "/api/uploads?seat=2", content=record, headers={"content-type": "application/json"}
    )
    assert up.status_code == 200, up.text
    uploaded = up.json()["game"]
    bad = http.post(
        "/api/uploads", content=b'{"format": "lockup-record/1", "hands": 3}',
        headers={"content-type": "application/json"},
    )  # fmt: skip
    assert bad.status_code == 400 and bad.json()["error"] == "bad-record"
    history = http.get("/api/history").json()["games"]
    by_id = {g["game"]: g for g in history}
    assert by_id[finished]["finished"] and by_id[finished]["result"]["winner"] is not None
    assert by_id[finished]["seats"][1] == {"kind": "bot", "level": "random"}
    assert by_id[uploaded]["uploaded"] and by_id[uploaded]["seat"] == 2
    totals = from_record(json.loads(record)).totals
    assert by_id[uploaded]["result"]["totals"] == list(totals)
    # The uploaded game is reviewed like any other (all four hands: it is over).
    review = http.get(f"/api/games/{uploaded}/review").json()
    assert review["over"] and review["seat"] == 2 and review["uploaded"]
    assert len(review["record"]["hands"]) == len(json.loads(record)["hands"])
    # ... but never played on: it is not a game of the table.
    assert http.get(f"/api/games/{uploaded}/record").status_code == 404
    stats = http.get("/api/stats").json()
    assert stats["games"] == 1  # the uploaded game is not the player's own play
    assert stats["by_level"]["random"]["games"] == 1
    assert stats["per_hand"]["tricks"] is not None
    assert stats["series"][0]["game"] == finished
    # A big body is allowed for an upload, not elsewhere.
    assert (
        http.post(
            "/api/games", content=b" " * 20000, headers={"content-type": "application/json"}
        ).status_code
        == 413
    )


def test_games_where_a_computer_played_for_the_player_are_marked_and_left_out(
    server: Server,
) -> None:
    http = client(server)
    room = http.post("/api/rooms", json={"levels": "random", "target": 10, "turn_timer": 5})
    rid = room.json()["room"]
    cookie = http.cookies["lockup_player"]

    async def go() -> str:
        headers = {"Cookie": f"lockup_player={cookie}"}
        async with websockets.connect(server.ws_url, additional_headers=headers) as ws:
            await ws.send(json.dumps({"type": "hello", "room": rid}))
            await ws.send(json.dumps({"type": "start"}))
            first_turn: tuple[int, int, int] | None = None
            sent = None
            card = ""
            game = ""
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if msg["type"] == "error" and msg["code"] == "rate-limited" and sent is not None:
                    await asyncio.sleep(msg["params"]["retry_after"])  # as in play_game
                    await ws.send(json.dumps({"type": "play", "card": card, "version": sent}))
                    continue
                if msg["type"] == "room" and msg["room"]["game"]:
                    game = msg["room"]["game"]
                view = msg.get("view")
                if not view:
                    continue
                if view["phase"] == "over":
                    return game
                if view["legal"] and sent != msg["version"]:
                    # Let the turn timer play the first card: wait that turn out, whatever
                    # other frames come meanwhile (presence, the clock, the room).
                    turn = (view["hand_number"], view["trick_number"], len(view["trick"]))
                    if first_turn is None:
                        first_turn = turn
                    if turn == first_turn:
                        continue
                    sent = msg["version"]
                    card = view["legal"][0]
                    await ws.send(json.dumps({"type": "play", "card": card, "version": sent}))

    game = asyncio.run(go())
    entry = next(g for g in http.get("/api/history").json()["games"] if g["game"] == game)
    assert entry["takeover"] and entry["room"] == rid
    stats = http.get("/api/stats").json()
    assert stats["left_out"] == 1 and all(s["game"] != game for s in stats["series"])
