"""Compile the engine with mypyc into extension modules beside its sources (`make engine`).

Each module of ``lockup._accel.COMPILED`` (``cards.py``, ``playout.py``, ``engine.py``)
is compiled on its own, into its own extension: a module's compiled code calls the
others through the package as loaded, so each build can be used or passed over by
itself. The build works on a copy of the source, to which it appends ``BUILT_FROM``,
the SHA-256 of the source it compiled, and ``BUILT_AGAINST``, the SHA-256 of each of the
package's sources it imports (mypyc compiles against their types and constants).
``lockup`` uses an extension only while those still match the sources (see
lockup/_accel.py), so a stale build is never run.

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

IMPORT = re.compile(r"^from \.(\w+) import", re.MULTILINE)


def source_digest(path: Path) -> str:
    """The SHA-256 of a source, as lockup._accel.source_digest computes it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def built(module: str) -> list[Path]:
    """The extension files of one module's build (the module and its mypyc library)."""
    return sorted(PACKAGE.glob(f"{module}.*.so")) + sorted(PACKAGE.glob(f"{module}__mypyc.*.so"))


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


def compile_module(module: str, work: Path) -> subprocess.Popen[str]:
    """Start mypyc on a marked copy of ``lockup/<module>.py`` in ``work``."""
    (work / "lockup").mkdir()
    (work / "lockup" / "__init__.py").write_text("")
    source = PACKAGE / f"{module}.py"
    text = source.read_text(encoding="utf-8")
    # The compiled modules and whatever else of the package it imports (lockup.refusals).
    for other in sorted({*MODULES, *IMPORT.findall(text)}):
        shutil.copy2(PACKAGE / f"{other}.py", work / "lockup" / f"{other}.py")
    against = {
        f"{name}.py": source_digest(PACKAGE / f"{name}.py")
        for name in sorted(set(IMPORT.findall(text)))
    }
    if not re.search(r"^from typing import .*\bFinal\b", text, re.MULTILINE):
        text += "\nfrom typing import Final\n"
    text += (
        f'\n\nBUILT_FROM: Final = "{source_digest(source)}"\n'
        '"""The SHA-256 of the source compiled."""\n'
        f"BUILT_AGAINST: Final[dict[str, str]] = {against!r}\n"
        '"""The SHA-256 of each of the package\'s sources it imports."""\n'
    )
    (work / "lockup" / f"{module}.py").write_text(text, encoding="utf-8")
    return subprocess.Popen(
        [sys.executable, "-m", "mypyc", f"lockup/{module}.py"],
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def main() -> int:
    """Build what is not up to date, install it beside the sources, check it is used."""
    found = implementations()
    todo = [m for m in MODULES if not (built(m) and found.get(m) == "compiled")]
    if not todo:
        print("compile_engine: up to date")
        return 0
    for module in todo:
        for old in built(module):
            old.unlink()
    if not (shutil.which("cc") or shutil.which("gcc")):
        print(
            "compile_engine: no C compiler (cc/gcc): the engine runs as Python",
            file=sys.stderr,
        )
        return 0
    with tempfile.TemporaryDirectory(prefix="lockup-mypyc-") as tmp:
        jobs = {}
        for module in todo:
            (Path(tmp) / module).mkdir()
            jobs[module] = compile_module(module, Path(tmp) / module)
        failed = False
        for module, job in jobs.items():
            output, _ = job.communicate()
            work = Path(tmp) / module / "lockup"
            files = sorted(work.glob(f"{module}.*.so")) + sorted(work.glob(f"{module}__mypyc.*.so"))
            if job.returncode != 0 or not files:
                print(output[-4000:], file=sys.stderr)
                print(f"compile_engine: mypyc failed on lockup/{module}.py", file=sys.stderr)
                failed = True
                continue
            for path in files:
                shutil.copy2(path, PACKAGE / path.name)
            print(
                f"compile_engine: lockup/{module}.py compiled ({', '.join(p.name for p in files)})"
            )
        if failed:
            return 1
    found = implementations()
    if found != {m: "compiled" for m in MODULES}:
        print(found or "lockup does not import without warnings", file=sys.stderr)
        print("compile_engine: lockup does not pick up the build", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
