"""Purging and a server secret: games.updated_at, indexes for the purge, a settings table.

``games.updated_at`` is the time of a game's last stored change (old rows get their
``created_at``); the index on (``finished_at``, ``updated_at``) lets the purge find
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
    games = sa.table("games", sa.column("created_at"), sa.column("updated_at"))
    op.execute(games.update().values(updated_at=games.c.created_at))
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
        batch.drop_column("updated_at")
