"""Passwords: argon2id hashes (``argon2-cffi``), made and checked off the event loop.

A hash costs about 64 MiB of memory and a tenth of a second of one core (the library's
defaults, RFC 9106's low-memory profile): :class:`Passwords` runs at most ``at_once`` of
them together, in threads, so that a flood of sign-ins waits its turn instead of taking
the server's memory. A stored hash made with other costs is made again at the next
sign-in (:meth:`Passwords.needs_rehash`).
"""

from __future__ import annotations

import asyncio
import functools

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

MIN_PASSWORD = 8
"""The shortest password, in characters."""
MAX_PASSWORD = 200
"""The longest password, in characters."""


class BadPassword(ValueError):
    """A password refused before it is hashed: ``code`` is ``short``, ``long`` or
    ``other`` (not text, or a NUL in it); the message says why in English."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code


def check_password(value: object) -> str:
    """``value`` if it can be a password; raises :class:`BadPassword` saying why not."""
    if not isinstance(value, str):
        raise BadPassword("other", "a password is text")
    if len(value) < MIN_PASSWORD:
        raise BadPassword("short", f"a password is at least {MIN_PASSWORD} characters")
    if len(value) > MAX_PASSWORD:
        raise BadPassword("long", f"a password is at most {MAX_PASSWORD} characters")
    if "\x00" in value:
        raise BadPassword("other", "a password cannot hold a NUL character")
    return value


class Passwords:
    """Hashes and checks passwords with ``hasher`` (default: argon2id at the library's
    default costs), at most ``at_once`` at a time, each in a thread."""

    def __init__(self, hasher: PasswordHasher | None = None, at_once: int = 2) -> None:
        self.hasher = hasher or PasswordHasher()
        self._slots = asyncio.Semaphore(at_once)
        self._dummy: str | None = None

    async def hash(self, password: str) -> str:
        """The stored form of ``password`` (salted, with its costs)."""
        async with self._slots:
            return await asyncio.to_thread(self.hasher.hash, password)

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``stored`` was made from. With ``stored`` None
        (no such account) a hash is checked all the same and False returned, so that the
        time taken does not tell whether the name exists."""
        if stored is None:
            if self._dummy is None:
                self._dummy = await self.hash("not a password of anyone's")
            stored, password = self._dummy, password + "\x00"
        async with self._slots:
            return await asyncio.to_thread(
                functools.partial(_verify, self.hasher), stored, password
            )

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with other costs than this hasher's (to be made
        again while the password is at hand)."""
        try:
            return self.hasher.check_needs_rehash(stored)
        except (InvalidHashError, ValueError):
            return True


def _verify(hasher: PasswordHasher, stored: str, password: str) -> bool:
    try:
        return hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
