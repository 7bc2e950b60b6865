"""Database URLs read without the database's libraries: which store a URL names, and how
to show it.

A server decides where its records and their journal go, and says which database it
writes to, before it listens; SQLAlchemy, which :mod:`records.store` is built on, is
loaded later, when the store is opened. These helpers read a URL the way SQLAlchemy's
``make_url`` does (``dialect+driver://user:password@host:port/database?query``), with
the standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final
from urllib.parse import unquote

__all__ = ["is_sqlite", "normalise_url", "safe_url", "sqlite_file"]

_URL: Final = re.compile(
    r"""
    (?P<name>[\w+]+)://
    (?:
        (?P<username>[^:/]*)
        (?::(?P<password>[^@]*))?
    @)?
    (?P<host>\[[^/?]+\]|[^/:?]+)?
    (?::(?P<port>[^/?]*))?
    (?:/(?P<database>[^?]*))?
    (?:\?(?P<query>.*))?
    """,
    re.VERBOSE,
)
"""SQLAlchemy's own pattern of a database URL (``sqlalchemy.engine.url._parse_url``)."""


def normalise_url(url: str) -> str:
    """``url`` with the driver this project uses: ``postgresql://`` means psycopg 3."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def is_sqlite(url: str) -> bool:
    """Whether ``url`` names an SQLite database (in a file or in memory) through the
    driver that ships with Python (``sqlite://``, ``sqlite+pysqlite://``)."""
    match = _URL.match(url)
    return match is not None and match["name"] in ("sqlite", "sqlite+pysqlite")


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite database on disk (``None``: another kind of store, or
    SQLite in memory)."""
    match = _URL.match(url)
    if match is None or match["name"].split("+")[0] != "sqlite":
        return None
    database = unquote(match["database"] or "")
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def safe_url(url: str) -> str:
    """``url`` with any password hidden, for logs and messages."""
    normal = normalise_url(url)
    match = _URL.match(normal)
    if match is None:
        return "(an unreadable database URL)"
    if match["password"] is None:
        return normal
    start, end = match.span("password")
    return f"{normal[:start]}***{normal[end:]}"
