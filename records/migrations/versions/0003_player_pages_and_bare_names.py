"""A player's page reads through indexes; names that differ by accents or end
punctuation are one name.

Indexes: ``ratings`` by name (a name's ratings), by world and ordinal (``mu - 3
sigma``: a rank is a count of the index entries ahead of it), and ``games`` by world
and map (the wins on one map). The names' lookalike keys are computed again with
:func:`records.names.lookalike_keys`, which now also drops combining marks and the
punctuation at a name's ends: oldest first, as in 0002, so that of two names that are
lookalikes only now, the older keeps its keys and the newer stays claimed by its exact
spelling, its keys NULL.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from records.names import lookalike_keys

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

ORDINAL = "(mu - 3 * sigma)"
"""What the leaderboard orders by, written as every query that wants the index writes it."""


def upgrade() -> None:
    op.create_index("ix_ratings_name", "ratings", ["name"])
    op.create_index("ix_ratings_world_ordinal", "ratings", ["world", sa.text(ORDINAL), "name"])
    op.create_index("ix_games_world_map", "games", ["world", "map"])
    names = sa.table(
        "names",
        sa.column("name", sa.String),
        sa.column("created_at", sa.DateTime),
        sa.column("skeleton", sa.Text),
        sa.column("cased_skeleton", sa.Text),
    )
    connection = op.get_bind()
    # Every key is let go first: an old key may be another name's new one.
    connection.execute(names.update().values(skeleton=None, cased_skeleton=None))
    rows = connection.execute(
        sa.select(names.c.name).order_by(names.c.created_at, names.c.name)
    ).scalars()
    taken: set[str] = set()
    for name in list(rows):
        keys = lookalike_keys(name)
        if taken.isdisjoint(keys):
            taken.update(keys)
            connection.execute(
                names.update()
                .where(names.c.name == name)
                .values(skeleton=keys[0], cased_skeleton=keys[1])
            )


def downgrade() -> None:
    op.drop_index("ix_games_world_map", "games")
    op.drop_index("ix_ratings_world_ordinal", "ratings")
    op.drop_index("ix_ratings_name", "ratings")
