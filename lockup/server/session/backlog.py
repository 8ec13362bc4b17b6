"""A viewer's recent frames, kept compressed, for pages that reconnect.

Each viewer of a game (a person's seat, the spectators) keeps its last frames, numbered by
version: a page that comes back says the last version it has, and :meth:`Backlog.since`
gives the frames after it if they are all still kept, or None when the page must start
again from a ``state``. It answers as :class:`~.history.History` does, for frames that are
UTF-8 JSON bytes, and holds them in a tenth of the memory: every :data:`BLOCK` frames
are compressed together (zlib's fastest level; a frame repeats most of the one before
it, so a block of 16 frames of about 1.1 kB each takes about 1.4 kB), and only the
newest block is kept as it is. The frames are bytes, which the garbage collector never
scans, in a few containers a viewer.
"""

from __future__ import annotations

import zlib
from collections import deque

BLOCK = 16
"""Frames compressed together (fewer when the backlog keeps fewer)."""

LEVEL = 1
"""zlib's level: its fastest, about 3 µs a frame."""


class Backlog:
    """At least the last ``size`` frames of one viewer, by consecutive version (at most
    ``size`` plus a block's)."""

    def __init__(self, size: int = 200) -> None:
        self.size = size
        self.block = max(1, min(BLOCK, size))
        self._blocks: deque[tuple[int, int, bytes]] = deque()
        """The older frames: (first version, count, the frames joined by newlines, compressed)."""
        self._open: list[bytes] = []
        """The newest frames, as they are, the first of version :attr:`_open_first`."""
        self._open_first = 0
        self._count = 0

    def add(self, version: int, frame: bytes) -> None:
        """Keep ``frame``, the frame of ``version`` (one more than the last added)."""
        if b"\n" in frame:  # JSON's whitespace between tokens: the blocks' separator
            frame = frame.replace(b"\n", b" ")
        if not self._open:
            self._open_first = version
        self._open.append(frame)
        self._count += 1
        if len(self._open) >= self.block:
            packed = zlib.compress(b"\n".join(self._open), LEVEL)
            self._blocks.append((self._open_first, len(self._open), packed))
            self._open = []
        while self._blocks and self._count - self._blocks[0][1] >= self.size:
            self._count -= self._blocks.popleft()[1]

    def _first(self) -> int:
        return self._blocks[0][0] if self._blocks else self._open_first

    def _last(self) -> int:
        if self._open:
            return self._open_first + len(self._open) - 1
        first, count, _ = self._blocks[-1]
        return first + count - 1

    def since(self, since: int, current: int) -> list[bytes] | None:
        """The frames after version ``since`` up to ``current``: ``[]`` when the page is up
        to date, None when it must get a ``state`` (``since`` is 0, in the future, or older
        than the frames kept)."""
        if since == current and since > 0:
            return []
        if not 0 < since < current:
            return None
        if not self._count or self._first() > since + 1 or self._last() != current:
            return None
        out: list[bytes] = []
        for first, count, packed in self._blocks:
            if first + count - 1 > since:
                frames = zlib.decompress(packed).split(b"\n")
                out += frames[max(0, since + 1 - first) :]
        out += self._open[max(0, since + 1 - self._open_first) :]
        return out

    def __len__(self) -> int:
        return self._count
