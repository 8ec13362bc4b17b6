"""uvicorn's WebSocket protocol with a direct way out for a game's frames (:class:`FrameWriter`).

A game sends several frames a card to each of its pages. Through ASGI each frame is a
``websocket.send`` message: a coroutine call, the text encoded, a frame object built by
the ``websockets`` library, and one write to the socket, a system call. A connection of
the game (:class:`~lockup.server.ws.connection.Connection`) instead hands its frames,
already UTF-8 JSON, to :meth:`FrameWriter.write_texts` of the connection's protocol: the
frames queued in one turn of the event loop go out in one write, each with its
two-to-ten-byte header, and no other object is made.

It writes only while the socket is open for data (the handshake done, no close sent or
received, no extension such as compression negotiated); otherwise it says so and the
connection falls back to the ASGI messages, which know what to do. uvicorn is used as
``--ws websockets-sansio`` would: :func:`protocol_class` gives None when the installed
uvicorn lacks that protocol, and the server keeps uvicorn's own choice.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

try:  # uvicorn 0.35 and later
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    from websockets.protocol import State
except ImportError:  # pragma: no cover - an older uvicorn: its own protocol, through ASGI
    WebSocketsSansIOProtocol = None  # type: ignore[assignment,misc]

_HEADER_16 = struct.Struct("!BBH")
_HEADER_64 = struct.Struct("!BBQ")
_TEXT = 0x81
"""FIN and the opcode of a text frame: each frame is a whole message."""


def frame_header(length: int) -> bytes:
    """The header of an unmasked text frame (a server's) of ``length`` bytes of payload."""
    if length < 126:
        return bytes((_TEXT, length))
    if length < 65536:
        return _HEADER_16.pack(_TEXT, 126, length)
    return _HEADER_64.pack(_TEXT, 127, length)


if WebSocketsSansIOProtocol is not None:

    class FrameWriter(WebSocketsSansIOProtocol):
        """uvicorn's sans-I/O ``websockets`` protocol, which may also be handed text frames
        to write at once (:meth:`write_texts`)."""

        def open_for_frames(self) -> bool:
            """Whether frames may be written now: the socket open both ways and no
            extension negotiated."""
            return (
                self.handshake_complete
                and not self.close_sent
                and not self.disconnected
                and self.initial_response is None
                and self.conn.state is State.OPEN
                and not self.conn.extensions
            )

        def write_texts(self, frames: Iterable[str | bytes]) -> bool:
            """Write ``frames`` (JSON text, or its UTF-8 bytes) as text frames in one write;
            False, with nothing written, when the socket is not open for them (see
            :meth:`open_for_frames`). It never waits: while the socket's buffer is full
            (:attr:`writable` is clear) the caller holds its frames back."""
            if not self.open_for_frames():
                return False
            out: list[bytes] = []
            for frame in frames:
                data = frame.encode() if isinstance(frame, str) else frame
                out.append(frame_header(len(data)))
                out.append(data)
            if out:
                self.transport.write(b"".join(out))
            return True

    def protocol_class() -> type[Any] | None:
        """The WebSocket protocol for uvicorn's ``ws`` setting: :class:`FrameWriter`."""
        return FrameWriter

else:  # pragma: no cover

    def protocol_class() -> type[Any] | None:
        """None: this uvicorn has no sans-I/O protocol to build on."""
        return None
