"""Real PostgreSQL and Redis servers for the tests, each on a private port and a temporary
data directory, started and stopped by the tests themselves (``make test`` installs the
Debian packages, see ``scripts/ensure-system.sh``).

A test that needs one and finds no binaries is skipped, saying which are missing.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

PG_BIN_DIRS = [Path(f"/usr/lib/postgresql/{v}/bin") for v in (17, 16, 15, 14, 13)]


def pg_bin() -> Path | None:
    """The directory with ``initdb`` and ``postgres``, or None."""
    env = os.environ.get("LOCKUP_PG_BIN")
    for d in ([Path(env)] if env else []) + PG_BIN_DIRS:
        if (d / "initdb").exists() and (d / "postgres").exists():
            return d
    return None


def redis_bin() -> str | None:
    """The ``redis-server`` binary, or None."""
    return shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {timeout} s")


def _as_postgres() -> list[str]:
    """Run as the ``postgres`` user when we are root (PostgreSQL refuses root)."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


class Postgres:
    """A PostgreSQL server in a temporary directory; :meth:`stop` and :meth:`start` again
    on the same data (a test stops it briefly)."""

    def __init__(self) -> None:
        found = pg_bin()
        assert found is not None
        self.bin = found
        self.dir = Path(tempfile.mkdtemp(prefix="lockup-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.running = False
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        subprocess.run(
            [
                *_as_postgres(),
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        opts = f"-p {self.port} -h 127.0.0.1 -k {self.dir} -c fsync=off -c max_connections=200"
        subprocess.run(
            [
                *_as_postgres(),
                str(self.bin / "pg_ctl"),
                "start",
                "-w",
                "-t",
                "60",
                "-D",
                str(self.data),
                "-l",
                str(self.dir / "log"),
                "-o",
                opts,
            ],
            check=True,
            capture_output=True,
        )
        self.running = True

    def stop(self) -> None:
        if not self.running:
            return
        self.running = False
        subprocess.run(
            [
                *_as_postgres(),
                str(self.bin / "pg_ctl"),
                "stop",
                "-w",
                "-m",
                "fast",
                "-D",
                str(self.data),
            ],
            check=True,
            capture_output=True,
        )

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh empty database's URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class Redis:
    """A Redis server (no persistence unless asked) on a private port."""

    def __init__(self, appendonly: bool = True) -> None:
        found = redis_bin()
        assert found is not None
        self.bin = found
        self.dir = Path(tempfile.mkdtemp(prefix="lockup-redis-"))
        self.port = free_port()
        self.appendonly = appendonly
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = open(self.dir / "log", "ab")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                self.bin,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.dir),
                "--save",
                "",
                "--appendonly",
                "yes" if self.appendonly else "no",
                "--appendfsync",
                "always",
            ],
            stdout=log,
            stderr=log,
        )
        log.close()
        _wait_port(self.port, self.proc, "redis-server")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def need_postgres() -> None:
    if pg_bin() is None:
        pytest.skip("PostgreSQL binaries (initdb, postgres) not found: apt-get install postgresql")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg (3) is not installed: pip install -e '.[test]'")


def need_redis() -> None:
    if redis_bin() is None:
        pytest.skip("redis-server not found: apt-get install redis-server")


@contextmanager
def postgres() -> Iterator[Postgres]:
    need_postgres()
    pg = Postgres()
    try:
        pg.start()
        yield pg
    finally:
        pg.remove()


@contextmanager
def redis() -> Iterator[Redis]:
    need_redis()
    r = Redis()
    try:
        r.start()
        yield r
    finally:
        r.remove()
