"""A viewer's recent frames, kept compressed, for pages that reconnect.

Each viewer of a game (a person's seat, the spectators) keeps its last frames, numbered by
version: a page that comes back says the last version it has, and :meth:`Backlog.since`
gives the frames after it if they are all still kept, or None when the page must start
again from a ``state``. It answers as :class:`~.history.History` does, for frames that are
UTF-8 JSON bytes.

While nobody watches the viewer (no page of it subscribed), every frame matters to the
page that comes back: the backlog keeps at least ``size`` of them in a tenth of the
memory, every :data:`BLOCK` frames compressed together (zlib's fastest level; a frame
repeats most of the one before it, so a block of 16 frames of about 1.1 kB each takes
about 1.4 kB), only the newest block as it is. While a page is subscribed, it receives
every frame as it is made: one that drops and comes back has missed only what was under
way when it dropped, so the backlog keeps the last :data:`ATTENDED` frames as they are and
compresses nothing (the frames before them are forgotten; a page that missed more gets a
``state``). The frames are bytes, which the garbage collector never scans, in a few
containers a viewer.
"""

from __future__ import annotations

import zlib
from collections import deque

BLOCK = 16
"""Frames compressed together (fewer when the backlog keeps fewer)."""

LEVEL = 1
"""zlib's level: its fastest, about 3 µs a frame."""

ATTENDED = 16
"""Frames kept, as they are, while a page of the viewer is subscribed (about 3 tricks)."""


class Backlog:
    """The last frames of one viewer, by consecutive version: at least the last ``size``
    (at most ``size`` plus a block's) while nobody watches, the last :data:`ATTENDED` (at
    most a block more) as frames are added with a page subscribed."""

    def __init__(self, size: int = 200) -> None:
        self.size = size
        self.block = max(1, min(BLOCK, size))
        self._blocks: deque[tuple[int, int, bytes]] = deque()
        """The older frames: (first version, count, the frames joined by newlines, compressed)."""
        self._open: list[bytes] = []
        """The newest frames, as they are, the first of version :attr:`_open_first`."""
        self._open_first = 0
        self._count = 0

    def add(self, version: int, frame: bytes, *, attended: bool = False) -> None:
        """Keep ``frame``, the frame of ``version`` (one more than the last added);
        ``attended``: a page of the viewer is subscribed and is sent it."""
        if b"\n" in frame:  # JSON's whitespace between tokens: the blocks' separator
            frame = frame.replace(b"\n", b" ")
        if not self._open:
            self._open_first = version
        self._open.append(frame)
        self._count += 1
        if attended:  # the oldest go past ATTENDED, the compressed ones first
            keep = min(ATTENDED, self.size)
            blocks = self._blocks
            while blocks and self._count - blocks[0][1] >= keep:
                self._count -= blocks.popleft()[1]
            drop = len(self._open) - keep
            if not blocks and drop > 0:
                del self._open[:drop]
                self._open_first += drop
                self._count -= drop
            return
        block = self.block
        while len(self._open) >= block:  # (more than one block after a page has gone)
            first = self._open[:block]
            packed = zlib.compress(b"\n".join(first), LEVEL)
            self._blocks.append((self._open_first, block, packed))
            del self._open[:block]
            self._open_first += block
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
