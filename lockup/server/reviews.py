"""Review, history and statistics: what a player may look back on.

- **History**: every game a player took part in (``participants``), newest first, with its
  players, levels, rules and result.
- **Review**: a game's finished hands (all of them once it is over) as a record, with the
  engine's tricks and hand summaries, and the expert's analysis of the player's cards
  (:mod:`lockup.analysis`), run once in the background and stored (``analyses``).
- **Uploads**: a ``lockup-record/1`` file from elsewhere, checked by replaying it, stored
  as a finished game the player may review.
- **Statistics**: per game and in all, separated by level and rules; games where a
  computer played for the player are left out.

A finished hand hides nothing: every card of it has been played or taken by lockup, all
in public. So a review during a game shows only finished hands, and the current hand
stays the server's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, select, update
from sqlalchemy.engine import Connection

from ..engine import DEFAULT_PLAYERS, Game
from ..record import FORMAT, from_record, parse_record, replay_steps
from .protocol import ProtocolError
from .ratings import ABANDON
from .store import (
    GameRow,
    Store,
    StoreError,
    actions_table,
    analyses_table,
    game_events_table,
    games_table,
    participants_table,
    record_of,
    rooms_table,
)

log = logging.getLogger("lockup.server")

HISTORY_LIMIT = 200
"""The most games the history lists."""
MAX_UPLOAD = 256 * 1024
"""The largest record a player may upload, in bytes."""
MAX_JOBS = 16
"""Analyses waiting or under way at once, in the whole server; more are refused."""


def _looked_back_on(g: Any, p: Any) -> ColumnElement[bool]:
    """Whether a player took part in a game, so that their history lists it: a room's game
    (they took a seat), an uploaded record, or a game against computers that is over or
    where a person has played a card. The game the start page deals at once is not listed
    until a card of it is played ("play one at the table and it will be listed here"): a
    person who opens the start page and goes on to "Play people" never played it, and the
    purge deletes it later."""
    return or_(
        g.room_id.is_not(None),
        g.finished_at.is_not(None),
        g.played_at.is_not(None),
        p.uploaded.is_(True),
    )


def _kind(room_id: str | None, room_options: str | None, uploaded: bool) -> str:
    """What kind of game a history entry is: ``upload`` (a record brought in), ``solo``
    (against computers), ``quick`` (a quick-play table among strangers) or ``friends``
    (a room of people who were invited)."""
    if uploaded:
        return "upload"
    if room_id is None:
        return "solo"
    try:
        options = json.loads(room_options or "{}")
    except ValueError:
        options = {}
    return "quick" if isinstance(options, dict) and options.get("quick") is True else "friends"


def _now() -> datetime:
    return datetime.now(UTC)


def _iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.isoformat()


def replay_hands(record: dict[str, Any]) -> tuple[Game, list[list[dict[str, Any]]]]:
    """The game a record makes, and each finished hand's tricks as the engine saw them
    (:meth:`lockup.engine.Trick.to_dict` and the hand's index), replaying the record by
    :func:`lockup.record.replay_steps`."""
    parsed = parse_record(record)
    game = Game(parsed.rules, dealer=parsed.hands[0].dealer if parsed.hands else 0)
    out: list[list[dict[str, Any]]] = []
    for step in replay_steps(parsed, game):
        if step.kind == "end" and len(game.summaries) > len(out):
            out.append([{"hand": len(out), **t.to_dict()} for t in game.tricks])
    return game, out


def finished_part(record: dict[str, Any], hands_done: int) -> dict[str, Any]:
    """The record of the first ``hands_done`` hands (the finished ones)."""
    return {**record, "hands": record["hands"][:hands_done]}


class Reviews:
    """History, review, uploads, statistics and the analysis jobs of one server.

    Analyses run one at a time, driven from a thread of their own, their decisions
    searched in ``workers`` worker processes of their own at a lower CPU priority
    (:func:`lockup.analysis.analyse` with this executor): no search runs in the server's
    process, so an analysis never holds the event loop, and bots' moves come first.
    """

    def __init__(
        self,
        store: Store,
        workers: int = 1,
        iterations: int | None = None,
        analyse: Callable[..., Any] | None = None,
    ) -> None:
        self.store = store
        self.workers = workers
        self.iterations = iterations
        """Sampled deals per decision (None: the analysis's default)."""
        self._analyse = analyse
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lockup-analysis")
        self._procs: ProcessPoolExecutor | None = None
        self._procs_lock = threading.Lock()
        self._closed = False
        self._progress: dict[tuple[str, int], float] = {}
        self._jobs: dict[tuple[str, int], asyncio.Future[None]] = {}
        self._games: OrderedDict[str, tuple[dict[str, Any], Game, list[Any]]] = OrderedDict()

    def close(self) -> None:
        """Stop taking analyses (one under way is abandoned)."""
        self._thread.shutdown(wait=False, cancel_futures=True)
        with self._procs_lock:  # an analysis starting now makes no new pool (_executor)
            self._closed = True
            procs, self._procs = self._procs, None
        if procs is not None:
            from .pool import stop_process_pool

            stop_process_pool(procs)

    def _executor(self) -> ProcessPoolExecutor:
        """The analyses' worker processes (spawned, niced, each exits with the server)."""
        with self._procs_lock:
            if self._closed:
                raise RuntimeError("the server is stopping: no new analysis")
            if self._procs is None:
                from .pool import HINT_NICENESS, start_worker

                self._procs = ProcessPoolExecutor(
                    max_workers=self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=start_worker,
                    initargs=(os.getpid(), HINT_NICENESS),
                )
            return self._procs

    # ------------------------------------------------------------------ reading games

    async def _game(self, game_id: str) -> tuple[GameRow, dict[str, Any], Game, list[Any]] | None:
        """A stored game: header, record, the replayed game and its hands' tricks. Finished
        games are kept in a small cache (they never change)."""
        found = await self.store.load(game_id)
        if found is None:
            return None
        header, actions = found
        cached = self._games.get(game_id)
        if cached is not None and header.winner is not None:
            self._games.move_to_end(game_id)
            return header, *cached
        record = record_of(header, actions)
        game, tricks = replay_hands(record)
        if header.winner is not None:
            self._games[game_id] = (record, game, tricks)
            while len(self._games) > 256:
                self._games.popitem(last=False)
        return header, record, game, tricks

    async def _seat(self, game_id: str, player: str | None) -> tuple[int, bool] | None:
        """The player's seat in the game and whether they uploaded it, or None."""
        if player is None:
            return None

        def read(conn: Connection) -> Any:
            return conn.execute(
                select(participants_table.c.seat, participants_table.c.uploaded).where(
                    participants_table.c.player_id == player,
                    participants_table.c.game_id == game_id,
                )
            ).first()

        row = await self.store.read(read)
        return None if row is None else (int(row.seat), bool(row.uploaded))

    # ------------------------------------------------------------------ history

    async def history(self, player: str) -> list[dict[str, Any]]:
        """Every game ``player`` took part in, newest first (at most :data:`HISTORY_LIMIT`)."""

        def read(conn: Connection) -> Any:
            p, g = participants_table.c, games_table.c
            games = conn.execute(
                select(
                    g.id,
                    g.rules,
                    g.players,
                    g.seats,
                    g.created_at,
                    g.finished_at,
                    g.winner,
                    g.room_id,
                    p.seat,
                    p.uploaded,
                    rooms_table.c.options.label("room_options"),
                )
                .select_from(
                    participants_table.join(games_table, p.game_id == g.id).outerjoin(
                        rooms_table, rooms_table.c.id == g.room_id
                    )
                )
                .where(p.player_id == player, _looked_back_on(g, p))
                .order_by(g.created_at.desc())
                .limit(HISTORY_LIMIT)
            ).all()
            ids = [r.id for r in games]
            taken = {
                (r.game_id, r.seat)
                for r in conn.execute(
                    select(actions_table.c.game_id, actions_table.c.seat)
                    .where(actions_table.c.game_id.in_(ids), actions_table.c.actor == "computer")
                    .distinct()
                )
            }
            analyses = {
                (r.game_id, r.seat): r.status
                for r in conn.execute(
                    select(
                        analyses_table.c.game_id, analyses_table.c.seat, analyses_table.c.status
                    ).where(analyses_table.c.game_id.in_(ids))
                )
            }
            e = game_events_table.c
            left = {
                (r.game_id, r.seat)
                for r in conn.execute(
                    select(e.game_id, e.seat)
                    .where(e.game_id.in_(ids), e.kind == ABANDON, e.seat.is_not(None))
                    .distinct()
                )
            }
            # The seats people sat at: a computer that took one over (the person gone or
            # out of time) does not make its person a computer in the history.
            people = {
                (r.game_id, r.seat)
                for r in conn.execute(
                    select(p.game_id, p.seat).where(p.game_id.in_(ids), p.uploaded.is_(False))
                )
            }
            return games, taken, analyses, left, people

        games, taken, analyses, left, people = await self.store.read(read)
        out = []
        for r in games:
            totals: list[int] = []
            if r.winner is not None:
                got = await self._game(r.id)
                if got is not None:
                    totals = list(got[2].totals)
            place = None
            if totals:
                mine = totals[r.seat]
                place = 1 + sum(1 for t in totals if t > mine)
            key = (r.id, r.seat)
            out.append(
                {
                    "game": r.id,
                    "date": _iso(r.created_at),
                    "finished": _iso(r.finished_at),
                    "seat": r.seat,
                    "players": json.loads(r.players),
                    "seats": [
                        {"kind": "human", "level": None}
                        if (r.id, i) in people
                        else {
                            "kind": s.get("kind"),
                            "level": s.get("level") if s.get("kind") == "bot" else None,
                        }
                        for i, s in enumerate(json.loads(r.seats))
                    ],
                    "rules": json.loads(r.rules),
                    "room": r.room_id,
                    "kind": _kind(r.room_id, r.room_options, bool(r.uploaded)),
                    "result": {"winner": r.winner, "place": place, "totals": totals},
                    "takeover": key in taken,
                    "abandoned": key in left,
                    "uploaded": bool(r.uploaded),
                    "analysis": self._status(key, analyses.get(key)),
                }
            )
        return out

    def _status(self, key: tuple[str, int], stored: str | None) -> str:
        job = self._jobs.get(key)
        if job is not None and not job.done():
            return "running" if key in self._progress else "queued"
        return stored or "none"

    # ------------------------------------------------------------------ review

    async def review(self, game_id: str, player: str | None) -> dict[str, Any]:
        """A game's finished hands for one of its players: record, tricks, summaries and
        the analysis so far. Raises :class:`ProtocolError` (``no-game``, ``not-your-game``)."""
        seat = await self._seat(game_id, player)
        got = await self._game(game_id) if seat is not None else None
        if seat is None or got is None:
            raise ProtocolError("not-your-game", "Only a player of this game may review it.")
        header, record, game, tricks = got
        done = len(game.summaries)
        return {
            "game": game_id,
            "seat": seat[0],
            "players": header.players,
            "rules": header.rules,
            "over": game.is_over,
            "uploaded": seat[1],
            "record": finished_part(record, done),
            "tricks": tricks[:done],
            "summaries": [s.to_dict() for s in game.summaries],
            "analysis": await self.analysis(game_id, seat[0]),
        }

    # ------------------------------------------------------------------ analysis

    async def analysis(self, game_id: str, seat: int) -> dict[str, Any]:
        """The stored analysis of ``seat``'s play, or where the job is."""
        key = (game_id, seat)

        def read(conn: Connection) -> Any:
            return conn.execute(
                select(
                    analyses_table.c.status, analyses_table.c.hands, analyses_table.c.result
                ).where(analyses_table.c.game_id == game_id, analyses_table.c.seat == seat)
            ).first()

        row = await self.store.read(read)
        status = self._status(key, row.status if row is not None else None)
        result = (
            json.loads(row.result)
            if row is not None and row.result and row.status == "done"
            else None
        )
        progress = 1.0 if status == "done" else self._progress.get(key, 0.0)
        return {
            "status": status,
            "progress": round(progress, 3),
            "hands": row.hands if row is not None else 0,
            "result": result,
        }

    async def start_analysis(self, game_id: str, player: str | None) -> dict[str, Any]:
        """Analyse the player's cards in the game's finished hands (once: a stored analysis
        of as many hands is answered as it is)."""
        seat_info = await self._seat(game_id, player)
        got = await self._game(game_id) if seat_info is not None else None
        if seat_info is None or got is None:
            raise ProtocolError("not-your-game", "Only a player of this game may review it.")
        seat = seat_info[0]
        _, record, game, _ = got
        done = len(game.summaries)
        if done == 0:
            raise ProtocolError("no-hand-yet", "No hand of this game is finished yet.")
        key = (game_id, seat)
        current = await self.analysis(game_id, seat)
        if current["status"] in ("queued", "running"):
            return current
        if current["status"] == "done" and current["hands"] >= done:
            return current
        if len(self._jobs) >= MAX_JOBS:
            raise ProtocolError(
                "analysis-busy", "The server is busy with other analyses: try again later."
            )
        part = finished_part(record, done)
        await self.store.write(self._op_status(game_id, seat, done, "running", None))
        self._progress.pop(key, None)
        self._jobs[key] = asyncio.get_running_loop().create_task(self._run(key, part, done))
        return await self.analysis(game_id, seat)

    def _op_status(
        self, game_id: str, seat: int, hands: int, status: str, result: str | None
    ) -> Callable[[Connection], None]:
        def op(conn: Connection) -> None:
            values = {"hands": hands, "status": status, "result": result, "updated_at": _now()}
            done = conn.execute(
                update(analyses_table)
                .where(and_(analyses_table.c.game_id == game_id, analyses_table.c.seat == seat))
                .values(**values)
            ).rowcount
            if not done:
                conn.execute(analyses_table.insert().values(game_id=game_id, seat=seat, **values))

        return op

    async def _run(self, key: tuple[str, int], record: dict[str, Any], hands: int) -> None:
        game_id, seat = key
        loop = asyncio.get_running_loop()

        def progress(done: int, total: int) -> None:
            self._progress[key] = done / total if total else 1.0

        def work() -> dict[str, Any]:
            analyse = self._analyse
            if analyse is None:
                from ..analysis import analyse as analyse_fn

                analyse = analyse_fn
            self._progress[key] = 0.0
            budget = {} if self.iterations is None else {"iterations": self.iterations}
            result: Any = analyse(
                record, seat, progress=progress, executor=self._executor(), **budget
            )
            to_dict = getattr(result, "to_dict", None)
            out: dict[str, Any] = to_dict() if callable(to_dict) else dict(result)
            return out

        try:
            result = await loop.run_in_executor(self._thread, work)
            await self.store.write(
                self._op_status(game_id, seat, hands, "done", json.dumps(result))
            )
        except Exception as e:
            log.error("analysis of game %s seat %d failed: %r", game_id, seat, e)
            try:
                await self.store.write(self._op_status(game_id, seat, hands, "failed", None))
            except StoreError:
                pass
        finally:
            self._progress.pop(key, None)
            self._jobs.pop(key, None)

    # ------------------------------------------------------------------ uploads

    async def upload(self, player: str, data: Any, seat: int) -> str:
        """Store an uploaded record as a finished game of ``player`` at ``seat``; its id.
        Raises :class:`ProtocolError` (``bad-record``) with the record's fault."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ProtocolError("bad-record", f"The file is not a {FORMAT} record.")
        try:
            game = from_record(data)
        except ValueError as e:
            raise ProtocolError("bad-record", f"The record does not replay: {e}"[:300]) from None
        if not game.summaries:
            raise ProtocolError("bad-record", "The record holds no finished hand to review.")
        players = data.get("players")
        if not (
            isinstance(players, list)
            and len(players) == 4
            and all(isinstance(p, str) for p in players)
        ):
            players = list(DEFAULT_PLAYERS)
        game_id = secrets.token_urlsafe(9)
        hands = data["hands"]
        from ..cards import card_str, parse_card

        rows: list[dict[str, Any]] = []
        version = 0
        for hand in hands:
            version += 1
            deal = [[card_str(parse_card(c)) for c in cards] for cards in hand["deal"]]
            rows.append(
                {
                    "game_id": game_id,
                    "seq": len(rows),
                    "kind": "deal",
                    "seat": hand["dealer"],
                    "data": json.dumps(deal),
                    "version": version,
                    "actor": None,
                }
            )
            for ev in hand["events"]:
                version += 1
                kind = "play" if "play" in ev else "discard"
                rows.append(
                    {
                        "game_id": game_id,
                        "seq": len(rows),
                        "kind": kind,
                        "seat": ev["seat"],
                        "data": card_str(parse_card(ev[kind])),
                        "version": version,
                        "actor": None,
                    }
                )
        now = _now()
        winner = game.winner

        def op(conn: Connection) -> None:
            conn.execute(
                games_table.insert().values(
                    id=game_id,
                    rules=json.dumps(game.rules.to_dict()),
                    players=json.dumps([p[:40] for p in players], ensure_ascii=False),
                    seats=json.dumps([{"kind": "uploaded"}] * 4),
                    created_at=now,
                    updated_at=now,
                    finished_at=now,
                    winner=winner,
                )
            )
            conn.execute(actions_table.insert(), rows)
            conn.execute(
                participants_table.insert().values(
                    player_id=player, game_id=game_id, seat=seat, uploaded=True, created_at=now
                )
            )

        await self.store.write(op)
        return game_id

    # ------------------------------------------------------------------ statistics

    async def stats(self, player: str) -> dict[str, Any]:
        """The player's statistics over their finished games (see the module)."""
        games = await self.history(player)
        by_level: dict[str, dict[str, int]] = {}
        by_rules: dict[str, dict[str, int]] = {}
        series = []
        left_out = 0
        hands = tricks = locked = sat_out = 0
        accuracies: list[float] = []
        for g in reversed(games):  # oldest first
            if g["finished"] is None or g["uploaded"]:
                continue
            if g["takeover"]:
                left_out += 1
                continue
            got = await self._game(g["game"])
            if got is None:
                continue
            game = got[2]
            seat = g["seat"]
            n = len(game.summaries)
            if n == 0:
                continue
            t = sum(s.points[seat] for s in game.summaries)
            lk = sum(s.times_locked[seat] for s in game.summaries)
            so = sum(s.tricks_sat_out[seat] for s in game.summaries)
            hands += n
            tricks += t
            locked += lk
            sat_out += so
            won = game.winner == seat
            levels = sorted({s["level"] for s in g["seats"] if s["kind"] == "bot" and s["level"]})
            level = "/".join(levels) or "people"
            rules = g["rules"]
            rkey = f"{rules['picture_exception']}/{rules['lock_discards']}/{rules['target']}"
            for table, k in ((by_level, level), (by_rules, rkey)):
                entry = table.setdefault(k, {"games": 0, "wins": 0})
                entry["games"] += 1
                entry["wins"] += int(won)
            accuracy = None
            if g["analysis"] == "done":
                a = await self.analysis(g["game"], seat)
                if a["result"] is not None:
                    accuracy = a["result"].get("accuracy")
                    if isinstance(accuracy, int | float):
                        accuracies.append(float(accuracy))
            series.append(
                {
                    "date": g["date"],
                    "game": g["game"],
                    "level": level,
                    "rules": rkey,
                    "tricks_per_hand": round(t / n, 3),
                    "locked_per_hand": round(lk / n, 3),
                    "sat_out_per_hand": round(so / n, 3),
                    "accuracy": accuracy,
                    "won": won,
                }
            )
        return {
            "games": len(series),
            "left_out": left_out,
            "by_level": by_level,
            "by_rules": by_rules,
            "per_hand": {
                "tricks": round(tricks / hands, 3) if hands else None,
                "times_locked": round(locked / hands, 3) if hands else None,
                "sat_out": round(sat_out / hands, 3) if hands else None,
            },
            "accuracy": round(sum(accuracies) / len(accuracies), 1) if accuracies else None,
            "series": series,
        }
