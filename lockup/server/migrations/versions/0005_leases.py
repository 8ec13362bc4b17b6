"""Leases: which server process owns a game (or a room) now, for several processes on one
database (PostgreSQL).

``leases`` holds one row per owned thing: its key (``game:<id>`` or ``room:<id>``), the
owner (a process id: host, pid and a random part), the fence (bumped at every takeover,
checked in the transaction of every write of the owner) and when the lease expires unless
renewed.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "leases",
        sa.Column("id", sa.String(48), primary_key=True),
        sa.Column("owner", sa.String(96), nullable=False),
        sa.Column("fence", sa.Integer, nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_leases_owner", "leases", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_leases_owner", table_name="leases")
    op.drop_table("leases")
