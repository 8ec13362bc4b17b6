"""Helpers for the end-to-end browser tests: a real ``lockup serve``, Debian's Chromium.

Playwright for Python drives ``/usr/bin/chromium`` (it never downloads a browser of its
own). The server runs as a subprocess on a free port with a temporary SQLite file and
``random`` bots, so whole games take seconds.
"""

from __future__ import annotations

import json
import random
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
CARD_RE = re.compile(r"^[2-9TJQKA][CDHS]$")
TEST_FLAGS = ("--bot-delay", "0.05", "--bot-jitter", "0.05", "--new-games-per-address", "0")
"""Server flags for a module's shared server: bots' cards leave the server at once (the
page's own pacing is what is tested), and the many test players of one address may all
start games."""


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``python -m lockup serve`` on 127.0.0.1 with a SQLite file; restartable on its port."""

    def __init__(self, db: Path, port: int | None = None, *extra: str) -> None:
        self.db = db
        self.port = port or free_port()
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = db.with_suffix(".log")

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> Server:
        """Start the server and wait until ``/healthz`` answers ``ok``."""
        cmd = [sys.executable, "-m", "lockup", "serve", "--host", "127.0.0.1"]
        cmd += ["--port", str(self.port), "--db", f"sqlite:///{self.db}", "--level", "random"]
        cmd += ["--bot-processes", "1", "--log-level", "warning", *self.extra]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"lockup serve exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).text == "ok":
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("lockup serve did not start in time")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush; what was acknowledged must already be stored."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        """A polite stop (SIGTERM, then SIGKILL if it lingers)."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


# ---------------------------------------------------------------------- page helpers

IDLE = 'body[data-idle="true"][data-connected="true"]'
MY_TURN = 'body[data-my-turn="true"][data-connected="true"]'


def table_snapshot(page: Any) -> dict[str, Any]:
    """What the table shows: hand, trick, seats (tricks, lock, cards, lost), scores, version."""
    return page.evaluate(
        """() => {
        const cards = (sel) => [...document.querySelectorAll(sel)].map((e) => e.dataset.card);
        const seats = {};
        for (const el of document.querySelectorAll('.seat')) {
          seats[el.dataset.seat] = {
            tricks: el.querySelector('[data-tricks]')?.dataset.tricks,
            lock: el.querySelector('[data-lock]')?.dataset.lock ?? null,
            count: el.querySelector('[data-count]')?.dataset.count ?? null,
            lost: [...el.querySelectorAll('.lost-cards [data-card]')].map((e) => e.dataset.card),
            turn: el.classList.contains('turn'),
          };
        }
        return {
          hand: cards('#hand button.card'),
          legal: cards('#hand button.card.legal'),
          trick: [...document.querySelectorAll('#middle li.played')].map(
            (e) => [Number(e.dataset.seat), e.querySelector('[data-card]').dataset.card]),
          seats,
          scores: [...document.querySelectorAll('#scores tr')].map(
            (tr) => [...tr.children].map((c) => c.textContent.trim())),
          version: document.body.dataset.version,
          game: document.body.dataset.game,
        };
    }"""
    )


def wait_my_turn_or_dialog(page: Any, timeout: float = 20_000) -> str:
    """Wait until it is our turn, or a hand summary or the game's end is shown."""
    page.wait_for_selector(f"{MY_TURN}, #dlg-summary[open], #dlg-over[open]", timeout=timeout)
    if page.locator("#dlg-over[open]").count():
        return "over"
    if page.locator("#dlg-summary[open]").count():
        return "summary"
    return "turn"


def wait_card_gone(page: Any, card: str, timeout: float = 20_000) -> None:
    """Wait until ``card`` has left the hand shown (the server acknowledged the play);
    a later version alone is not enough, since bots' cards may still be arriving."""
    page.wait_for_function(
        "(c) => ![...document.querySelectorAll('#hand button.card')]"
        ".some((e) => e.dataset.card === c)",
        arg=card,
        timeout=timeout,
    )


def wait_version_change(page: Any, version: str, timeout: float = 20_000) -> None:
    """Wait until the table shows another version than ``version``."""
    page.wait_for_function(
        "(v) => document.body.dataset.version !== v", arg=version, timeout=timeout
    )


def legal_cards(page: Any) -> list[str]:
    """The cards our hand shows as legal, once it shows any (on our turn the page can mark
    the turn a moment before it marks the cards)."""
    page.wait_for_function("() => document.querySelectorAll('#hand button.card.legal').length")
    return list(table_snapshot(page)["legal"])


def click_card(page: Any, card: str) -> None:
    """Click a card of our hand and wait for the table to move on.

    The caller waits until the table is idle first, so the click skips Playwright's
    wait for a still element (slow in a busy software-rendered browser); it is still a
    real mouse click at the card's centre.
    """
    version = page.evaluate("document.body.dataset.version")
    page.locator(f'#hand button.card[data-card="{card}"]').click(force=True)
    wait_version_change(page, version)


def play_until(page: Any, rng: random.Random, done: Any, limit: int = 200) -> None:
    """Click random legal cards (closing hand summaries) until ``done(state)`` is true."""
    for _ in range(limit):
        state = wait_my_turn_or_dialog(page)
        if done(state):
            return
        if state == "summary":
            page.locator("#dlg-summary button.continue").click()
            continue
        assert state == "turn", state
        legal = legal_cards(page)  # waits: the turn can be marked a moment before the cards
        assert legal, "our turn with no legal card highlighted"
        click_card(page, rng.choice(legal))
    raise AssertionError("the game did not reach the expected point")


def find_illegal_turn(page: Any, rng: random.Random) -> str:
    """Play on until it is our turn holding a card that is not legal; returns that card."""
    for _ in range(60):
        state = wait_my_turn_or_dialog(page)
        if state == "summary":
            page.locator("#dlg-summary button.continue").click()
            continue
        legal = legal_cards(page)
        illegal = [c for c in table_snapshot(page)["hand"] if c not in legal]
        if illegal:
            return illegal[0]
        click_card(page, rng.choice(legal))
    raise AssertionError("never held a card that was not legal")


def parse_frames(raw: list[str | bytes]) -> list[dict[str, Any]]:
    """The JSON objects among the frames a page received."""
    out = []
    for f in raw:
        try:
            obj = json.loads(f)
        except (ValueError, TypeError):
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def card_strings(obj: Any, skip: tuple[str, ...] = ()) -> list[str]:
    """Every card code anywhere inside a JSON value (keys in ``skip`` are not entered)."""
    out: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, str):
            if CARD_RE.match(x):
                out.append(x)
        elif isinstance(x, list):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for k, y in x.items():
                if k not in skip:
                    walk(y)

    walk(obj)
    return out


def hidden_card_leaks(
    frames: list[dict[str, Any]], record: dict[str, Any], seat: int = 0
) -> list[str]:
    """Cards of another seat's hidden hand found in frames; empty when nothing leaked.

    A card of another seat is public once played or taken by lockup. For a frame whose
    view is in hand h, ``52 - sum(hand_sizes)`` cards have left the hands, so exactly the
    record's first that-many events of hand h are public; every other card in the frame
    must be the seat's own (dealt to it in hand h). A hand summary's lost cards must be
    that hand's discards. A hint may name only the seat's own cards.
    """
    leaks: list[str] = []
    hands = record["hands"]
    current = 0
    for i, f in enumerate(frames):
        view = f.get("view")
        if isinstance(view, dict):
            h = view["hand_number"]
            current = h
            deal = hands[h]["deal"]
            own = set(deal[seat])
            k = 52 - sum(view["hand_sizes"])
            public = {e.get("play") or e.get("discard") for e in hands[h]["events"][:k]}
            if not set(view["hand"]) <= own:
                leaks.append(f"frame {i}: hand {view['hand']} is not seat {seat}'s deal")
            for c in card_strings(f, skip=("summaries", "summary")):
                if c not in own and c not in public:
                    leaks.append(f"frame {i} ({f.get('type')}): {c} is hidden")
            summaries = list(view.get("summaries", []))
            ev = f.get("event") or {}
            if isinstance(ev.get("summary"), dict):
                summaries.append(ev["summary"])
            for sm in summaries:
                hand = hands[sm["number"]]
                for s in range(4):
                    discards = {
                        e["discard"]
                        for e in hand["events"]
                        if e.get("seat") == s and "discard" in e
                    }
                    if not set(sm["lost"][s]) <= discards:
                        leaks.append(f"frame {i}: summary lists {sm['lost'][s]} lost by {s}")
        elif f.get("type") == "hint":
            own = set(hands[current]["deal"][seat])
            for c in card_strings(f):
                if c not in own:
                    leaks.append(f"frame {i} (hint): {c} is not ours")
    return leaks
