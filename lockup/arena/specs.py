"""Bot specs of the arena: ``expert``, ``expert:iterations=200``, ``cmd:python3 bot.py``.

A spec is a built-in level of :data:`lockup.bots.registry.LEVELS` (``random``, ``easy``,
``normal``, ``expert``...), ``openspiel-ismcts`` (OpenSpiel's ISMCTSBot, see
:mod:`lockup.arena.ismcts`), ``pimc`` (a plain determinized Monte Carlo player, the
expert's sparring partner, see :mod:`lockup.arena.pimc`), ``pimc+`` (a stronger one, see
:mod:`lockup.arena.pimc_plus`), ``pimc-greedy`` (a plain one with a greedy playout, see
:mod:`lockup.arena.pimc_greedy`), ``learned`` (the expert's learned playout policy alone,
see :mod:`lockup.arena.learned`), or ``cmd:COMMAND`` (an outside program speaking
``lockup-bot/2`` or ``/1``, see :mod:`lockup.arena.external`). Options follow the name after a
colon, ``key=value``, separated by colons or commas: ``expert:iterations=200,seed=1``
(values are read as int, float, ``true``/``false``, else text).
"""

from __future__ import annotations

import inspect
import os
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..bots.base import Bot
from ..bots.registry import LEVELS, make_bot

ISMCTS = "openspiel-ismcts"
PIMC = "pimc"
PIMC_PLUS = "pimc+"
PIMC_GREEDY = "pimc-greedy"
LEARNED = "learned"
CMD = "cmd"
ARENA_BOTS = (ISMCTS, PIMC, PIMC_PLUS, PIMC_GREEDY, LEARNED)
"""The arena's own bots, beside the levels of :data:`lockup.bots.registry.LEVELS`."""

_OPTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.+-]*$")


class SpecError(ValueError):
    """A bot spec that cannot be used, with a plain reason."""


@dataclass(frozen=True)
class BotSpec:
    """One ``--bots`` entry: ``name`` (a level, ``openspiel-ismcts`` or ``cmd``), its
    ``options`` as (key, value) pairs, ``command`` for ``cmd``, and the ``text`` given."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()
    command: tuple[str, ...] = ()
    text: str = ""

    @property
    def is_external(self) -> bool:
        """True for an outside program (``cmd:``)."""
        return self.name == CMD

    @property
    def short_name(self) -> str:
        """The level, or for an outside bot its program's file name (``simple_bot.py``)."""
        if not self.is_external:
            return self.name
        return os.path.basename(self.command[-1] if len(self.command) > 1 else self.command[0])

    def label(self, entry: int) -> str:
        """The short name used in tables and records: ``0:expert``, ``1:simple_bot.py``."""
        return f"{entry}:{self.short_name}"


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def parse_spec(text: str) -> BotSpec:
    """Read one bot spec; raises :class:`SpecError` with the reason."""
    text = text.strip()
    if not text:
        raise SpecError("an empty bot spec")
    if text.startswith(CMD + ":"):
        line = text[len(CMD) + 1 :].strip()
        try:
            argv = shlex.split(line)
        except ValueError as e:
            raise SpecError(f"{text!r}: {e}") from None
        if not argv:
            raise SpecError(
                f"{text!r}: cmd: needs a command, e.g. cmd:python3 examples/simple_bot.py"
            )
        prog = argv[0]
        if shutil.which(prog) is None and not (os.sep in prog and os.path.isfile(prog)):
            raise SpecError(f"{text!r}: cannot find the program {prog!r}")
        return BotSpec(CMD, (), tuple(argv), text)
    name, _, rest = text.partition(":")
    name = name.strip()
    if not _NAME.match(name):
        raise SpecError(f"{text!r}: {name!r} is not a bot name")
    if name not in ARENA_BOTS and name not in LEVELS:
        known = ", ".join([*LEVELS, *ARENA_BOTS, "cmd:COMMAND"])
        raise SpecError(f"{text!r}: unknown bot {name!r}; choose one of {known}")
    options: list[tuple[str, Any]] = []
    for part in re.split(r"[:,]", rest) if rest.strip() else []:
        part = part.strip()
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key) or not value.strip():
            raise SpecError(f"{text!r}: options are key=value, not {part!r}")
        if key in dict(options):
            raise SpecError(f"{text!r}: option {key!r} given twice")
        options.append((key, _value(value.strip())))
    return BotSpec(name, tuple(options), (), text)


def split_bots(text: str) -> list[str]:
    """Split a ``--bots`` list at commas; a ``key=value`` part continues the previous spec.

    ``expert:iterations=200,uct=1,normal`` is two specs. A ``cmd:`` spec whose command
    holds a comma must be given with ``--bot`` instead.
    """
    out: list[str] = []
    for part in text.split(","):
        if out and _OPTION.match(part.strip()) and not out[-1].startswith(CMD + ":"):
            out[-1] += "," + part.strip()
        else:
            out.append(part.strip())
    return out


def _factory(spec: BotSpec) -> Callable[..., Bot]:
    if spec.name == ISMCTS:
        try:
            from .ismcts import OpenSpielISMCTSBot
        except ImportError as e:
            raise SpecError(
                f"{spec.text!r}: OpenSpiel is not installed ({e}); "
                "install it with: pip install 'lockup[bench]'"
            ) from None
        return OpenSpielISMCTSBot
    if spec.name == PIMC:
        from .pimc import PlainPIMCBot

        return PlainPIMCBot
    if spec.name == PIMC_PLUS:
        from .pimc_plus import PIMCPlusBot

        return PIMCPlusBot
    if spec.name == PIMC_GREEDY:
        from .pimc_greedy import GreedyPIMCBot

        return GreedyPIMCBot
    if spec.name == LEARNED:
        from .learned import LearnedPolicyBot

        return LearnedPolicyBot
    return LEVELS[spec.name]


def _accepts(factory: Callable[..., Any], option: str) -> bool:
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False
    return option in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _explicit(factory: Callable[..., Any], option: str) -> bool:
    try:
        return option in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False


def bot_options(
    spec: BotSpec, *, time_per_move: float | None = None, iterations: int | None = None
) -> dict[str, Any]:
    """The options a built-in bot gets: the spec's own, plus the arena-wide budget.

    ``--time-per-move`` becomes ``time_limit`` and ``--iterations`` becomes ``iterations``
    for every bot whose factory names that option (the spec's own options win); bots
    without a budget (``random``, rule-based levels) are left alone. Raises
    :class:`SpecError` for an option the bot does not take.
    """
    factory = _factory(spec)
    opts = dict(spec.options)
    if "seed" in opts:
        raise SpecError(f"{spec.text!r}: the arena seeds every bot itself (--seed)")
    for key in opts:
        if not _accepts(factory, key):
            params = [
                p
                for p in inspect.signature(factory).parameters
                if p not in ("self", "seed", "args", "kwargs")
            ]
            takes = ", ".join(params) if params else "no options"
            raise SpecError(f"{spec.text!r}: {spec.name} has no option {key!r} (it takes {takes})")
    if time_per_move is not None and "time_limit" not in opts and "time" not in opts:
        if _explicit(factory, "time_limit"):
            opts["time_limit"] = time_per_move
    if iterations is not None and "iterations" not in opts and _explicit(factory, "iterations"):
        opts["iterations"] = iterations
    return opts


def build_bot(
    spec: BotSpec,
    *,
    seed: int | None,
    time_per_move: float | None = None,
    iterations: int | None = None,
) -> Bot:
    """A new built-in bot (a level or ``openspiel-ismcts``) for a spec.

    Raises :class:`SpecError` if the spec's options are refused.
    """
    if spec.is_external:
        raise SpecError("outside bots are started by the arena, not built here")
    opts = bot_options(spec, time_per_move=time_per_move, iterations=iterations)
    try:
        if spec.name in ARENA_BOTS:
            return _factory(spec)(seed=seed, **opts)
        return make_bot(spec.name, seed=seed, **opts)
    except (TypeError, ValueError) as e:
        raise SpecError(f"{spec.text!r}: {e}") from None
