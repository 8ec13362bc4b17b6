"""``lockup play --server URL``: a seat at a ``lockup serve`` table, in the terminal.

The client speaks the page's protocol (docs/web-protocol.md) and nothing more: it gets a
player cookie (``GET /``), takes its seat over HTTP (a room's invite, or the player's own
game against the bots), opens ``/ws`` with the cookie and an ``Origin`` of the server's
own address, says ``hello`` and shows the ``state`` and ``event`` frames' views. It sends
``play`` and ``hint`` with the version on screen, and ``start`` for a room's host. Every
rule is the server's: a refused card shows the ``error`` frame's reason.

URLs: ``http://HOST:PORT/room/ID?invite=KEY`` (a seat in a room),
``http://HOST:PORT/watch/ID?key=KEY`` (a spectator) or ``http://HOST:PORT/`` (the
player's own game at that server, against its bots).

Quick play (``lockup play --quick``): ``POST /api/quickplay`` with the person's name
gives a seat at a table of people and its invite link; from there it is a room's seat.
While the table waits, the terminal says who is there and counts down to the computers
taking the empty seats (the room frames' ``starts_in``); quitting before the start gives
the seat up (``POST /api/rooms/{id}/leave``).

Identity (:mod:`.identity`): every request and the WebSocket carry the terminal's own
cookies of that server, its guest token ``lockup_player`` (kept between runs, so quick
play answers the seat it holds) and, after ``lockup login``, ``lockup_session``. A person
to play has a turn clock (``clock`` frames), counted down on the status line; at the end
of a rated game the rating's change is shown (``GET /api/ratings/me``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from dataclasses import dataclass, replace
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

import httpx
import websockets

from .driver import Driver
from .identity import Identity
from .words import card, number, shown, tr

RETRIES = 5
"""How many times a dropped connection is opened again (with hello and the last version)."""
RATING_POLLS = (0.3, 0.5, 1.0, 1.5, 2.0)
"""Pauses between looks for a finished game's rating change (it is computed a moment after
the game's end)."""
PINNED = 6.0
"""Seconds a line about a seat's clock or its abandonment stays above what happens next."""
ABANDON_WHY = ("timeouts", "gone", "left")
"""Why a seat was abandoned, as ``abandon`` events say."""


@dataclass(frozen=True)
class Target:
    """Where a ``--server`` URL leads."""

    base: str
    """``http://host:port``: the server's origin."""
    kind: Literal["game", "room", "watch"]
    room: str | None = None
    key: str | None = None

    @property
    def ws_url(self) -> str:
        return "ws" + self.base[len("http") :] + "/ws"

    @classmethod
    def parse(cls, url: str) -> Target:
        """Read a server address, an invite link or a watch link; ValueError otherwise."""
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"--server must be an http:// or https:// address, not {url!r}")
        base = f"{parts.scheme}://{parts.netloc}"
        query = parse_qs(parts.query)
        segments = [s for s in parts.path.split("/") if s]
        if not segments:
            return cls(base, "game")
        if len(segments) == 2 and segments[0] == "room":
            invite = query.get("invite", [None])[0]
            return cls(base, "room", segments[1], invite)
        if len(segments) == 2 and segments[0] == "watch":
            key = query.get("key", [None])[0]
            if not key:
                raise ValueError("a watch link needs its ?key=")
            return cls(base, "watch", segments[1], key)
        raise ValueError(
            f"{url!r} is not a server's address, a room's invite link (/room/ID?invite=KEY) "
            "or a watch link (/watch/ID?key=KEY)"
        )


class RemoteDriver(Driver):
    """A table of a ``lockup serve``, played over its WebSocket."""

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        quick: bool = False,
        identity: Identity | None = None,
    ) -> None:
        super().__init__()
        self.target = Target.parse(url)
        self.identity = identity if identity is not None else Identity(self.target.base)
        """The cookies sent to the server (a fresh guest's, kept nowhere, unless given)."""
        if quick and self.target.kind != "game":
            raise ValueError(
                "--quick takes the server's address (http://HOST:PORT), not a room's or a "
                "watch link"
            )
        self.quick = quick
        self.name = name
        self.starts_at: float | None = None
        """When (the event loop's clock) the waiting quick table starts."""
        self._ticker: asyncio.Task[None] | None = None
        self._left = False
        self.version = 0
        self.players: list[str] | None = None
        self.room: dict[str, Any] | None = None
        self.view: dict[str, Any] | None = None
        self.gone: set[int] = set()
        """The seats whose person left this game (ranked last at its end): the room's
        ``left`` and the ``abandon`` events since."""
        self.ws: Any = None
        self.closed = False
        self._tasks: set[asyncio.Task[None]] = set()
        self.clock_seat: int | None = None
        """The seat whose turn clock runs now (None: none runs)."""
        self._pinned: tuple[str, float] | None = None
        self._problem_said = False
        self.rating_line: str | None = None
        """What the end of a rated game said about the person's rating."""
        host = urlsplit(self.target.base).netloc
        self.title = {
            "game": tr("title.game", host=host),
            "room": tr("title.room", room=self.target.room),
            "watch": tr("title.watch", room=self.target.room),
        }[self.target.kind]
        if quick:
            self.title = tr("title.quick", host=host)

    def reach(self, timeout: float = 10.0) -> str | None:
        """Whether the server answers (``GET /``): None, or why it cannot be reached."""
        try:
            with self.identity.sync_client(self.target.base, timeout) as http:
                http.get("/")
        except httpx.HTTPError as e:
            return f"cannot reach {self.target.base}: {e or type(e).__name__}"
        return None

    def _fail(self, reason: str) -> None:
        """Give up: the app closes and ``lockup play`` says why (exit status 1)."""
        self.failure = reason
        self.app.exit(return_code=1)

    async def start(self) -> None:
        base = self.target.base
        self._say(tr("quick.asking", base=base) if self.quick else tr("say.connecting", base=base))
        self.app.run_worker(self._run(), group="remote", exclusive=True)

    # ---------------------------------------------------------------- connection

    async def _join(self, http: httpx.AsyncClient) -> dict[str, Any] | None:
        """Get the cookie and a seat; the hello to send, or None (the reason is shown)."""
        await http.get("/")
        if self.identity.session:
            await self._check_session(http)
        self._say_problem()
        if self.quick:
            return await self._quick(http)
        t = self.target
        if t.kind == "room":
            body: dict[str, Any] = {"invite": t.key}
            if self.name:
                body["name"] = self.name
            r = await http.post(f"/api/rooms/{t.room}/join", json=body)
            if r.status_code != 200:
                self._fail(f"could not join the room: {_reason(r)}")
                return None
            return {"type": "hello", "room": t.room, "since": 0}
        if t.kind == "watch":
            return {"type": "hello", "room": t.room, "watch": t.key, "since": 0}
        if self.name:
            await http.post("/api/profile", json={"name": self.name})
        r = await http.get("/api/game")
        if r.status_code != 200:
            self._fail(f"no game at {self.target.base}: {_reason(r)}")
            return None
        return {"type": "hello", "game": r.json()["game"], "since": 0}

    async def _check_session(self, http: httpx.AsyncClient) -> None:
        """A kept sign-in the server no longer knows (``GET /api/account`` answers a
        guest, ``{"name": null}``) is forgotten, and the person told they play as a guest."""
        r = await http.get("/api/account")
        if r.status_code == 200 and r.json().get("name") is None:
            self.identity.signed_out()
            self._pin(tr("say.signedOut", base=self.target.base))

    def _say_problem(self) -> None:
        """Say once that the config folder cannot keep the terminal's identity."""
        store = self.identity.store
        if store is not None and store.problem and not self._problem_said:
            self._problem_said = True
            self._pin(tr("say.noConfig", problem=store.problem))

    async def _quick(self, http: httpx.AsyncClient) -> dict[str, Any] | None:
        """A seat at a quick-play table (``POST /api/quickplay``); then a room's hello."""
        r = await http.post("/api/quickplay", json={"name": self.name} if self.name else {})
        if r.status_code != 200:
            if _code(r) == "name-needed":
                self._fail(
                    "the server needs your name at the table: lockup play --quick --name NAME"
                )
            else:
                self._fail(f"no table of people at {self.target.base}: {_reason(r)}")
            return None
        data = r.json()
        invite = Target.parse(str(data["invite"]))
        self.target = replace(invite, base=self.target.base)
        self._set_start(data.get("starts_in"))
        return {"type": "hello", "room": self.target.room, "since": 0}

    async def _run(self) -> None:
        async with self.identity.client(self.target.base, 20) as http:
            try:
                hello = await self._join(http)
            except httpx.HTTPError as e:
                self._fail(f"cannot reach {self.target.base}: {e or type(e).__name__}")
                return
        if hello is None:
            return
        for attempt in range(RETRIES + 1):
            headers = {"Origin": self.target.base}
            cookie = self.identity.cookie_header()
            if cookie:
                headers["Cookie"] = cookie
            try:
                async with websockets.connect(
                    self.target.ws_url, additional_headers=headers, max_queue=None
                ) as ws:
                    self.ws = ws
                    await ws.send(json.dumps({**hello, "since": self.version}))
                    if attempt:
                        self._say(tr("say.connectedAgain"))
                    async for raw in ws:
                        try:
                            self._frame(json.loads(raw))
                        except (ValueError, KeyError, TypeError, IndexError) as e:
                            self._say(tr("say.badFrame", error=repr(e)))
            except (OSError, websockets.WebSocketException) as e:
                if self.closed:
                    return
                self._say(tr("say.connectionLost", error=e))
            finally:
                self.ws = None
            if self.closed:
                return
            await asyncio.sleep(min(0.5 * 2**attempt, 5.0))
        self._fail(f"lost the connection to {self.target.base} ({RETRIES} tries to reconnect)")

    def _send(self, msg: dict[str, Any]) -> None:
        ws = self.ws
        if ws is None:
            self._say(tr("say.notConnected"))
            return
        task = asyncio.get_running_loop().create_task(ws.send(json.dumps(msg)))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---------------------------------------------------------------- frames

    def _name(self, seat: int | None) -> str:
        if seat is None:
            return tr("nobody")
        return shown((self.players or self.app.players)[seat])

    def _frame(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "state":
            first = self.view is None
            self.version = msg["version"]
            self.players = msg.get("players") or self.players
            self._show(msg["view"])
            self._clock(msg.get("clock"))
            if first:
                seat = msg["view"].get("seat")
                self._say(
                    tr("say.watching") if seat is None else tr("say.seated", name=self._name(seat))
                )
        elif kind == "event":
            v = msg["version"]
            if v <= self.version:
                return
            if v > self.version + 1:  # a gap: ask for what was missed
                self._send({"type": "hello", **self._where(), "since": self.version})
                return
            self.version = v
            self._show(msg["view"])
            self._event(msg["event"])
        elif kind == "skip":
            if msg["version"] == self.version + 1:
                self.version = msg["version"]
        elif kind == "error":
            if msg.get("code") == "stale":
                self._send({"type": "hello", **self._where(), "since": self.version})
            self.app.show_refusal(msg)
        elif kind == "hint":
            if msg.get("version") == self.version:
                self.app.show_hint([(x["card"], float(x["value"])) for x in msg["values"]])
        elif kind == "room":
            self._room(msg["room"])
        elif kind == "clock":
            self._clock(msg.get("clock"))

    def _clock(self, clock: Any) -> None:
        """A turn clock started (``{"seat", "seconds", "limit"}``), or none runs (None):
        the app counts it down on the status line."""
        if isinstance(clock, dict) and isinstance(clock.get("seat"), int):
            self.clock_seat = int(clock["seat"])
            self.app.show_clock(self.clock_seat, float(clock.get("seconds") or 0.0))
        else:
            self.clock_seat = None
            self.app.show_clock(None)

    def _where(self) -> dict[str, Any]:
        t = self.target
        if t.kind == "game":
            return {}
        where: dict[str, Any] = {"room": t.room}
        if t.kind == "watch":
            where["watch"] = t.key
        return where

    def _show(self, view: dict[str, Any]) -> None:
        self.view = view
        self.app.show_view(view, self.players)

    def _event(self, ev: dict[str, Any]) -> None:
        k = ev.get("kind")
        seat = ev.get("seat")
        gone = k in ("takeover", "seat", "abandon") and seat == self.clock_seat
        if k == "play" or gone:
            timed_out = k == "play" and ev.get("by") == "computer" and seat == self.clock_seat
            self._clock(None)  # the next person's clock comes in a frame of its own
            if timed_out:
                self._pin(tr("say.outOfTime", name=self._who(seat), card=card(ev["card"])))
        if k == "deal":
            if ev["hand"] == 0:  # a new game: nobody has left it
                self.gone.clear()
            self._say(tr("say.deal", n=ev["hand"] + 1, name=self._name(ev["dealer"])))
        elif k == "discard":
            self._say(tr("say.discard", card=card(ev["card"]), name=self._name(ev["seat"])))
        elif k == "trick":
            who = self._name(ev["winner"])
            if ev.get("lock"):
                self._say(tr("say.trickLock", name=who, n=ev["lock"]))
            else:
                self._say(tr("say.trick", name=who))
        elif k == "hand":
            winner = self.view.get("winner") if self.view else None
            # the server deals the next hand
            self.app.show_summary(ev["summary"], winner, deals=False, left=sorted(self.gone))
        elif k == "over":
            self._clock(None)
            self._say(tr("say.over", name=self._name(ev["winner"])))
            self._rating()
        elif k == "chat":
            self._say(f"{self._name(ev['seat'])}: {ev['text']}")
        elif k == "react":
            self._say(f"{self._name(ev['seat'])}: {ev['reaction']}")
        elif k in ("takeover", "seat"):
            self._say(tr("say.takeover", name=self._name(ev["seat"])))
        elif k == "reclaim":
            self._say(tr("say.back", name=self._name(ev["seat"])))
        elif k == "abandon":
            if isinstance(seat, int):
                self.gone.add(seat)
            why = ev.get("why")
            line = tr(f"abandon.{why if why in ABANDON_WHY else 'other'}", name=self._who(seat))
            if seat is not None and seat == self._seat() and self._rated():
                if self.identity.session:  # a guest is not rated, so not ranked either
                    line += tr("abandon.last")
            self._pin(line)

    def _who(self, seat: int | None) -> str:
        """A seat's name, "You" for the person's own (the sentence agrees with it)."""
        return tr("you") if seat is not None and seat == self._seat() else self._name(seat)

    def _seat(self) -> int | None:
        """The person's seat (None: a spectator, or nothing shown yet)."""
        return None if self.view is None else self.view.get("seat")

    def _rated(self) -> bool:
        """Whether the room's games are rated."""
        return bool(((self.room or {}).get("options") or {}).get("rated"))

    def _say(self, text: str) -> None:
        """Say a line; a pinned line (a clock ran out, a seat abandoned) stays above it
        for :data:`PINNED` seconds."""
        pinned = self._pinned
        if pinned is not None and asyncio.get_running_loop().time() < pinned[1]:
            text = f"{pinned[0]}\n{text}"
        self.app.say(text)

    def _pin(self, text: str) -> None:
        """Say ``text`` and keep it above the next lines for a while."""
        self._pinned = (text, asyncio.get_running_loop().time() + PINNED)
        self.app.say(text)

    # ---------------------------------------------------------------- rating

    def _rating(self) -> None:
        """The end of a rated game at the person's seat: their rating's change (looked
        for a few times: it is computed a moment after the end), or why there is none."""
        if not self._rated() or self._seat() is None:
            return
        over = tr("say.over", name=self._name((self.view or {}).get("winner")))
        if not self.identity.session:
            self.rating_line = tr("rating.guest")
            self._say(f"{over}\n{self.rating_line}")
            return
        game = (self.room or {}).get("game")
        task = asyncio.get_running_loop().create_task(self._poll_rating(game, over))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _poll_rating(self, game: Any, over: str) -> None:
        line = tr("rating.later")
        async with self.identity.client(self.target.base, 5) as http:
            for pause in RATING_POLLS:
                await asyncio.sleep(pause)
                if self.closed:
                    return
                try:
                    r = await http.get("/api/ratings/me")
                    history = r.json().get("history") if r.status_code == 200 else None
                except (httpx.HTTPError, ValueError, AttributeError):
                    continue
                found = _rating_of(history, game)
                if found is not None:
                    line = found
                    break
        self.rating_line = line
        self._say(f"{over}\n{line}")

    def _room(self, room: dict[str, Any]) -> None:
        self.room = room
        left = room.get("left")
        self.gone = {s for s in left if s in range(4)} if isinstance(left, list) else set()
        seats = room.get("seats") or []
        if len(seats) == 4:
            names = [shown(s.get("name") or tr("say.seatN", n=s["seat"])) for s in seats]
            if self.players is None or room.get("status") == "open":
                self.players = names
                self.app.players = names
        rated = tr("title.rated")
        if (room.get("options") or {}).get("rated") and not self.title.endswith(rated):
            self.title += rated
        self.app.refresh_bindings()  # the host's start, before the game
        if self.quick or (room.get("options") or {}).get("quick"):
            self.quick = True
            self._set_start(room.get("starts_in") if room.get("status") == "open" else None)
            return
        if room.get("status") == "open":
            people = sum(1 for s in seats if s.get("kind") == "person")
            if self.can_start():
                self._say(tr("say.waitHost", n=people))
            else:
                self._say(tr("say.waitGuest", n=people))

    # ---------------------------------------------------------------- quick play

    def _set_start(self, starts_in: Any) -> None:
        """A waiting quick table's start (``starts_in`` seconds from now; None: no wait):
        the waiting line is said now and every second until then."""
        loop = asyncio.get_running_loop()
        if isinstance(starts_in, int | float) and not isinstance(starts_in, bool):
            self.starts_at = loop.time() + max(0.0, float(starts_in))
        else:
            self.starts_at = None
        if self.starts_at is not None and self.room is not None:
            self._say_waiting()
        if self.starts_at is not None and self._ticker is None:
            self._ticker = loop.create_task(self._tick())
        elif self.starts_at is None and self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    async def _tick(self) -> None:
        while self.starts_at is not None:
            await asyncio.sleep(1.0)
            if self.starts_at is not None and self.room is not None:
                self._say_waiting()

    def _say_waiting(self) -> None:
        """Who is at the waiting table, and the countdown to the computers."""
        room = self.room or {}
        seats = room.get("seats") or []
        you = room.get("you")
        names = [
            shown(s.get("name") or tr("say.seatN", n=s["seat"]))
            + (tr("you.mark") if s["seat"] == you else "")
            for s in seats
            if s.get("kind") == "person"
        ]
        empty = sum(1 for s in seats if s.get("kind") == "empty")
        left = 0.0 if self.starts_at is None else self.starts_at - asyncio.get_running_loop().time()
        n = max(0, math.ceil(left - 1e-9))
        if not empty:
            self._say(tr("quick.full"))
        elif n <= 0:
            self._say(tr("quick.starting", names=", ".join(names)))
        else:
            key = "quick.waitOne" if empty == 1 else "quick.wait"  # the seats, not counted
            self._say(tr(key, names=", ".join(names), n=n))

    async def _leave(self) -> None:
        """Quitting at a quick table before its start gives the seat up."""
        room = self.room
        if self._left or not self.quick or room is None or room.get("status") != "open":
            return
        if room.get("you") is None or not self.identity.player:
            return
        self._left = True
        with contextlib.suppress(httpx.HTTPError):
            async with self.identity.client(self.target.base, 5) as http:
                await http.post(f"/api/rooms/{room['id']}/leave", json={})

    # ---------------------------------------------------------------- the person

    def play(self, code: str) -> None:
        self._send({"type": "play", "card": code, "version": self.version})

    def hint(self) -> None:
        self._say(tr("say.thinking"))
        self._send({"type": "hint", "version": self.version})

    def start_game(self) -> None:
        self._send({"type": "start"})

    def can_start(self) -> bool:
        """The person is the host of a room that waits for its start (a quick table
        starts by itself)."""
        room = self.room
        if self.quick or room is None or room.get("status") != "open":
            return False
        return room.get("you") is not None and room.get("you") == room.get("host")

    async def stop(self) -> None:
        self.closed = True
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        self.starts_at = None
        for task in list(self._tasks):
            task.cancel()
        await self._leave()
        ws = self.ws
        if ws is not None:
            await ws.close()


def _rating_of(history: Any, game: Any) -> str | None:
    """The line about ``game``'s entry of ``GET /api/ratings/me``'s history, or None when
    it is not there (yet)."""
    if not isinstance(history, list) or not game:
        return None
    for entry in reversed(history):
        if not isinstance(entry, dict) or entry.get("game") != game:
            continue
        before, after, change = entry.get("before"), entry.get("after"), entry.get("change")
        if not entry.get("rated") or not all(isinstance(x, int | float) for x in (before, after)):
            return tr("rating.unchanged")
        if not isinstance(change, int | float):
            change = float(after) - float(before)  # type: ignore[arg-type]
        return tr(
            "rating.change",
            before=number(float(before)),  # type: ignore[arg-type]
            after=number(float(after)),  # type: ignore[arg-type]
            change=number(float(change), sign=True),
        )
    return None


def _code(r: httpx.Response) -> str | None:
    """The ``error`` code of a refusal, if it has one."""
    try:
        data = r.json()
    except ValueError:
        return None
    return str(data.get("error")) if isinstance(data, dict) and data.get("error") else None


def _reason(r: httpx.Response) -> str:
    try:
        data = r.json()
    except ValueError:
        return f"HTTP {r.status_code}"
    if isinstance(data, dict):
        return str(data.get("reason") or data.get("error") or f"HTTP {r.status_code}")
    return f"HTTP {r.status_code}"
