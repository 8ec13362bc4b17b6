"""A seat's recent frames, for pages that reconnect (lila-ws's ``History.getFrom``).

Each seat of a game keeps its last few event frames, numbered by version. A page that
comes back says the last version it has; :meth:`History.since` gives the frames after it
if they are all still kept, or None when the page must start again from a ``state``.
"""

from __future__ import annotations

from collections import deque


class History:
    """The last ``size`` frames of one viewer, by consecutive version."""

    def __init__(self, size: int = 200) -> None:
        self._frames: deque[tuple[int, str]] = deque(maxlen=size)

    def add(self, version: int, frame: str) -> None:
        """Keep ``frame``, the frame of ``version`` (one more than the last added)."""
        self._frames.append((version, frame))

    def since(self, since: int, current: int) -> list[str] | None:
        """The frames after version ``since`` up to ``current``: ``[]`` when the page is up
        to date, None when it must get a ``state`` (``since`` is 0, in the future, or older
        than the frames kept)."""
        if since == current and since > 0:
            return []
        if not 0 < since < current:
            return None
        frames = self._frames
        if not frames or frames[0][0] > since + 1 or frames[-1][0] != current:
            return None
        return [text for v, text in frames if v > since]

    def __len__(self) -> int:
        return len(self._frames)
