"""Outside bots: a program in any language, played over the ``lockup-bot`` protocol.

The protocol (docs/bot-protocol.md) is line-based JSON over the program's standard input
and output: one JSON object a line, UTF-8. The arena writes ``hello`` once after the
start, ``game`` at each game's start, ``turn`` when a card is due, ``hand`` after each
hand, ``game_over`` at each game's end and ``bye`` before closing the program's standard
input. Only ``turn`` expects an answer. Each ``turn`` carries an ``id``, its number.

Two versions are spoken. A program whose first line is ``{"type": "hello", "protocol":
"lockup-bot/2"}`` speaks version 2: it answers ``{"id": ID, "card": "QD"}``, and any line
that is not the answer to the turn asked (a second answer, a late one, a line written
unasked) is dropped and counted, never played. Any other program speaks version 1: it
answers ``{"card": "QD"}`` and the arena takes the first line written after the turn.

:class:`ExternalBot` is a :class:`~lockup.bots.base.Bot`: :meth:`ExternalBot.choose`
returns the program's card or raises :class:`BotFault` saying what went wrong (the
program crashed, stalled past its time reading or answering, answered something that is
not a card, or a card it may not play). The arena turns a fault into a random legal card
and goes on. :meth:`ExternalBot.begin_game` and :meth:`ExternalBot.notify` return the
fault instead, for the arena to count.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from ..bots.base import Bot
from ..cards import Card, card_str, cards_of, parse_card
from ..engine import SeatView

PROTOCOL = "lockup-bot/2"
"""The newest version, the one ``hello`` names."""

PROTOCOLS = ("lockup-bot/2", "lockup-bot/1")
"""The versions the arena speaks; a program that does not choose one speaks ``/1``."""

FAULT_KINDS = ("crash", "timeout", "malformed", "illegal", "error")
"""What can go wrong with a decision: the program died (``crash``), did not answer or
read in time (``timeout``), answered a line that is not a card (``malformed``), a card
it may not play (``illegal``), or a built-in bot raised an exception (``error``)."""

STARTUP_GRACE = 10.0
"""Extra seconds a program gets for its first answer after (re)starting."""

_MAX_LINE = 1 << 20
"""The longest line read (1 MiB); the rest of a longer one is skipped."""


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


def view_message(
    view: SeatView, time_per_move: float | None = None, turn_id: int = 1
) -> dict[str, Any]:
    """The ``turn`` message for a view: its id, the view, and every completed trick of
    the hand."""
    return {
        "type": "turn",
        "id": turn_id,
        "view": view.to_dict(),
        "tricks": [t.to_dict() for t in view.tricks],
        "time_per_move": time_per_move,
    }


def _shown(text: str) -> str:
    """A line as quoted in a message: at most 80 characters."""
    return repr(text if len(text) <= 80 else text[:77] + "...")


class ExternalBot(Bot):
    """A bot program run as a subprocess, spoken to in ``lockup-bot/2`` or ``/1``.

    ``command`` is the program and its arguments. ``timeout`` is the seconds it has for
    each answer, and to take each message the arena writes. The program starts at the
    first message and is restarted by :meth:`begin_game` after it crashed or was stopped
    for stalling. Its standard error goes to the arena's, line by line, and its last
    line is kept: a crash names it (``the program exited with status 1:
    ModuleNotFoundError: No module named 'numpy'``).
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
        self.version = 1
        """The protocol version the running program speaks (2 once its first line says so)."""
        self.dropped_lines = 0
        """Lines the program wrote that were not an answer to the turn asked, all runs."""
        self.last_dropped = ""
        """The last of them, quoted, and why it was dropped."""
        self._buf = b""
        self._skipping = False  # in the rest of a line over _MAX_LINE
        self._lines = 0  # lines read from this run of the program
        self._turn_id = 0  # the id of the last turn sent
        self._fresh = True
        self._errors: deque[str] = deque(maxlen=1)
        self._stderr_reader: threading.Thread | None = None

    # ------------------------------------------------------------------ process

    def _forward_stderr(self, stream: Any, last: deque[str]) -> None:
        """Copy the program's standard error to the arena's, keeping its last line."""
        out = getattr(sys.stderr, "buffer", None)
        try:
            for line in iter(stream.readline, b""):
                text = line.decode("utf-8", errors="replace").strip()
                if text:
                    last.append(text)
                try:
                    if out is not None:
                        out.write(line)
                        out.flush()
                    else:
                        sys.stderr.write(line.decode("utf-8", errors="replace"))
                except (OSError, ValueError):
                    pass
        except (OSError, ValueError):
            pass
        finally:
            try:
                stream.close()
            except OSError:
                pass

    def last_error_line(self) -> str:
        """The last line the program wrote on its standard error ('' if none)."""
        reader = self._stderr_reader
        if reader is not None:
            reader.join(timeout=0.5)  # the program is gone: its last lines are coming
        return self._errors[-1] if self._errors else ""

    def _start(self) -> None:
        try:
            self.proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                bufsize=0,
            )
        except OSError as e:
            self.proc = None
            self.down = True
            raise BotFault("crash", f"cannot start {self.command[0]!r}: {e.strerror}") from None
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self._errors = deque(maxlen=1)
        self._stderr_reader = threading.Thread(
            target=self._forward_stderr,
            args=(self.proc.stderr, self._errors),
            name=f"stderr of {self.label}",
            daemon=True,
        )
        self._stderr_reader.start()
        os.set_blocking(self.proc.stdin.fileno(), False)  # writes wait with a deadline
        self._buf = b""
        self._skipping = False
        self._lines = 0
        self._turn_id = 0
        self.version = 1
        self._fresh = True
        self.down = False
        self._send(
            {
                "type": "hello",
                "protocol": PROTOCOL,
                "protocols": list(PROTOCOLS),
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

    def _gone(self, closed: str) -> BotFault:
        """The crash when a pipe broke: the program exited, or it closed ``closed``."""
        proc = self.proc
        code = proc.poll() if proc is not None else None
        if code is None and proc is not None:
            try:
                code = proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                return self._fail("crash", f"the program closed its {closed}")
        if code is None:
            return self._fail("crash", "the program stopped")
        last = self.last_error_line()
        return self._fail(
            "crash", f"the program exited with status {code}" + (f": {last}" if last else "")
        )

    def _wait(self) -> float:
        """Seconds the program has to answer or to take a message."""
        return self.timeout + (STARTUP_GRACE if self._fresh else 0.0)

    def _send(self, message: dict[str, Any]) -> None:
        """Write one message; a program that does not take it in time is stopped."""
        proc = self.proc
        if proc is None or proc.stdin is None:
            raise self._fail("crash", "the program is not running")
        fd = proc.stdin.fileno()
        data = memoryview((json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8"))
        wait = self._wait()
        deadline = time.monotonic() + wait
        while data:
            try:
                data = data[os.write(fd, data) :]
                continue
            except BlockingIOError:
                pass  # the pipe is full: the program is not reading
            except OSError:
                raise self._gone("standard input") from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._fail("timeout", f"did not read its input within {wait:g} s")
            select.select([], [fd], [], left)

    def _read_line(self, deadline: float, *, wait: bool = True) -> bytes | None:
        """The program's next line, or None if none is whole by ``deadline`` (a
        :func:`time.monotonic` time) or, with ``wait`` False, in what it wrote so far.

        A line over 1 MiB is a ``malformed`` fault; the rest of it is skipped as it comes.
        """
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            if b"\n" in self._buf or len(self._buf) > _MAX_LINE:
                line, newline, self._buf = self._buf.partition(b"\n")
                self._lines += 1
                if len(line) > _MAX_LINE:
                    self._skipping = not newline
                    raise BotFault("malformed", "answered a line longer than 1 MiB")
                return line
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left if wait else 0)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise self._gone("standard output")
            if self._skipping:
                end = chunk.find(b"\n")
                if end < 0:
                    continue
                chunk = chunk[end + 1 :]
                self._skipping = False
            self._buf += chunk

    def _is_answer(self, line: bytes, asked: bool) -> bool:
        """Whether ``line`` answers the turn asked; any other line is dropped (counted).

        The program's first line may choose the protocol version instead.
        """
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict):
            data = {}
        if self._lines == 1 and data.get("type") == "hello":
            if data.get("protocol") in PROTOCOLS:
                self.version = 2 if data["protocol"] == PROTOCOL else 1
                return False
            return self._drop(line, "not a protocol the arena speaks")
        turn_id = data.get("id") if type(data.get("id")) is int else None
        if self.version == 2 and turn_id is not None and 0 < turn_id < self._turn_id:
            return self._drop(line, f"an answer to turn {turn_id}, which is over")
        if not asked:
            return self._drop(line, "written before the turn was asked")
        if self.version == 1 or turn_id == self._turn_id:
            return True
        return self._drop(line, f"not an answer to turn {self._turn_id}")

    def _drop(self, line: bytes, why: str) -> bool:
        self.dropped_lines += 1
        self.last_dropped = f"{_shown(line.decode('utf-8', errors='replace'))} ({why})"
        return False

    # ------------------------------------------------------------------ protocol

    def notify(self, message: dict[str, Any]) -> BotFault | None:
        """Send a message that expects no answer: the fault if the program failed now
        (a program that is down is skipped)."""
        if self.down or self.proc is None:
            return None
        try:
            self._send(message)
        except BotFault as fault:
            return fault
        return None

    def begin_game(self, seat: int, info: dict[str, Any]) -> BotFault | None:
        """Start (or restart) the program if needed and send ``game``: the fault if the
        program cannot start or failed now."""
        if self.down:
            self._stop()
            self.restarts += 1
        if self.proc is None:
            try:
                self._start()
            except BotFault as fault:
                return fault
        return self.notify({"type": "game", "seat": seat, **info})

    def choose(self, view: SeatView) -> Card:
        """The program's card for this view, or :class:`BotFault`."""
        if self.down:
            raise BotFault("crash", "the program is down until the next game", fresh=False)
        if self.proc is None:
            self._start()
        self._turn_id += 1
        # What it wrote since the last turn was not asked for (reading no longer than
        # a turn's time, for a program that writes without end).
        drain_until = time.monotonic() + self.timeout
        while (line := self._read_line(drain_until, wait=False)) is not None:
            self._is_answer(line, asked=False)
        self._send(view_message(view, self.time_per_move, self._turn_id))
        wait = self._wait()
        deadline = time.monotonic() + wait
        dropped = self.dropped_lines
        while (line := self._read_line(deadline)) is not None:
            if self._is_answer(line, asked=True):
                self._fresh = False
                return parse_answer(line, view)
        detail = f"no answer within {wait:g} s"
        if self.dropped_lines > dropped:
            n = self.dropped_lines - dropped
            detail += f"; dropped {n} line{'s' if n > 1 else ''}, the last {self.last_dropped}"
        raise self._fail("timeout", detail)

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
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise BotFault("malformed", f"answered {_shown(text)}, which is not JSON") from None
    if not isinstance(data, dict) or "card" not in data:
        raise BotFault("malformed", f'answered {_shown(text)}, not {{"card": CARD}}')
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
