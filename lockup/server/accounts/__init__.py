"""Accounts: a name, a password and the player a person plays as, on any browser or
terminal they sign in from.

- :mod:`.names`: what a name may be, and its key (the case-folded confusable skeleton of
  Unicode TR39) that makes two names one.
- :mod:`.passwords`: argon2id hashes, off the event loop.
- :mod:`.rows`: the ``accounts`` and ``account_sessions`` tables, read and written.
- :mod:`.service`: :class:`Accounts`: sign up, sign in and out, passwords, sessions.
- :mod:`.identity`: who a request or a WebSocket is, from its cookies.
"""

from __future__ import annotations

from .identity import PLAYER_COOKIE, SESSION_COOKIE, Identity, resolve
from .names import MAX_NAME, BadName, clean_name, name_key, reserved, skeleton, visible_text
from .passwords import MAX_PASSWORD, MIN_PASSWORD, BadPassword, Passwords, check_password
from .rows import AccountRow, AccountRows, SessionRow
from .service import AccountError, Accounts, Signed, bad_login, token_hash

__all__ = [
    "MAX_NAME",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "PLAYER_COOKIE",
    "SESSION_COOKIE",
    "AccountError",
    "AccountRow",
    "AccountRows",
    "Accounts",
    "BadName",
    "BadPassword",
    "Identity",
    "Passwords",
    "SessionRow",
    "Signed",
    "bad_login",
    "check_password",
    "clean_name",
    "name_key",
    "reserved",
    "resolve",
    "skeleton",
    "token_hash",
    "visible_text",
]
