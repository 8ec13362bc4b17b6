"""Reads of games, players and the lobby, and the settings (secrets, address tags)."""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import (
    func,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .rows import ActionRow, GameRow, StoreError, _aware
from .schema import (
    accounts_table,
    actions_table,
    game_events_table,
    games_table,
    players_table,
    rooms_table,
    settings_table,
)
from .writer import StoreBase


class Queries(StoreBase):
    """Games, players, settings and the lobby, read (and a few small writes)."""

    async def player_game(self, player: str) -> str | None:
        """The id of the game ``player`` is playing now, or None."""

        def read() -> str | None:
            with self._engine().connect() as conn:
                row = conn.execute(
                    select(players_table.c.game_id).where(players_table.c.id == player)
                ).first()
            return None if row is None else row[0]

        result: str | None = await self._run(read)
        return result

    async def finished_record(self, game_id: str) -> tuple[list[str | None], str] | None:
        """A finished game's players (each seat's player token, None for a computer) and
        its stored record text, or None (no such game, or not over). Any process may
        answer it, whoever plays the game."""

        def read() -> tuple[list[str | None], str] | None:
            with self._engine().connect() as conn:
                row = conn.execute(
                    select(games_table.c.seats, games_table.c.record).where(
                        games_table.c.id == game_id
                    )
                ).first()
            if row is None or row.record is None:
                return None
            stored = json.loads(row.seats)
            seats = [d.get("player") if d.get("kind") == "human" else None for d in stored]
            return seats, str(row.record)

        result: tuple[list[str | None], str] | None = await self._run(read)
        return result

    async def load(self, game_id: str) -> tuple[GameRow, list[ActionRow]] | None:
        """A stored game's header and actions in order, or None if there is no such game."""

        def read() -> tuple[GameRow, list[ActionRow]] | None:
            with self._engine().connect() as conn:
                g = conn.execute(select(games_table).where(games_table.c.id == game_id)).first()
                if g is None:
                    return None
                rows = conn.execute(
                    select(
                        actions_table.c.seq,
                        actions_table.c.kind,
                        actions_table.c.seat,
                        actions_table.c.data,
                        actions_table.c.version,
                        actions_table.c.actor,
                    )
                    .where(actions_table.c.game_id == game_id)
                    .order_by(actions_table.c.seq)
                ).all()
                events_version = conn.execute(
                    select(func.max(game_events_table.c.version)).where(
                        game_events_table.c.game_id == game_id
                    )
                ).scalar_one()
                abandoned = conn.execute(
                    select(game_events_table.c.seat).where(
                        game_events_table.c.game_id == game_id,
                        game_events_table.c.kind == "abandon",
                    )
                ).all()
            header = GameRow(
                id=g.id,
                rules=json.loads(g.rules),
                players=json.loads(g.players),
                seats=json.loads(g.seats),
                winner=g.winner,
                room_id=g.room_id,
                events_version=int(events_version or 0),
                abandoned=tuple(sorted({int(r.seat) for r in abandoned if r.seat is not None})),
            )
            return header, [
                ActionRow(r.seq, r.kind, r.seat, r.data, r.version, r.actor) for r in rows
            ]

        result: tuple[GameRow, list[ActionRow]] | None = await self._run(read)
        return result

    async def count_games(self) -> int:
        """How many games are stored."""

        def read() -> int:
            with self._engine().connect() as conn:
                return int(conn.execute(select(func.count()).select_from(games_table)).scalar_one())

        result: int = await self._run(read)
        return result

    async def secret(self, name: str = "token-key") -> bytes:
        """The server's secret ``name``: 32 random bytes made on the first call and kept in
        the ``settings`` table (key ``secret:<name>``, hex), the same ever after."""
        found = self._secrets.get(name)
        if found is None:
            found = self._secrets[name] = await self._run(functools.partial(self._secret, name))
        return found

    def _secret(self, name: str) -> bytes:
        key = f"secret:{name}"
        value = self._setting(key)
        if value is None:
            self._insert_setting(key, secrets.token_hex(32))
            value = self._setting(key)  # ours, or the one another server stored first
            if value is None:  # pragma: no cover - inserted just now
                raise StoreError(f"the setting {key} was not stored")
        return bytes.fromhex(value)

    def _setting(self, key: str) -> str | None:
        with self._engine().connect() as conn:
            value = conn.execute(
                select(settings_table.c.value).where(settings_table.c.key == key)
            ).scalar_one_or_none()
        return None if value is None else str(value)

    def _insert_setting(self, key: str, value: str) -> bool:
        """Store ``key`` unless it is there already; whether this call stored it."""
        try:
            with self._engine().begin() as conn:
                conn.execute(settings_table.insert().values(key=key, value=value))
        except IntegrityError:
            return False
        return True

    async def address_tag(self, address: str) -> str:
        """A keyed hash of a client address (HMAC-SHA-256 with the server's secret
        ``address-key``, 128 bits in hex): the same for the same address on this database,
        and nothing that gives the address back (rooms keep it, not the address)."""
        key = await self.secret("address-key")
        return hmac.new(key, address.encode("utf-8", "replace"), hashlib.sha256).hexdigest()[:32]

    async def tag_room(self, room_id: str, tag: str) -> None:
        """Keep ``tag`` (:meth:`address_tag`) as the address that made room ``room_id``."""

        def op(conn: Connection) -> None:
            conn.execute(
                update(rooms_table).where(rooms_table.c.id == room_id).values(address_tag=tag)
            )

        await self.write(op)

    async def open_public_rooms(
        self, host: str, tag: str, since: datetime
    ) -> list[tuple[bool, bool, datetime]]:
        """The public rooms still open, made or changed since ``since``, whose host is
        ``host`` or which address ``tag`` made: (whether the host's, whether the address's,
        when last changed) for each."""
        r = rooms_table.c

        def read(conn: Connection) -> list[tuple[bool, bool, datetime]]:
            rows = conn.execute(
                select(r.host, r.address_tag, r.updated_at).where(
                    r.public.is_(True),
                    r.status == "open",
                    r.updated_at >= since,
                    or_(r.host == host, r.address_tag == tag),
                )
            ).all()
            return [(row[0] == host, row[1] == tag, _aware(row[2])) for row in rows]

        result: list[tuple[bool, bool, datetime]] = await self.read(read)
        return result

    async def lobby_rows(self, limit: int, per_address: int) -> list[Any]:
        """The public rooms still open: those an account hosts first, then guests', newest
        first within each; at most ``per_address`` of those one address made (the newest of
        them), ``limit`` in all; each row ``(id, host, seats, options)`` as stored (JSON
        text). Accounts first: guests from many addresses cannot push every account's room
        out of the lobby (an address makes few accounts, see the account limits)."""
        r, a = rooms_table.c, accounts_table.c
        rank = (
            func.row_number()
            .over(partition_by=func.coalesce(r.address_tag, r.id), order_by=r.created_at.desc())
            .label("rank")
        )
        account = select(a.id).where(a.player_id == r.host).exists().label("account")
        ranked = (
            select(r.id, r.host, r.seats, r.options, r.created_at, rank, account)
            .where(r.public.is_(True), r.status == "open")
            .subquery()
        )
        query = (
            select(ranked.c.id, ranked.c.host, ranked.c.seats, ranked.c.options)
            .where(ranked.c.rank <= per_address)
            .order_by(ranked.c.account.desc(), ranked.c.created_at.desc())
            .limit(limit)
        )

        def read(conn: Connection) -> list[Any]:
            return list(conn.execute(query).all())

        rows: list[Any] = await self.read(read)
        return rows
