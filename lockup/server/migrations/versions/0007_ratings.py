"""Ratings: each subject's current rating, and what each rated game changed.

``ratings``: a person (their player token) or a computer level (``computer:<level>``)
with its Weng-Lin ``mu`` and ``sigma``, the number shown (``mu - 3 sigma``) and how many
rated games. ``rating_changes``: one row per seat of a rated game (key: game, seat, so a
game is rated once whatever the number of processes), before and after. See
docs/ratings.md.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("subject", sa.String(80), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ratings_rating", "ratings", ["rating"])
    op.create_table(
        "rating_changes",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("subject", sa.String(80), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("sat_out", sa.Boolean, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rating_changes_subject", "rating_changes", ["subject"])


def downgrade() -> None:
    op.drop_index("ix_rating_changes_subject", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_rating", table_name="ratings")
    op.drop_table("ratings")
