"""Tournaments that ``dod-arena`` workers play, as their progress reads from the
arena's tables in a records store: the list, one tournament's counts, its matches a page
at a time, and its table so far.

The tables (``arena_tournaments``, ``arena_matches``) are written by :mod:`arena.queue`
into the PostgreSQL database the workers share, beside the records; this module only
reads them, so that ``dod-arena status`` and the server's web face (which may not
import the arena) show the same thing from the same code. A store without them (any
SQLite store, a PostgreSQL database no tournament was submitted to) holds no tournaments
(:func:`holds_tournaments`).

Blocking SQLAlchemy calls: call them from a worker thread. What one call costs is
bounded: :data:`MAX_LISTED` tournaments, :data:`MAX_PAGE` matches, and
:class:`TournamentTable` reads and rates at most ``batch`` new results a call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .journal import from_json
from .model import GameRecord
from .standings import Line, Standings

__all__ = [
    "DEFAULT_PAGE",
    "MATCH_STATES",
    "MAX_LISTED",
    "MAX_PAGE",
    "Tournament",
    "TournamentTable",
    "holds_tournaments",
    "match_page",
    "records_of",
    "tournament",
    "tournaments",
]

TABLES: Final = ("arena_tournaments", "arena_matches")
MAX_LISTED: Final = 100
"""Tournaments listed at most, the newest first."""
DEFAULT_PAGE: Final = 100
"""Matches a page holds when no count is asked for."""
MAX_PAGE: Final = 500
"""Matches a page holds at most."""
TABLE_BATCH: Final = 1000
"""Results a :meth:`TournamentTable.refresh` reads and rates at most."""
MATCH_STATES: Final = ("waiting", "playing", "done", "failed")
"""What a match page may be narrowed to: ``failed`` is a match done with no record (no
bot joined, or its record never came)."""

_STATE_WHERE: Final = {
    "waiting": "state = 'pending'",
    "playing": "state = 'playing'",
    "done": "state = 'done'",
    "failed": "state = 'done' AND jsonb_typeof(result -> 'record') IS DISTINCT FROM 'object'",
}


def holds_tournaments(connection: Connection) -> bool:
    """Whether the store holds the arena's tables (only PostgreSQL ever does)."""
    if connection.dialect.name != "postgresql":
        return False
    inspector = sa.inspect(connection)
    return all(inspector.has_table(table) for table in TABLES)


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament's progress: its matches by state, who holds them, when it began and
    ended."""

    name: str
    spec: dict[str, Any]
    """As submitted (entrants as given, format, worlds, maps, seeds, limits)."""
    submitted: datetime
    games: int
    """Matches queued so far (a Swiss tournament is queued a round at a time)."""
    scheduled: int
    """Matches it will have when every round is queued."""
    waiting: int
    playing: int
    """Being played, or held under a lease that ran out and not handed out again yet."""
    done: int
    failed: int
    """Done with no record: no bot joined, or the record never came."""
    claims: int
    """Times matches were handed out (more than ``done`` when some were played again)."""
    workers: int
    """Workers holding a lease that has not run out."""
    last_result: datetime | None

    @property
    def recorded(self) -> int:
        return self.done - self.failed

    @property
    def finished(self) -> datetime | None:
        """When its last result was stored, once every scheduled match is done."""
        over = self.games >= self.scheduled and self.done == self.games and self.games > 0
        return self.last_result if over else None

    @property
    def names(self) -> list[str]:
        """Its entrants' names, as submitted (``[]`` for a tournament submitted before
        they were stored: see :func:`entrant_names`)."""
        return list(self.spec.get("names", []))

    def as_json(self) -> dict[str, Any]:
        finished = self.finished
        return {
            "name": self.name,
            "format": self.spec.get("format"),
            "worlds": self.spec.get("worlds", []),
            "entrants": len(self.names),
            "games": self.games,
            "scheduled": self.scheduled,
            "waiting": self.waiting,
            "playing": self.playing,
            "done": self.done,
            "failed": self.failed,
            "recorded": self.recorded,
            "claims": self.claims,
            "workers": self.workers,
            "submitted": self.submitted.isoformat(),
            "finished": None if finished is None else finished.isoformat(),
        }


_PROGRESS: Final = """
    SELECT t.name, t.spec, t.created_at,
        count(m.number),
        count(m.number) FILTER (WHERE m.state = 'pending'),
        count(m.number) FILTER (WHERE m.state = 'playing'),
        count(m.number) FILTER (WHERE m.state = 'done'),
        count(m.number) FILTER (WHERE m.state = 'done'
            AND jsonb_typeof(m.result -> 'record') IS DISTINCT FROM 'object'),
        coalesce(sum(m.attempts), 0),
        count(DISTINCT m.worker) FILTER (WHERE m.state = 'playing' AND m.lease_until >= now()),
        max(m.finished_at)
    FROM arena_tournaments AS t LEFT JOIN arena_matches AS m ON m.tournament = t.name
    WHERE t.name IN ({which})
    GROUP BY t.name, t.spec, t.created_at
    ORDER BY t.created_at DESC, t.name
"""


def _tournament(row: Any) -> Tournament:
    name, spec, submitted, games, waiting, playing, done, failed, claims, workers, last = row
    scheduled = games
    if spec.get("format") == "swiss" and spec.get("names"):
        per_round = len(spec["names"]) // max(1, int(spec.get("players", 2)))
        scheduled = max(games, per_round * int(spec.get("rounds", 0)))
    return Tournament(
        name,
        spec,
        submitted,
        games,
        scheduled,
        waiting,
        playing,
        done,
        failed,
        int(claims),
        workers,
        last,
    )


def tournaments(connection: Connection, limit: int = MAX_LISTED) -> list[Tournament]:
    """The newest ``limit`` tournaments (at most :data:`MAX_LISTED`), newest first."""
    query = _PROGRESS.format(
        which="SELECT name FROM arena_tournaments ORDER BY created_at DESC, name LIMIT :limit"
    )
    rows = connection.execute(sa.text(query), {"limit": min(limit, MAX_LISTED)})
    return [_tournament(row) for row in rows]


def tournament(connection: Connection, name: str) -> Tournament | None:
    """The tournament called ``name``; ``None`` if there is none."""
    row = connection.execute(sa.text(_PROGRESS.format(which=":name")), {"name": name}).first()
    return None if row is None else _tournament(row)


def entrant_names(connection: Connection, found: Tournament) -> list[str]:
    """Its entrants' names: as submitted, or, for a tournament submitted before those
    were stored, everyone in a match queued so far."""
    if found.names:
        return found.names
    rows = connection.execute(
        sa.text(
            "SELECT DISTINCT jsonb_array_elements_text(spec -> 'entrants') "
            "FROM arena_matches WHERE tournament = :name"
        ),
        {"name": found.name},
    )
    return sorted(row[0] for row in rows)


def match_page(
    connection: Connection,
    name: str,
    start: int = 0,
    count: int = DEFAULT_PAGE,
    state: str | None = None,
) -> tuple[list[dict[str, Any]], int | None]:
    """Up to ``count`` (at most :data:`MAX_PAGE`) of the tournament's matches numbered
    ``start`` or more, in schedule order, narrowed to one of :data:`MATCH_STATES` if
    ``state`` is given; and the number to ask from for the next page (``None``: no more)."""
    count = max(1, min(count, MAX_PAGE))
    where = f"AND {_STATE_WHERE[state]}" if state is not None else ""
    rows = connection.execute(
        sa.text(
            "SELECT number, state, worker, attempts, lease_until, finished_at, spec, result "
            f"FROM arena_matches WHERE tournament = :name AND number >= :start {where} "
            "ORDER BY number LIMIT :limit"
        ),
        {"name": name, "start": start, "limit": count + 1},
    ).all()
    more = rows[count][0] if len(rows) > count else None
    return [_match(row) for row in rows[:count]], more


def _match(row: Any) -> dict[str, Any]:
    number, state, worker, attempts, lease_until, finished_at, spec, result = row
    shown: dict[str, Any] = {
        "number": number,
        "state": "waiting" if state == "pending" else state,
        "worker": worker,
        "attempts": attempts,
        "lease_until": None if lease_until is None else lease_until.isoformat(),
        "finished": None if finished_at is None else finished_at.isoformat(),
        "world": spec.get("world"),
        "map": spec.get("map"),
        "seed": spec.get("seed"),
        "entrants": spec.get("entrants", []),
        "result": None,
    }
    if state != "done" or not isinstance(result, dict):
        return shown
    record = result.get("record")
    if isinstance(record, dict):
        players = sorted(record.get("players", ()), key=lambda p: (p.get("place", 0), p["player"]))
        shown["result"] = {
            "game": record.get("game"),
            "rounds": record.get("rounds"),
            "end": record.get("end"),
            "players": [
                {k: p.get(k) for k in ("name", "place", "outcome", "gold", "moves")}
                for p in players
            ],
        }
    else:
        shown["state"] = "failed"
        why = result.get("error") or (
            "no bot joined" if not result.get("joined") else "its record never came"
        )
        shown["result"] = {"failed": str(why)[:200]}
    return shown


def records_of(results: Iterable[tuple[int, dict[str, Any]]]) -> list[GameRecord]:
    """The records of stored results ``(number, result)``, in schedule order (a match
    done with no record has none)."""
    return [
        from_json(result["record"])
        for _, result in sorted(results, key=lambda item: item[0])
        if isinstance(result.get("record"), dict)
    ]


class TournamentTable:
    """A tournament's table so far, rated in schedule order, kept up to date a batch of
    results at a time: what is the same as rating every stored record in schedule order
    (:func:`records.standings.standings`) but costs, once caught up, only the results
    stored since the last look.

    Results are stored once and never change, so the matches done from the first one on
    without a gap are rated once and kept as a table; those done beyond the first
    match not done yet are kept as records and rated on top of that table when asked."""

    def __init__(self, name: str, names: Iterable[str]) -> None:
        self.name = name
        self._settled = Standings(names)
        self._next = 0
        """The first match not rated into ``_settled`` (not done yet, or just read)."""
        self._ahead: dict[int, GameRecord | None] = {}
        """Done matches numbered past ``_next``, with their records (``None``: none)."""
        self._lines: list[Line] | None = None
        self.complete = False
        """Whether the last :meth:`refresh` read every result stored then."""

    def refresh(self, connection: Connection, batch: int = TABLE_BATCH) -> bool:
        """Read and rate up to ``batch`` results not read yet; :attr:`complete`."""
        rows = connection.execute(
            sa.text(
                "SELECT number, result FROM arena_matches WHERE tournament = :name "
                "AND state = 'done' AND number >= :next "
                "AND number <> ALL(CAST(:ahead AS integer[])) "
                "ORDER BY number LIMIT :batch"
            ),
            {"name": self.name, "next": self._next, "ahead": list(self._ahead), "batch": batch},
        ).all()
        for number, result in rows:
            records = records_of([(number, result)])
            self._ahead[number] = records[0] if records else None
        while self._next in self._ahead:
            record = self._ahead.pop(self._next)
            if record is not None:
                self._settled.add(record)
            self._next += 1
        if rows:
            self._lines = None
        self.complete = len(rows) < batch
        return self.complete

    @property
    def recorded(self) -> int:
        """Records rated into the table."""
        return self._settled.games + sum(1 for r in self._ahead.values() if r is not None)

    def lines(self) -> list[Line]:
        """The table, best first, as of the last :meth:`refresh`."""
        if self._lines is None:
            table = self._settled.copy()
            for number in sorted(self._ahead):
                record = self._ahead[number]
                if record is not None:
                    table.add(record)
            self._lines = table.lines()
        return [line.copy() for line in self._lines]
