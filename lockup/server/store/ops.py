"""Write operations: what :meth:`~lockup.server.store.Store.write` runs in its transactions."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.engine import Connection

from .rows import ActionRow, GameRow, _now
from .schema import actions_table, game_events_table, games_table, participants_table, players_table
from .writer import WriteOp, _action_values, _touch

# The statements of the hot operations, built once: building one with ``.values(...)`` at
# each write cost four times what running it does (SQLAlchemy's compiled cache still
# needs the new statement's key); these take their values as parameters.
_INSERT_GAME = games_table.insert()
_INSERT_PARTICIPANTS = participants_table.insert()
_INSERT_PLAYER = players_table.insert()
_SET_CURRENT_GAME = (
    update(players_table)
    .where(players_table.c.id == bindparam("player"))
    .values(game_id=bindparam("game"))
)
_SET_PLAYED = (
    update(games_table)
    .where(games_table.c.id == bindparam("game"), games_table.c.played_at.is_(None))
    .values(played_at=bindparam("at"))
)
_SET_FINISHED = (
    update(games_table)
    .where(games_table.c.id == bindparam("game"))
    .values(
        winner=bindparam("winner_"),
        record=bindparam("record_"),
        finished_at=bindparam("at"),
        updated_at=bindparam("at"),
    )
)


class Ops:
    """The write operations, as static methods of :class:`~lockup.server.store.Store`."""

    @staticmethod
    def op_create_game(
        game: GameRow, actions: Sequence[ActionRow], owners: Sequence[str]
    ) -> WriteOp:
        """An operation storing a new game, its first actions, and making it the current
        game of every player in ``owners``."""
        values = _action_values(game.id, actions)

        def op(conn: Connection) -> None:
            now = _now()
            conn.execute(
                _INSERT_GAME,
                {
                    "id": game.id,
                    "rules": json.dumps(game.rules),
                    "players": json.dumps(game.players, ensure_ascii=False),
                    "seats": json.dumps(game.seats),
                    "created_at": now,
                    "updated_at": now,
                    "room_id": game.room_id,
                },
            )
            if values:
                conn.execute(actions_table.insert(), values)
            people = [
                {
                    "player_id": who["player"],
                    "game_id": game.id,
                    "seat": seat,
                    "uploaded": False,
                    "created_at": now,
                    "address_tag": who.get("tag"),
                    "browser": who.get("browser"),
                }
                for seat, who in enumerate(game.seats)
                if who.get("kind") == "human" and who.get("player")
            ]
            if people:
                conn.execute(_INSERT_PARTICIPANTS, people)
            for player in owners:
                done = conn.execute(_SET_CURRENT_GAME, {"player": player, "game": game.id}).rowcount
                if not done:
                    conn.execute(
                        _INSERT_PLAYER, {"id": player, "game_id": game.id, "created_at": _now()}
                    )

        return op

    @staticmethod
    def op_actions(game_id: str, actions: Sequence[ActionRow]) -> WriteOp:
        """An operation appending actions to a game."""
        values = _action_values(game_id, actions)

        def op(conn: Connection) -> None:
            if values:
                conn.execute(actions_table.insert(), values)
                _touch(conn, [game_id])

        return op

    @staticmethod
    def op_event(game_id: str, version: int, kind: str, seat: int | None, data: str) -> WriteOp:
        """An operation storing an event of a game that is not a move (chat, takeover)."""

        def op(conn: Connection) -> None:
            conn.execute(
                game_events_table.insert().values(
                    game_id=game_id,
                    version=version,
                    kind=kind,
                    seat=seat,
                    data=data,
                    created_at=_now(),
                )
            )

        return op

    @staticmethod
    def op_seats(game_id: str, seats: list[dict[str, Any]], players: list[str]) -> WriteOp:
        """An operation storing who sits where in a game, and the names shown."""

        def op(conn: Connection) -> None:
            conn.execute(
                update(games_table)
                .where(games_table.c.id == game_id)
                .values(seats=json.dumps(seats), players=json.dumps(players, ensure_ascii=False))
            )

        return op

    @staticmethod
    def op_played(game_id: str) -> WriteOp:
        """An operation noting that a person has played a card in the game (once)."""

        def op(conn: Connection) -> None:
            conn.execute(_SET_PLAYED, {"game": game_id, "at": _now()})

        return op

    @staticmethod
    def op_finish(game_id: str, winner: int, record_text: str) -> WriteOp:
        """An operation marking a game over, with its winner and whole record."""

        def op(conn: Connection) -> None:
            now = _now()
            conn.execute(
                _SET_FINISHED,
                {"game": game_id, "winner_": winner, "record_": record_text, "at": now},
            )

        return op
