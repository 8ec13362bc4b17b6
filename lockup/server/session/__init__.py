"""Games as the server runs them: one :class:`GameSession` per game under way.

The server owns the game. A session holds the engine's :class:`~lockup.engine.Game`, who
sits where (a human known by a player cookie, or a bot of some level), and the versioned
events each human seat has been sent. Every action (a deal, a play, a lockup discard) is
checked by the engine, committed to the :class:`~lockup.server.store.Store`, and only then
published: each human seat gets the event with its own
:meth:`~lockup.engine.SeatView.to_dict` view, never another seat's hidden cards.

Deals and lockup discards are drawn from the operating system's entropy (a generator
seeded afresh for each draw, :attr:`GameService.rng`) and stored as the record; bots
think in the :class:`~lockup.server.pool.BotPool`.
:class:`GameService` finds, loads (replaying the stored record), creates and evicts
sessions.

The parts, each a class of its own that :class:`GameSession` composes and wires (none
imports the session; each is tested alone in ``tests/test_session_parts.py``):

- :mod:`.attendance`: a person's hold on their seat (present, away, abandoned), pure.
- :mod:`.seat`: seats, table options, what a subscriber is.
- :mod:`.history`: a seat's recent frames, for pages that reconnect.
- :mod:`.timers`: what the timed parts need of the event loop (or of a fake in tests).
- :mod:`.clock`: :class:`~.clock.TurnClock`, the turn timer: "time ran out for seat s at
  action q", told to a callback.
- :mod:`.publisher`: :class:`~.publisher.Publisher`, the versioned frames of each viewer,
  their histories and the pages subscribed (spectators get a ``skip`` of what they may
  not see).
- :mod:`.moves`: an action made by the engine and not stored yet.
- :mod:`.driver`: :class:`~.driver.Driver`, deals, discards and computers' cards, played
  on; it asks the service's bots for cards and its game (:class:`~.driver.Table`) to make
  and store them.
- :mod:`.presence`: :class:`~.presence.Presence`, grace periods, takeover, abandonment
  decided; its game (:class:`~.presence.Seats`) stores and publishes what it decides.
- :mod:`.game`: :class:`GameSession`: the game, its actions made, stored then published,
  the client requests (a card, a hint, a page joining), and the parts wired together.
- :mod:`.service`: :class:`GameService`, the registry of sessions.

Who calls whom: a page's card goes ``GameSession.play`` → engine → store → publisher, then
the driver plays on (``Driver.kick``, which calls back ``make``/``commit``). The turn clock
rings ``GameSession._out_of_time`` → ``Driver.play_for`` → ``GameSession.timed_out`` →
``Presence.timed_out`` (→ ``GameSession.abandon`` the K-th time). A page joining or leaving
goes through ``GameSession.join``/``leave`` → publisher, then presence (``arrived``,
``start_grace``); a grace timer's end → ``Presence.set_away`` → ``GameSession.note`` or
``abandon``. The parts are handed the session only for the call that acts on it, so a
session nobody holds is freed at once (no reference cycle).
"""

from __future__ import annotations

from ..views import spectator_view
from .game import GameSession
from .history import History
from .seat import Seat, Subscriber, TableOptions, available_levels
from .service import GameService, game_key

__all__ = [
    "GameService",
    "GameSession",
    "History",
    "Seat",
    "Subscriber",
    "TableOptions",
    "available_levels",
    "game_key",
    "spectator_view",
]
