"""Rooms remember the address that made them, as a keyed hash.

``rooms.address_tag`` is an HMAC-SHA-256 (the server's secret ``address-key``, 128 bits in
hex) of the client address that made the room, never the address: the server counts the
public rooms one address holds open and shows few of each address in the lobby. Rooms made
before this revision have none.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("address_tag", sa.String(32), nullable=True))
    op.create_index("ix_rooms_address_tag", "rooms", ["address_tag"])


def downgrade() -> None:
    op.drop_index("ix_rooms_address_tag", table_name="rooms")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("address_tag")
