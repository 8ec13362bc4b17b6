"""``lockup login`` and ``lockup logout``: the terminal's sign-in at a ``lockup serve``.

``lockup login`` asks the account's name (or ``--name``) and its password (never echoed,
with :func:`getpass.getpass`; or the first line of standard input with
``--password-stdin``), sends them once (``POST /api/account/login``) and keeps the
session token the server answers in the config folder (:mod:`.identity`); the password is
never written anywhere. ``lockup logout`` ends the session at the server
(``POST /api/account/logout``) and forgets it here, even when the server cannot be
reached. Exit status: 0 done, 1 refused or unreachable, 2 a bad command line.
"""

from __future__ import annotations

import getpass
import sys
from typing import Any

import httpx

from .identity import Identity, IdentityStore, config_dir
from .words import default_language, set_language, tr

TIMEOUT = 15.0
"""Seconds the server has to answer."""


def _fail(command: str, reason: str, status: int = 1) -> int:
    print(f"lockup {command}: {reason}", file=sys.stderr)
    return status


def _identity(url: str, folder: str | None) -> Identity:
    """The identity kept for ``url``'s server (ValueError for a bad URL)."""
    return Identity.of(url, IdentityStore(config_dir(folder)))


def _json(r: httpx.Response) -> dict[str, Any]:
    try:
        data = r.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _refusal(base: str, r: httpx.Response) -> str:
    """Why the server refused a sign-in, in the person's words."""
    body = _json(r)
    if r.status_code == 401:
        return tr("login.bad")
    if r.status_code == 429:
        wait = r.headers.get("Retry-After") or (body.get("params") or {}).get("retry_after")
        try:
            n = max(1, round(float(str(wait))))
        except (TypeError, ValueError):
            return tr("login.waitLater")
        return tr("login.wait", n=n)
    if r.status_code in (404, 405):
        return tr("login.noAccounts", base=base)
    return str(body.get("reason") or body.get("error") or f"HTTP {r.status_code}")


def login(url: str, name: str | None, password_stdin: bool, folder: str | None) -> int:
    """Sign in at ``url``'s server and keep the session; the exit status."""
    set_language(default_language())
    try:
        identity = _identity(url, folder)
    except ValueError as e:
        return _fail("login", str(e), 2)
    base = identity.origin
    if not (name or "").strip():
        try:
            name = input(tr("login.name"))
        except EOFError:
            name = ""
    name = (name or "").strip()
    if not name:
        return _fail("login", tr("login.needName"), 2)
    try:
        if password_stdin:
            password = sys.stdin.readline().rstrip("\r\n")
        else:
            password = getpass.getpass(tr("login.password"))
    except EOFError:
        password = ""
    if not password:
        return _fail("login", tr("login.needPassword"), 2)
    try:
        with identity.sync_client(base, TIMEOUT) as http:
            if not identity.player:  # the terminal's own guest token first, as a browser
                http.get("/")
            r = http.post("/api/account/login", json={"name": name, "password": password})
    except httpx.HTTPError as e:
        return _fail("login", f"cannot reach {base}: {e or type(e).__name__}")
    if r.status_code != 200:
        return _fail("login", _refusal(base, r))
    body = _json(r)
    session = body.get("session") if isinstance(body.get("session"), str) else identity.session
    if not session:
        return _fail("login", f"{base} answered no session")
    shown = str(body.get("name") or name)
    identity.signed_in(session, shown)
    store = identity.store
    if store is not None and store.problem:
        return _fail("login", tr("login.notKept", problem=store.problem))
    print(tr("login.done", base=base, name=shown))
    return 0


def logout(url: str, folder: str | None) -> int:
    """End the sign-in kept for ``url``'s server, there and here; the exit status."""
    set_language(default_language())
    try:
        identity = _identity(url, folder)
    except ValueError as e:
        return _fail("logout", str(e), 2)
    base = identity.origin
    if not identity.session:
        print(tr("logout.notIn", base=base))
        return 0
    error: str | None = None
    try:
        with identity.sync_client(base, TIMEOUT) as http:
            http.post("/api/account/logout", json={})
    except httpx.HTTPError as e:
        error = str(e) or type(e).__name__
    identity.signed_out()
    store = identity.store
    if store is not None and store.problem:
        return _fail("logout", store.problem)
    if error is not None:
        print(tr("logout.unreachable", base=base, error=error))
    else:
        print(tr("logout.done", base=base))
    return 0
