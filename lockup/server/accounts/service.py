"""Accounts: made, signed in and out, their passwords and sessions (:class:`Accounts`).

An account is a name, an argon2 password hash and the player it plays as: the guest
token of the browser that made it, so that everything that guest played is the account's.
A signed-in browser or terminal holds a session token (``secrets.token_urlsafe(32)``);
the database keeps only its SHA-256. Sessions are looked up through a short cache
(:data:`SESSION_TTL`): signing out and ending sessions take effect at once in this
process, and within that time in the others.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import secrets
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol, TypeVar

from ..store import Store, StoreError
from .names import MAX_KEY, BadName, clean_name, name_key, visible_text
from .passwords import MAX_PASSWORD, BadPassword, Passwords, check_password
from .rows import AccountRow, AccountRows, SessionRow

log = logging.getLogger("lockup.server")

SESSION_TTL = 10.0
"""Seconds a session looked up stays known to a process without asking the database
again (a session ended by another process stops working here within this time)."""

PLAYER_TTL = 30.0
"""Seconds a process remembers that a player token is nobody's account."""

TOUCH_EVERY = 60.0
"""Seconds between two updates of one session's ``last_seen``."""

MAX_CACHED = 50_000
"""Sessions and player tokens each cache holds at most (the least recently used go)."""

MAX_AGENT = 120
"""The longest client label kept for the list of sessions."""

V = TypeVar("V")

TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
"""What a session token looks like (32 random bytes, URL-safe base64)."""


class AccountError(Exception):
    """A request about an account refused: ``code`` for the page, ``reason`` in English,
    ``status`` the HTTP status, ``why`` which rule a name or password broke
    (:class:`~.names.BadName` and :class:`~.passwords.BadPassword` codes)."""

    def __init__(self, code: str, reason: str, status: int, why: str | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.status = status
        self.why = why


def bad_login() -> AccountError:
    """The one answer to a wrong name or a wrong password (which of them is not said)."""
    return AccountError("bad-login", "That name and password do not match an account.", 401)


@dataclass(frozen=True)
class Signed:
    """A valid session: its account and the player the account plays as."""

    account_id: str
    name: str
    player: str
    session_id: str
    token_hash: str
    created_at: datetime
    """When the account was made."""


class Closable(Protocol):
    """A connection that can be closed (a page's WebSocket)."""

    def close(self, code: int) -> None:
        """Close it with ``code``."""


def token_hash(token: str) -> str:
    """The SHA-256 (hex) of a session token: all the database keeps of it."""
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def _new_id() -> str:
    return secrets.token_hex(16)


def _agent(agent: str | None) -> str | None:
    if not agent:
        return None
    text = visible_text(agent)[:MAX_AGENT]
    return text or None


class Accounts:
    """The accounts of ``store``: ``passwords`` hashes and checks their passwords."""

    def __init__(
        self,
        store: Store,
        passwords: Passwords | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        close_code: int = 1012,
    ) -> None:
        self.rows = AccountRows(store)
        self.passwords = passwords or Passwords()
        self._clock = clock
        self._close_code = close_code
        self._sessions: OrderedDict[str, tuple[Signed | None, float]] = OrderedDict()
        self._players: OrderedDict[str, tuple[bool, float]] = OrderedDict()
        self._seen: dict[str, datetime] = {}
        self._conns: dict[str, weakref.WeakSet[Closable]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ made, signed in

    async def signup(
        self, name: str, password: str, guest: str, agent: str | None = None
    ) -> tuple[AccountRow, str]:
        """A new account named ``name`` (raises ``bad-name``, ``bad-password``,
        ``name-taken``) playing as the player ``guest``, and its first session's token."""
        try:
            shown = clean_name(name)
        except BadName as e:
            raise AccountError("bad-name", str(e), 400, e.code) from None
        key = name_key(shown)
        if len(key) > MAX_KEY:
            raise AccountError("bad-name", "that name is too long", 400, "too-long")
        try:
            password = check_password(password)
        except BadPassword as e:
            raise AccountError("bad-password", str(e), 400, e.code) from None
        if await self.rows.by_key(key) is not None:
            raise _name_taken()
        now = datetime.now(UTC)
        account = AccountRow(
            id=_new_id(),
            name=shown,
            name_key=key,
            password_hash=await self.passwords.hash(password),
            player_id=guest,
            created_at=now,
            password_changed_at=None,
        )
        token, session = self._new_session(account, agent, now)
        try:
            taken = await self.rows.create(account, session)
        except StoreError:
            # Another process stored the same name or player just now (a unique key):
            # said as such; anything else is the database's trouble.
            if await self.rows.by_key(key) is not None:
                raise _name_taken() from None
            if await self.rows.is_player(guest):
                raise _made_here() from None
            raise
        if taken == "name":
            raise _name_taken()
        if taken == "player":
            raise _made_here()
        self._remember_player(guest, True)
        self._remember(session, account)
        log.info("account %s made", account.id)
        return account, token

    async def login(
        self, name: object, password: object, agent: str | None = None
    ) -> tuple[AccountRow, str]:
        """The account of ``name`` and a new session's token; raises ``bad-login`` for a
        wrong name or password alike (a hash is checked either way)."""
        if not isinstance(name, str) or not isinstance(password, str):
            raise bad_login()
        account = None
        if len(password) <= MAX_PASSWORD and len(name) <= 200:
            key = name_key(name)
            account = await self.rows.by_key(key) if key else None
        stored = account.password_hash if account is not None else None
        if not await self.passwords.verify(stored, password) or account is None:
            raise bad_login()
        if self.passwords.needs_rehash(account.password_hash):
            fresh = await self.passwords.hash(password)
            await self.rows.set_password(account.id, fresh, None, None)
        token, session = self._new_session(account, agent, datetime.now(UTC))
        await self.rows.add_session(session)
        self._remember(session, account)
        return account, token

    def _new_session(
        self, account: AccountRow, agent: str | None, now: datetime
    ) -> tuple[str, SessionRow]:
        token = secrets.token_urlsafe(32)
        row = SessionRow(
            id=_new_id(),
            token_hash=token_hash(token),
            account_id=account.id,
            created_at=now,
            last_seen=now,
            agent=_agent(agent),
        )
        return token, row

    # ------------------------------------------------------------------ who is signed in

    async def signed(self, token: str | None) -> Signed | None:
        """The valid session of ``token``, or None (none, ended, or never issued)."""
        if not token or TOKEN.fullmatch(token) is None:
            return None
        digest = token_hash(token)
        now = self._clock()
        cached = self._sessions.get(digest)
        if cached is not None and cached[1] > now:
            self._sessions.move_to_end(digest)
            found = cached[0]
        else:
            row = await self.rows.session(digest)
            if row is None:
                found = None
                self._cache(self._sessions, digest, (None, now + SESSION_TTL))
            else:
                found = self._remember(*row)
        if found is not None:
            self._touch(found)
        return found

    def _remember(self, session: SessionRow, account: AccountRow) -> Signed:
        signed = Signed(
            account_id=account.id,
            name=account.name,
            player=account.player_id,
            session_id=session.id,
            token_hash=session.token_hash,
            created_at=account.created_at,
        )
        self._cache(self._sessions, session.token_hash, (signed, self._clock() + SESSION_TTL))
        self._seen.setdefault(session.id, session.last_seen)
        self._remember_player(account.player_id, True)
        return signed

    def _touch(self, signed: Signed) -> None:
        """Store the session's ``last_seen`` if it was last stored a while ago."""
        now = datetime.now(UTC)
        last = self._seen.get(signed.session_id)
        if last is not None and now - last < timedelta(seconds=TOUCH_EVERY):
            return
        self._seen[signed.session_id] = now
        if len(self._seen) > MAX_CACHED:
            self._seen.clear()
        task = asyncio.get_running_loop().create_task(self._store_touch(signed.session_id, now))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _store_touch(self, session_id: str, when: datetime) -> None:
        try:
            await self.rows.touch(session_id, when)
        except Exception as e:  # the database is down: the next request tries again
            log.warning("a session's last_seen was not stored: %r", e)
            self._seen.pop(session_id, None)

    async def is_account_player(self, player: str) -> bool:
        """Whether ``player`` is the player of an account (so no guest's any more)."""
        now = self._clock()
        cached = self._players.get(player)
        if cached is not None and (cached[0] or cached[1] > now):
            self._players.move_to_end(player)
            return cached[0]
        found = await self.rows.is_player(player)
        self._remember_player(player, found)
        return found

    def minted(self, token: str) -> None:
        """Note a guest token minted just now: nobody's account (until it makes one), so
        its next requests need not ask the database."""
        self._remember_player(token, False)

    def _remember_player(self, player: str, is_account: bool) -> None:
        self._cache(self._players, player, (is_account, self._clock() + PLAYER_TTL))

    @staticmethod
    def _cache(cache: OrderedDict[str, V], key: str, value: V) -> None:
        cache[key] = value
        cache.move_to_end(key)
        while len(cache) > MAX_CACHED:
            cache.popitem(last=False)

    # ------------------------------------------------------------------ signed out

    def watch(self, signed: Signed, conn: Closable) -> None:
        """Close ``conn`` (a WebSocket of this session) when the session ends."""
        conns = self._conns.get(signed.token_hash)
        if conns is None:
            if len(self._conns) > 1000:
                self._conns = {k: v for k, v in self._conns.items() if len(v)}
            conns = self._conns[signed.token_hash] = weakref.WeakSet()
        conns.add(conn)

    def _forget(self, hashes: list[str]) -> None:
        """Sessions ended: out of the cache, their connections closed (their pages
        reconnect as whoever the browser is now)."""
        now = self._clock()
        for digest in hashes:
            self._cache(self._sessions, digest, (None, now + SESSION_TTL))
            for conn in list(self._conns.pop(digest, ())):
                conn.close(self._close_code)

    async def logout(self, signed: Signed) -> None:
        """End the session ``signed``."""
        await self.rows.end(signed.token_hash)
        self._seen.pop(signed.session_id, None)
        self._forget([signed.token_hash])

    async def end_others(self, signed: Signed) -> int:
        """End every session of the account but ``signed``; how many ended."""
        ended = await self.rows.end_others(signed.account_id, signed.session_id)
        self._forget(ended)
        return len(ended)

    async def change_password(self, signed: Signed, old: object, new: object) -> int:
        """Set the account's password to ``new`` if ``old`` is the one it has (raises
        ``wrong-password``, ``bad-password``), and end its other sessions; how many
        ended."""
        try:
            fresh = check_password(new)
        except BadPassword as e:
            raise AccountError("bad-password", str(e), 400, e.code) from None
        if not isinstance(old, str) or len(old) > MAX_PASSWORD:
            raise _wrong_password()
        account = await self.rows.by_id(signed.account_id)
        if account is None:
            raise AccountError("signed-out", "You are not signed in.", 401)
        if not await self.passwords.verify(account.password_hash, old):
            raise _wrong_password()
        digest = await self.passwords.hash(fresh)
        ended = await self.rows.set_password(
            account.id, digest, datetime.now(UTC), signed.session_id
        )
        self._forget(ended)
        return len(ended)

    async def sessions(self, signed: Signed) -> list[SessionRow]:
        """The account's sessions, the most recently seen first."""
        return await self.rows.sessions(signed.account_id)

    async def account(self, signed: Signed) -> AccountRow | None:
        """The account of ``signed`` as stored."""
        return await self.rows.by_id(signed.account_id)


def _name_taken() -> AccountError:
    return AccountError("name-taken", "An account has that name, or one that looks like it.", 409)


def _made_here() -> AccountError:
    return AccountError("signed-in", "This browser has just made an account: sign in to it.", 409)


def _wrong_password() -> AccountError:
    return AccountError("wrong-password", "The current password is not right.", 403)
