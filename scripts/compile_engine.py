"""Compile lockup/playout.py with mypyc into an extension module beside it (`make engine`).

The build works on a copy of the source, to which it appends ``BUILT_FROM``: the SHA-256
of the source it compiled. ``lockup`` uses the extension only while that still matches
``playout.py`` (see lockup/_accel.py), so a stale build is never run.

Without a C compiler it says so and leaves the engine on the Python source (same
results, slower playouts); any other failure exits non-zero with mypyc's output.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "lockup"
SOURCE = PACKAGE / "playout.py"


def source_digest(path: Path) -> str:
    """The SHA-256 of the source, as lockup._accel.source_digest computes it (the tests
    check the two agree); computed here without importing lockup, which would load the
    build being replaced."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def engine_implementation() -> str:
    """What a fresh interpreter's engine runs: ``compiled`` or ``python``."""
    check = subprocess.run(
        [sys.executable, "-c", "import lockup.engine as e; print(e.implementation())"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return check.stdout.strip() or check.stderr.strip()


def main() -> int:
    """Build unless up to date, install beside the source, check the engine picks it up."""
    if list(PACKAGE.glob("playout*.so")) and engine_implementation() == "compiled":
        print("compile_playout: up to date")
        return 0
    for old in PACKAGE.glob("playout*.so"):
        old.unlink()
    if not (shutil.which("cc") or shutil.which("gcc")):
        print(
            "compile_playout: no C compiler (cc/gcc): the engine runs its playout as Python",
            file=sys.stderr,
        )
        return 0
    digest = source_digest(SOURCE)
    with tempfile.TemporaryDirectory(prefix="lockup-mypyc-") as tmp:
        work = Path(tmp)
        (work / "lockup").mkdir()
        (work / "lockup" / "__init__.py").write_text("")
        text = SOURCE.read_text(encoding="utf-8")
        text += f'\n\nBUILT_FROM: Final = "{digest}"\n"""The SHA-256 of the source compiled."""\n'
        (work / "lockup" / "playout.py").write_text(text, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "mypyc", "lockup/playout.py"],
            cwd=work,
            capture_output=True,
            text=True,
        )
        built = sorted((work / "lockup").glob("playout*.so"))
        if done.returncode != 0 or not built:
            print(done.stdout[-4000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
            print("compile_playout: mypyc failed", file=sys.stderr)
            return 1
        for path in built:
            shutil.copy2(path, PACKAGE / path.name)
    found = engine_implementation()
    if found != "compiled":
        print(found, file=sys.stderr)
        print("compile_playout: the engine does not pick up the build", file=sys.stderr)
        return 1
    print(f"compile_playout: lockup/playout.py compiled ({', '.join(p.name for p in built)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
