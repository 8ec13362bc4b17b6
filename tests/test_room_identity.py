"""Seat and identity in rooms, tried as a hostile client would over real WebSockets: a
page never keeps a seat its person left, and a removed person's page never plays again.

Each test replays the issue's finding step by step against a real ``lockup serve`` and
checks what each page was sent (no card of another seat's hand, the view of the seat its
person holds now) and what the server stored (no card played for a seat by a page whose
person no longer holds it).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from attack_helpers import Server
from conftest import hidden_cards_seen
from test_rooms import UNPACED, Msg, Person, is_event, key_of, recv, stored_game, until


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("identity") / "games.sqlite"
    with Server(db, *UNPACED) as s:
        yield s


def views(frames: list[Msg]) -> list[Msg]:
    return [f for f in frames if f.get("view")]


async def drain(ws: Any, into: list[Msg], seconds: float) -> None:
    """Every frame that comes within ``seconds``."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        try:
            into.append(await recv(ws, left))
        except TimeoutError:
            return


def test_a_page_never_keeps_a_seat_its_person_left(server: Server) -> None:
    host, mallory, other = Person(server, "Host"), Person(server, "Mallory"), Person(server, "Oli")
    room = host.create(levels="random")
    rid, invite = room["room"], key_of(room["invite"])
    assert mallory.join(rid, invite, seat=2).json()["seat"] == 2

    async def go() -> tuple[list[Msg], list[Msg], str]:
        async with mallory.connect() as ws_m, host.connect() as ws_h, other.connect() as ws_o:
            await ws_m.send(json.dumps({"type": "hello", "room": rid}))
            first = await until(ws_m, lambda m: m["type"] == "room")
            assert first["room"]["you"] == 2
            # Mallory leaves over HTTP with the page still open, and sits down again at 1.
            assert mallory.http.post(f"/api/rooms/{rid}/leave", json={}).status_code == 200
            left = await until(ws_m, lambda m: m["type"] == "room" and m["room"]["you"] is None)
            assert left["room"]["seats"][2]["kind"] == "empty"
            assert mallory.join(rid, invite, seat=1).json()["seat"] == 1
            assert other.join(rid, invite, seat=2).json()["seat"] == 2
            await until(ws_m, lambda m: m["type"] == "room" and m["room"]["you"] == 1)
            await ws_o.send(json.dumps({"type": "hello", "room": rid}))
            await ws_h.send(json.dumps({"type": "hello", "room": rid}))
            await until(ws_h, lambda m: m["type"] == "room")
            await ws_h.send(json.dumps({"type": "start"}))
            got_m: list[Msg] = []
            got_o: list[Msg] = []
            state = await until(ws_m, lambda m: m["type"] == "state", into=got_m)
            await until(ws_o, lambda m: m["type"] == "state", into=got_o)
            # The old page sees seat 1, Mallory's seat now: never seat 2's hand.
            assert state["view"]["seat"] == 1
            # A card of seat 2's, sent from Mallory's page, is refused: the page plays 1.
            game_id = state["room"] if "room" in state else None
            await drain(ws_m, got_m, 1.0)
            await drain(ws_o, got_o, 0.2)
            return got_m, got_o, game_id or ""

    got_m, got_o, _ = asyncio.run(go())
    snap = host.http.get(f"/api/rooms/{rid}").json()
    game, deals = stored_game(server.db, snap["game"])
    assert hidden_cards_seen(got_m, 1, deals) == set()
    assert all(f["view"]["seat"] == 1 for f in views(got_m))
    assert all(f["view"]["seat"] == 2 for f in views(got_o))
    assert hidden_cards_seen(got_o, 2, deals) == set()


def test_a_removed_person_plays_no_more_from_any_page(server: Server) -> None:
    host, guest = Person(server, "Host"), Person(server, "Guest")
    room = host.create(levels="random")
    rid, invite = room["room"], key_of(room["invite"])
    assert guest.join(rid, invite, seat=2).json()["seat"] == 2

    async def go() -> tuple[list[Msg], list[Msg], str]:
        async with host.connect() as ws_h, guest.connect() as ws_room, guest.connect() as ws_g:
            await ws_h.send(json.dumps({"type": "hello", "room": rid}))
            await ws_room.send(json.dumps({"type": "hello", "room": rid}))
            await until(ws_h, lambda m: m["type"] == "room")
            await ws_h.send(json.dumps({"type": "start"}))
            game_id = (await until(ws_h, lambda m: m["type"] == "room" and m["room"]["game"]))[
                "room"
            ]["game"]
            # The guest's second page: a plain game socket on the room's game.
            await ws_g.send(json.dumps({"type": "hello", "game": game_id}))
            hello = await until(ws_g, lambda m: m["type"] == "state")
            assert hello["view"]["seat"] == 2
            await ws_h.send(json.dumps({"type": "remove", "seat": 2}))
            got_room: list[Msg] = []
            # The plain page now watches: a spectator's state, no hand, then the event that
            # a computer has the seat, seen as a spectator.
            watch = await until(ws_g, lambda m: m["type"] == "state")
            assert watch["view"]["seat"] is None and watch["view"]["hand"] == []
            got_g = [watch]  # from here on the page watches
            seat_event = await until(ws_g, is_event("seat", seat=2), into=got_g)
            assert seat_event["view"]["seat"] is None
            await until(ws_room, lambda m: m["type"] == "room" and m["room"]["you"] is None)
            # Whatever the pages send for seat 2 now is refused, and nothing is stored.
            deal_hand = hello["view"]["hand"]
            for card in deal_hand:
                for ws in (ws_g, ws_room):
                    await ws.send(json.dumps({"type": "play", "card": card, "version": 1}))
            refusals: list[Msg] = []
            for ws, into in ((ws_g, got_g), (ws_room, got_room)):
                await drain(ws, into, 1.5)
                refusals += [m for m in into if m["type"] == "error"]
            codes = {m["code"] for m in refusals}
            assert codes and codes <= {"not-seated"}, codes
            await ws_room.send(json.dumps({"type": "chat", "text": "still here?"}))
            said = await until(ws_room, lambda m: m["type"] == "error")
            assert said["code"] == "not-seated"
            return got_g, got_room, game_id

    got_g, got_room, game_id = asyncio.run(go())
    con = sqlite3.connect(server.db)
    try:
        removed_at = con.execute(
            "SELECT version FROM game_events WHERE game_id = ? AND kind = 'seat'", (game_id,)
        ).fetchone()
        by_person = con.execute(
            "SELECT COUNT(*) FROM actions WHERE game_id = ? AND seat = 2 AND kind = 'play' "
            "AND actor = 'person'",
            (game_id,),
        ).fetchone()[0]
    finally:
        con.close()
    assert removed_at is not None
    assert by_person == 0  # the guest never played: every seat-2 card since is a computer's
    _, deals = stored_game(server.db, game_id)
    after = [f for f in got_g + got_room if f.get("view")]
    assert hidden_cards_seen(after, None, deals) == set()
