"""Where a server's records go: its database, the journal of games waiting for it, and
the writer that records each finished game (:mod:`records.writer`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from records.urls import sqlite_file
from records.writer import RecordWriter

from ..setup.config import ServerConfig

__all__ = ["AUTO", "journal_folder", "record_writer", "records_url"]

AUTO: Final = "auto"
"""The ``db`` value that means SQLite in ``records.db`` beside the replays (and no
records when there are no replays)."""


def records_url(config: ServerConfig) -> str | None:
    """The database the server records into: ``db`` as given, ``auto`` made concrete."""
    db = config.db
    if db is None:
        return None
    if db == AUTO and config.cluster is not None and config.cluster.startswith("postgres"):
        return config.cluster  # one ladder for the whole cluster, in its own database
    if db == AUTO:
        # Beside the replays; a server told to keep no replays keeps no records either,
        # unless given a database of its own.
        if config.replay_dir is None:
            return None
        # Beside the replays' folder, not in it: that folder holds replays only.
        return f"sqlite:///{Path(config.replay_dir).parent / 'records.db'}"
    return db


def journal_folder(config: ServerConfig, url: str) -> Path | None:
    """Where finished games wait on disk for the store (:mod:`records.journal`):
    ``records_journal`` as given, ``auto`` made concrete (beside an SQLite file, else
    beside the replays' folder; none for a store elsewhere and no replays)."""
    folder = config.records_journal
    if folder is None:
        return None
    if folder != AUTO:
        return Path(folder)
    database = sqlite_file(url)
    if database is not None:
        return database.with_name(f"{database.stem}-unwritten")
    if config.replay_dir is not None:
        return Path(config.replay_dir).parent / "records-unwritten"
    return None


def record_writer(config: ServerConfig) -> RecordWriter | None:
    """What writes the server's finished games into its records (``None``: it keeps none)."""
    url = records_url(config)
    if url is None:
        return None
    return RecordWriter(
        url,
        server=f"{config.host}:{config.port}",
        journal=journal_folder(config, url),
        max_unwritten=config.max_unwritten_games,
        busy_timeout=config.store_busy_timeout,
        open_when_told=True,  # once the server listens: Ladder.serving
    )
