"""An action made by the engine and not stored yet: a deal, a lockup discard or a card.

A session makes an action in three steps: the engine plays it and its events and
frames are built (:meth:`~.game.GameSession.make`, a :class:`Made`); the store commits
it, alone or with the actions made before it (:meth:`~.game.GameSession.commit`); only
then are its frames published. Until it is stored, the engine is ahead of the store and
of the pages."""

from __future__ import annotations

from typing import NamedTuple

from ..store import ActionRow, WriteOp
from .publisher import Frames


class Made(NamedTuple):
    """An action the engine made and the server has not stored yet."""

    row: ActionRow
    """The action as stored."""
    ops: tuple[WriteOp, ...]
    """What else its write does (the game's end)."""
    frames: Frames
    """Its events' frames, by viewer, to publish once it is stored."""
    finished: bool
    """Whether it ended the game."""
