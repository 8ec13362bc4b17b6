"""Who sits where in a room, as one explicit state machine (no I/O, time passed in).

A room's life::

    open ──start──▶ playing ──game over──▶ over ──rematch (every present person)──▶ playing
      │                                      │
      └──── the host leaves, nobody left ────┴──▶ closed

Its membership: each of the four seats holds a person (their player token and display
name) or nobody; each open page belongs to a person (or to nobody, a page with no
cookie). What a page sees is worked out from its person's seat *now*
(:meth:`Seating.view_of`), never remembered by the page: a page whose person left,
was removed or moved seats sees what they may see now, and its actions are checked
against that seat at the moment they are made.

The rules of membership:

- People take a free seat while the room is ``open`` or ``over`` (they play the next
  game); they give it up (``leave``) while
  it is ``open`` or ``over``. A seat is kept while its person is away: a computer plays
  for them once they have had no page open for the grace period (the game's part).
- The host may leave too: the host passes to another seated person (one with a page
  open first); with nobody else seated the room closes. A host with no page open for the
  grace period passes the host on the same way, so someone present can always start.
- ``start`` is the host's, only while ``open``. After a game, ``rematch`` needs the vote
  of every seated person who has a page open (absent people do not hold the table up;
  they keep their seat and a computer plays for them after the grace; a person whose
  last page closed is still awaited :data:`RELOAD_WAIT` seconds, the time of a reload).
- The host removes a person (``remove``) at any time but ``closed``: the seat is empty
  (a computer's during a game) and that person's pages watch.
- A person who abandons a game under way (``abandon``: they left it at a rated table, ran
  out of time too often, or were gone the whole grace at a rated table) holds no seat any
  more: the game's computer plays it to the end, and their pages watch.
- A quick-play table (``quick``) has no host powers: nobody starts it or removes anyone.
  It starts on its own (:meth:`Seating.start_quick`) once every seat is taken or its start
  time (``starts_at``, wall-clock seconds) has come; the host still passes on and the
  last person leaving still closes it.
- A quick-play seat counts only once its person's page has opened the table: until then
  it is *pending* (:attr:`Sitter.pending_until`). It does not make the table full, and
  it is freed (:meth:`Seating.free_unconnected`) :data:`PENDING_WAIT` seconds after it
  was given, and at the table's start at the latest: a table never starts on people
  who never came, and their seats are the computers'. At a quick table nobody holds two
  seats from one address or one browser (``same-address``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..protocol import SPECTATOR, ProtocolError

OPEN = "open"
PLAYING = "playing"
OVER = "over"
CLOSED = "closed"
STATUSES = (OPEN, PLAYING, OVER, CLOSED)
"""A room's phases, as stored and as the pages see them."""
RELOAD_WAIT = 5.0
"""Seconds a person who closed their last page is still awaited for a rematch (a reload,
a short drop)."""
PENDING_WAIT = 10.0
"""Seconds a quick-play seat waits for its person's page to open the table before it is
freed (it is freed at the table's start at the latest)."""
__all__ = [
    "PENDING_WAIT",
    "RELOAD_WAIT",
    "CLOSED",
    "OPEN",
    "OVER",
    "PLAYING",
    "SPECTATOR",
    "STATUSES",
    "Seating",
    "Sitter",
]


@dataclass
class Sitter:
    """A person at a seat: their player token and display name, and where they sat down
    from: ``tag`` (the keyed hash of their address, :meth:`Store.address_tag`) and
    ``browser`` (their browser's own token), so that a rated table can tell one person
    holding two seats (None: not known, e.g. a room stored before they were kept).

    ``pending_until``: a quick-play seat whose person's page has not opened the table
    yet, freed at that time (wall-clock seconds) unless a page opens first; None: the
    seat counts."""

    player: str
    name: str
    tag: str | None = None
    browser: str | None = None
    pending_until: float | None = None


class Seating:
    """One room's phase, seats, host, open pages and rematch votes.

    Every method that changes something either changes it whole or raises
    :class:`ProtocolError` and changes nothing. Pages are any hashable objects (the
    server's WebSocket connections).
    """

    def __init__(
        self,
        host: str,
        seats: list[Sitter | None],
        status: str = OPEN,
        *,
        grace: float = 45.0,
        now: float = 0.0,
        quick: bool = False,
        starts_at: float | None = None,
    ) -> None:
        if len(seats) != 4 or status not in STATUSES:
            raise ValueError("a room has four seats and a known status")
        self.host = host
        self.seats = list(seats)
        self.status = status
        self.grace = grace
        """Seconds a person may be away before they stop holding anything up: a computer
        plays their seat, the host passes on."""
        self.pages: dict[object, str | None] = {}
        """Each open page and its person (None: a page with no player cookie)."""
        self.rematch: set[int] = set()
        """The seats whose person asked for another game (``over`` only)."""
        self.away_since: dict[str, float] = {p: now for p in self.people()}
        """Seated people with no page open, and since when (a room loaded from the store
        starts with everyone away)."""
        self.quick = quick
        """A quick-play table: no host powers, it starts on its own."""
        self.starts_at = starts_at if quick else None
        """A quick table's start time, in wall-clock seconds (``time.time()``)."""

    # ------------------------------------------------------------------ questions

    def people(self) -> list[str]:
        """The players seated, seat by seat."""
        return [s.player for s in self.seats if s is not None]

    def counted(self) -> list[str]:
        """The players seated whose seat counts (not pending, see :class:`Sitter`)."""
        return [s.player for s in self.seats if s is not None and s.pending_until is None]

    def pending(self) -> list[int]:
        """The quick-play seats still waiting for their person's page."""
        return [
            i for i, s in enumerate(self.seats) if s is not None and s.pending_until is not None
        ]

    def seat_of(self, player: str | None) -> int | None:
        """The seat ``player`` sits at now, or None."""
        if player is None:
            return None
        return next(
            (i for i, s in enumerate(self.seats) if s is not None and s.player == player), None
        )

    def view_of(self, page: object) -> int:
        """The seat whose view ``page`` gets now: its person's seat, or :data:`SPECTATOR`."""
        seat = self.seat_of(self.pages.get(page))
        return SPECTATOR if seat is None else seat

    def present(self, player: str | None) -> bool:
        """Whether ``player`` has a page of the room open."""
        return player is not None and player in self.pages.values()

    def watchers(self) -> int:
        """Open pages whose person holds no seat."""
        return sum(1 for p in self.pages if self.view_of(p) == SPECTATOR)

    def host_seat(self) -> int | None:
        """The host's seat (None once the room is closed, and at a quick table, which has
        no host powers)."""
        return None if self.quick else self.seat_of(self.host)

    def starts_in(self, wall: float) -> float | None:
        """A quick table still open: seconds until it starts (``wall``: now, wall-clock);
        None otherwise."""
        if not self.quick or self.status != OPEN or self.starts_at is None:
            return None
        return max(0.0, self.starts_at - wall)

    def start_due(self, wall: float) -> bool:
        """Whether a quick table starts now: open, someone's seat counts, and every seat
        counts or its start time has come (``wall``: now, wall-clock). Pending seats
        never make it full."""
        return (
            self.quick
            and self.status == OPEN
            and bool(self.counted())
            and (len(self.counted()) == len(self.seats) or self._time_come(wall))
        )

    def quick_wake(self, wall: float) -> float | None:
        """A quick table still open: seconds until it next does something on its own
        (frees a pending seat, or starts); None otherwise."""
        if not self.quick or self.status != OPEN or self.starts_at is None:
            return None
        due = [self.starts_at]
        due += [
            s.pending_until for s in self.seats if s is not None and s.pending_until is not None
        ]
        return max(0.0, min(due) - wall)

    def _time_come(self, wall: float) -> bool:
        return self.starts_at is not None and wall >= self.starts_at

    def awaited(self, now: float) -> list[int]:
        """``over``: the seats whose rematch vote is still needed: not voted, and present
        (or gone less than :data:`RELOAD_WAIT` ago)."""
        if self.status != OVER:
            return []
        return [
            i
            for i, s in enumerate(self.seats)
            if s is not None
            and i not in self.rematch
            and (self.present(s.player) or self.away_for(s.player, now) < RELOAD_WAIT)
        ]

    def rematch_ready(self, now: float) -> bool:
        """``over``: someone voted and every present seated person has."""
        return self.status == OVER and bool(self.rematch) and not self.awaited(now)

    def away_for(self, player: str, now: float) -> float:
        """How long ``player`` (seated) has had no page open (0: a page is open)."""
        since = self.away_since.get(player)
        return 0.0 if since is None else max(0.0, now - since)

    def host_passes_at(self) -> float | None:
        """When the host, away, passes the host on (None: present, or nobody to pass to)."""
        since = self.away_since.get(self.host)
        if since is None or self.status == CLOSED or self._heir() is None:
            return None
        return since + self.grace

    # ------------------------------------------------------------------ pages

    def open_page(self, page: object, player: str | None) -> bool:
        """A page of ``player`` is open in the room (admission is the caller's); True if
        it made their pending seat count (see :class:`Sitter`)."""
        self.pages[page] = player
        if player is None:
            return False
        self.away_since.pop(player, None)
        seat = self.seat_of(player)
        sitter = self.seats[seat] if seat is not None else None
        if sitter is None or sitter.pending_until is None:
            return False
        sitter.pending_until = None
        return True

    def close_page(self, page: object, now: float) -> None:
        """A page closed; its person's last one gone makes them away."""
        player = self.pages.pop(page, None)
        if player is not None and self.seat_of(player) is not None and not self.present(player):
            self.away_since[player] = now

    # ------------------------------------------------------------------ seats

    def join(
        self,
        player: str,
        name: str,
        seat: object = None,
        now: float = 0.0,
        *,
        tag: str | None = None,
        browser: str | None = None,
        wall: float | None = None,
    ) -> int:
        """Seat ``player`` (at ``seat``, or the first free one; ``open`` or ``over``); their
        seat if they have one (renamed ``name``). ``tag`` and ``browser``: where they sat
        down from (see :class:`Sitter`). At a quick table still open, a new seat of a
        person with no page open is pending until ``wall`` (now, wall-clock) plus
        :data:`PENDING_WAIT` (the table's start if no ``wall``), and a person whose
        ``tag`` or ``browser`` is a seated person's is refused. Raises ``room-started``,
        ``room-closed``, ``room-full``, ``bad-message``, ``seat-taken``,
        ``same-address``."""
        mine = self.seat_of(player)
        if mine is not None:
            old = self.seats[mine]
            self.seats[mine] = Sitter(
                player,
                name,
                tag or (old.tag if old else None),
                browser or (old.browser if old else None),
                old.pending_until if old else None,
            )
            return mine
        if self.status == CLOSED:
            raise ProtocolError("room-closed", "The room is closed.")
        if self.status == PLAYING:
            raise ProtocolError(
                "room-started", "The game has started: you may watch it.", params={"watch": True}
            )
        if seat is not None and (type(seat) is not int or not 0 <= seat <= 3):
            raise ProtocolError("bad-message", '"seat" must be 0, 1, 2 or 3.')
        free = [i for i, s in enumerate(self.seats) if s is None]
        if seat is None:
            if not free:
                raise ProtocolError(
                    "room-full", "Every seat is taken: you may watch.", params={"watch": True}
                )
            seat = free[0]
        assert isinstance(seat, int)
        if seat not in free:
            raise ProtocolError("seat-taken", "Someone sits there already.", params={"seat": seat})
        quick = self.quick and self.status == OPEN
        if quick and self._same_place(tag, browser):
            raise ProtocolError(
                "same-address",
                "Someone from your address or browser sits at this quick-play table already.",
            )
        pending = None
        if quick and not self.present(player):
            pending = wall + PENDING_WAIT if wall is not None else (self.starts_at or 0.0)
        self.seats[seat] = Sitter(player, name, tag, browser, pending)
        if not self.present(player):
            self.away_since[player] = now  # joined over HTTP, no page open yet
        return seat

    def _same_place(self, tag: str | None, browser: str | None) -> bool:
        """Whether a seated person sat down from address ``tag`` or browser ``browser``
        (unknown ones match nobody)."""
        return any(
            s is not None
            and (
                (tag is not None and s.tag == tag) or (browser is not None and s.browser == browser)
            )
            for s in self.seats
        )

    def free_unconnected(self, wall: float) -> list[str]:
        """A quick table still open: free the pending seats whose time has come (every
        one once the table's start time has come, ``wall``: now, wall-clock); the host
        passes on, and a table nobody is left at closes. Returns the players freed."""
        if not self.quick or self.status != OPEN:
            return []
        start = self._time_come(wall)
        freed = []
        for i, s in enumerate(self.seats):
            if s is None or s.pending_until is None:
                continue
            if self.present(s.player):  # a page is open (a change undone meanwhile): it counts
                s.pending_until = None
            elif start or s.pending_until <= wall:
                self.seats[i] = None
                self.away_since.pop(s.player, None)
                freed.append(s.player)
        if freed and self.seat_of(self.host) is None:
            self._pass_host()
        return freed

    def leave(self, player: str) -> int:
        """``player`` gives up their seat (``open`` or ``over``); the host passes on, and a
        room nobody is left in closes. Returns the seat left."""
        seat = self.seat_of(player)
        if seat is None:
            raise ProtocolError("not-seated", "You have no seat at this table.")
        if self.status not in (OPEN, OVER):
            raise ProtocolError(
                "game-under-way", "The game is under way: close the page and a computer plays."
            )
        self.seats[seat] = None
        self.rematch.discard(seat)
        self.away_since.pop(player, None)
        if player == self.host:
            self._pass_host()
        return seat

    def abandon(self, player: str) -> int:
        """``player`` leaves the game under way (``playing``): they abandon their seat, which
        the game's computer plays for the rest of it, and hold no seat here any more (they
        may sit at another table); the host passes on to a person still seated, and a room
        nobody is left in closes when its game ends (:meth:`game_over`). Returns the seat
        left. Raises ``not-seated``, or ``game-over`` when no game is under way."""
        seat = self.seat_of(player)
        if seat is None:
            raise ProtocolError("not-seated", "You have no seat at this table.")
        if self.status != PLAYING:
            raise ProtocolError("game-over", "No game is under way at this table.")
        self.seats[seat] = None
        self.away_since.pop(player, None)
        if player == self.host:
            heir = self._heir()
            if heir is not None:
                self.host = heir
        return seat

    def removable(self, by: str | None, seat: object) -> str:
        """The token of the person the host ``by`` may remove at ``seat``; raises
        ``not-host``, ``bad-message`` or ``bad-seat`` (nothing changes either way)."""
        if self.quick:
            raise ProtocolError("not-host", "Nobody removes anyone at a quick-play table.")
        if by != self.host or self.status == CLOSED:
            raise ProtocolError("not-host", "Only the host removes someone.")
        if type(seat) is not int or not 0 <= seat <= 3:
            raise ProtocolError("bad-message", '"seat" must be 0, 1, 2 or 3.')
        target = self.seats[seat]
        if target is None or target.player == self.host:
            raise ProtocolError("bad-seat", "Nobody to remove there.", params={"seat": seat})
        return target.player

    def remove(self, by: str | None, seat: object) -> str:
        """The host removes the person at ``seat``; returns their token."""
        player = self.removable(by, seat)
        assert isinstance(seat, int)
        self.seats[seat] = None
        self.rematch.discard(seat)
        self.away_since.pop(player, None)
        return player

    def pass_host_if_due(self, now: float) -> bool:
        """Pass the host on if they have been away the whole grace; True if it passed."""
        due = self.host_passes_at()
        if due is None or now < due:
            return False
        self._pass_host()
        return True

    def _heir(self) -> str | None:
        """Who would be host next: a present seated person first, then any seated one."""
        others = [p for p in self.people() if p != self.host]
        present = [p for p in others if self.present(p)]
        return next(iter(present or others), None)

    def _pass_host(self) -> None:
        heir = self._heir()
        if heir is not None:
            self.host = heir
        elif self.seat_of(self.host) is None:
            self.status = CLOSED
            self.rematch.clear()

    # ------------------------------------------------------------------ games

    def start(self, by: str | None) -> None:
        """The host starts the first game (``open`` only)."""
        if self.status == PLAYING:
            raise ProtocolError("room-started", "The game has started.")
        if self.status == OVER:
            raise ProtocolError("game-over", "The game is over: ask for a rematch instead.")
        if self.status == CLOSED:
            raise ProtocolError("room-closed", "The room is closed.")
        if self.quick:
            raise ProtocolError(
                "not-host", "A quick-play table starts on its own, when full or on time."
            )
        if by != self.host:
            raise ProtocolError("not-host", "Only the host starts the game.")
        self._playing()

    def start_quick(self, wall: float) -> bool:
        """Start a quick table's game if it is due (:meth:`start_due`), its pending seats
        freed first (:meth:`free_unconnected`); True if it did."""
        if not self.start_due(wall):
            return False
        self.free_unconnected(wall)
        self._playing()
        return True

    def game_over(self) -> None:
        """The room's game ended; a room whose people all left during it closes."""
        if self.status == PLAYING:
            self.status = OVER if self.people() else CLOSED
            self.rematch.clear()

    def vote_rematch(self, player: str | None, now: float) -> bool:
        """A seated person asks for another game; True once it may start (then it has)."""
        seat = self.seat_of(player)
        if seat is None:
            raise ProtocolError("not-seated", "Only the people at the table play again.")
        if self.status != OVER:
            raise ProtocolError("game-under-way", "The game is not over yet.")
        self.rematch.add(seat)
        return self.start_rematch_if_ready(now)

    def start_rematch_if_ready(self, now: float) -> bool:
        """Start the next game if every present person voted (after a page closed, a
        person left or was removed); True if it did."""
        if not self.rematch_ready(now):
            return False
        self._playing()
        return True

    def _playing(self) -> None:
        self.status = PLAYING
        self.rematch.clear()
