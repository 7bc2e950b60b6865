"""The matches of tournaments played on many machines, queued in PostgreSQL.

The queue under ``dod-arena submit`` / ``worker`` / ``status`` (:mod:`arena.distributed`;
what ``status`` and the server's web page read of it is :mod:`records.tournaments`).
Blocking, synchronous psycopg: call it from a worker thread (``trio.to_thread.run_sync``;
psycopg's async API does not run under trio).

What callers may rely on:

* :func:`submit` stores a tournament (its spec as JSON) and its matches, each keyed by
  ``(tournament, number)``; submitting again adds nothing, and wakes idle workers
  (``NOTIFY arena_work``).
* :func:`claim` hands one match to one worker (never one of a one-machine run's
  tournament kept in the same database: :mod:`arena.board`): ``SELECT ... FOR UPDATE
  SKIP LOCKED``, so two workers racing never get the same match, under a lease that
  the worker renews (:func:`renew`) while it plays. A match whose lease has run out
  (its worker killed, or cut off from the database) is handed out again, the first
  match first.
* :func:`finish` stores a match's result once: the first result stored stands, a later one
  for the same match (a re-run after a lost lease) is refused (``False``), whoever sends
  it, so nothing is counted twice.
* :func:`release` gives a claimed match back at once (a worker draining on SIGTERM).
* :func:`wait_for_work` blocks until a ``NOTIFY`` or the timeout, for idle workers.

The tables are the arena's own (``arena_tournaments``, ``arena_matches``), created by
:func:`ensure_schema` if missing, apart from the records' schema and its migrations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import psycopg
from psycopg.types.json import Jsonb

__all__ = [
    "Claimed",
    "claim",
    "connect",
    "ensure_schema",
    "finish",
    "listen",
    "release",
    "renew",
    "results",
    "status",
    "submit",
    "unfinished",
    "wait_for_work",
]

CHANNEL: Final = "arena_work"
LOCAL: Final = "coalesce((t.spec ->> 'local')::boolean, false)"
"""SQL true of a tournament a one-machine run keeps in the database (:mod:`arena.board`):
no worker claims its matches, nor waits for them."""

SCHEMA: Final = (
    """
    CREATE TABLE IF NOT EXISTS arena_tournaments (
        name text PRIMARY KEY,
        spec jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS arena_matches (
        tournament text NOT NULL REFERENCES arena_tournaments (name),
        number integer NOT NULL,
        spec jsonb NOT NULL,
        state text NOT NULL DEFAULT 'pending'
            CHECK (state IN ('pending', 'playing', 'done')),
        worker text,
        lease_until timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        result jsonb,
        finished_at timestamptz,
        PRIMARY KEY (tournament, number)
    )
    """,
    "CREATE INDEX IF NOT EXISTS arena_matches_waiting ON arena_matches (state, lease_until)",
)


@dataclass(frozen=True, slots=True)
class Claimed:
    """A match a worker holds: where it is in which tournament, and what it is."""

    tournament: str
    number: int
    spec: dict[str, Any]
    attempts: int
    """1 the first time it is handed out, more after lost leases."""


def connect(url: str) -> psycopg.Connection[Any]:
    """An autocommit connection (every call here is its own transaction)."""
    return psycopg.connect(
        url.replace("postgresql+psycopg://", "postgresql://", 1), autocommit=True
    )


def ensure_schema(connection: psycopg.Connection[Any]) -> None:
    with connection.transaction():
        # Two workers starting at once must not race to create the tables.
        connection.execute("SELECT pg_advisory_xact_lock(hashtext('arena_schema'))")
        for statement in SCHEMA:
            connection.execute(statement)


def submit(
    connection: psycopg.Connection[Any],
    tournament: str,
    spec: dict[str, Any],
    matches: list[dict[str, Any]],
    first: int = 0,
) -> int:
    """Store the tournament and its matches (numbered in list order from ``first``); how
    many matches were new. Wakes idle workers."""
    with connection.transaction():
        connection.execute(
            "INSERT INTO arena_tournaments (name, spec) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (tournament, Jsonb(spec)),
        )
        added = 0
        for number, match in enumerate(matches, first):
            cursor = connection.execute(
                "INSERT INTO arena_matches (tournament, number, spec) VALUES (%s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                (tournament, number, Jsonb(match)),
            )
            added += cursor.rowcount
        connection.execute(f"NOTIFY {CHANNEL}")
    return added


def claim(
    connection: psycopg.Connection[Any], worker: str, lease: float, tournament: str | None = None
) -> Claimed | None:
    """The first match waiting (or whose lease ran out), now ``worker``'s for ``lease``
    seconds; ``None`` if there is none."""
    row = connection.execute(
        f"""
        UPDATE arena_matches AS m
        SET state = 'playing', worker = %(worker)s, attempts = m.attempts + 1,
            lease_until = now() + make_interval(secs => %(lease)s)
        FROM (
            SELECT w.tournament, w.number FROM arena_matches AS w
            JOIN arena_tournaments AS t ON t.name = w.tournament
            WHERE (w.state = 'pending' OR (w.state = 'playing' AND w.lease_until < now()))
              AND (%(tournament)s::text IS NULL OR w.tournament = %(tournament)s::text)
              AND NOT {LOCAL}
            ORDER BY w.tournament, w.number
            LIMIT 1
            FOR UPDATE OF w SKIP LOCKED
        ) AS next
        WHERE m.tournament = next.tournament AND m.number = next.number
        RETURNING m.tournament, m.number, m.spec, m.attempts
        """,
        {"worker": worker, "lease": lease, "tournament": tournament},
    ).fetchone()
    if row is None:
        return None
    return Claimed(row[0], row[1], row[2], row[3])


def renew(connection: psycopg.Connection[Any], match: Claimed, worker: str, lease: float) -> bool:
    """Extend ``worker``'s lease on ``match``; ``False`` if it is no longer its."""
    cursor = connection.execute(
        "UPDATE arena_matches SET lease_until = now() + make_interval(secs => %s) "
        "WHERE tournament = %s AND number = %s AND worker = %s AND state = 'playing'",
        (lease, match.tournament, match.number, worker),
    )
    return cursor.rowcount == 1


def release(connection: psycopg.Connection[Any], match: Claimed, worker: str) -> bool:
    """Give ``match`` back to the queue at once, if ``worker`` still holds it."""
    with connection.transaction():
        cursor = connection.execute(
            "UPDATE arena_matches SET state = 'pending', worker = NULL, lease_until = NULL "
            "WHERE tournament = %s AND number = %s AND worker = %s AND state = 'playing'",
            (match.tournament, match.number, worker),
        )
        connection.execute(f"NOTIFY {CHANNEL}")
    return cursor.rowcount == 1


def finish(
    connection: psycopg.Connection[Any], match: Claimed, worker: str, result: dict[str, Any]
) -> bool:
    """Store ``match``'s result, unless one is stored already; whether this one was.
    Wakes idle workers (the last result may be what they wait for, to stop)."""
    with connection.transaction():
        cursor = connection.execute(
            "UPDATE arena_matches SET state = 'done', result = %s, worker = %s, "
            "finished_at = now(), lease_until = NULL "
            "WHERE tournament = %s AND number = %s AND state <> 'done'",
            (Jsonb(result), worker, match.tournament, match.number),
        )
        connection.execute(f"NOTIFY {CHANNEL}")
    return cursor.rowcount == 1


def status(connection: psycopg.Connection[Any], tournament: str) -> dict[str, int]:
    """How many of the tournament's matches wait, are being played, are done; and how
    many times matches were handed out in all."""
    counts = {"pending": 0, "playing": 0, "done": 0, "claims": 0}
    for state, number, claims in connection.execute(
        "SELECT state, count(*), sum(attempts) FROM arena_matches WHERE tournament = %s "
        "GROUP BY state",
        (tournament,),
    ):
        counts[state] = number
        counts["claims"] += int(claims)
    return counts


def unfinished(connection: psycopg.Connection[Any], tournament: str | None = None) -> int:
    """Matches waiting or being played (of ``tournament``, or of all)."""
    row = connection.execute(
        "SELECT count(*) FROM arena_matches AS w JOIN arena_tournaments AS t "
        "ON t.name = w.tournament WHERE w.state <> 'done' "
        f"AND (%(t)s::text IS NULL OR w.tournament = %(t)s::text) AND NOT {LOCAL}",
        {"t": tournament},
    ).fetchone()
    return int(row[0]) if row is not None else 0


def results(connection: psycopg.Connection[Any], tournament: str) -> dict[int, dict[str, Any]]:
    """The stored results, by match number."""
    return {
        number: result
        for number, result in connection.execute(
            "SELECT number, result FROM arena_matches WHERE tournament = %s AND state = 'done' "
            "ORDER BY number",
            (tournament,),
        )
    }


def listen(connection: psycopg.Connection[Any]) -> None:
    """Start hearing of new work on ``connection`` (for :func:`wait_for_work`)."""
    connection.execute(f"LISTEN {CHANNEL}")


def wait_for_work(connection: psycopg.Connection[Any], timeout: float) -> bool:
    """Block until work may be waiting (a ``NOTIFY``) or ``timeout`` seconds; whether a
    notification came. A worker claims again either way: the timeout bounds the wait
    for a lease that runs out, which sends no notification."""
    return any(True for _ in connection.notifies(timeout=timeout, stop_after=1))
