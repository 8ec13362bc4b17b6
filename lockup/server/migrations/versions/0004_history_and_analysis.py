"""History and review: who took part in each game, and the analyses of games.

``participants`` links a player to each game they took part in (their seat, and whether
they brought the game in as an uploaded record); existing games get their people from
``games.seats``. ``analyses`` keeps the expert's analysis of a seat's play in a game (the
hands analysed, its status and the result as JSON), so it runs once.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "participants",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("uploaded", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_participants_game_id", "participants", ["game_id"])
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    conn = op.get_bind()
    games = sa.table("games", sa.column("id"), sa.column("seats"), sa.column("created_at"))
    participants = sa.table(
        "participants",
        sa.column("player_id"),
        sa.column("game_id"),
        sa.column("seat"),
        sa.column("uploaded"),
        sa.column("created_at"),
    )
    rows = []
    for game_id, seats, created in conn.execute(
        sa.select(games.c.id, games.c.seats, games.c.created_at)
    ):
        for seat, who in enumerate(json.loads(seats)):
            if who.get("kind") == "human" and who.get("player"):
                rows.append(
                    {
                        "player_id": who["player"],
                        "game_id": game_id,
                        "seat": seat,
                        "uploaded": False,
                        "created_at": created or datetime.now(UTC),
                    }
                )
    if rows:
        op.bulk_insert(participants, rows)


def downgrade() -> None:
    op.drop_table("analyses")
    op.drop_index("ix_participants_game_id", table_name="participants")
    op.drop_table("participants")
