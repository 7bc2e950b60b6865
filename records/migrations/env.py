"""Alembic's environment: runs the migrations on the connection the store hands over.

:meth:`records.store.Store.migrate` puts its open connection in
``config.attributes["connection"]``; on PostgreSQL it holds an advisory lock for
the migration, so several servers starting at once migrate one after the other.
"""

from alembic import context

from dungeon_of_doom.records.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the store always passes one
    raise RuntimeError("run the migrations through records.store.Store.migrate")

context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
