"""The game WebSocket ``/ws``: one :class:`Connection` per page.

Frames are parsed by :mod:`lockup.server.protocol`; a refused frame gets an ``error``
frame, the socket stays open and nothing changes. What one connection may ask is bounded:
messages per second, one hint at a time and hints per player (:class:`~lockup.server.net.limits.Limits`), frames
queued for a client that does not read them.


- :mod:`.connection`: one WebSocket and its queue of frames.
- :mod:`.guards`: the limits all connections share (per player, per address).
- :mod:`.endpoint`: ``/ws`` itself, each message handled or forwarded.
- :mod:`.remote`: the WebSockets of other processes whose games this one owns.
"""
