"""Every Python and shell block of README.md and docs/*.md, run or at least parsed.

A small runner of fenced blocks:

- each ```` ```python ```` block runs, the blocks of one document one after the other in
  one namespace (a later block may use what an earlier one made), in a temporary folder
  that sees the repository's ``examples/``, ``tests/``, ``bench/``, ``docs/`` and
  ``.venv/``, with a timeout;
- each ```` ```sh ```` / ```` ```bash ```` block is parsed by ``bash -n``, then runs (after the
  document's Python blocks, in the same folder, with the venv's ``bin`` first on PATH). A
  block written as a transcript (``$ command`` lines, then what it prints) runs each
  command and checks each printed line, a ``...`` standing for any text.

A block that must not run here (it starts a server, installs packages, needs a terminal
or runs for minutes) has an HTML comment right before its fence:
``<!-- snippet: skip (starts a server) -->``; it is still parsed (``compile`` or
``bash -n``), and the test prints what it skipped and why (``pytest -rP``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINKED = ("examples", "tests", "bench", "docs", ".venv")
FENCE = re.compile(r"^```(\w*)\s*$")
SKIP = re.compile(r"^<!--\s*snippet:\s*skip\s*(\((?P<why>.*)\))?\s*-->\s*$")
TIMEOUT = 50.0


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    lang: str
    code: str
    skip: str | None
    """Why it does not run, or None."""

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The ``python``, ``sh`` and ``bash`` blocks of a Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        lang = m.group(1)
        if lang in ("python", "sh", "bash"):
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            mark = SKIP.match(lines[k]) if k >= 0 else None
            skip = (mark.group("why") or "no reason given") if mark else None
            code = "\n".join(lines[i + 1 : j]) + "\n"
            found.append(Block(path.relative_to(ROOT).as_posix(), i + 1, lang, code, skip))
        i = j + 1
    return found


DOCS_WITH_BLOCKS = [p for p in DOCS if blocks(p)]

RUNNER = textwrap.dedent(
    """
    import json, sys, traceback
    blocks = json.load(open(sys.argv[1], encoding="utf-8"))
    namespace = {"__name__": "__snippet__"}
    for where, code in blocks:
        print(f"--- {where}", flush=True)
        try:
            exec(compile(code, where, "exec"), namespace)
        except SystemExit as e:
            if e.code not in (None, 0):
                print(f"FAILED {where}: exit {e.code}", flush=True)
                sys.exit(1)
        except BaseException:
            traceback.print_exc()
            print(f"FAILED {where}", flush=True)
            sys.exit(1)
    """
)


def _workdir(tmp: Path) -> tuple[Path, dict[str, str]]:
    for name in LINKED:
        if (ROOT / name).exists():
            (tmp / name).symlink_to(ROOT / name)
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
    }
    return tmp, env


def _transcript(block: Block) -> list[tuple[str, list[str]]]:
    """``$ command`` lines and the lines printed after each."""
    steps: list[tuple[str, list[str]]] = []
    for line in block.code.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps and line.strip():
            steps[-1][1].append(line)
    return steps


def _matches(expected: str, actual: str) -> bool:
    """``expected`` with each ``...`` standing for any text."""
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual.strip()) is not None


def _run_shell(block: Block, cwd: Path, env: dict[str, str]) -> None:
    if block.code.lstrip().startswith("$ "):
        for command, output in _transcript(block):
            r = subprocess.run(
                ["bash", "-c", command],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
            )
            got = [line for line in r.stdout.splitlines() if line.strip()]
            assert len(got) == len(output), f"{block.where}: $ {command}\n{r.stdout}{r.stderr}"
            for want, line in zip(output, got, strict=True):
                assert _matches(want, line), f"{block.where}: $ {command}: {line!r} is not {want!r}"
        return
    script = cwd / "snippet.sh"
    script.write_text(block.code, encoding="utf-8")
    r = subprocess.run(
        ["bash", "-e", "-o", "pipefail", str(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert r.returncode == 0, f"{block.where} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"


@pytest.mark.parametrize("doc", DOCS_WITH_BLOCKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_blocks_of(doc: Path, tmp_path: Path) -> None:
    cwd, env = _workdir(tmp_path)
    found = blocks(doc)
    skipped = [b for b in found if b.skip is not None]
    # Everything parses, run or not.
    for b in found:
        if b.lang == "python":
            compile(b.code, b.where, "exec")
        elif not b.code.lstrip().startswith("$ "):
            r = subprocess.run(["bash", "-n"], input=b.code, capture_output=True, text=True)
            assert r.returncode == 0, f"{b.where}: bash -n: {r.stderr}"
    python = [(b.where, b.code) for b in found if b.lang == "python" and b.skip is None]
    if python:
        (cwd / "blocks.json").write_text(json.dumps(python), encoding="utf-8")
        (cwd / "run_blocks.py").write_text(RUNNER, encoding="utf-8")
        r = subprocess.run(
            [sys.executable, "run_blocks.py", "blocks.json"],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        assert r.returncode == 0, f"{doc.name}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    for b in found:
        if b.lang != "python" and b.skip is None:
            _run_shell(b, cwd, env)
    for b in skipped:
        print(f"skipped {b.where} ({b.lang}): {b.skip}")


def test_every_skip_says_why_and_most_blocks_run() -> None:
    found = [b for doc in DOCS for b in blocks(doc)]
    skipped = [b for b in found if b.skip is not None]
    for b in skipped:
        print(f"skipped {b.where} ({b.lang}): {b.skip}")
    assert all(b.skip != "no reason given" for b in skipped), [b.where for b in skipped]
    # Every Python block runs.
    assert [b.where for b in skipped if b.lang == "python"] == []
    assert len(found) >= 35


def test_the_runner_catches_a_broken_block(tmp_path: Path) -> None:
    """A block that raises, and a shell block that fails, fail the test."""
    doc = tmp_path / "bad.md"
    doc.write_text(
        "```python\nx = 1\n```\n\n```python\nprint(record)\n```\n\n"
        "<!-- snippet: skip (starts a server) -->\n```sh\nlockup serve\n```\n\n"
        "```sh\nfalse\n```\n",
        encoding="utf-8",
    )
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        found = blocks(doc)
    finally:
        ROOT = old
    assert [(b.lang, b.skip) for b in found] == [
        ("python", None),
        ("python", None),
        ("sh", "starts a server"),
        ("sh", None),
    ]
    (tmp_path / "blocks.json").write_text(
        json.dumps([(b.where, b.code) for b in found[:2]]), encoding="utf-8"
    )
    (tmp_path / "run_blocks.py").write_text(RUNNER, encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "run_blocks.py", "blocks.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert r.returncode == 1 and "NameError: name 'record' is not defined" in r.stderr
    assert "FAILED bad.md:5" in r.stdout
    with pytest.raises(AssertionError, match="failed"):
        _run_shell(found[3], tmp_path, dict(os.environ))
    assert _matches('{"status": "finished", ...}', '{"status": "finished", "x": 1}')
    assert not _matches('{"status": "finished", ...}', '{"status": "invalid"}')
