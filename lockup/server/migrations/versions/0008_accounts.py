"""Accounts and fair play: accounts, their signed-in sessions, and where each participant
of a game sat down from.

``accounts``: a name (unique by its confusable skeleton), an argon2 password hash and the
player the account plays as. ``account_sessions``: one row per signed-in browser or
terminal (the SHA-256 of its token). ``participants.address_tag`` and
``participants.browser``: the keyed hash of the address and the browser token a person
sat down from, so that a rated game can tell one person holding two seats.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("name_key", sa.String(160), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("password_changed_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "account_sessions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("account_id", sa.String(32), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("agent", sa.String(120), nullable=True),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    with op.batch_alter_table("participants") as batch:
        batch.add_column(sa.Column("address_tag", sa.String(32), nullable=True))
        batch.add_column(sa.Column("browser", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("participants") as batch:
        batch.drop_column("browser")
        batch.drop_column("address_tag")
    op.drop_index("ix_account_sessions_account_id", table_name="account_sessions")
    op.drop_table("account_sessions")
    op.drop_table("accounts")
