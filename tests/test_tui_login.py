"""``lockup login`` and ``lockup logout`` against a real ``lockup serve``: the session
token kept in the config folder (mode 0600, keyed by the server's origin), never the
password; the refusals (a wrong password, too many tries, nobody there); ``lockup play
--quick`` at that server then plays as the account.

Real ``lockup`` processes: with ``--password-stdin`` for the plain cases, on a
pseudo-terminal where the password is asked (and must not be echoed).
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from browser_helpers import Server, free_port
from test_play_cli import LOCKUP, Terminal

pytestmark = pytest.mark.serial

PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("login-tui") / "games.sqlite",
        None,
        "--bot-delay",
        "0",
        "--bot-jitter",
        "0",
        "--quick-wait",
        "30",
    )
    srv.start()
    yield srv
    srv.stop()


def signup(server: Server, name: str, password: str = PASSWORD) -> None:
    """An account made as the page makes it."""
    with httpx.Client(base_url=server.url, timeout=20) as page:
        page.get("/")
        r = page.post("/api/account/signup", json={"name": name, "password": password})
        assert r.status_code == 200, r.text


def lockup(
    *args: str, config: Path, stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*LOCKUP, *args],
        cwd=cwd or config.parent,
        env={**os.environ, "LOCKUP_CONFIG_DIR": str(config), "LANG": "C.UTF-8"},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def said(r: subprocess.CompletedProcess[str]) -> str:
    """The last line of standard error (what ``lockup`` says; a warning of Python's own may
    come before it)."""
    return (r.stderr.strip().splitlines() or [""])[-1]


def kept(config: Path) -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads((config / "identity.json").read_text())
    return data


def everything_written(config: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(config.rglob("*")) if p.is_file())


def plain(term: Terminal) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]", "", term.text())


def test_login_keeps_the_session_and_logout_ends_it(server: Server, tmp_path: Path) -> None:
    signup(server, "Ann")
    config = tmp_path / "config"
    r = lockup(
        "login",
        "--server",
        server.url,
        "--name",
        "Ann",
        "--password-stdin",
        config=config,
        stdin=PASSWORD + "\n",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"Signed in to {server.url} as Ann."
    path = config / "identity.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    entry = kept(config)[server.url]
    assert entry["name"] == "Ann" and entry["session"] and entry["player"]
    assert PASSWORD.encode() not in everything_written(config)
    assert PASSWORD not in r.stdout + r.stderr
    # The kept token is a session of Ann's at the server, seen as the terminal's.
    cookies = {"lockup_session": entry["session"], "lockup_player": entry["player"]}
    with httpx.Client(base_url=server.url, cookies=cookies, timeout=10) as http:
        me = http.get("/api/account")
        assert me.status_code == 200 and me.json()["name"] == "Ann"
        sessions = http.get("/api/account/sessions").json()["sessions"]
        assert any(s["current"] and "lockup-terminal" in (s["agent"] or "") for s in sessions)

    r = lockup("logout", "--server", server.url, config=config)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"Signed out of {server.url}."
    after = kept(config)[server.url]
    assert "session" not in after and "name" not in after
    assert after["player"] == entry["player"]  # the terminal's own guest token stays
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with httpx.Client(base_url=server.url, cookies=cookies, timeout=10) as http:
        assert http.get("/api/account").json()["name"] is None  # ended at the server too
    r = lockup("logout", "--server", server.url, config=config)
    assert r.returncode == 0 and r.stdout.strip() == f"Not signed in to {server.url}."


def test_login_asks_the_password_and_never_shows_it(server: Server, tmp_path: Path) -> None:
    signup(server, "Bea")
    config = tmp_path / "config"
    term = Terminal(["login", "--server", server.url], tmp_path, config=config)
    try:
        term.until(lambda: "Name: " in term.text(), timeout=30)
        os.write(term.master, b"Bea\r")
        term.until(lambda: "Password: " in term.text(), timeout=30)
        os.write(term.master, PASSWORD.encode() + b"\r")
        term.until(lambda: term.proc.poll() is not None, timeout=30)
        term.read(0.3)
    finally:
        if term.proc.poll() is None:
            term.proc.kill()
    assert term.proc.wait() == 0, term.text()
    assert f"Signed in to {server.url} as Bea." in term.text()
    assert PASSWORD not in term.text()  # not echoed
    assert kept(config)[server.url]["name"] == "Bea"
    assert PASSWORD.encode() not in everything_written(config)


def test_login_refusals(server: Server, tmp_path: Path) -> None:
    signup(server, "Cal")
    config = tmp_path / "config"
    base = ["login", "--server", server.url, "--password-stdin"]
    r = lockup(*base, "--name", "Cal", config=config, stdin="not the password\n")
    assert r.returncode == 1
    assert said(r) == "lockup login: wrong name or password"
    r = lockup(*base, "--name", "Nobody Here", config=config, stdin=PASSWORD + "\n")
    assert r.returncode == 1 and "wrong name or password" in r.stderr
    assert "session" not in kept(config).get(server.url, {})
    # Too many tries at one name: the server's wait, in seconds.
    with httpx.Client(base_url=server.url, timeout=10) as http:
        for _ in range(40):
            t = http.post("/api/account/login", json={"name": "Cal", "password": "x"})
            if t.status_code == 429:
                break
        assert t.status_code == 429, t.text
    r = lockup(*base, "--name", "Cal", config=config, stdin=PASSWORD + "\n")
    assert r.returncode == 1
    assert re.fullmatch(r"lockup login: too many tries: try again in \d+ s", said(r))
    # Nobody there.
    url = f"http://127.0.0.1:{free_port()}"
    r = lockup(
        *base[:1],
        "--server",
        url,
        "--name",
        "Cal",
        "--password-stdin",
        config=config,
        stdin=PASSWORD + "\n",
    )
    assert r.returncode == 1 and said(r).startswith(f"lockup login: cannot reach {url}")
    # Nothing typed: refused before anything is sent.
    r = lockup(*base, "--name", "Cal", config=config, stdin="")
    assert r.returncode == 2 and "a password is needed" in r.stderr
    assert PASSWORD.encode() not in everything_written(config)


def test_quick_play_signed_in_plays_as_the_account(server: Server, tmp_path: Path) -> None:
    """After ``lockup login``, ``lockup play --quick`` (no --name) sits as the account:
    its name at the table, asked nothing."""
    signup(server, "Dag")
    config = tmp_path / "config"
    r = lockup(
        "login",
        "--server",
        server.url,
        "--name",
        "Dag",
        "--password-stdin",
        config=config,
        stdin=PASSWORD + "\n",
    )
    assert r.returncode == 0, r.stderr
    term = Terminal(
        ["play", "--quick", "--server", server.url, "--pace", "0"], tmp_path, config=config
    )
    try:
        term.until(lambda: "At the table: Dag (you)" in plain(term), timeout=30)
        assert "Your name at the table" not in term.text()
        assert term.quit() == 0
    finally:
        if term.proc.poll() is None:
            term.proc.kill()


def test_the_kept_file_per_server_and_the_cookies(tmp_path: Path) -> None:
    """Each server's entry is its own; a session the server clears is forgotten, the guest
    token stays; a file that is not JSON is written anew; the file is its owner's only."""
    from lockup.tui.identity import Identity, IdentityStore

    store = IdentityStore(tmp_path / "config")
    one = Identity.of("http://127.0.0.1:8000/room/R?invite=K", store)
    assert one.origin == "http://127.0.0.1:8000" and one.cookie_header() is None
    one.absorb(
        httpx.Response(
            200,
            headers=[
                ("set-cookie", "lockup_player=P1; Max-Age=3600; Path=/; HttpOnly"),
                ("set-cookie", "lockup_session=S1; Max-Age=3600; Path=/; HttpOnly"),
            ],
        )
    )
    two = Identity.of("https://Example.org", store)
    two.absorb(httpx.Response(200, headers=[("set-cookie", "lockup_player=P2; Path=/")]))
    assert store.load() == {
        "http://127.0.0.1:8000": {"player": "P1", "session": "S1"},
        "https://example.org": {"player": "P2"},
    }
    again = Identity.of("http://127.0.0.1:8000", store)
    assert again.cookie_header() == "lockup_player=P1; lockup_session=S1"
    # Logging out: the server deletes the session cookie.
    gone = 'lockup_session=""; expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/'
    again.absorb(httpx.Response(200, headers=[("set-cookie", gone)]))
    assert store.entry("http://127.0.0.1:8000") == {"player": "P1"}
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert [p.name for p in store.folder.iterdir()] == ["identity.json"]  # no leftovers

    store.path.write_text("{not json")
    broken = IdentityStore(store.folder)
    assert broken.entry("http://127.0.0.1:8000") == {}
    Identity.of("http://127.0.0.1:8000", broken).signed_in("S3", "Ann")
    assert IdentityStore(store.folder).load() == {
        "http://127.0.0.1:8000": {"name": "Ann", "session": "S3"}
    }
