"""Games as the server runs them: one :class:`GameSession` per game under way.

The server owns the game. A session holds the engine's :class:`~lockup.engine.Game`, who
sits where (a human known by a player cookie, or a bot of some level), and the versioned
events each human seat has been sent. Every action (a deal, a play, a lockup discard) is
checked by the engine, committed to the :class:`~lockup.server.store.Store`, and only then
published: each human seat gets the event with its own
:meth:`~lockup.engine.SeatView.to_dict` view, never another seat's hidden cards.

Deals and lockup discards are drawn from a server-side :class:`random.SystemRandom` and
stored as the record; bots think in the :class:`~lockup.server.pool.BotPool`.
:class:`GameService` finds, loads (replaying the stored record), creates and evicts
sessions.


The parts, each building on the one before:

- :mod:`.seat`: seats, table options, what a subscriber is, the spectators' view.
- :mod:`.history`: a seat's recent frames, for pages that reconnect.
- :mod:`.core`: a session's state and the frames built from it.
- :mod:`.clock`: the turn timer.
- :mod:`.moves`: actions and events, stored then published.
- :mod:`.driver`: deals, discards and computers' cards, played on.
- :mod:`.presence`: pages joining and leaving, grace periods, takeover.
- :mod:`.game`: :class:`GameSession` and the client requests (a card, a hint).
- :mod:`.service`: :class:`GameService`, the registry of sessions.
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
