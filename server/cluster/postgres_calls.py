"""The calls the cluster's directory makes to PostgreSQL, each a plain function run in a
worker thread (:class:`~server.cluster.postgres.PostgresDirectory` runs them, one at a
time, under its own deadline).

What a caller may rely on:

* :func:`connect` gives a connection on which no call can take much longer than
  :data:`DB_TIMEOUT` seconds: the statement, the connection attempt and a link gone
  silent are each bounded (a caller still puts its own deadline around the whole).
* :func:`run_on` runs one call, on a connection given or a new one, and closes the
  connection if the call fails (it may be half-way through a reply).
* :func:`make_schema` is safe for nodes starting at once; :func:`claiming` and
  :func:`first` run one statement of :mod:`server.cluster.schema` each.
* :func:`listen` returns only when told to stop (or trio's run has ended): it connects
  again after any error, and reads the directory whole after each connection.
* :func:`cluster_status` is ``dod-server --cluster-status``'s answer; it raises
  ``psycopg.Error`` or ``OSError`` if PostgreSQL cannot be asked.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Final, TypeVar

import psycopg
import structlog
import trio

from . import schema
from .shared import describe_cluster

DB_TIMEOUT: Final = 3.0
"""Seconds any one call to PostgreSQL may take before the directory counts it as gone."""
LISTEN_POLL: Final = 0.25
"""Seconds the listening thread waits for a notification before it checks for a stop."""
LISTEN_RETRY: Final = 1.0
"""Seconds at most between the listening thread's attempts to connect again."""

log = structlog.get_logger("dungeon_of_doom.server.cluster")
T = TypeVar("T")


class DirectoryDown(Exception):
    """PostgreSQL could not be reached, or did not answer in time."""


def connect(url: str) -> psycopg.Connection[Any]:
    """A connection to ``url`` in autocommit mode, every wait on it bounded by about
    :data:`DB_TIMEOUT` seconds; raises ``psycopg.Error`` or ``OSError`` if it fails."""
    # tcp_user_timeout bounds a call on a link that went silent (no RST ever comes).
    millis = int(DB_TIMEOUT * 1000)
    return psycopg.connect(
        url,
        autocommit=True,
        connect_timeout=max(1, round(DB_TIMEOUT)),
        tcp_user_timeout=millis,
        keepalives=1,
        keepalives_idle=max(1, round(DB_TIMEOUT)),
        keepalives_interval=1,
        keepalives_count=2,
        options=f"-c statement_timeout={millis}",
    )


def run_on(
    url: str,
    db: psycopg.Connection[Any] | None,
    work: Callable[[psycopg.Connection[Any]], T],
) -> tuple[psycopg.Connection[Any], T]:
    """``work`` on ``db``, or on a new connection to ``url`` if there is none or it is
    closed: the connection it ran on and its result. If it fails the connection is
    closed, and its error raised."""
    if db is None or db.closed:
        db = connect(url)
    try:
        return db, work(db)
    except BaseException:
        db.close()
        raise


def make_schema(db: psycopg.Connection[Any]) -> None:
    """In a transaction: the tables, made or brought up to date if they are not."""
    # Nodes starting together must not create the tables at once.
    db.execute("SELECT pg_advisory_xact_lock(%s)", (schema.SCHEMA_LOCK,))
    db.execute(schema.VERSION_TABLE)
    row = db.execute(schema.READ_VERSION).fetchone()
    if row is None or row[0] < schema.SCHEMA_VERSION:
        for statement in schema.STATEMENTS:
            db.execute(statement)
        db.execute(schema.WRITE_VERSION, {"version": schema.SCHEMA_VERSION})


def first(db: psycopg.Connection[Any], statement: str, params: dict[str, Any]) -> Any:
    """The first column of the first row ``statement`` returns."""
    row = db.execute(statement, params).fetchone()
    assert row is not None
    return row[0]


def claiming(
    statement: str, params: dict[str, Any]
) -> Callable[[psycopg.Connection[Any]], bool | None]:
    """The call of a claim (:data:`~server.cluster.schema.CLAIM` or
    :data:`~server.cluster.schema.CLAIM_NAME`): whether it was won, ``None`` if this node
    was reaped."""

    def claim(db: psycopg.Connection[Any]) -> bool | None:
        outcome = first(db, statement, params)
        return None if outcome == 0 else outcome == 1

    return claim


def listen(
    url: str,
    node: str,
    heartbeat: float,
    stop: threading.Event,
    replace: Callable[[list[Any], list[Any]], None],
    apply: Callable[[str], None],
) -> None:
    """In a thread: follow the directory's notifications for the node ``node`` until
    ``stop`` is set (checked every :data:`LISTEN_POLL` seconds). At each connection the
    other nodes' games and names are read whole and handed to ``replace``, then each
    change to ``apply``, both run in trio's thread, never once ``stop`` is set; after an
    error it connects again within ``heartbeat`` seconds (:data:`LISTEN_RETRY` at most)."""

    def told(change: Callable[..., None], *args: Any) -> None:
        if not stop.is_set():  # checked in trio's thread: a stopped listener changes nothing
            change(*args)

    while not stop.is_set():
        try:
            with connect(url) as db:
                db.execute(f"LISTEN {schema.CHANNEL}")
                rows = db.execute(schema.SNAPSHOT, {"node": node}).fetchall()
                names = db.execute(schema.NAMES, {"node": node}).fetchall()
                trio.from_thread.run_sync(told, replace, rows, names)
                while not stop.is_set():
                    for note in db.notifies(timeout=LISTEN_POLL):
                        trio.from_thread.run_sync(told, apply, note.payload)
        except (psycopg.Error, OSError) as error:
            log.debug("cluster listener reconnecting", error=repr(error))
            stop.wait(min(heartbeat, LISTEN_RETRY))
        except trio.RunFinishedError:
            return


def cluster_status(url: str) -> str:
    """The live nodes of the cluster at ``url`` and their games, as lines of text
    (``dod-server --cluster-status``)."""
    with connect(url) as db:
        nodes = db.execute(schema.STATUS_NODES).fetchall()
        games = db.execute(schema.STATUS_GAMES).fetchall()
    return describe_cluster(nodes, games)
