"""What the terminal table asks of a game, local or on a server.

A driver owns the game (or the connection to it) and tells the app what to show through
the app's ``show_*`` and ``say`` methods; the app hands the person's choices to it. All
its methods run on the app's thread (its event loop).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .app import TableApp


class Driver:
    """The base: a driver that plays nothing. Subclasses override what they support."""

    title = "Lockup"
    """Shown in the app's header line."""

    def __init__(self) -> None:
        self._app: TableApp | None = None
        self.failure: str | None = None
        """Why the game cannot go on (a server that cannot be reached or joined): the
        app closes and ``lockup play`` prints it and exits 1."""

    @property
    def app(self) -> TableApp:
        """The app this driver shows the game in."""
        if self._app is None:
            raise RuntimeError("the driver is not attached to an app")
        return self._app

    def attach(self, app: TableApp) -> None:
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

    async def stop(self) -> None:
        """The app is closing: save, disconnect, stop what runs."""
