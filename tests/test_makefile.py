"""The system installs under ``make -j2``: never two apt runs at once (dpkg takes one lock).

``make test`` runs ``make -j2 system checks``. On a fresh machine two apt scripts started
side by side made the second die on "Could not get lock /var/lib/apt/lists/lock". These
tests run the real Makefile and ``scripts/ensure-system.sh`` under ``make -j2`` with a PATH
that holds only stubs of ``apt-get``, ``dpkg``, ``id`` and ``sudo`` (each records when it
starts and ends; ``apt-get`` holds its "lock" for a moment) and the few tools the recipes
need: the real apt is not reachable. The packages are looked for where the script's
``LOCKUP_*`` variables say, so they are missing here whatever the machine has.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ("bash", "sh", "make", "ls", "sleep", "mkdir", "rmdir", "cat", "env", "date")

APT_STUB = r"""#!/bin/bash
# Records each run; a run that starts while another holds the lock is an overlap.
echo "start ${0##*/} $*" >> "$STUB_LOG"
if mkdir "$STUB_LOCK" 2>/dev/null; then
  sleep 0.5
  rmdir "$STUB_LOCK"
else
  echo "OVERLAP ${0##*/} $*" >> "$STUB_LOG"
  sleep 0.5
fi
echo "end ${0##*/}" >> "$STUB_LOG"
"""


def _world(tmp: Path, *, uid: int = 0) -> tuple[dict[str, str], Path]:
    """A PATH of stubs and the tools the recipes use; the environment and the log."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        real = shutil.which(tool)
        if real is None:
            pytest.skip(f"{tool} is not installed")
        (bin_dir / tool).symlink_to(real)
    for name in ("apt-get", "apt", "dpkg"):
        (bin_dir / name).write_text(APT_STUB)
        (bin_dir / name).chmod(0o755)
    (bin_dir / "id").write_text(f'#!/bin/bash\necho "id $*" >> "$STUB_LOG"\necho {uid}\n')
    (bin_dir / "sudo").write_text('#!/bin/bash\necho "sudo $*" >> "$STUB_LOG"\nexit 1\n')
    for name in ("id", "sudo"):
        (bin_dir / name).chmod(0o755)
    log = tmp / "log"
    log.write_text("")
    env = {
        "PATH": str(bin_dir),
        "HOME": str(tmp),
        "STUB_LOG": str(log),
        "STUB_LOCK": str(tmp / "lock"),
        "LOCKUP_CHROMIUM": str(tmp / "no-chromium"),
        "LOCKUP_INITDB_GLOB": str(tmp / "no-postgresql" / "*" / "bin" / "initdb"),
        "LOCKUP_REDIS_SERVER": "no-redis-server-here",
    }
    return env, log


def _make(env: dict[str, str], *targets: str, jobs: int = 2) -> subprocess.CompletedProcess[str]:
    make = shutil.which("make")
    assert make is not None
    return subprocess.run(
        [make, f"-j{jobs}", "--no-print-directory", *targets],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _apt_runs(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.startswith("start apt")]


def test_make_j2_never_starts_two_apt_runs_at_once(tmp_path: Path) -> None:
    env, log = _world(tmp_path)
    # What make test runs (system beside checks), and the old names of the parts.
    r = _make(env, "system", "browser", "services", jobs=4)
    assert r.returncode == 0, r.stderr
    text = log.read_text()
    assert "OVERLAP" not in text, text
    installs = [line for line in _apt_runs(log) if " install " in line]
    # One install, of the three packages, waiting for a lock held elsewhere.
    assert len(installs) == 1, text
    assert installs[0].split()[-3:] == ["chromium", "postgresql", "redis-server"], installs
    assert "DPkg::Lock::Timeout=300" in installs[0]
    assert "installing chromium postgresql redis-server" in r.stderr


def test_only_what_is_missing_is_installed(tmp_path: Path) -> None:
    env, log = _world(tmp_path)
    chromium = tmp_path / "chromium"
    chromium.write_text("#!/bin/sh\n")
    chromium.chmod(0o755)
    env["LOCKUP_CHROMIUM"] = str(chromium)
    r = _make(env, "system")
    assert r.returncode == 0, r.stderr
    installs = [line for line in _apt_runs(log) if " install " in line]
    assert len(installs) == 1 and installs[0].split()[-2:] == ["postgresql", "redis-server"]
    assert "chromium" not in installs[0]

    # Everything there: apt is not run at all.
    initdb = tmp_path / "pg" / "15" / "bin" / "initdb"
    initdb.parent.mkdir(parents=True)
    initdb.write_text("")
    env["LOCKUP_INITDB_GLOB"] = str(tmp_path / "pg" / "*" / "bin" / "initdb")
    env["LOCKUP_REDIS_SERVER"] = "cat"  # any command on PATH stands for redis-server
    log.write_text("")
    r = _make(env, "system")
    assert r.returncode == 0, r.stderr
    assert _apt_runs(log) == []


def test_without_root_or_sudo_it_says_what_is_skipped(tmp_path: Path) -> None:
    env, log = _world(tmp_path, uid=1000)
    r = _make(env, "system")
    assert r.returncode == 0, r.stderr
    assert _apt_runs(log) == []
    assert "missing: chromium postgresql redis-server, and I cannot install them" in r.stderr


def test_one_recipe_of_the_makefile_installs_system_packages() -> None:
    """No other target (nor script) runs apt, so no two can run side by side."""
    recipes = [
        line.strip()
        for line in (ROOT / "Makefile").read_text().splitlines()
        if line.startswith("\t")
    ]
    installers = [r for r in recipes if re.search(r"apt|dpkg|scripts/.*\.sh", r)]
    assert installers == ["bash scripts/ensure-system.sh"]
    scripts = [
        p.name
        for p in (ROOT / "scripts").iterdir()
        if p.is_file() and re.search(r"\bapt(-get)?\b", p.read_text(errors="replace"))
    ]
    assert scripts == ["ensure-system.sh"]
    # make test runs the system installs beside the Python installs and checks.
    assert "\t$(MAKE) -j2 --output-sync=target system checks" in (ROOT / "Makefile").read_text()
    assert os.access(ROOT / "scripts" / "ensure-system.sh", os.R_OK)
