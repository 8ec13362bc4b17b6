"""Compile the engine with mypyc into extension modules beside its sources (`make engine`).

The modules of ``lockup._accel.COMPILED`` (``cards.py``, ``playout.py``, ``engine.py``)
are compiled together, as one mypyc group: one shared library
(``lockup/engine_group__mypyc.*.so``) holds the code of all three, and each module gets a
small extension of its own that loads it. Calls between them (the engine's ``Game``
calling the trick's rules in ``playout.py``, both reading ``cards.py``) are then native C
calls, not Python calls through the package; the price is that the group is used or
passed over as a whole.

The build works on a copy of the sources, to each of which it appends the same two
records: ``BUILT_FROM``, the SHA-256 of each source of the group, and ``BUILT_AGAINST``,
that of each other source of the package they import (``refusals.py``: mypyc compiles
against its types and constants). ``lockup`` runs the group only while every one of those
still matches (see lockup/_accel.py); otherwise the three modules run from their sources,
so a stale build is never run.

Without a C compiler it says so and leaves the engine on its Python sources (same
results, slower); any other failure exits non-zero with mypyc's output.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "lockup"
MODULES = ("cards", "playout", "engine")
"""As lockup._accel.COMPILED (read here without importing lockup, which would load the
builds being replaced; the tests check the two agree)."""
GROUP = "engine_group"
"""The group's shared library: ``lockup/engine_group__mypyc.*.so`` (as
lockup._accel.GROUP)."""

IMPORT = re.compile(r"^from \.(\w+) import", re.MULTILINE)

SETUP = """\
from setuptools import setup
from mypyc.build import mypycify

setup(
    name="lockup-engine",
    ext_modules=mypycify({paths!r}, separate=False, group_name={group!r}, opt_level="3"),
)
"""
"""The build, as ``mypyc`` itself runs one (a setup.py, ``build_ext --inplace``), with
every module in one group under a name of our own (the default is a hash, at top level)."""


def source_digest(path: Path) -> str:
    """The SHA-256 of a source, as lockup._accel.source_digest computes it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extensions(folder: Path) -> list[Path]:
    """The group's extension files in ``folder``: one per module and the shared library."""
    names = [f"{module}.*.so" for module in MODULES] + [f"{GROUP}__mypyc.*.so"]
    return [path for name in names for path in sorted(folder.glob(name))]


def built() -> list[Path]:
    """Every extension of the engine beside the sources: the group's, and any library of
    a module compiled on its own by an older ``make engine`` (``engine__mypyc.*.so``)."""
    older = [path for m in MODULES for path in sorted(PACKAGE.glob(f"{m}__mypyc.*.so"))]
    return extensions(PACKAGE) + older


def implementations() -> dict[str, str]:
    """What a fresh interpreter runs, module by module: ``compiled`` or ``python``."""
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from lockup._accel import implementations as i; print(json.dumps(i()))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if check.returncode != 0:
        return {}
    found: dict[str, str] = json.loads(check.stdout)
    return found


def prepare(work: Path) -> list[str]:
    """Copy the group's sources (and the package's others they import) into ``work``,
    each of the group's with the build's records appended; the paths to compile."""
    (work / "lockup").mkdir(parents=True)
    (work / "lockup" / "__init__.py").write_text("")
    texts = {m: (PACKAGE / f"{m}.py").read_text(encoding="utf-8") for m in MODULES}
    imported = {other for text in texts.values() for other in IMPORT.findall(text)}
    for other in sorted(imported - set(MODULES)):
        shutil.copy2(PACKAGE / f"{other}.py", work / "lockup" / f"{other}.py")
    built_from = {f"{m}.py": source_digest(PACKAGE / f"{m}.py") for m in MODULES}
    against = {
        f"{other}.py": source_digest(PACKAGE / f"{other}.py")
        for other in sorted(imported - set(MODULES))
    }
    for module, text in texts.items():
        if not re.search(r"^from typing import .*\bFinal\b", text, re.MULTILINE):
            text += "\nfrom typing import Final\n"
        text += (
            f"\n\nBUILT_FROM: Final[dict[str, str]] = {built_from!r}\n"
            '"""The SHA-256 of each source of the compiled group."""\n'
            f"BUILT_AGAINST: Final[dict[str, str]] = {against!r}\n"
            '"""The SHA-256 of each of the package\'s other sources the group imports."""\n'
        )
        (work / "lockup" / f"{module}.py").write_text(text, encoding="utf-8")
    return [f"lockup/{m}.py" for m in MODULES]


def main() -> int:
    """Build unless up to date, install it beside the sources, check it is what runs."""
    found = implementations()
    if len(extensions(PACKAGE)) == len(MODULES) + 1 and found == {m: "compiled" for m in MODULES}:
        print("compile_engine: up to date")
        return 0
    for old in built():
        old.unlink()
    if not (shutil.which("cc") or shutil.which("gcc")):
        print(
            "compile_engine: no C compiler (cc/gcc): the engine runs as Python",
            file=sys.stderr,
        )
        return 0
    with tempfile.TemporaryDirectory(prefix="lockup-mypyc-") as tmp:
        work = Path(tmp)
        paths = prepare(work)
        (work / "setup.py").write_text(SETUP.format(paths=paths, group=f"lockup.{GROUP}"))
        job = subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace"],
            cwd=work,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        files = extensions(work / "lockup")
        if job.returncode != 0 or len(files) != len(MODULES) + 1:
            print(job.stdout[-4000:], file=sys.stderr)
            print(
                f"compile_engine: mypyc failed on {', '.join(paths)} (one group)",
                file=sys.stderr,
            )
            return 1
        for path in files:
            shutil.copy2(path, PACKAGE / path.name)
    print(
        f"compile_engine: {', '.join(paths)} compiled as one group"
        f" ({', '.join(p.name for p in files)})"
    )
    found = implementations()
    if found != {m: "compiled" for m in MODULES}:
        print(found or "lockup does not import without warnings", file=sys.stderr)
        print("compile_engine: lockup does not pick up the build", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
