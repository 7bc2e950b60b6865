"""The tables of the store, in SQLAlchemy Core: one schema for SQLite and PostgreSQL.

The schema is created and changed only by the Alembic migrations in
``records/migrations`` (the first of which makes exactly these tables); this module
is what the code reads and writes through.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    literal_column,
)

__all__ = ["games", "metadata", "names", "ordinal", "players", "ratings"]

metadata = MetaData()

games = Table(
    "games",
    metadata,
    Column("id", String(36), primary_key=True, comment="a UUID: unique across servers"),
    Column("game", String(64), nullable=False, comment="the game's name on its server"),
    Column("world", String(64), nullable=False),
    Column("map", Text, nullable=True),
    Column("seed", BigInteger, nullable=False),
    Column("dialect", String(16), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("ended_at", DateTime(timezone=True), nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("end_reason", Text, nullable=False),
    Column("replay", Text, nullable=True),
    Column("server", String(255), nullable=False, server_default=""),
    Column("rated", Boolean, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
)
Index("ix_games_world_ended", games.c.world, games.c.ended_at)

players = Table(
    "players",
    metadata,
    Column("game_id", String(36), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("player", Integer, primary_key=True, autoincrement=False),
    Column("name", String(64), nullable=True),
    Column("kind", String(16), nullable=False),
    Column("claimed", Boolean, nullable=False),
    Column("outcome", String(16), nullable=False),
    Column("gold", Integer, nullable=False),
    Column("moves", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    Column("mu_before", Float, nullable=True),
    Column("sigma_before", Float, nullable=True),
    Column("mu_after", Float, nullable=True),
    Column("sigma_after", Float, nullable=True),
)
Index("ix_players_name", players.c.name)

ratings = Table(
    "ratings",
    metadata,
    Column("world", String(64), primary_key=True),
    Column("name", String(64), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
ordinal = literal_column("mu - 3 * sigma", Float)
"""What the leaderboard orders a world's ratings by, best first; written as the index on
it is (0003), so that a query of one table's ratings reaches the index."""
Index("ix_ratings_name", ratings.c.name)
Index("ix_ratings_world_ordinal", ratings.c.world, ordinal, ratings.c.name)
Index("ix_games_world_map", games.c.world, games.c.map)
Index("ix_games_replay", games.c.replay)

names = Table(
    "names",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("token_hash", Text, nullable=False, comment="argon2id; the token itself is never kept"),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_login", DateTime(timezone=True), nullable=True),
    Column(
        "skeleton",
        Text,
        nullable=True,
        comment="records.names.lookalike_keys[0], unique: names that look alike are one; "
        "NULL for a lookalike claimed before the 0002 migration",
    ),
    Column("cased_skeleton", Text, nullable=True, comment="records.names.lookalike_keys[1]"),
)
Index("ix_names_skeleton", names.c.skeleton, unique=True)
Index("ix_names_cased_skeleton", names.c.cased_skeleton)
