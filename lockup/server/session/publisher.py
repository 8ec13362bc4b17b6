"""The publisher: a game's versioned frames for each viewer, their histories and the pages
that receive them.

Every event a game makes has a version, one more than the last. Each viewer (a person's
seat, and the spectators of a room's game) gets every version in order: the event with
that viewer's own view of the game, or a ``skip`` of the version when the event is
hidden from it (a chat, from the spectators). Each viewer's recent frames are kept in its
:class:`~.backlog.Backlog`, so a page that comes back is sent what it missed, or one
``state`` of the game.

A move's frames are made once: the views of all its viewers together (the public part
encoded once, see :class:`~lockup.server.views.Views`), each event encoded once, and each
viewer's frame as UTF-8 bytes, which are kept and sent to every page of that viewer (all
the spectators get the same bytes) as they are."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..protocol import (
    SPECTATOR,
    GameEvent,
    ProtocolError,
    clock_frame,
    event_bytes,
    skip_bytes,
    synced_frame,
    to_bytes,
)
from .backlog import Backlog
from .seat import Subscriber

ViewsOf = Callable[[Iterable[int]], dict[int, bytes]]
"""What each of some viewers (seats, or :data:`SPECTATOR`) may see of the game now, as
JSON text (:meth:`~lockup.server.views.Views.of_all`)."""


@dataclass(frozen=True)
class Frames:
    """Frames of ``count`` consecutive events, by viewer (a seat or the spectators)."""

    count: int
    frames: dict[int, list[bytes]]


class Publisher:
    """A game's versions, its viewers' histories, and the pages subscribed to them.

    ``views_of(viewers)``: what each viewer may see of the game now, sent with each event;
    ``version``: the last event's version so far; ``viewers``: the seats with a history
    (the people's); ``buffer_size``: how many frames each keeps at least."""

    def __init__(
        self,
        views_of: ViewsOf,
        version: int,
        viewers: Iterable[int],
        buffer_size: int,
    ) -> None:
        self.views_of = views_of
        self.version = version
        """The number of events this game has made (the last event's version)."""
        self.stable_since = min(version, 1)
        """The first version showing the current state: the events of one action (a card
        and the trick and hand it ends) all show the state after it."""
        self.buffer_size = buffer_size
        self.histories: dict[int, Backlog] = {s: Backlog(buffer_size) for s in viewers}
        self.subscribers: set[Subscriber] = set()
        self.waiting: dict[Subscriber, int] = {}
        """Pages that joined while a write was under way, with the version they had: they
        are sent the game once it is stored (:meth:`wait`, :meth:`take_waiting`)."""

    def open_to_spectators(self) -> None:
        """Keep a public stream for spectators (room games)."""
        self.histories.setdefault(SPECTATOR, Backlog(self.buffer_size))

    def connected(self, viewer: int) -> bool:
        """Whether a page of ``viewer`` is subscribed (or waiting to be: see
        :attr:`waiting`)."""
        return any(sub.seat == viewer for sub in self.subscribers) or any(
            sub.seat == viewer for sub in self.waiting
        )

    @property
    def watchers(self) -> int:
        """How many spectators are subscribed."""
        return sum(1 for sub in self.subscribers if sub.seat == SPECTATOR)

    def check_version(self, version: int) -> None:
        """Refuse (``stale``) an action from a page that shows another version than the
        current state's."""
        if not self.stable_since <= version <= self.version:
            raise ProtocolError(
                "stale",
                f"The page shows version {version} but the game is at version {self.version}: "
                "send hello to catch up.",
                params={"version": version, "current": self.version},
            )

    # ------------------------------------------------------------------ events

    def publish(
        self, events: Sequence[GameEvent], *, moved: bool = True, players_only: bool = False
    ) -> None:
        """Send stored events to every viewer, each with its own view; an event hidden
        from a viewer (``players_only``: from the spectators) is a ``skip`` of its
        version, so every viewer's versions stay consecutive. ``moved``: the events change
        the game (a move); events that do not (chat) leave a card's version valid."""
        self.deliver(self.frames(events, self.version, players_only=players_only), moved=moved)

    def frames(
        self, events: Sequence[GameEvent], last: int, *, players_only: bool = False
    ) -> Frames:
        """The frames of ``events``, the first of version ``last + 1``, for every viewer,
        each event with the viewer's view of the game as it is now."""
        encoded = [to_bytes(ev) for ev in events]
        histories = self.histories
        hidden = players_only and SPECTATOR in histories
        views = self.views_of([s for s in histories if not (hidden and s == SPECTATOR)])
        frames: dict[int, list[bytes]] = {}
        for seat, view in views.items():
            frames[seat] = [event_bytes(last + i + 1, ev, view) for i, ev in enumerate(encoded)]
        if hidden:
            frames[SPECTATOR] = [skip_bytes(last + i + 1) for i in range(len(encoded))]
        return Frames(len(encoded), frames)

    def deliver(self, made: Frames, *, moved: bool = True) -> None:
        """Keep and send frames made by :meth:`frames` for the versions after
        :attr:`version`, and move :attr:`version` on past them."""
        subscribers = self.subscribers
        for seat, texts in made.frames.items():
            history = self.histories[seat]
            subs = [s for s in subscribers if s.seat == seat] if subscribers else ()
            attended = bool(subs)
            for i, text in enumerate(texts):
                history.add(self.version + i + 1, text, attended=attended)
                for sub in subs:
                    sub.send(text)
        if moved:
            self.stable_since = self.version + 1
        self.version += made.count

    def send_all(self, text: str | bytes) -> None:
        """Send a frame that is not versioned (the clock's) to every subscribed page."""
        for sub in self.subscribers:
            sub.send(text)

    # ------------------------------------------------------------------ pages

    def catch_up(
        self,
        sub: Subscriber,
        since: int,
        state: Callable[[int], str | bytes],
        clock: dict[str, Any] | None,
    ) -> None:
        """Send ``sub`` what it missed after version ``since``: the kept frames (then
        ``synced`` when there were none, and the running ``clock``), or one
        ``state(viewer)`` if they are gone or ``since`` is 0. Raises ``not-your-game``
        for a viewer with no history here. The page is not subscribed (:meth:`add`)."""
        history = self.histories.get(sub.seat)
        if history is None:
            raise ProtocolError("not-your-game", "You have no seat in this game.")
        missed = history.since(since, self.version)
        if missed is None:
            sub.send(state(sub.seat))
            return
        for text in missed:
            sub.send(text)
        if not missed:  # up to date: say so, the page's game is back
            sub.send(synced_frame(self.version))
        if clock is not None:
            sub.send(clock_frame(self.version, clock))

    def add(self, sub: Subscriber) -> None:
        """Subscribe ``sub`` to the frames of its viewer."""
        self.subscribers.add(sub)

    def remove(self, sub: Subscriber) -> bool:
        """Unsubscribe ``sub``; whether it was subscribed."""
        if sub not in self.subscribers:
            return False
        self.subscribers.discard(sub)
        return True

    def wait(self, sub: Subscriber, since: int) -> None:
        """``sub`` joined, with version ``since``, while a write is under way: it is sent
        the game once the write is stored (see :meth:`take_waiting`)."""
        self.waiting[sub] = since

    def unwait(self, sub: Subscriber) -> bool:
        """``sub`` left before its game was sent; whether it was waiting."""
        return self.waiting.pop(sub, None) is not None

    def take_waiting(self) -> dict[Subscriber, int]:
        """The pages waiting for the write to be stored, with their versions; none wait
        after this."""
        waiting, self.waiting = self.waiting, {}
        return waiting

    def take_seat(self, viewer: int) -> list[Subscriber]:
        """Unsubscribe and return the pages of ``viewer`` (a seat handed to a computer)."""
        subs = [s for s in self.subscribers if s.seat == viewer]
        self.subscribers.difference_update(subs)
        return subs

    def close_all(self, frame: str | bytes | None, code: int) -> None:
        """Send ``frame`` (if any) to every page, subscribed or waiting, close each with
        ``code`` and forget them all."""
        for sub in [*self.subscribers, *self.waiting]:
            if frame is not None:
                sub.send(frame)
            sub.close(code)
        self.subscribers.clear()
        self.waiting.clear()
