"""The compiled playout (make engine) and its Python source: the right one runs, both agree."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import lockup
from lockup import _accel
from lockup.engine import implementation

ROOT = Path(__file__).resolve().parent.parent
BUILT = sorted((ROOT / "lockup").glob("playout*.so"))
needs_build = pytest.mark.skipif(not BUILT, reason="no compiled playout here (make engine)")


def run_python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(cwd), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@needs_build
def test_a_fresh_build_is_the_playout_in_use() -> None:
    assert implementation() == "compiled"
    assert _accel.is_compiled(lockup.playout)
    assert lockup.playout.BUILT_FROM == _accel.source_digest()


@needs_build
def test_a_stale_build_is_passed_over_for_the_source(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "lockup", tmp_path / "lockup", ignore=shutil.ignore_patterns("web"))
    source = tmp_path / "lockup" / "playout.py"
    source.write_text(source.read_text() + "\n# changed after the build\n")
    done = run_python(
        "import lockup, lockup.engine as e; print(e.implementation(), lockup.playout.__file__)",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["python", str(source)]
    assert "has changed since its compiled extension was built" in done.stderr


def test_lockup_pure_python_runs_the_source() -> None:
    done = run_python(
        "import lockup, lockup.engine as e; print(e.implementation(), lockup.playout.__file__)",
        ROOT,
        LOCKUP_PURE_PYTHON="1",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["python", str(ROOT / "lockup" / "playout.py")]
    assert done.stderr == ""


@needs_build
def test_the_python_source_plays_exactly_as_the_step_by_step_api_too() -> None:
    # The in-process suite checks the compiled playout against the checked API; this
    # checks the source the same way, in a process that runs it.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        + [str(ROOT / "tests" / "test_engine_speed_paths.py")],
        cwd=ROOT,
        env={**os.environ, "LOCKUP_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and "failed" not in done.stdout
    assert "skipped" not in done.stdout  # the check that the source ran, too
