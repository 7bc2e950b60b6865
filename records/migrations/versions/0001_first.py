"""The first schema: games, their players, ratings per world and name, claimed names.

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("world", sa.String(64), nullable=False),
        sa.Column("map", sa.Text, nullable=True),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("dialect", sa.String(16), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("end_reason", sa.Text, nullable=False),
        sa.Column("replay", sa.Text, nullable=True),
        sa.Column("server", sa.String(255), nullable=False, server_default=""),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_games_world_ended", "games", ["world", "ended_at"])
    op.create_table(
        "players",
        sa.Column(
            "game_id",
            sa.String(36),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("player", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("claimed", sa.Boolean, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("gold", sa.Integer, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=True),
        sa.Column("sigma_before", sa.Float, nullable=True),
        sa.Column("mu_after", sa.Float, nullable=True),
        sa.Column("sigma_after", sa.Float, nullable=True),
    )
    op.create_index("ix_players_name", "players", ["name"])
    op.create_table(
        "ratings",
        sa.Column("world", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "names",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("token_hash", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_login", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("names")
    op.drop_table("ratings")
    op.drop_index("ix_players_name", "players")
    op.drop_table("players")
    op.drop_index("ix_games_world_ended", "games")
    op.drop_table("games")
