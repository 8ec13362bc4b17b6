"""Purging and a server secret: games.updated_at and played_at, indexes for the purge, a
settings table.

``games.updated_at`` is the time of a game's last stored change (old rows get their
``created_at``); ``games.played_at`` the time a person first played a card in it (old
games where South played get their ``created_at``: South was the only person then); the
index on (``finished_at``, ``updated_at``) lets the purge find
unfinished games without reading the finished ones, and the one on ``players.game_id``
lets it clear the players of a purged game. ``settings`` holds the server's secrets.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("played_at", sa.DateTime(timezone=True), nullable=True))
    games = sa.table(
        "games",
        sa.column("id"),
        sa.column("created_at"),
        sa.column("updated_at"),
        sa.column("played_at"),
    )
    actions = sa.table("actions", sa.column("game_id"), sa.column("kind"), sa.column("seat"))
    op.execute(games.update().values(updated_at=games.c.created_at))
    south_played = sa.exists().where(
        actions.c.game_id == games.c.id, actions.c.kind == "play", actions.c.seat == 0
    )
    op.execute(games.update().where(south_played).values(played_at=games.c.created_at))
    op.create_index("ix_games_finished_at_updated_at", "games", ["finished_at", "updated_at"])
    op.create_index("ix_players_game_id", "players", ["game_id"])
    op.create_table(
        "settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("settings")
    op.drop_index("ix_players_game_id", table_name="players")
    op.drop_index("ix_games_finished_at_updated_at", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("played_at")
        batch.drop_column("updated_at")
