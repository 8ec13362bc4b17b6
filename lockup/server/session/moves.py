"""Moves and events: each made by the engine, stored, then published to every viewer."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ...cards import Card, card_str
from ...record import dumps
from ..protocol import (
    CLOSE_RESTART,
    CLOSE_TRY_LATER,
    SPECTATOR,
    UNAVAILABLE,
    UNAVAILABLE_REASON,
    GameEvent,
    error_frame,
    event_frame,
    note_event,
    skip_frame,
    to_json,
)
from ..store import (
    ActionRow,
    LeaseLost,
    Store,
    StoreError,
    WriteOp,
)
from ..views import move_events
from .clock import Clock

if TYPE_CHECKING:
    from .game import GameSession
    from .seat import Subscriber


log = logging.getLogger("lockup.server")


@dataclass(frozen=True)
class _Frames:
    """Frames of ``count`` consecutive events, by viewer (a seat or the spectators)."""

    count: int
    frames: dict[int, list[str]]


@dataclass(frozen=True)
class _Made:
    """An action the engine made and the server has not stored yet (:meth:`Moves._make`)."""

    row: ActionRow
    ops: tuple[WriteOp, ...]
    """What else its write does (the game's end)."""
    frames: _Frames
    finished: bool
    """Whether it ended the game."""


class Moves(Clock):
    """Making an action or an event: stored first, then published to every viewer."""

    async def note(
        self, kind: str, seat: int, data: dict[str, Any], *, players_only: bool = False
    ) -> None:
        """Store and publish an event that is not a move (call it holding :attr:`lock`):
        ``chat``, ``react``, ``takeover``, ``reclaim``, ``seat``. ``players_only`` hides it
        from spectators (they get a ``skip`` of its version)."""
        version = self.version + 1
        await self._write(Store.op_event(self.id, version, kind, seat, to_json(data)))
        self._publish([note_event(kind, seat, data)], moved=False, players_only=players_only)

    def _publish(
        self, events: Sequence[GameEvent], *, moved: bool = True, players_only: bool = False
    ) -> None:
        """Send stored events to every viewer (each human seat and the spectators), each
        with its own view; an event hidden from a viewer is a ``skip`` of its version, so
        every viewer's versions stay consecutive. ``moved``: the events change the game
        (a move); events that do not (chat) leave a card's version valid."""
        self._deliver(self._frames(events, self.version, players_only=players_only), moved=moved)

    def _frames(
        self, events: Sequence[GameEvent], last: int, *, players_only: bool = False
    ) -> _Frames:
        """The frames of ``events``, the first of version ``last + 1``, for every viewer,
        each event with the viewer's view of the game as it is now."""
        encoded = [to_json(ev) for ev in events]
        frames: dict[int, list[str]] = {}
        for seat in self.histories:
            if players_only and seat == SPECTATOR:
                frames[seat] = [skip_frame(last + i + 1) for i in range(len(encoded))]
                continue
            view = to_json(self.view_of(seat))
            frames[seat] = [event_frame(last + i + 1, ev, view) for i, ev in enumerate(encoded)]
        return _Frames(len(encoded), frames)

    def _deliver(self, made: _Frames, *, moved: bool = True) -> None:
        """Keep and send frames made by :meth:`_frames` for the versions after
        :attr:`version`, and move :attr:`version` on past them."""
        for seat, texts in made.frames.items():
            history = self.histories[seat]
            subs = [s for s in self.subscribers if s.seat == seat]
            for i, text in enumerate(texts):
                history.add(self.version + i + 1, text)
                for sub in subs:
                    sub.send(text)
        if moved:
            self.stable_since = self.version + 1
        self.version += made.count

    async def _write(
        self, *ops: WriteOp, actions: tuple[str, list[ActionRow]] | None = None
    ) -> None:
        """Store a change of this game, under its lease when it has one."""
        await self.service.store.write(*ops, actions=actions, lease=self.lease)

    async def _apply(
        self,
        kind: str,
        seat: int,
        card: Card = -1,
        deal: list[list[Card]] | None = None,
        before: tuple[WriteOp, ...] = (),
        actor: str | None = None,
    ) -> None:
        """Make one action (engine-checked by the caller), store it, then publish it.
        ``actor``: who chose a card, ``person`` or ``computer`` (stored with it)."""
        await self._store([self._make(kind, seat, card, deal, actor)], before)

    def _make(
        self,
        kind: str,
        seat: int,
        card: Card = -1,
        deal: list[list[Card]] | None = None,
        actor: str | None = None,
        pending: Sequence[_Made] = (),
    ) -> _Made:
        """Make one action in the engine (checked by the caller) and build its row and
        frames, to be stored and published by :meth:`_store`, after the ``pending``
        actions made before it and not yet stored."""
        g = self.game
        tricks_before = len(g.tricks)
        summaries_before = len(g.summaries)
        was_over = g.is_over
        if kind == "deal":
            assert deal is not None
            g.deal(deal)
            tricks_before = 0
            row_seat = g.dealer
            data = json.dumps([[card_str(c) for c in cs] for cs in deal])
        else:
            if kind == "play":
                g.play(card, seat)
            else:
                g.discard(card, seat)
            row_seat = seat
            data = card_str(card)
        self.unstored += 1
        events = move_events(
            g,
            kind,
            seat,
            card,
            # a computer played for a person
            by_computer=kind == "play" and actor == "computer" and self.seats[seat].kind == "human",
            tricks_before=tricks_before,
            summaries_before=summaries_before,
            was_over=was_over,
        )
        finish: tuple[WriteOp, ...] = ()
        if g.is_over and not was_over:
            assert g.winner is not None
            finish = (Store.op_finish(self.id, g.winner, dumps(g, self.names)),)
        last = self.version + sum(m.frames.count for m in pending)
        seq = self.seq + len(pending)
        row = ActionRow(seq, kind, row_seat, data, last + len(events), actor)
        return _Made(row, finish, self._frames(events, last), bool(finish))

    async def _store(self, made: Sequence[_Made], before: tuple[WriteOp, ...] = ()) -> None:
        """Store actions made by :meth:`_make` in one write, then publish them in order.
        If the store refuses them, this copy of the game is dropped (:meth:`_break`): what
        the engine made was never shown, and the stored game is loaded again."""
        ops = tuple(op for m in made for op in m.ops)
        try:
            await self._write(*before, *ops, actions=(self.id, [m.row for m in made]))
        except StoreError as e:
            self._break(e)
            raise
        self.unstored = 0
        self.seq += len(made)
        self.last_active = time.monotonic()
        self._stop_clock()
        for m in made:
            self._deliver(m.frames)
        self._start_clock()
        joining, self._joining = self._joining, {}
        for sub, since in joining.items():  # pages that joined during the write
            self.join(sub, since)
        if any(m.finished for m in made):
            self._changed()
            # Only a room's game may be rated: a solo game's end costs no database read.
            if self.service.on_finish is not None and self.room_id is not None:
                self.service.on_finish(self.id)

    def join(self, sub: Subscriber, since: int) -> None:
        """Subscribe a page (see :meth:`~.presence.Presence.join`)."""
        raise NotImplementedError

    def _break(self, cause: StoreError) -> None:
        """The store refused a change the engine had made: drop this copy of the game.

        Subscribers are told and disconnected; they reconnect and get the stored game
        back: at once when another process took the game over (:data:`CLOSE_RESTART`),
        with back-off and "saving is paused" while the database is down
        (:data:`UNAVAILABLE`, :data:`CLOSE_TRY_LATER`).
        """
        log.error("game %s: storing failed (%s); reloading it from the database", self.id, cause)
        self.closed = True
        self.service.forget(cast("GameSession", self))
        moved = isinstance(cause, LeaseLost)
        frame = error_frame(UNAVAILABLE, UNAVAILABLE_REASON, self.version)
        for sub in [*self.subscribers, *self._joining]:
            if not moved:
                sub.send(frame)
            sub.close(CLOSE_RESTART if moved else CLOSE_TRY_LATER)
        self.subscribers.clear()
        self._joining.clear()
