"""Player tokens the server mints (the ``lockup_player`` cookie).

A token is a random part and an HMAC-SHA256 of it under the server's secret key (kept in
the database, so it survives restarts and is the same for every process). A token the
server never issued fails the check and is replaced, not adopted: nobody can plant a
token in a victim's browser and then play as them. Tokens of the server before signing
(a bare random part) are still honoured while the database knows them.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Awaitable, Callable

_SIGNED = re.compile(r"([A-Za-z0-9_-]{24})\.([A-Za-z0-9_-]{22})")
_LEGACY = re.compile(r"[A-Za-z0-9_-]{16,64}")


def _mac(key: bytes, body: str) -> str:
    digest = hmac.new(key, body.encode("ascii"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:22]


class Tokens:
    """Mints and checks player tokens under ``key``."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the token key must be at least 16 bytes")
        self._key = key

    def mint(self) -> str:
        """A fresh signed token."""
        body = secrets.token_urlsafe(18)
        return f"{body}.{_mac(self._key, body)}"

    def valid(self, token: str | None) -> bool:
        """Whether ``token`` is one this server signed."""
        if not token:
            return False
        m = _SIGNED.fullmatch(token)
        return m is not None and hmac.compare_digest(m.group(2), _mac(self._key, m.group(1)))


def legacy_form(token: str | None) -> bool:
    """Whether ``token`` has the form of an unsigned token of an earlier server."""
    return bool(token) and _LEGACY.fullmatch(token or "") is not None


class Players:
    """Which guest tokens are good: those this server signed, and the unsigned tokens of
    an earlier server that the database knows (``lookup``); :attr:`tokens` mints new ones
    (who a request is, signed in or not: :mod:`lockup.server.accounts.identity`)."""

    def __init__(self, tokens: Tokens, lookup: Callable[[str], Awaitable[bool]]) -> None:
        self.tokens = tokens
        self._lookup = lookup

    async def known(self, token: str | None) -> str | None:
        """``token`` if this server issued it, else None."""
        if token is None:
            return None
        if self.tokens.valid(token):
            return token
        if legacy_form(token) and await self._lookup(token):
            return token
        return None
