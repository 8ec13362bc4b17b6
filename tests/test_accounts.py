"""Accounts without a server: names (the TR39 skeleton, blank names, the computers' names),
passwords (argon2), and the account service and identity on a real SQLite store.

The HTTP routes on a real ``lockup serve`` are in test_accounts_http.py, the pages in
test_browser_accounts.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from conftest import run_store

from lockup.server.accounts import (
    AccountError,
    Accounts,
    BadName,
    BadPassword,
    Passwords,
    check_password,
    clean_name,
    name_key,
    resolve,
    skeleton,
)
from lockup.server.accounts.names import prototypes
from lockup.server.net.tokens import Players, Tokens
from lockup.server.protocol import OptionError
from lockup.server.rooms import check_name

FAST = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
"""A cheap argon2id for tests (the server uses the library's default costs)."""


# ---------------------------------------------------------------------- names


@pytest.mark.parametrize(
    "other",
    [
        "ANN",
        "ann",
        "\u0410nn",  # Cyrillic capital A
        "\u0430nn",  # Cyrillic small a
        "\u0391\u039d\u039d",  # Greek capitals
        "\uff21\uff4e\uff4e",  # fullwidth
        "A\u200bnn",  # a zero-width space inside
        " Ann ",
    ],
)
def test_look_alikes_and_cases_of_a_name_share_its_key(other: str) -> None:
    assert name_key(other) == name_key("Ann")


def test_different_names_have_different_keys() -> None:
    keys = {name_key(n) for n in ("Ann", "Anne", "Bob", "Bo", "Þóra Ann", "Jón", "Jon")}
    assert len(keys) == 7


def test_the_key_folds_what_looks_alike_in_capitals_and_in_small_letters() -> None:
    # I and l, 0 and O, rn and m: TR39's prototypes, whatever case each is written in.
    assert name_key("Ian") == name_key("lan") == name_key("IAN")
    assert name_key("B0b") == name_key("Bob")
    assert name_key("rnike") == name_key("Mike")
    # A Cyrillic capital whose small letter looks like a small capital (т) still folds
    # to the Latin letter it looks like in capitals.
    assert name_key("\u0415\u0445\u0440\u0435r\u0422") == name_key("Expert")


def test_the_skeleton_comes_from_the_unicode_confusables_data() -> None:
    table = prototypes()
    assert len(table) > 5000  # the whole of confusables.txt, not a hand-made list
    assert table["\u0410"] == "A"  # CYRILLIC CAPITAL LETTER A
    assert table["\u03c1"] == "p"  # GREEK SMALL LETTER RHO
    assert table["0"] == "O" and table["1"] == "l" and table["I"] == "l"
    assert table["m"] == "rn"
    assert "a" not in table and "p" not in table  # prototypes map to themselves
    # A prototype is never a source: the skeleton is the same after a second pass.
    assert not [k for k, v in table.items() if any(ch in table for ch in v)]
    assert skeleton(skeleton("p\u0430yp\u0430l")) == skeleton("paypal")


@pytest.mark.parametrize(
    "name",
    [
        "\u2800",  # BRAILLE PATTERN BLANK
        "\u2800\u2800\u2800",
        "\u3164",  # HANGUL FILLER
        "\u115f\u1160",  # HANGUL CHOSEONG / JUNGSEONG FILLER
        "\uffa0",  # HALFWIDTH HANGUL FILLER
        "\u200b\u200c\u200d",  # zero-width space and joiners
        "\u00a0\u2003\u3000",  # spaces
        "\t\n",
        "\u0301\u0301",  # accents on nothing
        "\u2800\u0301",
        "\U000e0041",  # a tag character
        "🙂🙂",  # no letter or digit
        "...",
        "",
    ],
)
def test_names_that_show_nothing_are_refused(name: str) -> None:
    with pytest.raises(BadName) as e:
        clean_name(name)
    assert e.value.code == "blank"


def test_what_shows_nothing_is_taken_out_of_a_name() -> None:
    assert clean_name("\u3164Bob\u2800") == "Bob"
    assert clean_name("A\u200bnn") == "Ann"
    assert clean_name("  Ann\t  Lee ") == "Ann Lee"
    assert clean_name("Jo\u0301n") == "Jón"  # composed
    assert clean_name("e" + "\u0301" * 30) == "\u00e9\u0301"  # a pile of accents cut
    assert clean_name("Ann 🙂") == "Ann 🙂"
    with pytest.raises(BadName) as e:
        clean_name("x" * 25)
    assert e.value.code == "too-long"
    with pytest.raises(BadName):
        clean_name(42)


@pytest.mark.parametrize(
    "name",
    [
        "Þóra",
        "ÞÓRA",
        "Þora",
        "Leifur",
        "L e i f u r",
        "Vigdís",
        "Vigdis",
        "Random",
        "easy",
        "NORMAL",
        "Expert",
        "\u0415xpert",  # Cyrillic Е
        "Master",
        "computer",
        "Normal computer",
        "Expert (computer)",
        "expert_computer",
        "Computer 2",
        "Bot",
        "ordinateur",
        "tölva",
        "Sérfræðingur",
        "Maître",
        "Expert Normal",
        "You",
        "Vous",
    ],
)
def test_the_computers_names_and_levels_are_refused(name: str) -> None:
    with pytest.raises(BadName) as e:
        clean_name(name)
    assert e.value.code == "reserved"


@pytest.mark.parametrize("name", ["Ann", "Norma", "Eva", "Robot Rob", "Leif", "Þórunn", "Au"])
def test_people_s_names_are_kept(name: str) -> None:
    assert clean_name(name) == name


def test_display_names_follow_the_same_rules() -> None:
    """check_name, every display name's one check (rooms, quick play, the profile)."""
    assert check_name(" Ann ") == "Ann"
    for bad in ("Þóra", "Normal computer", "\u2800\u2800", "\u3164", "x" * 25, 7):
        with pytest.raises(OptionError):
            check_name(bad)


# ---------------------------------------------------------------------- passwords


def test_passwords_are_hashed_with_argon2id_and_checked() -> None:
    async def go() -> None:
        pw = Passwords(FAST)
        stored = await pw.hash("correct horse")
        assert stored.startswith("$argon2id$") and "correct horse" not in stored
        assert await pw.verify(stored, "correct horse")
        assert not await pw.verify(stored, "correct horsE")
        assert not await pw.verify("not a hash", "correct horse")
        assert not await pw.verify(None, "correct horse")  # no account: a hash checked anyway
        assert not pw.needs_rehash(stored)
        assert Passwords(PasswordHasher(time_cost=2, memory_cost=64, parallelism=1)).needs_rehash(
            stored
        )

    asyncio.run(go())


@pytest.mark.parametrize(
    ("value", "code"),
    [("short", "short"), ("x" * 201, "long"), (12345678, "other"), (None, "other")],
)
def test_passwords_out_of_bounds_are_refused(value: Any, code: str) -> None:
    with pytest.raises(BadPassword) as e:
        check_password(value)
    assert e.value.code == code
    assert check_password("x" * 8) == "x" * 8 and check_password("é" * 200) == "é" * 200


# ---------------------------------------------------------------------- the service


def with_accounts(tmp_path: Path, fn: Callable[[Accounts], Awaitable[Any]]) -> Any:
    """Run ``fn`` with an :class:`Accounts` on a new SQLite file."""

    async def go(store: Any) -> Any:
        return await fn(Accounts(store, Passwords(FAST)))

    return run_store(f"sqlite:///{tmp_path / 'games.sqlite'}", go)


def test_signing_up_and_in_by_any_look_alike_of_the_name(tmp_path: Path) -> None:
    async def go(accounts: Accounts) -> None:
        account, token = await accounts.signup("Ann", "correct horse", "guest-1", "agent")
        assert account.name == "Ann" and account.player_id == "guest-1"
        assert await accounts.is_account_player("guest-1")
        assert not await accounts.is_account_player("guest-2")
        signed = await accounts.signed(token)
        assert signed is not None and signed.player == "guest-1" and signed.name == "Ann"
        for variant in ("ann", "ANN", "\u0410nn"):
            again, other = await accounts.login(variant, "correct horse")
            assert again.id == account.id and other != token
        # The same name again, by case or by look: refused.
        for taken in ("ANN", "\u0410nn", " ann"):
            with pytest.raises(AccountError) as e:
                await accounts.signup(taken, "correct horse", f"guest-{taken}")
            assert e.value.code == "name-taken" and e.value.status == 409
        # The same guest twice (two tabs at once): refused, not a second account.
        with pytest.raises(AccountError) as e:
            await accounts.signup("Bob", "correct horse", "guest-1")
        assert e.value.code == "signed-in"

    with_accounts(tmp_path, go)


def test_a_wrong_password_and_an_unknown_name_are_one_answer(tmp_path: Path) -> None:
    async def go(accounts: Accounts) -> None:
        await accounts.signup("Ann", "correct horse", "guest-1")
        answers = []
        for name, password in (
            ("Ann", "wrong horse"),
            ("Nobody", "correct horse"),
            ("Ann", "x" * 5000),
            (None, "correct horse"),
            ("Ann", 12),
        ):
            with pytest.raises(AccountError) as e:
                await accounts.login(name, password)
            answers.append((e.value.code, e.value.reason, e.value.status))
        assert len(set(answers)) == 1 and answers[0][0] == "bad-login" and answers[0][2] == 401

    with_accounts(tmp_path, go)


def test_only_the_token_s_hash_is_stored(tmp_path: Path) -> None:
    async def go(accounts: Accounts) -> str:
        _, token = await accounts.signup("Ann", "correct horse", "guest-1", "Firefox")
        return token

    token = with_accounts(tmp_path, go)
    with sqlite3.connect(tmp_path / "games.sqlite") as db:
        rows = db.execute("SELECT token_hash, agent FROM account_sessions").fetchall()
        dump = "\n".join(db.iterdump())
    assert rows == [(hashlib.sha256(token.encode()).hexdigest(), "Firefox")]
    assert token not in dump and "correct horse" not in dump


def test_signing_out_and_ending_other_sessions_take_effect_at_once(tmp_path: Path) -> None:
    async def go(accounts: Accounts) -> None:
        _, first = await accounts.signup("Ann", "correct horse", "guest-1")
        _, second = await accounts.login("Ann", "correct horse")
        _, third = await accounts.login("Ann", "correct horse")
        closed: list[int] = []

        class Conn:
            def close(self, code: int) -> None:
                closed.append(code)

        conn = Conn()
        s1 = await accounts.signed(first)
        assert s1 is not None
        accounts.watch(s1, conn)
        s3 = await accounts.signed(third)
        assert s3 is not None
        assert len(await accounts.sessions(s3)) == 3
        assert await accounts.end_others(s3) == 2
        assert await accounts.signed(first) is None and await accounts.signed(second) is None
        assert closed == [1012]  # the page of the first session comes back as a guest
        assert [s.id for s in await accounts.sessions(s3)] == [s3.session_id]
        await accounts.logout(s3)
        assert await accounts.signed(third) is None
        assert await accounts.signed("x" * 43) is None and await accounts.signed("junk") is None

    with_accounts(tmp_path, go)


def test_a_new_password_ends_the_other_sessions(tmp_path: Path) -> None:
    async def go(accounts: Accounts) -> None:
        _, first = await accounts.signup("Ann", "correct horse", "guest-1")
        _, second = await accounts.login("Ann", "correct horse")
        signed = await accounts.signed(second)
        assert signed is not None
        with pytest.raises(AccountError) as e:
            await accounts.change_password(signed, "wrong horse", "battery staple")
        assert e.value.code == "wrong-password"
        with pytest.raises(AccountError) as e:
            await accounts.change_password(signed, "correct horse", "short")
        assert e.value.code == "bad-password" and e.value.why == "short"
        assert await accounts.signed(first) is not None  # nothing changed yet
        assert await accounts.change_password(signed, "correct horse", "battery staple") == 1
        assert await accounts.signed(first) is None and await accounts.signed(second) is not None
        with pytest.raises(AccountError):
            await accounts.login("Ann", "correct horse")
        await accounts.login("Ann", "battery staple")
        stored = await accounts.rows.by_id(signed.account_id)
        assert stored is not None and stored.password_changed_at is not None

    with_accounts(tmp_path, go)


def test_a_hash_of_other_costs_is_made_again_at_sign_in(tmp_path: Path) -> None:
    async def go(accounts: Accounts) -> None:
        account, _ = await accounts.signup("Ann", "correct horse", "guest-1")
        stronger = Accounts(accounts.rows.store, Passwords(PasswordHasher(2, 64, 1)))
        await stronger.login("Ann", "correct horse")
        again = await accounts.rows.by_id(account.id)
        assert again is not None and again.password_hash != account.password_hash
        assert "t=2" in again.password_hash and again.password_changed_at is None

    with_accounts(tmp_path, go)


def test_last_seen_is_stored_at_most_once_a_minute(tmp_path: Path) -> None:
    async def go(accounts: Accounts) -> None:
        _, token = await accounts.signup("Ann", "correct horse", "guest-1")
        store = accounts.rows.store
        before = store.commits
        for _ in range(5):
            assert await accounts.signed(token) is not None
        await asyncio.sleep(0.05)
        assert store.commits == before  # seen just now (at sign-up): nothing written
        signed = await accounts.signed(token)
        assert signed is not None
        accounts._seen[signed.session_id] -= timedelta(minutes=2)
        await accounts.signed(token)
        await asyncio.sleep(0.05)
        assert store.commits == before + 1

    with_accounts(tmp_path, go)


# ---------------------------------------------------------------------- identity


def test_who_a_request_is(tmp_path: Path) -> None:
    async def go(accounts: Accounts) -> None:
        tokens = Tokens(b"k" * 32)

        async def never(_: str) -> bool:
            return False

        players = Players(tokens, never)
        guest = tokens.mint()
        # A browser with no cookie: a new guest, not yet known.
        fresh = await resolve(players, accounts, {})
        assert fresh.new_browser and fresh.account is None and fresh.known is None
        # A guest.
        me = await resolve(players, accounts, {"lockup_player": guest})
        assert me.player == me.browser == guest and not me.new_browser and me.known == guest
        # The guest makes an account: it plays as that guest's token from now on.
        _, session = await accounts.signup("Ann", "correct horse", guest)
        signed_in = await resolve(
            players, accounts, {"lockup_player": tokens.mint(), "lockup_session": session}
        )
        assert signed_in.player == guest and signed_in.account == "Ann"
        assert signed_in.browser != guest and not signed_in.new_browser
        # The account's token as a guest cookie, without the session: a new guest.
        alone = await resolve(players, accounts, {"lockup_player": guest})
        assert alone.player != guest and alone.new_browser and alone.known is None
        # A session that ended: the guest, and the cookie is to be cleared.
        assert signed_in.signed is not None
        await accounts.logout(signed_in.signed)
        after = await resolve(
            players, accounts, {"lockup_player": signed_in.browser, "lockup_session": session}
        )
        assert after.player == signed_in.browser and after.stale_session and after.account is None

    with_accounts(tmp_path, go)
