"""Rooms: people at one table, computers in the empty seats.

``rooms`` holds a room (its secrets, host, options, seats as JSON, current game and status),
``game_events`` the events of a game that are not moves (chat, reactions, a computer taking
over a seat, a person taking it back), each with its version, ``players.name`` a player's
display name, ``actions.actor`` who made a move (``person`` or ``computer``; empty for the
server's deals and lockup discards, and for moves stored before this revision), and
``games.room_id`` the room a game was played in.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("invite", sa.String(32), nullable=False),
        sa.Column("watch", sa.String(32), nullable=False),
        sa.Column("host", sa.String(64), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rooms_public_status", "rooms", ["public", "status"])
    op.create_table(
        "game_events",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("name", sa.String(40), nullable=True))
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("actor", sa.String(8), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("room_id", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("room_id")
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("actor")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("name")
    op.drop_table("game_events")
    op.drop_index("ix_rooms_public_status", table_name="rooms")
    op.drop_table("rooms")
