"""What the history says a game was, against a real ``lockup serve`` on SQLite, with
script people (their own cookies and addresses): a quick-play table among strangers is
``quick``, a room of invited people ``friends``, a game against computers ``solo``; the
game the start page deals at once (``GET /api/game``) is listed once a card of it is
played, so a person who opened the start page and then pressed "Play people" has one
game, the quick table's. The words the page shows for them are in every language.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from attack_helpers import Server

Msg = dict[str, Any]
I18N = Path(__file__).parent.parent / "lockup" / "web" / "static" / "i18n"
ADDRESSES = (f"127.0.{60 + i // 250}.{i % 250 + 2}" for i in range(10_000))
"""Addresses of people of their own (one address holds one seat of a quick table)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("labels") / "games.sqlite"
    flags = ("--quick-wait", "2", "--bot-delay", "0", "--bot-jitter", "0")
    with Server(db, *flags, "--new-games-per-address", "0") as s:
        yield s


def person(server: Server) -> httpx.Client:
    """A browser of its own at an address of its own, on the start page (its cookie)."""
    transport = httpx.HTTPTransport(local_address=next(ADDRESSES))
    http = httpx.Client(base_url=server.url, transport=transport, timeout=30)
    assert http.get("/").status_code == 200
    return http


def connect(server: Server, http: httpx.Client) -> Any:
    cookie = str(http.cookies["lockup_player"])
    return websockets.connect(
        server.ws_url, additional_headers={"Cookie": f"lockup_player={cookie}"}, max_queue=None
    )


async def until(ws: Any, done: Any, timeout: float = 20.0) -> Msg:
    """The first frame for which ``done(frame)`` is true."""
    while True:
        msg: Msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if done(msg):
            return msg


def room_game(server: Server, http: httpx.Client, room: str, start: bool = False) -> str:
    """Open the room's page (a hello over /ws; ``start``: as its host, start it) and wait
    until its game is under way; the game's id."""

    async def go() -> str:
        async with connect(server, http) as ws:
            await ws.send(json.dumps({"type": "hello", "room": room, "since": 0}))
            await until(ws, lambda m: m["type"] == "room")
            if start:
                await ws.send(json.dumps({"type": "start"}))
            msg = await until(
                ws, lambda m: m["type"] == "room" and m["room"]["status"] == "playing"
            )
            return str(msg["room"]["game"])

    return asyncio.run(go())


def play_one_card(server: Server, http: httpx.Client, game: str) -> None:
    """Open the game's page and play one card (the first legal one, on our turn)."""

    async def go() -> None:
        async with connect(server, http) as ws:
            await ws.send(json.dumps({"type": "hello", "game": game, "since": 0}))
            msg = await until(ws, lambda m: bool((m.get("view") or {}).get("legal")))
            card = msg["view"]["legal"][0]
            await ws.send(json.dumps({"type": "play", "card": card, "version": msg["version"]}))
            await until(
                ws,
                lambda m: (m.get("event") or {}).get("kind") == "play" and m["event"]["seat"] == 0,
            )

    asyncio.run(go())


def history(http: httpx.Client) -> list[Msg]:
    r = http.get("/api/history")
    assert r.status_code == 200, r.text
    games: list[Msg] = r.json()["games"]
    return games


def test_the_history_tells_quick_play_from_friends_and_lists_no_game_nobody_played(
    server: Server,
) -> None:
    # Ann opens the start page (a game against computers is dealt at once), then presses
    # "Play people": her history has one game, the quick table's, said to be one.
    ann = person(server)
    dealt = ann.get("/api/game").json()["game"]
    r = ann.post("/api/quickplay", json={"name": "Ann"})
    assert r.status_code == 200, r.text
    quick = room_game(server, ann, r.json()["room"])
    games = history(ann)
    assert [g["game"] for g in games] == [quick], (dealt, games)
    assert games[0]["kind"] == "quick" and games[0]["room"] == r.json()["room"]
    assert games[0]["finished"] is None  # under way: listed all the same

    # Bo makes a room for his friends and starts it: "friends".
    bo = person(server)
    made = bo.post("/api/rooms", json={"name": "Bo", "target": 10, "levels": ["random"] * 3})
    assert made.status_code == 200, made.text
    friends = room_game(server, bo, made.json()["room"], start=True)
    games = history(bo)
    assert [(g["game"], g["kind"]) for g in games] == [(friends, "friends")]

    # Cy's start page deals a game: not listed until he plays a card of it ("play one at
    # the table and it will be listed here"), then listed, "solo". A game he starts and
    # leaves behind unplayed is not.
    cy = person(server)
    dealt = cy.get("/api/game").json()["game"]
    assert history(cy) == []
    play_one_card(server, cy, dealt)
    assert [(g["game"], g["kind"]) for g in history(cy)] == [(dealt, "solo")]
    left = cy.post("/api/games", json={"target": 10, "level": "random"}).json()["game"]
    assert [g["game"] for g in history(cy)] == [dealt], left


def test_the_history_says_which_games_the_player_abandoned(server: Server) -> None:
    """Dan and Fay sit at a quick table; Fay leaves its game under way: she has abandoned
    it (a computer plays her seat to the end, and may win it). Her history says so
    (``abandoned``), so the page says "left the game", never "won"; Dan's does not, and
    still lists Fay's seat as a person's (not the computer's that took it over)."""
    dan, fay = person(server), person(server)
    r = dan.post("/api/quickplay", json={"name": "Dan"})
    assert r.status_code == 200, r.text
    room = r.json()["room"]
    joined = fay.post("/api/quickplay", json={"name": "Fay"})
    assert joined.status_code == 200 and joined.json()["room"] == room, joined.text
    seat = joined.json()["seat"]

    async def both() -> list[str]:
        return list(
            await asyncio.gather(
                asyncio.to_thread(room_game, server, dan, room),
                asyncio.to_thread(room_game, server, fay, room),
            )
        )

    game, seen = asyncio.run(both())
    assert seen == game
    left = fay.post(f"/api/rooms/{room}/leave", json={})
    assert left.status_code == 200 and left.json()["abandoned"] is True, left.text
    assert [(g["game"], g["abandoned"]) for g in history(fay)] == [(game, True)]
    [entry] = history(dan)
    assert (entry["game"], entry["abandoned"]) == (game, False)
    assert entry["players"][seat] == "Fay"
    assert entry["seats"][seat] == {"kind": "human", "level": None}, entry["seats"]
    assert sum(s["kind"] == "bot" for s in entry["seats"]) == 2, entry["seats"]

    eve = person(server)
    dealt = eve.get("/api/game").json()["game"]
    play_one_card(server, eve, dealt)
    assert [(g["game"], g["abandoned"]) for g in history(eve)] == [(dealt, False)]


def test_the_words_of_these_labels_are_in_every_language() -> None:
    words = {lang: json.loads((I18N / f"{lang}.json").read_text()) for lang in ("en", "fr", "is")}
    keys = ("history.quick", "history.room", "prompt.gone", "prompt.goneComputer")
    for lang, catalogue in words.items():
        for key in keys:
            assert isinstance(catalogue.get(key), str) and catalogue[key], f"{lang}: {key}"
        for key in ("prompt.gone", "prompt.goneComputer"):
            assert "{name}" in catalogue[key], f"{lang}: {key}"
        # The score and the rating are two columns of the history: two words.
        assert catalogue["history.score"] != catalogue["history.rating"], lang
        assert catalogue["history.quick"] != catalogue["history.room"], lang
    # Icelandic: "Stig" are points (a score, points to win); a rating is an "einkunn",
    # the same word wherever a rating is named.
    icelandic = words["is"]
    assert icelandic["history.score"] == "Stig"
    for key in ("history.rating", "lb.rating"):
        assert icelandic[key] == "Einkunn", key
    for stem in ("history.ratingTitle", "lb.yours", "lb.provisional"):
        found = [k for k in icelandic if k == stem or k.startswith(f"{stem}_")]
        assert found, stem
        for key in found:
            assert icelandic[key].startswith("Einkunnin þín"), key


def test_the_terminal_calls_the_rating_what_the_page_calls_it() -> None:
    """Icelandic: the terminal's rating lines say "Einkunnin þín" / "einkunn", as the
    history and the leaderboard do, never "Stigin þín" (points)."""
    from lockup.tui import words as tui

    page = json.loads((I18N / "is.json").read_text())
    was = tui.language()
    try:
        tui.set_language("is")
        change = tui.tr("rating.change", before="1,0", after="2,0", change="+1,0")
        lines = [change, tui.tr("rating.unchanged"), tui.tr("rating.later"), tui.tr("rating.guest")]
    finally:
        tui.set_language(was)
    assert change == f"{page['history.ratingTitle']}: 1,0 → 2,0 (+1,0)."
    for line in lines:
        assert "einkunn" in line.lower(), line
        assert not line.startswith("Stig"), line
