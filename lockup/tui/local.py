"""A game on this computer: the engine, three bots and a save file, no user interface.

Everything random (the first dealer, the deals, lockup discards, the bots' seeds) is drawn
from generators keyed by the game's seed and the position in the game (the hand and how
many events it holds), never from one running generator. So a game saved after any card
and resumed with :meth:`LocalGame.resume` goes on exactly as it would have: the same
deals, discards and bot cards. The save file is a ``lockup-record/1`` record
(docs/records.md) with one more key, ``"tui": {"seed": ..., "level": ...}``, which
readers of records ignore.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from functools import partial
from pathlib import Path
from typing import Any, Literal

from ..bots import hint, make_bot
from ..cards import Card, card_str, parse_card
from ..engine import DEAL, DEFAULT_PLAYERS, Game, Refusal, Rules, SeatView
from ..record import from_record, to_record
from .driver import Driver
from .words import card, shown, tr

HUMAN = 0
"""The person's seat: South (R1)."""

LEVELS = ("random", "easy", "normal", "expert")
"""The computer levels ``lockup play --level`` offers."""

Due = Literal["over", "deal", "discard", "human", "bot"]


class SaveError(ValueError):
    """A save file that cannot be resumed: not a record, or a record the rules refuse."""


def bot_card(level: str, seed: int, view: SeatView) -> Card:
    """The card a bot of ``level`` seeded ``seed`` plays from ``view``.

    Pure (a fresh bot each time), so a thread may run it while the game waits.
    """
    bot = make_bot(level, seed=seed)
    try:
        return bot.choose(view)
    finally:
        bot.close()


class LocalGame:
    """A person at South against three computers of one level, saved after every card."""

    def __init__(
        self,
        game: Game,
        *,
        level: str = "normal",
        seed: int = 0,
        names: list[str] | None = None,
        save: Path | None = None,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        self.game = game
        self.level = level
        self.seed = seed
        self.names = list(names) if names is not None else list(DEFAULT_PLAYERS)
        self.save_path = save

    @classmethod
    def new(
        cls,
        rules: Rules | None = None,
        *,
        level: str = "normal",
        seed: int | None = None,
        name: str | None = None,
        save: Path | None = None,
    ) -> LocalGame:
        """A new game: the first dealer drawn and the first hand dealt (R3)."""
        if seed is None:
            seed = random.SystemRandom().randrange(2**32)
        names = list(DEFAULT_PLAYERS)
        if name:
            names[HUMAN] = name
        game = Game.new(_keyed(seed, "new"), rules or Rules())
        local = cls(game, level=level, seed=seed, names=names, save=save)
        local.save()
        return local

    @classmethod
    def resume(
        cls,
        path: Path,
        *,
        level: str | None = None,
        name: str | None = None,
        save: Path | None = None,
    ) -> LocalGame:
        """The game saved in ``path``, replayed through the engine; it saves back there
        (or to ``save``). ``level`` overrides the saved level."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as e:
            raise SaveError(f"cannot read {path}: {e.strerror}") from None
        except ValueError as e:
            raise SaveError(f"{path} is not a record: {e}") from None
        try:
            game = from_record(data)
        except ValueError as e:  # RecordError, IllegalRecord
            raise SaveError(f"{path}: {e}") from None
        meta = data.get("tui") if isinstance(data.get("tui"), dict) else {}
        seed = meta.get("seed")
        if not isinstance(seed, int):
            seed = random.SystemRandom().randrange(2**32)
        saved_level = meta.get("level")
        level = level or (saved_level if saved_level in LEVELS else "normal")
        names = list(data.get("players") or DEFAULT_PLAYERS)
        if name:
            names[HUMAN] = name
        return cls(game, level=level, seed=seed, names=names, save=save or Path(path))

    # ------------------------------------------------------------------ state

    def due(self) -> Due:
        """What the game waits for now."""
        g = self.game
        if g.is_over:
            return "over"
        if g.phase == DEAL:
            return "deal"
        if g.discard_due is not None:
            return "discard"
        return "human" if g.turn == HUMAN else "bot"

    def view(self) -> SeatView:
        """What the person may know."""
        return self.game.view(HUMAN)

    def view_dict(self) -> dict[str, Any]:
        """The person's view as the web protocol's ``VIEW``."""
        return self.view().to_dict()

    def _key(self, what: str) -> random.Random:
        g = self.game
        events = len(g.log[-1].events) if g.log else 0
        return _keyed(self.seed, f"{what}:{g.hand_number}:{g.trick_number}:{events}")

    # ------------------------------------------------------------------ moves

    def deal(self) -> None:
        """Deal the next hand (R3)."""
        self.game.chance_move(_keyed(self.seed, f"deal:{self.game.hand_number + 1}"))
        self.save()

    def discard(self) -> Card:
        """Make the lockup discard that is due, at random (R10)."""
        card = self.game.chance_move(self._key("discard")).card
        self.save()
        return card

    def play(self, code: str) -> Refusal | None:
        """The person plays ``code``; the engine's refusal if it may not, else None."""
        try:
            card = parse_card(code)
        except ValueError:
            return Refusal("not-a-card", "R2", {"value": repr(code)})
        refusal = self.game.why_not(card, HUMAN)
        if refusal is not None:
            return refusal
        self.game.play(card, HUMAN)
        self.save()
        return None

    def bot_job(self) -> tuple[int, str, int, SeatView]:
        """What a bot's move needs, to run away from the game: seat, level, seed, view."""
        seat = self.game.turn
        seed = self._key(f"bot{seat}").getrandbits(32)
        return seat, self.level, seed, self.game.view(seat)

    def apply_bot(self, seat: int, card: Card) -> None:
        """Play the card a bot chose for ``seat`` (checked by the engine like any card)."""
        self.game.play(card, seat)
        self.save()

    def step(self) -> Due:
        """Make the next move that is not the person's, in this thread; what was due."""
        due = self.due()
        if due == "deal":
            self.deal()
        elif due == "discard":
            self.discard()
        elif due == "bot":
            seat, level, seed, view = self.bot_job()
            self.apply_bot(seat, bot_card(level, seed, view))
        return due

    def hint_values(
        self, *, time_limit: float | None = None, iterations: int | None = None
    ) -> list[tuple[str, float]]:
        """The expert's value of each legal card (expected tricks this hand), best first."""
        values = hint(
            self.view(),
            time_limit=time_limit,
            iterations=iterations,
            seed=self._key("hint").getrandbits(32) if iterations is not None else None,
        )
        return sorted(((card_str(c), v) for c, v in values.items()), key=lambda cv: -cv[1])

    # ------------------------------------------------------------------ saving

    def record(self) -> dict[str, Any]:
        """The game as a record, with the seed and level to go on identically."""
        doc = to_record(self.game, self.names)
        doc["tui"] = {"seed": self.seed, "level": self.level}
        return doc

    def save(self) -> None:
        """Write the record to the save file, atomically (a new file renamed over the old)."""
        if self.save_path is None:
            return
        path = Path(self.save_path)
        text = json.dumps(self.record(), ensure_ascii=False)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def _keyed(seed: int, what: str) -> random.Random:
    """A generator for one draw of the game, from its seed and what the draw is for."""
    return random.Random(f"lockup-play:{seed}:{what}")


class LocalDriver(Driver):
    """Runs a :class:`LocalGame` in the app: bots think in thread workers, one card at a
    time with ``pace`` seconds between the cards of others; the hand summary waits for
    the person (R14). Hints run in a thread worker too."""

    def __init__(
        self,
        local: LocalGame,
        *,
        pace: float = 0.5,
        hint_time: float | None = None,
        hint_iterations: int | None = None,
        notice: str | None = None,
    ) -> None:
        super().__init__()
        self.local = local
        self.notice = notice
        """A line shown when the table opens (``lockup play`` resumed a game, or saves
        this one in a file of its own)."""
        self.pace = pace
        self.hint_time = hint_time
        self.hint_iterations = hint_iterations
        self.busy = False
        """A bot is thinking or a summary is open: nothing else moves until it is done."""
        self.hinting = False
        self.shown_summaries = len(local.game.summaries)
        self.closed = False
        self.title = tr("title.local", level=tr(f"level.{local.level}"))

    async def start(self) -> None:
        self.refresh()
        if self.notice:
            self.app.say(self.notice)
        self.advance()

    def refresh(self) -> None:
        self.app.show_view(self.local.view_dict(), self.local.names)

    def _later(self, delay: float) -> None:
        if self.closed:
            return
        if delay > 0:
            self.app.set_timer(delay, self.advance)
        else:
            self.app.call_later(self.advance)

    def advance(self) -> None:
        """Make the moves that are not the person's, one at a time, until the person's
        turn or the game's end."""
        if self.busy or self.closed:
            return
        game = self.local.game
        names = self.local.names
        if len(game.summaries) > self.shown_summaries:  # a hand just ended (R14)
            self.shown_summaries = len(game.summaries)
            self.busy = True
            self.app.show_summary(
                game.summaries[-1].to_dict(), game.winner, on_close=self._summary_closed
            )
            return
        due = self.local.due()
        if due == "over":
            assert game.winner is not None
            self.app.say(tr("say.over", name=shown(names[game.winner])))
        elif due == "human":
            pass
        elif due == "deal":
            self.local.deal()
            self.app.say(tr("say.deal", n=game.hand_number + 1, name=shown(names[game.dealer])))
            self.refresh()
            self._later(0)
        elif due == "discard":
            seat = game.discard_due
            assert seat is not None
            taken = self.local.discard()
            self.app.say(tr("say.discard", card=card(card_str(taken)), name=shown(names[seat])))
            self.refresh()
            self._later(self.pace)
        else:
            self.busy = True
            seat, level, seed, view = self.local.bot_job()
            self.app.run_worker(
                partial(self._think, seat, level, seed, view),
                thread=True,
                group="bot",
                name=f"bot {seat}",
            )

    def _think(self, seat: int, level: str, seed: int, view: SeatView) -> None:
        card = bot_card(level, seed, view)
        if not self.closed:
            self.app.call_from_thread(self._bot_played, seat, card)

    def _bot_played(self, seat: int, card: Card) -> None:
        self.busy = False
        if self.closed:
            return
        self.local.apply_bot(seat, card)
        self.refresh()
        self._later(self.pace)

    def _summary_closed(self) -> None:
        self.busy = False
        self._later(0)

    def play(self, code: str) -> None:
        refusal = self.local.play(code)
        if refusal is not None:
            self.app.show_refusal(refusal.to_dict())
            return
        self.app.say(tr("say.play", card=card(code)))
        self.refresh()
        self._later(self.pace)

    def hint(self) -> None:
        if self.local.due() != "human" or self.busy:
            self.app.say(tr("say.hintNotNow"))
            return
        if self.hinting:
            return
        self.hinting = True
        self.app.say(tr("say.thinking"))
        version = self._version()
        self.app.run_worker(partial(self._hint, version), thread=True, group="hint")

    def _version(self) -> tuple[int, int]:
        g = self.local.game
        return g.hand_number, len(g.log[-1].events) if g.log else 0

    def _hint(self, version: tuple[int, int]) -> None:
        values = self.local.hint_values(time_limit=self.hint_time, iterations=self.hint_iterations)
        if not self.closed:
            self.app.call_from_thread(self._hinted, version, values)

    def _hinted(self, version: tuple[int, int], values: list[tuple[str, float]]) -> None:
        self.hinting = False
        if version == self._version():  # still the same position
            self.app.show_hint(values)

    async def stop(self) -> None:
        if not self.closed:
            self.closed = True
            self.local.save()
