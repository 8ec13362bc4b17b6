"""Outside bots: a program in any language, played over the ``lockup-bot/1`` protocol.

The protocol (docs/bot-protocol.md) is line-based JSON over the program's standard input
and output: one JSON object a line, UTF-8. The arena writes ``hello`` once after the
start, ``game`` at each game's start, ``turn`` when a card is due (the program answers one
line, ``{"card": "QD"}``), ``hand`` after each hand, ``game_over`` at each game's end and
``bye`` before closing the program's standard input. Only ``turn`` expects an answer.

:class:`ExternalBot` is a :class:`~lockup.bots.base.Bot`: :meth:`ExternalBot.choose`
returns the program's card or raises :class:`BotFault` saying what went wrong (the
program crashed, stalled past its time, answered something that is not a card, or a card
it may not play). The arena turns a fault into a random legal card and goes on.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Sequence
from typing import Any

from ..bots.base import Bot
from ..cards import Card, card_str, cards_of, parse_card
from ..engine import SeatView

PROTOCOL = "lockup-bot/1"

FAULT_KINDS = ("crash", "timeout", "malformed", "illegal", "error")
"""What can go wrong with a decision: the program died (``crash``), did not answer in
time (``timeout``), answered a line that is not ``{"card": CARD}`` (``malformed``), a card
it may not play (``illegal``), or a built-in bot raised an exception (``error``)."""

STARTUP_GRACE = 10.0
"""Extra seconds a program gets for its first answer after (re)starting."""

_MAX_LINE = 1 << 20


class BotFault(Exception):
    """A decision the bot lost: ``kind`` is one of :data:`FAULT_KINDS`, ``detail`` says why.

    ``fresh`` is False when the bot was already down (it crashed or stalled earlier in
    the game) and the fault is only a consequence of that.
    """

    def __init__(
        self, kind: str, detail: str, *, fresh: bool = True, card: Card | None = None
    ) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.fresh = fresh
        self.card = card
        """The card answered, for an ``illegal`` fault."""


def view_message(view: SeatView, time_per_move: float | None = None) -> dict[str, Any]:
    """The ``turn`` message for a view: the view, plus every completed trick of the hand."""
    return {
        "type": "turn",
        "view": view.to_dict(),
        "tricks": [
            {
                "number": t.number,
                "leader": t.leader,
                "plays": [{"seat": s, "card": card_str(c)} for s, c in t.plays],
                "winner": t.winner,
                "clubs": t.clubs,
                "lock": t.lock,
            }
            for t in view.tricks
        ],
        "time_per_move": time_per_move,
    }


class ExternalBot(Bot):
    """A bot program run as a subprocess, spoken to in ``lockup-bot/1``.

    ``command`` is the program and its arguments. ``timeout`` is the seconds it has for
    each answer. The program starts at the first message and is restarted by
    :meth:`begin_game` after it crashed or was stopped for stalling. Its standard error
    goes to the arena's.
    """

    name = "cmd"

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout: float = 2.0,
        time_per_move: float | None = None,
        label: str = "bot",
        cwd: str | None = None,
    ) -> None:
        if not command:
            raise ValueError("an outside bot needs a command")
        self.command = list(command)
        self.timeout = float(timeout)
        self.time_per_move = time_per_move
        self.label = label
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self.down = False
        """True from a crash or a stall until the next :meth:`begin_game`."""
        self.restarts = 0
        self._buf = b""
        self._fresh = True
        self._start_fault: BotFault | None = None

    # ------------------------------------------------------------------ process

    def _start(self) -> None:
        try:
            self.proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=self.cwd,
                bufsize=0,
            )
        except OSError as e:
            self.proc = None
            self.down = True
            raise BotFault("crash", f"cannot start {self.command[0]!r}: {e.strerror}") from None
        self._buf = b""
        self._fresh = True
        self.down = False
        self._send(
            {
                "type": "hello",
                "protocol": PROTOCOL,
                "name": self.label,
                "time_per_move": self.time_per_move,
                "timeout": self.timeout,
            }
        )

    def _stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        for f in (proc.stdin, proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        proc.wait()

    def _fail(self, kind: str, detail: str) -> BotFault:
        """Stop the program (it is restarted at the next game) and make the fault."""
        self._stop()
        self.down = True
        return BotFault(kind, detail)

    def _send(self, message: dict[str, Any]) -> None:
        proc = self.proc
        if proc is None or proc.stdin is None:
            raise self._fail("crash", "the program is not running")
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
            raise self._fail("crash", self._exit_text()) from None

    def _exit_text(self) -> str:
        proc = self.proc
        code = proc.poll() if proc is not None else None
        if code is None and proc is not None:
            try:
                code = proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                return "the program closed its standard input"
        if code is None:
            return "the program stopped"
        return f"the program exited with status {code}"

    def _drain(self) -> None:
        """Drop whole lines the program wrote unasked (only ``turn`` expects an answer)."""
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        while select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                break  # the program is gone: the turn will say so
            self._buf += chunk
            if len(self._buf) > _MAX_LINE:
                break
        if b"\n" in self._buf:
            self._buf = self._buf.rpartition(b"\n")[2]

    def _read_line(self, timeout: float) -> bytes:
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail("timeout", f"no answer within {timeout:g} s")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._fail("crash", self._exit_text())
            self._buf += chunk
            if len(self._buf) > _MAX_LINE:
                raise self._fail("malformed", "an answer line longer than 1 MiB")
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    # ------------------------------------------------------------------ protocol

    def notify(self, message: dict[str, Any]) -> None:
        """Send a message that expects no answer; a program that is down is skipped."""
        if self.down or self.proc is None:
            return
        try:
            self._send(message)
        except BotFault:
            pass  # noticed (and counted) at the next turn

    def begin_game(self, seat: int, info: dict[str, Any]) -> None:
        """Start (or restart) the program if needed and send ``game``."""
        if self.down:
            self._stop()
            self.restarts += 1
        self._start_fault = None
        if self.proc is None:
            try:
                self._start()
            except BotFault as fault:
                self._start_fault = fault  # the first turn reports it
                return
        self.notify({"type": "game", "seat": seat, **info})

    def choose(self, view: SeatView) -> Card:
        """The program's card for this view, or :class:`BotFault`."""
        if self._start_fault is not None:
            fault, self._start_fault = self._start_fault, None
            raise fault
        if self.down:
            raise BotFault("crash", "the program is down until the next game", fresh=False)
        if self.proc is None:
            self._start()
        self._drain()
        self._send(view_message(view, self.time_per_move))
        wait = self.timeout + (STARTUP_GRACE if self._fresh else 0.0)
        line = self._read_line(wait)
        self._fresh = False
        return parse_answer(line, view)

    def close(self) -> None:
        """Say ``bye``, close the program's input, and stop it if it does not exit in 1 s."""
        proc = self.proc
        if proc is None:
            return
        if not self.down and proc.poll() is None:
            try:
                self._send({"type": "bye"})
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout=1.0)
            except (BotFault, OSError, subprocess.TimeoutExpired):
                pass
        self._stop()


def parse_answer(line: bytes, view: SeatView) -> Card:
    """The card of an answer line, or :class:`BotFault` (``malformed`` or ``illegal``)."""
    text = line.decode("utf-8", errors="replace").strip()
    shown = text if len(text) <= 80 else text[:77] + "..."
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise BotFault("malformed", f"answered {shown!r}, which is not JSON") from None
    if not isinstance(data, dict) or "card" not in data:
        raise BotFault("malformed", f'answered {shown!r}, not {{"card": CARD}}')
    try:
        card = parse_card(data["card"])
    except ValueError:
        raise BotFault("malformed", f"answered {data['card']!r}, which is not a card") from None
    if not (view.legal_mask >> card) & 1:
        legal = " ".join(card_str(c) for c in cards_of(view.legal_mask))
        raise BotFault(
            "illegal",
            f"answered {card_str(card)}, which it may not play (legal: {legal})",
            card=card,
        )
    return card
