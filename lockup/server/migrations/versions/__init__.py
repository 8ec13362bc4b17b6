"""Alembic revision scripts, one per schema change, named by their revision id."""
