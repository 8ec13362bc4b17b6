"""Who a request or a WebSocket is, from its cookies (:func:`resolve`).

- ``lockup_player``: the browser's guest token (:class:`~lockup.server.net.tokens.Players`
  mints it), also the browser's own id. A token that is an account's player is no
  guest's any more: a new one is minted, so signing out never leaves a browser playing as
  the account.
- ``lockup_session``: a signed-in session's token. While it is valid the request plays as
  the account's player; otherwise as the guest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..net.tokens import Players
from .service import Accounts, Signed

PLAYER_COOKIE = "lockup_player"
"""The cookie of the browser's guest token."""

SESSION_COOKIE = "lockup_session"
"""The cookie of a signed-in session's token."""


@dataclass(frozen=True)
class Identity:
    """Who a request is.

    ``player``: the player it plays as (the account's when signed in, else the guest's);
    ``browser``: the browser's guest token; ``account``: the account's name, or None;
    ``new_browser``: the guest token was minted now (the cookie must be set);
    ``signed``: the session, when signed in; ``stale_session``: a session cookie that is
    no longer valid (to be cleared)."""

    player: str
    browser: str
    account: str | None
    new_browser: bool
    signed: Signed | None = None
    stale_session: bool = False

    @property
    def known(self) -> str | None:
        """The player if the request came with one (a valid guest cookie or a session),
        else None: a request without cookies has played nothing."""
        if self.signed is None and self.new_browser:
            return None
        return self.player


async def resolve(players: Players, accounts: Accounts, cookies: Mapping[str, str]) -> Identity:
    """The identity of a request or WebSocket with ``cookies``."""
    guest = await players.known(cookies.get(PLAYER_COOKIE))
    if guest is not None and await accounts.is_account_player(guest):
        guest = None
    if guest is None:
        browser = players.tokens.mint()
        accounts.minted(browser)
    else:
        browser = guest
    token = cookies.get(SESSION_COOKIE)
    signed = await accounts.signed(token) if token else None
    if signed is None:
        return Identity(browser, browser, None, guest is None, stale_session=bool(token))
    return Identity(signed.player, browser, signed.name, guest is None, signed)
