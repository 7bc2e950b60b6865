"""Alembic migrations of the store (run by :meth:`records.store.Store.migrate`)."""
