"""The terminal table: a Textual app that shows one seat's view and takes its cards.

The app shows what its driver sends (a ``VIEW`` of the web protocol: ``SeatView.to_dict()``)
and hands the person's choices back; it never decides what is legal. Cards the view
lists as legal are lit, the others dim; a refused card shows the engine's reason.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Collection
from typing import Any, ClassVar

from rich.align import Align
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .. import refusals
from ..cards import SUIT_SYMBOLS, parse_card, sort_for_display
from ..engine import DEFAULT_PLAYERS
from ..ratings import ranks_of
from .driver import Driver
from .words import card, language, localize_bindings, number, shown, tr

HAND_SLOTS = 13
RED_SUITS = ("D", "H")
STATUS_FIELDS = ("hand_number", "trick_number", "phase", "turn", "winner")
"""What of a view the status line shows."""
URGENT = 10
"""Seconds left on the person's own clock from which it shows in red."""


def card_text(code: str, *, dim: bool = False, strike: bool = False) -> Text:
    """A card as people write it in the language (``10♦``, ``Q♦``, ``D♦``), ♥ and ♦ in
    red."""
    style = "red" if code[-1] in RED_SUITS else "bright_white"
    if dim:
        style = "dim " + style
    if strike:
        style += " strike"
    return Text(card(code), style=style)


def suit_text(letter: str) -> Text:
    """A suit's symbol (``D`` → ♦), ♥ and ♦ in red."""
    return Text(SUIT_SYMBOLS["CDHS".index(letter)], style="red" if letter in RED_SUITS else "")


def cards_text(codes: list[str], **kw: Any) -> Text:
    return Text(" ").join(card_text(c, **kw) for c in codes)


class Line:
    """Short parts on one line, ``a · b``, where the width allows; else one a line (a
    side seat is narrow: "13 cartes" over "0 pli")."""

    def __init__(self, *parts: Text, style: str = "") -> None:
        self.parts = parts
        self.style = style

    def _joined(self, sep: str) -> Text:
        return Text(sep, style=self.style).join(self.parts)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        joined = self._joined(" · ")
        yield joined if joined.cell_len <= options.max_width else self._joined("\n")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(max(p.cell_len for p in self.parts), self._joined(" · ").cell_len)


def display_order(codes: list[str]) -> list[str]:
    """A hand in the order players like (♠ ♥ ♣ ♦, high to low)."""
    by_card = {parse_card(c): c for c in codes}
    return [by_card[c] for c in sort_for_display(by_card)]


class Panel(Static):
    """A part of the table, redrawn only when what it shows has changed (a redraw costs a
    layout of the screen)."""

    _shown: object = None

    def changed(self, key: object) -> bool:
        """Whether ``key`` (what the panel would show) differs from last time."""
        if key == self._shown:
            return False
        self._shown = key
        return True


class SeatBox(Panel):
    """One seat: name, cards held, tricks won, lock badge, cards lockup took."""

    def show(self, view: dict[str, Any], players: list[str], seat: int, you: bool) -> None:
        turn = view.get("turn") == seat
        key = [players[seat], you, turn, view.get("dealer") == seat, view["hand_sizes"][seat]]
        key += [view["tricks"][seat], view["locks"][seat], view["lost"][seat]]
        if not self.changed(key):
            return
        self.set_class(turn, "turn")
        self.set_class(bool(view["locks"][seat]), "locked")
        head = Text("▶ " if turn else "  ", style="bold yellow")
        head.append(players[seat], style="bold" if turn or you else "")
        if you and players[seat] != tr("you"):
            head.append(tr("you.mark"), style="dim")
        if view.get("dealer") == seat:
            head.append(tr("seat.deals"), style="dim")
        held = Text(tr("seat.cards", n=view["hand_sizes"][seat]))
        won = Text(tr("seat.won", n=view["tricks"][seat]))
        lines: list[Text | Line] = [head, Line(held, won)]
        lock = view["locks"][seat]
        if lock:
            lines.append(Text(tr("seat.locked", n=lock), style="bold magenta"))
        lost = view["lost"][seat]
        if lost:
            t = Text(tr("seat.lost"), style="dim")
            t.append_text(cards_text(lost, dim=True, strike=True))
            lines.append(t)
        self.update(Group(*lines))


class TrickBox(Panel):
    """The trick in the middle, each card on its player's side; else the last trick."""

    def show(self, view: dict[str, Any], players: list[str], bottom: int) -> None:
        fields = ("trick", "last_trick", "trick_number", "phase", "winner")
        if not self.changed((json.dumps([view.get(k) for k in fields]), tuple(players), bottom)):
            return
        plays = view.get("trick") or []
        last = view.get("last_trick")
        number = view.get("trick_number", 0)
        if view.get("phase") in ("deal", "over") and view.get("winner") is not None:
            winner = players[view["winner"]]
            self.update(Text(tr("game.won", name=winner), style="bold yellow"))
            return
        caption: Text
        if plays:
            caption = Text(tr("trick.caption", n=number + 1), style="bold")
            led = plays[0]["card"][-1]
            caption.append(tr("trick.led"))
            caption.append_text(suit_text(led))
        elif last is not None and last["plays"] is not None:
            plays = last["plays"]
            w = last["winner"]
            caption = Text(tr("trick.last", n=last["number"] + 1), style="dim")
            caption.append(
                tr("trick.empty") if w is None else tr("trick.won", name=players[w]), style="bold"
            )
            if last["lock"]:
                caption.append(f" 🔒{last['lock']}", style="bold magenta")
        else:
            caption = Text(tr("trick.caption", n=number + 1), style="bold")
        dim = not view.get("trick")
        at: dict[int, Text] = {}
        for p in plays:
            pos = (p["seat"] - bottom) % 4
            at[pos] = card_text(p["card"], dim=dim)
        grid = Table.grid(expand=True)
        for _ in range(3):
            grid.add_column(justify="center", ratio=1)
        blank = Text("")
        grid.add_row(blank, at.get(2, blank), blank)
        grid.add_row(at.get(1, blank), blank, at.get(3, blank))
        grid.add_row(blank, at.get(0, blank), blank)
        self.update(Group(Align.center(caption), grid))


class ScoreBox(Panel):
    """Game totals, tricks this hand and times locked, for every seat."""

    def show(self, view: dict[str, Any], players: list[str], bottom: int) -> None:
        fields = ("totals", "tricks", "times_locked", "rules", "hand_number", "phase")
        if not self.changed((json.dumps([view.get(k) for k in fields]), tuple(players), bottom)):
            return
        rules = view["rules"]
        playing = view["phase"] not in ("deal", "over")  # else totals hold this hand
        table = Table(
            title=tr("score.title", n=rules["target"]),
            box=None,
            padding=(0, 0, 0, 1),
            pad_edge=False,
            title_style="bold",
            header_style="dim",
        )
        table.add_column("", no_wrap=True, max_width=8, overflow="ellipsis")
        table.add_column(tr("score.game"), justify="right")
        table.add_column(tr("score.hand"), justify="right")
        table.add_column(tr("score.lock"), justify="right")
        for i in range(4):
            s = (bottom + i) % 4
            table.add_row(
                players[s],
                str(view["totals"][s] + (view["tricks"][s] if playing else 0)),
                str(view["tricks"][s]),
                str(view["times_locked"][s]),
            )
        picture, discards = rules["picture_exception"], rules["lock_discards"]
        options = Line(Text(tr("opt." + picture)), Text(tr("opt." + discards)), style="dim")
        hand = Text(tr("score.handN", n=view["hand_number"] + 1), style="dim")
        grid = Table.grid()
        grid.add_row(table)
        grid.add_row(Group(Text(""), options, hand))
        self.update(grid)


class CardSlot(Panel):
    """One card of the person's hand: click it to play it."""

    def __init__(self, index: int) -> None:
        super().__init__("", id=f"slot-{index}", classes="slot")
        self.index = index
        self.code: str | None = None

    def on_click(self, event: events.Click) -> None:
        app = self.app
        if isinstance(app, TableApp) and self.code is not None:
            app.cursor = self.index
            app.play_card(self.code)


class MessageBox(Static):
    """Refusals, hints and what happens."""


class SummaryScreen(ModalScreen[None]):
    """A hand's summary (R14): points, totals, locks, tricks sat out, cards lost.

    Enter closes it: back to the table, where a game on this computer deals the next hand
    (``deals``), or the table of a server, which has dealt it already. ``q`` quits, as on
    the table. The game's last summary (a ``winner``) lists the seats by place: a seat
    whose person left the game (``left``) after every other, whatever its points, as the
    ratings rank it (docs/ratings.md)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "dismiss", "Go on"),
        Binding("escape", "dismiss", "Go on", show=False),
        Binding("space", "dismiss", "Go on", show=False),
        Binding("q", "quit_game", "Quit"),
    ]

    def __init__(
        self,
        summary: dict[str, Any],
        players: list[str],
        winner: int | None,
        *,
        deals: bool = True,
        left: Collection[int] = (),
    ) -> None:
        super().__init__()
        localize_bindings(self)
        self.summary = summary
        self.players = players
        self.winner = winner
        self.deals = deals
        self.left = frozenset(left)

    def compose(self) -> ComposeResult:
        s = self.summary
        table = Table(
            title=tr("sum.title", n=s["number"] + 1), title_style="bold", box=None, padding=(0, 1)
        )
        over = self.winner is not None
        places = ranks_of(s["totals"], self.left) if over else [0] * 4
        if over:
            table.add_column(tr("sum.place"))
        table.add_column("", no_wrap=True)  # a name and whether its person left
        for key in ("sum.hand", "sum.total", "sum.locked", "sum.satOut"):
            table.add_column(tr(key), justify="right")
        table.add_column(tr("sum.lost"))
        for seat in sorted(range(4), key=lambda x: places[x]):  # stable: by seat on a tie
            name = Text(self.players[seat])
            if seat in self.left:
                name.append(" · " + tr("sum.left"), style="dim")
            row: list[Text | str] = [
                name,
                str(s["points"][seat]),
                str(s["totals"][seat]),
                str(s["times_locked"][seat]),
                str(s["tricks_sat_out"][seat]),
                cards_text(s["lost"][seat], dim=True),
            ]
            table.add_row(*([tr(f"place.{places[seat]}")] if over else []), *row)
        if self.winner is not None:
            won = "game.wonLeft" if self.winner in self.left else "game.won"
            foot = Text("\n" + tr(won, name=self.players[self.winner]), style="bold yellow")
            foot.append(tr("sum.back"), style="dim")
        else:
            foot = Text(tr("sum.next" if self.deals else "sum.back"), style="dim")
        with Vertical(id="summary", classes="over" if over else ""):  # places: wider
            yield Static(table)
            yield Static(foot, id="summary-foot")

    async def action_quit_game(self) -> None:
        """``q``: quit the game, as the table's ``q`` does."""
        await self.app.run_action("quit_game")


class HelpScreen(ModalScreen[None]):
    """Keys and the rules in a nutshell."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("enter", "dismiss", "Close", show=False),
        Binding("question_mark", "dismiss", "Close", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        localize_bindings(self)

    def compose(self) -> ComposeResult:
        yield Static(tr("help"), id="help")


CSS = """
Screen { layout: vertical; }
#status { height: 1; background: $primary-background; color: $text; padding: 0 1; }
#body { height: 1fr; }
#felt { width: 1fr; background: #0b3d1f; }
#top, #bottom { height: 4; padding: 0 1 0 18; }
#middle { height: 1fr; }
#left, #right { width: 18; height: 100%; padding: 0 1; content-align: left middle; }
#trick { width: 1fr; height: 100%; content-align: center middle; }
SeatBox.turn { background: #1d5a33; }
#score { width: 25; padding: 0 1; background: $surface; }
#message { height: 3; padding: 0 1; background: $panel; }
#message.refusal { color: $warning; text-style: bold; }
#hand { height: 3; background: $surface; align: center middle; }
.slot { width: 5; height: 2; content-align: center top; color: $text-muted; }
.slot.legal { color: $text; text-style: bold; background: #2b4a7a; }
.slot.cursor { background: $accent; }
.slot.legal.cursor { background: $accent; }
SummaryScreen, HelpScreen { align: center middle; }
#summary, #help { width: 72; max-width: 100%; height: auto; max-height: 100%; padding: 0 1;
    background: $panel; border: round $accent; }
#summary.over { width: 86; }
#summary Static { width: 100%; height: auto; }
"""


class TableApp(App[None]):
    """Lockup's table in the terminal, for the driver's game."""

    CSS = CSS
    TITLE = "Lockup"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "cursor(-1)", "Card", show=False),
        Binding("right", "cursor(1)", "Card", show=False),
        Binding("enter", "play", "Play"),
        Binding("space", "play", "Play", show=False),
        Binding("h", "hint", "Hint"),
        Binding("s", "start", "Start"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit_game", "Quit"),
    ]

    def __init__(self, driver: Driver) -> None:
        super().__init__()
        localize_bindings(self)
        self.driver = driver
        self.view: dict[str, Any] | None = None
        self.players: list[str] = list(DEFAULT_PLAYERS)
        self.cursor = 0
        self.order: list[str] = []
        self.hints: dict[str, float] = {}
        self.message = ""
        self.summary_open = False
        self.clock: tuple[int, float] | None = None
        """The turn clock that runs: its seat and when it runs out (``time.monotonic``)."""
        self._status_shown: object = None

    # ---------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        yield Static("", id="status")
        with Horizontal(id="body"):
            with Vertical(id="felt"):
                yield SeatBox(id="top")
                with Horizontal(id="middle"):
                    yield SeatBox(id="left")
                    yield TrickBox(id="trick")
                    yield SeatBox(id="right")
                yield SeatBox(id="bottom")
            yield ScoreBox(id="score")
        yield MessageBox("", id="message")
        with Horizontal(id="hand"):
            for i in range(HAND_SLOTS):
                yield CardSlot(i)
        yield Footer()

    async def on_mount(self) -> None:
        self.driver.attach(self)
        self.query_one("#status", Static).update(Text(self.driver.title, style="bold"))
        self.set_interval(0.25, self._tick_clock)
        await self.driver.start()

    # ---------------------------------------------------------------- from the driver

    @property
    def seat(self) -> int | None:
        """The seat shown at the bottom as the person's (None: a spectator)."""
        return None if self.view is None else self.view.get("seat")

    def show_view(self, view: dict[str, Any], players: list[str] | None = None) -> None:
        """Show a seat's view (``SeatView.to_dict()``), and the players' names."""
        old = self.view
        self.view = view
        if players is not None:
            self.players = [shown(p) for p in players]
        if old is None or old.get("legal") != view.get("legal"):
            self.hints = {}
        if old is None or self._playing(old) != self._playing(view):
            self.refresh_bindings()
        previous = self.order[self.cursor] if 0 <= self.cursor < len(self.order) else None
        self.order = display_order(list(view.get("hand") or []))
        legal = view.get("legal") or []
        if previous in self.order and (previous in legal or not legal):
            self.cursor = self.order.index(previous)
        elif legal:
            self.cursor = self.order.index(display_order(legal)[0])
        else:
            self.cursor = min(self.cursor, max(len(self.order) - 1, 0))
        self.refresh_table()

    def show_refusal(self, refusal: dict[str, Any]) -> None:
        """A card was refused: the engine's reason (and rule), its seats named as the
        table names them ("It is not your turn: Þóra plays now.")."""
        text = Text(tr("refused"), style="bold")
        if refusal.get("rule"):
            text.append(f" ({refusal['rule']})")
        text.append(": " + self.refusal_text(refusal))
        self._message(text, refusal=True)

    def refusal_text(self, refusal: dict[str, Any]) -> str:
        """The refusal in the catalogue's words with the table's names (an engine refusal
        or a server's ``error`` frame: ``code`` and ``params``), else its ``reason``."""
        code, params = refusal.get("code"), refusal.get("params")
        if isinstance(code, str) and code in refusals.codes() and isinstance(params, dict):
            viewer = (self.view or {}).get("seat")
            return refusals.message(code, params, language(), names=self.players, viewer=viewer)
        return str(refusal.get("reason", ""))

    def show_hint(self, values: list[tuple[str, float]]) -> None:
        """The expert's value of each legal card (expected tricks this hand)."""
        self.hints = dict(values)
        text = Text(tr("hint.title"), style="bold")
        for i, (code, v) in enumerate(sorted(values, key=lambda cv: -cv[1])):
            if i:
                text.append("  ")
            text.append_text(card_text(code))
            text.append(f" {number(v)}", style="bold green" if i == 0 else "")
        self._message(text)
        self.refresh_hand()

    def say(self, text: str | Text) -> None:
        """A line about what happens (not a refusal)."""
        self._message(text if isinstance(text, Text) else Text(text))

    def show_summary(
        self,
        summary: dict[str, Any],
        winner: int | None = None,
        on_close: Callable[[], None] | None = None,
        *,
        deals: bool = True,
        left: Collection[int] = (),
    ) -> None:
        """The summary of the hand just over; ``on_close`` runs when the person closes it.
        ``deals``: closing it deals the next hand (a game on this computer), else the
        next hand is under way already (a server's table). ``left``: the seats whose
        person left the game (ranked last in the game's last summary)."""
        self.summary_open = True

        def closed(_: None) -> None:
            self.summary_open = False
            if on_close is not None:
                on_close()

        self.push_screen(
            SummaryScreen(summary, self.players, winner, deals=deals, left=left), closed
        )

    def show_clock(self, seat: int | None, seconds: float = 0.0) -> None:
        """A turn clock: ``seat`` has ``seconds`` left to play, counted down on the status
        line while it is that seat's turn (None: no clock runs)."""
        self.clock = None if seat is None else (seat, time.monotonic() + max(0.0, seconds))
        self.refresh_status()

    def clock_left(self) -> int | None:
        """Whole seconds left on the clock of the seat to play (None: none runs)."""
        view = self.view or {}
        if self.clock is None or view.get("phase") != "play" or view.get("turn") != self.clock[0]:
            return None
        return max(0, math.ceil(self.clock[1] - time.monotonic() - 1e-9))

    def _tick_clock(self) -> None:
        if self.clock is not None:
            self.refresh_status()

    def set_title(self, title: str) -> None:
        """Show ``title`` alone on the status line."""
        self._status_shown = None
        self.query_one("#status", Static).update(Text(title, style="bold"))

    # ---------------------------------------------------------------- drawing

    def _message(self, text: Text, refusal: bool = False) -> None:
        self.message = text.plain
        box = self.query_one("#message", MessageBox)
        box.set_class(refusal, "refusal")
        box.update(text)

    def refresh_table(self) -> None:
        view = self.view
        if view is None:
            return
        bottom = view.get("seat")
        you = bottom
        if bottom is None:
            bottom = 0
        for pos, wid in enumerate(("bottom", "left", "top", "right")):
            seat = (bottom + pos) % 4
            self.query_one(f"#{wid}", SeatBox).show(view, self.players, seat, seat == you)
        self.query_one("#trick", TrickBox).show(view, self.players, bottom)
        self.query_one("#score", ScoreBox).show(view, self.players, bottom)
        self.refresh_status()
        self.refresh_hand()

    def refresh_status(self) -> None:
        """The status line: the title, the hand and trick, who is to play and their clock."""
        view = self.view
        if view is None:
            return
        you = view.get("seat")
        left = self.clock_left()
        fields = json.dumps([view.get(k) for k in STATUS_FIELDS])
        key = (self.driver.title, fields, you, left, tuple(self.players))
        if key == self._status_shown:
            return
        self._status_shown = key
        status = Text(self.driver.title, style="bold")
        status.append(tr("status.hand", n=view["hand_number"] + 1))
        if view["phase"] == "play":
            status.append(tr("status.trick", n=view["trick_number"] + 1))
            turn = view.get("turn")
            if turn is not None and turn == you:
                status.append(tr("status.yourTurn"), style="bold yellow")
            elif turn is not None:
                status.append(tr("status.toPlay", name=self.players[turn]))
            if left is not None:
                urgent = left <= URGENT
                mine = turn == you
                style = "bold red" if urgent and mine else "bold yellow" if mine else ""
                status.append(tr("status.clock", n=left), style=style)
        elif view.get("winner") is not None:
            won = tr("status.won", name=self.players[view["winner"]])
            status.append(won, style="bold yellow")
        self.query_one("#status", Static).update(status)

    def refresh_hand(self) -> None:
        view = self.view or {}
        legal = set(view.get("legal") or [])
        for i, slot in enumerate(self.query(CardSlot)):
            code = self.order[i] if i < len(self.order) else None
            slot.code = code
            slot.display = code is not None
            if code is None:
                continue
            lit = code in legal
            if not slot.changed((code, lit, i == self.cursor, self.hints.get(code))):
                continue
            slot.set_class(lit, "legal")
            slot.set_class(i == self.cursor, "cursor")
            text = card_text(code, dim=not lit)
            if code in self.hints:
                text.append(f"\n{number(self.hints[code])}", style="green")
            slot.update(text)

    # ---------------------------------------------------------------- actions

    @staticmethod
    def _playing(view: dict[str, Any] | None) -> bool:
        """Whether ``view`` is of a seat in a game under way (cards to play, hints)."""
        return view is not None and view.get("seat") is not None and view.get("winner") is None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The keys that work now, which the footer offers: a card and a hint only at a
        seat of a game under way (not while a table waits for its start, nor for a
        spectator, nor after the end); the start only for a room's host before it."""
        if action in ("play", "hint", "cursor"):
            return self._playing(self.view)
        if action == "start":
            return self.driver.can_start()
        return True

    def play_card(self, code: str) -> None:
        """The person chose ``code``: the driver plays it or says why not."""
        if self.summary_open:
            return
        self.driver.play(code)

    def action_cursor(self, step: int) -> None:
        if self.order:
            self.cursor = (self.cursor + step) % len(self.order)
            self.refresh_hand()

    def action_play(self) -> None:
        if 0 <= self.cursor < len(self.order):
            self.play_card(self.order[self.cursor])

    def action_hint(self) -> None:
        self.driver.hint()

    def action_start(self) -> None:
        self.driver.start_game()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    async def action_quit_game(self) -> None:
        await self.driver.stop()
        self.exit()

    async def on_unmount(self) -> None:
        await self.driver.stop()
