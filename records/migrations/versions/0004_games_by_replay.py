"""Games by their replay file: the web page's list of replays finds each one's players
and results through an index (``/api/replays``), never by reading the whole table.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_games_replay", "games", ["replay"])


def downgrade() -> None:
    op.drop_index("ix_games_replay", "games")
