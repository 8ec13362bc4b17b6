"""What the terminal table asks of a game, local or on a server.

A driver owns the game (or the connection to it) and tells the app what to show through
the app's ``show_*`` and ``say`` methods; the app hands the person's choices to it. All
its methods run on the app's thread (its event loop).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, Protocol

from rich.text import Text


class Table(Protocol):
    """What a driver asks of the app it shows its game in (:class:`~lockup.tui.app.Table`,
    a Textual app): the table's ``show_*`` and ``say``, and the app's own scheduling. The
    app imports this module, never the other way round."""

    players: list[str]
    """The players' names, seat by seat."""

    def show_view(self, view: dict[str, Any], players: list[str] | None = None) -> None:
        """Show a seat's view and the players' names."""

    def show_refusal(self, refusal: dict[str, Any]) -> None:
        """A card was refused: the engine's reason."""

    def show_hint(self, values: list[tuple[str, float]]) -> None:
        """The expert's value of each legal card."""

    def say(self, text: str | Text) -> None:
        """A line about what happens."""

    def show_clock(self, seat: int | None, seconds: float = 0.0) -> None:
        """A turn clock: ``seat`` has ``seconds`` left to play (None: no clock runs)."""

    def show_summary(
        self,
        summary: dict[str, Any],
        winner: int | None = None,
        on_close: Callable[[], None] | None = None,
        *,
        deals: bool = True,
        left: Collection[int] = (),
    ) -> None:
        """A hand's summary (and the game's end); ``on_close`` runs when it is closed;
        ``deals``: closing it deals the next hand (else it is under way already);
        ``left``: the seats whose person left the game."""

    def refresh_bindings(self) -> None:
        """Offer again the keys that work now (the footer)."""

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
        """Run ``callback`` on the app's loop soon."""

    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``callback`` on the app's loop from a worker thread."""

    def set_timer(self, *args: Any, **kwargs: Any) -> Any:
        """Run a callback after a delay."""

    def run_worker(self, *args: Any, **kwargs: Any) -> Any:
        """Run work in a worker (a thread or a task)."""

    def exit(self, *args: Any, **kwargs: Any) -> None:
        """Close the app."""


class Driver:
    """The base: a driver that plays nothing. Subclasses override what they support."""

    title = "Lockup"
    """Shown in the app's header line."""

    def __init__(self) -> None:
        self._app: Table | None = None
        self.failure: str | None = None
        """Why the game cannot go on (a server that cannot be reached or joined): the
        app closes and ``lockup play`` prints it and exits 1."""

    @property
    def app(self) -> Table:
        """The app this driver shows the game in."""
        if self._app is None:
            raise RuntimeError("the driver is not attached to an app")
        return self._app

    def attach(self, app: Table) -> None:
        """Called by the app before :meth:`start`."""
        self._app = app

    async def start(self) -> None:
        """Begin: show the table and play on until the person's turn."""

    def play(self, code: str) -> None:
        """The person chose the card ``code`` (record notation, ``QD``)."""

    def hint(self) -> None:
        """The person asked for the expert's values of the legal cards."""

    def start_game(self) -> None:
        """The person asked to start the game (a room's host)."""

    def can_start(self) -> bool:
        """Whether the person may start the game now (a room's host before it starts)."""
        return False

    async def stop(self) -> None:
        """The app is closing: save, disconnect, stop what runs."""
