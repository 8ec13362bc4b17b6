"""``lockup play`` as a newcomer meets it: a plain install, a server that is not there,
no terminal, and a second game started in the same folder.

Real ``lockup`` processes, on a pseudo-terminal where the table needs one.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import json
import os
import pty
import re
import select
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
LOCKUP = [sys.executable, "-m", "lockup"]


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _closure(names: set[str]) -> set[str]:
    """The distributions ``names`` install, without extras: themselves and what they require."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        for text in requires:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_name(req.name))
    return seen


def test_a_plain_install_has_what_lockup_play_server_needs() -> None:
    """Every module the terminal imports comes with ``pip install -e .`` (no extra)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = {_name(r) for r in project["dependencies"]}
    installed = _closure(base)
    dists = md.packages_distributions()
    files = [*sorted((ROOT / "lockup" / "tui").glob("*.py")), ROOT / "lockup" / "cli.py"]
    missing = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            else:
                continue
            for mod in mods:
                top = mod.split(".")[0]
                if top in sys.stdlib_module_names or top == "lockup":
                    continue
                names = {_name(d) for d in dists.get(top, [top])}
                if not names & installed:
                    missing.append(f"{path.name}: {mod}")
    assert missing == [], f"not in the base dependencies: {missing}"
    assert {"httpx", "websockets", "textual"} <= base


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_no_server_there_without_a_terminal(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/"
    t0 = time.monotonic()
    r = subprocess.run(
        [*LOCKUP, "play", "--server", url],
        cwd=tmp_path,
        env={**os.environ, "LOCKUP_CONFIG_DIR": str(tmp_path / "config")},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"lockup play: cannot reach {url.rstrip('/')}"), r.stderr
    assert time.monotonic() - t0 < 20


class Terminal:
    """A ``lockup`` process on a pseudo-terminal (stdin, stdout and stderr).

    ``config``: its config folder (``LOCKUP_CONFIG_DIR``: where it keeps its player and
    sign-in at each server); by default a new one under ``cwd``, so two terminals of one
    test are two people, and no test touches the user's own folder."""

    def __init__(self, args: list[str], cwd: Path, config: Path | None = None) -> None:
        master, slave = pty.openpty()
        self.config = config or Path(tempfile.mkdtemp(prefix="config-", dir=cwd))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "35"}
        env["LOCKUP_CONFIG_DIR"] = str(self.config)
        self.proc = subprocess.Popen(
            [*LOCKUP, *args], cwd=cwd, stdin=slave, stdout=slave, stderr=slave, env=env
        )
        os.close(slave)
        self.master = master
        self.output = b""

    def read(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                return
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.output += chunk

    def until(self, cond: object, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while not callable(cond) or not cond():
            if time.monotonic() > end:
                raise AssertionError(f"timed out; output: {self.text()[-2000:]}")
            self.read(0.1)

    def text(self) -> str:
        return self.output.decode("utf-8", errors="replace")

    def quit(self) -> int:
        os.write(self.master, b"q")
        end = time.monotonic() + 30
        while self.proc.poll() is None and time.monotonic() < end:
            self.read(0.1)
        self.read(0.2)
        code = self.proc.wait(timeout=5)
        os.close(self.master)
        return code


def test_no_server_there_in_a_terminal(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    term = Terminal(["play", "--server", url], tmp_path)
    try:
        term.until(lambda: term.proc.poll() is not None, timeout=30)
        term.read(0.2)
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert term.proc.wait() == 1
    assert f"lockup play: cannot reach {url}" in term.text()


def test_lockup_play_without_a_terminal_says_so(tmp_path: Path) -> None:
    r = subprocess.run(
        [*LOCKUP, "play"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 2
    assert r.stderr.startswith("lockup play: needs a terminal")
    assert not (tmp_path / "lockup-game.json").exists()


def _first_deal(path: Path) -> list[list[str]]:
    return json.loads(path.read_text(encoding="utf-8"))["hands"][0]["deal"]


def test_a_second_lockup_play_resumes_the_unfinished_game(tmp_path: Path) -> None:
    save = tmp_path / "lockup-game.json"
    args = ["play", "--level", "random", "--pace", "0"]
    first = Terminal(args, tmp_path)
    first.until(lambda: save.exists() and "your turn" in first.text())
    assert first.quit() == 0
    deal = _first_deal(save)
    assert "saved in lockup-game.json" in first.text()

    second = Terminal(args, tmp_path)
    second.until(lambda: "your turn" in second.text())
    assert second.quit() == 0
    assert "Resuming the unfinished game saved in lockup-game.json" in second.text()
    assert _first_deal(save) == deal  # the same game, not a new one over it

    third = Terminal([*args, "--new"], tmp_path)
    third.until(lambda: "your turn" in third.text())
    assert third.quit() == 0
    assert "lockup-game.json is kept as it is: this game is saved in lockup-game-2.json" in (
        third.text()
    )
    assert _first_deal(save) == deal
    assert _first_deal(tmp_path / "lockup-game-2.json") != deal
    assert sorted(p.name for p in tmp_path.glob("*.json")) == [
        "lockup-game-2.json",
        "lockup-game.json",
    ]


@pytest.mark.parametrize("content", ["finished", "not a record"])
def test_a_finished_or_foreign_file_is_kept(tmp_path: Path, content: str) -> None:
    """A finished game, or a file that is not a saved game, is never written over: the
    next game gets a file of its own."""
    from lockup.cards import card_str
    from lockup.engine import Rules
    from lockup.tui.local import LocalGame

    save = tmp_path / "lockup-game.json"
    if content == "finished":
        local = LocalGame.new(Rules(target=10), level="random", seed=3, save=save)
        while local.due() != "over":
            if local.step() == "human":
                assert local.play(card_str(local.game.legal_cards()[0])) is None
    else:
        save.write_text("{}", encoding="utf-8")
    before = save.read_bytes()
    term = Terminal(["play", "--level", "random", "--pace", "0"], tmp_path)
    term.until(lambda: "your turn" in term.text())
    assert term.quit() == 0
    assert save.read_bytes() == before
    assert "lockup-game.json is kept as it is: this game is saved in lockup-game-2.json" in (
        term.text()
    )
    assert (tmp_path / "lockup-game-2.json").exists()


def test_words_agree_with_you_and_refusals_name_the_table() -> None:
    from lockup.tui.app import TableApp
    from lockup.tui.driver import Driver
    from lockup.tui.words import objective, possessive, says, verb

    assert says("You", "wins") == "You win" and says("Þóra", "wins") == "Þóra wins"
    assert says("You", "is") == "You are" and verb("Leifur", "is") == "is"
    assert possessive("You") == "your" and possessive("Leifur") == "Leifur's"
    assert objective("You") == "you" and objective("Vigdís") == "Vigdís"

    app = TableApp(Driver())
    app.players = ["You", "Þóra", "Leifur", "Vigdís"]
    app.view = {"seat": 0}
    # The engine's (and the server's error frame's) English names the compass point ...
    frame = {
        "code": "not-your-turn",
        "rule": "R4",
        "params": {"seat": 1},
        "reason": "It is not your turn: West plays now.",
    }
    # ... the terminal names the seat as its status line does ("Þóra to play").
    assert app.refusal_text(frame) == "It is not your turn: Þóra plays now."
    due = {"code": "discard-due", "params": {"seat": 0}, "reason": "x"}
    assert app.refusal_text(due) == "Lockup must first take one of your cards."
    # A code the catalogue does not word (the server's own): its reason as it is.
    assert app.refusal_text({"code": "stale", "params": {}, "reason": "Old view."}) == "Old view."


def test_no_sentence_puts_a_name_before_a_third_person_verb() -> None:
    """ "{name} wins" reads "You wins" for the person: every such sentence goes through
    lockup.tui.words."""
    pattern = re.compile(
        r"\{[^}]*(_name\(|names\[|players\[)[^}]*\}('s\b| (wins|deals|is|plays|takes|has)\b)"
    )
    found = []
    for path in (ROOT / "lockup" / "tui").glob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if 'f"' in line and pattern.search(line):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert found == []
