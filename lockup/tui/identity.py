"""Who the terminal is at each server, kept between runs (``lockup login``, ``lockup play``).

A browser keeps two cookies of a ``lockup serve``: ``lockup_player``, its own guest token
(the server's ``Set-Cookie`` on first contact), and ``lockup_session``, a sign-in
(``lockup login``). The terminal keeps the same two, per server origin
(``http://host:port``), in one JSON file of the user's config folder
(``platformdirs.user_config_dir("lockup")``, or ``$LOCKUP_CONFIG_DIR``, or
``--config-dir``), readable by its owner only (mode 0600)::

    {"http://127.0.0.1:8000": {"player": "…", "session": "…", "name": "Ann"}}

and sends them with every request and WebSocket of that server. So a guest comes back as
the same player (quick play answers the seat they hold), and a signed-in person plays as
their account. No password is ever written. A folder that cannot be written does not stop
play: :attr:`IdentityStore.problem` says why, and the next run is a new guest.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import platformdirs

from .. import __version__

ENV = "LOCKUP_CONFIG_DIR"
"""The environment variable naming the config folder (tests set it to a temporary one)."""
FILE = "identity.json"
"""The file, in the config folder, that holds the tokens."""
PLAYER_COOKIE = "lockup_player"
"""The browser's (here: the terminal's) own guest token."""
SESSION_COOKIE = "lockup_session"
"""A signed-in session's token."""
AGENT = f"lockup-terminal/{__version__}"
"""The ``User-Agent`` of the terminal's requests (an account's sessions list shows it)."""


def config_dir(given: str | os.PathLike[str] | None = None) -> Path:
    """The config folder: ``given`` (``--config-dir``), else ``$LOCKUP_CONFIG_DIR``, else
    the user's config folder for ``lockup`` (``~/.config/lockup`` on Linux)."""
    if given:
        return Path(given)
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    return Path(platformdirs.user_config_dir("lockup"))


def origin_of(url: str) -> str:
    """``scheme://host:port`` of ``url``, as the tokens are keyed (ValueError for a URL
    that is not http:// or https://)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--server must be an http:// or https:// address, not {url!r}")
    return f"{parts.scheme}://{parts.netloc.lower()}"


class IdentityStore:
    """The tokens file of a config folder. Reading or writing it never raises: a failure
    is kept in :attr:`problem` (said once by whoever shows it)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / FILE
        self.problem: str | None = None
        """Why the file could not be read or written, if it could not."""

    def load(self) -> dict[str, dict[str, str]]:
        """Every server's entry (an empty dict for a missing or unreadable file)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as e:
            self.problem = f"cannot read {self.path}: {e.strerror or e}"
            return {}
        try:
            data = json.loads(text)
        except ValueError:  # not a file of ours (nothing can be read from it): written anew
            return {}
        if not isinstance(data, dict):
            return {}
        return {
            str(k): {str(a): str(b) for a, b in v.items() if isinstance(b, str)}
            for k, v in data.items()
            if isinstance(v, dict)
        }

    def entry(self, origin: str) -> dict[str, str]:
        """The entry of one server (empty if none)."""
        return self.load().get(origin, {})

    def update(self, origin: str, change: Callable[[dict[str, str]], None]) -> bool:
        """Apply ``change`` to ``origin``'s entry and write the file (mode 0600, replaced
        whole: a crash never leaves half a file); whether it was written."""
        data = self.load()
        entry = dict(data.get(origin, {}))
        change(entry)
        if entry:
            data[origin] = entry
        else:
            data.pop(origin, None)
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".identity-", suffix=".json", dir=self.folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:  # mkstemp: mode 0600
                    json.dump(data, f, indent=1, sort_keys=True)
                    f.write("\n")
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError as e:
            self.problem = f"cannot write {self.path}: {e.strerror or e}"
            return False
        return True


@dataclass
class Identity:
    """The cookies the terminal sends one server, and their keeping.

    ``store`` None: nothing is kept (a fresh guest, as a library user or a test gets)."""

    origin: str
    store: IdentityStore | None = None
    player: str | None = None
    """The guest token (``lockup_player``), once the server gave one."""
    session: str | None = None
    """The sign-in token (``lockup_session``), None for a guest."""
    name: str | None = None
    """The account's name, when signed in."""
    _saved: dict[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, url: str, store: IdentityStore | None) -> Identity:
        """``url``'s server's identity as ``store`` keeps it (ValueError for a bad URL)."""
        origin = origin_of(url)
        entry = store.entry(origin) if store is not None else {}
        return cls(
            origin,
            store,
            player=entry.get("player"),
            session=entry.get("session"),
            name=entry.get("name"),
            _saved=dict(entry),
        )

    # ---------------------------------------------------------------- cookies

    def cookies(self) -> dict[str, str]:
        """The cookies to send: the guest token, and the session when signed in."""
        found = {}
        if self.player:
            found[PLAYER_COOKIE] = self.player
        if self.session:
            found[SESSION_COOKIE] = self.session
        return found

    def cookie_header(self) -> str | None:
        """The ``Cookie`` header of :meth:`cookies`, or None when there is none yet."""
        cookies = self.cookies()
        return "; ".join(f"{k}={v}" for k, v in cookies.items()) or None

    def absorb(self, response: httpx.Response) -> None:
        """Take the server's ``Set-Cookie`` of either token (a new guest token on first
        contact, a session set or cleared) and keep it."""
        for header in response.headers.get_list("set-cookie"):
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(header)
            except CookieError:
                continue
            for key, morsel in jar.items():
                gone = not morsel.value or morsel["max-age"] in ("0", "-1")
                if key == PLAYER_COOKIE and not gone:
                    self.player = morsel.value
                elif key == SESSION_COOKIE:
                    self.session = None if gone else morsel.value
                    if gone:
                        self.name = None
        self.keep()

    # ---------------------------------------------------------------- keeping

    def signed_in(self, session: str, name: str) -> None:
        """``lockup login`` succeeded: keep the session and the account's name."""
        self.session, self.name = session, name
        self.keep()

    def signed_out(self) -> None:
        """Forget the session (the guest token stays: it is the terminal's own)."""
        self.session = self.name = None
        self.keep()

    def entry(self) -> dict[str, str]:
        """What the file keeps for this server."""
        entry = {"player": self.player, "session": self.session, "name": self.name}
        return {k: v for k, v in entry.items() if v}

    def keep(self) -> bool:
        """Write the entry if it changed (True if nothing needed writing)."""
        entry = self.entry()
        if self.store is None or entry == self._saved:
            return True

        def replace(old: dict[str, str]) -> None:
            old.clear()
            old.update(entry)

        if self.store.update(self.origin, replace):
            self._saved = entry
            return True
        return False

    # ---------------------------------------------------------------- clients

    def client(self, base: str, timeout: float) -> httpx.AsyncClient:
        """An HTTP client of the server that sends these cookies and keeps what it is sent."""

        async def send(request: httpx.Request) -> None:
            self._put(request)

        async def got(response: httpx.Response) -> None:
            self.absorb(response)

        return httpx.AsyncClient(
            base_url=base,
            timeout=timeout,
            headers={"User-Agent": AGENT},
            event_hooks={"request": [send], "response": [got]},
        )

    def sync_client(self, base: str, timeout: float) -> httpx.Client:
        """:meth:`client`, blocking (``lockup login`` and the first contact)."""
        return httpx.Client(
            base_url=base,
            timeout=timeout,
            headers={"User-Agent": AGENT},
            event_hooks={"request": [self._put], "response": [self.absorb]},
        )

    def _put(self, request: httpx.Request) -> None:
        header = self.cookie_header()
        if header:
            request.headers["Cookie"] = header
        else:
            request.headers.pop("Cookie", None)
