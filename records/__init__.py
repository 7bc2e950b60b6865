"""The server's memory: finished games, the players in them, ratings and claimed names.

Layers, lowest first (a module imports only those above it in this list):

* :mod:`records.model` — plain dataclasses (:class:`GameRecord`, :class:`PlayerResult`)
  and :class:`Tally`, which a game feeds as it is played; no database here.
* :mod:`records.ranking` — a finished game's players as ranks, and the rating system.
* :mod:`records.schema` — the SQLAlchemy Core tables, one schema for SQLite and PostgreSQL.
* :mod:`records.store` — :class:`Store`: migrations, idempotent writes, reads (blocking;
  call it from a worker thread).
* :mod:`records.writer` — :class:`RecordWriter`: the trio task that hands finished games
  to the store in a worker thread, queueing and retrying while the store is away.
* :mod:`records.names` — claimed names and their hashed tokens.
* :mod:`records.cli` (``dod-records``). Tournaments (``dod-arena``) are the :mod:`arena`
  package's: it runs servers and bots, and records are what it writes.
"""
