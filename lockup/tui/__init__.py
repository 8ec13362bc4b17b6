"""``lockup play``: Lockup in the terminal, with Textual.

- :mod:`lockup.tui.app`: the Textual app and its widgets; it shows a seat's view (the web
  protocol's ``VIEW``) and never applies a rule itself;
- :mod:`lockup.tui.driver`: what the app asks of a game, wherever it runs;
- :mod:`lockup.tui.local`: a game on this computer against the bots, saved as a record
  after every card;
- :mod:`lockup.tui.remote`: a seat (or a spectator's place) at a ``lockup serve`` table,
  over the page's WebSocket protocol (docs/web-protocol.md);
- :mod:`lockup.tui.cli`: the ``play`` sub-command.

See docs/terminal.md.
"""
