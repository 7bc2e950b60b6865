"""Claimed names that look alike are one name: each keeps its lookalike keys.

A name's keys are :func:`records.names.lookalike_keys` (TR39 confusable skeletons of
its NFKC form, case-folded and not). The first is unique, so two servers claiming
lookalikes at once cannot both succeed. Names claimed before this revision get their
keys here, oldest first; a later name that looks like an earlier one keeps no keys
(NULL): it stays claimed by its exact spelling, and its lookalikes are refused
through the earlier name's keys.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

from dungeon_of_doom.records.names import lookalike_keys

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("names") as batch:
        batch.add_column(sa.Column("skeleton", sa.Text, nullable=True))
        batch.add_column(sa.Column("cased_skeleton", sa.Text, nullable=True))
    names = sa.table(
        "names",
        sa.column("name", sa.String),
        sa.column("created_at", sa.DateTime),
        sa.column("skeleton", sa.Text),
        sa.column("cased_skeleton", sa.Text),
    )
    connection = op.get_bind()
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
    op.create_index("ix_names_skeleton", "names", ["skeleton"], unique=True)
    op.create_index("ix_names_cased_skeleton", "names", ["cased_skeleton"])


def downgrade() -> None:
    op.drop_index("ix_names_cased_skeleton", "names")
    op.drop_index("ix_names_skeleton", "names")
    with op.batch_alter_table("names") as batch:
        batch.drop_column("cased_skeleton")
        batch.drop_column("skeleton")
