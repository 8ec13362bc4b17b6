"""How the server runs: every setting of the app and its game service, each default stated once.

``lockup serve`` builds a :class:`ServerConfig` from its command line (see
:mod:`lockup.server.cli`) and hands it to :func:`~lockup.server.app.create_app`, which hands
it to :class:`~lockup.server.session.GameService`. Elsewhere (tests, benchmarks) start from
``ServerConfig()`` and change what differs with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .net.limits import Limits


@dataclass(frozen=True)
class ServerConfig:
    """The settings of one server process (docs/server.md)."""

    db: str = "sqlite:///lockup.sqlite"
    """Where games are stored: an SQLAlchemy URL (SQLite, or PostgreSQL for several
    processes)."""
    level: str | None = None
    """The bots' level for a game that names none (None: see :meth:`bot_level`)."""
    bot_processes: int | None = None
    """Processes the expert bots think in (None: as many as the machine suits; see
    :class:`~lockup.server.pool.BotPool`)."""
    hint_processes: int = 1
    """Processes hints are worked out in."""
    hint_time: float | None = None
    """Seconds the expert thinks for a hint (None: the pool's own budget)."""
    idle_s: float = 120.0
    """A game nobody watches leaves memory after this many idle seconds (it stays stored)."""
    buffer_size: int = 200
    """Events kept per seat for reconnecting pages."""
    move_slots: int = 16
    """How many games may move (deals, discards, bots' cards) at once. Their writes go to
    the database together (one commit a batch), so too few slots make many small commits;
    a person's card takes no slot and joins the next commit. A slot holds a whole run of
    moves that need no wait (one write), so a few slots keep the bots of many games going."""
    bot_delay: float = 0.35
    """A bot's card leaves the server at least this many seconds after its turn began."""
    bot_jitter: float = 0.25
    """... plus up to this many seconds more (uniform), however quickly the bot decided."""
    purge_unplayed_after: float = 3600.0
    """Stored games in which no person played a card are deleted after this many seconds
    (0: never)."""
    purge_abandoned_after: float = 30 * 86400.0
    """Unfinished stored games with no move are deleted after this many seconds (0: never)."""
    purge_every: float = 600.0
    """Seconds between two looks for games to purge (at least four times in
    ``purge_unplayed_after``)."""
    limits: Limits = field(default_factory=Limits)
    """What one client may ask (rates, public rooms, spectators)."""
    host: str = "127.0.0.1"
    """The address served: its name is a ``Host`` answered (see
    :mod:`lockup.server.net.security`)."""
    extra_hosts: tuple[str, ...] = ()
    """More ``Host`` names answered (``--allowed-host``)."""
    warm: bool = True
    """Start the worker processes a game may need (its computers' levels, hints) in the
    background as soon as such a game is made or loaded, rather than at its first such
    move (:meth:`~lockup.server.pool.BotPool.expect`)."""
    analysis_workers: int = 1
    """Processes the reviews' analyses run in (see :class:`~lockup.server.reviews.Reviews`)."""
    analysis_iterations: int | None = None
    """The budget of one analysis (None: the analysis' own)."""
    quick_wait: float = 20.0
    """Seconds from a quick-play table's first person to its start (computers in the
    seats still empty); a table whose four seats fill starts at once."""
    quick_grace: float = 45.0
    """Seconds a person may be gone from a quick-play table before a computer plays for
    them (a friends' room sets its own)."""
    quick_turn_timer: float = 30.0
    """Seconds a person at a quick-play table has for each card before a computer plays it
    for them (a friends' room sets its own, or none)."""
    password_time_cost: int = 3
    """argon2id passes over memory for each account password hashed or checked."""
    password_memory_kib: int = 65536
    """argon2id memory for each account password hashed or checked, in KiB (64 MiB, the
    library's default: RFC 9106's low-memory profile); two are worked out at once at most."""
    redis: str | None = None
    """A Redis URL: this process is one of several on one database (PostgreSQL), games
    owned under leases, WebSockets forwarded (see :mod:`lockup.server.cluster`)."""

    def bot_level(self) -> str:
        """:attr:`level`, or ``normal`` if the bots provide it, else ``random``."""
        if self.level is not None:
            return self.level
        from .session.seat import available_levels

        return "normal" if "normal" in available_levels() else "random"
