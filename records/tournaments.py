"""Tournaments that ``dod-arena`` workers play, as their progress reads from the
arena's tables in a records store: the list, one tournament's counts, its matches a page
at a time, and its table so far.

The tables (``arena_tournaments``, ``arena_matches``: :data:`TOURNAMENTS`, :data:`MATCHES`)
are written by :mod:`arena.queue` into the PostgreSQL database the workers share, and
by a one-machine ``dod-arena`` run into its own store (:mod:`arena.board`, SQLite or
PostgreSQL), beside the records; this module only reads them, so that ``dod-arena
status`` and the server's web face (which may not import the arena) show the same
thing from the same code. A store without them (a database no tournament was played
into) holds no tournaments (:func:`holds_tournaments`).

Blocking SQLAlchemy calls: call them from a worker thread. What one call costs is
bounded: :data:`MAX_LISTED` tournaments, :data:`MAX_PAGE` matches, and
:class:`TournamentTable` reads and rates at most ``batch`` new results a call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection

from .contract import Contract
from .journal import from_json
from .model import GameRecord
from .standings import Line, Standings

__all__ = [
    "DEFAULT_PAGE",
    "MATCHES",
    "MATCH_STATES",
    "MAX_LISTED",
    "MAX_PAGE",
    "TOURNAMENTS",
    "Tournament",
    "TournamentTable",
    "create_tables",
    "failure",
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

_JSON: Final = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
_TABLES: Final = sa.MetaData()
TOURNAMENTS: Final = sa.Table(
    "arena_tournaments",
    _TABLES,
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("spec", _JSON, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
"""The arena's tables as SQLAlchemy sees them (the same as :data:`arena.queue.SCHEMA`
makes on PostgreSQL), for SQLite and for reading on either."""
MATCHES: Final = sa.Table(
    "arena_matches",
    _TABLES,
    sa.Column("tournament", sa.Text, sa.ForeignKey("arena_tournaments.name"), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("spec", _JSON, nullable=False),
    sa.Column("state", sa.Text, nullable=False, server_default="pending"),
    sa.Column("worker", sa.Text),
    sa.Column("lease_until", sa.DateTime(timezone=True)),
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("result", _JSON),
    sa.Column("finished_at", sa.DateTime(timezone=True)),
    sa.CheckConstraint("state IN ('pending', 'playing', 'done')"),
)
sa.Index("arena_matches_waiting", MATCHES.c.state, MATCHES.c.lease_until)


def create_tables(connection: Connection) -> None:
    """Make the arena's tables where they are missing (a one-machine run's store)."""
    _TABLES.create_all(connection, checkfirst=True)


def _no_record(connection: Connection, alias: str = "") -> str:
    """SQL true of a stored result that holds no record (the match failed)."""
    column = f"{alias}result"
    if connection.dialect.name == "postgresql":
        return f"jsonb_typeof({column} -> 'record') IS DISTINCT FROM 'object'"
    return f"json_type({column}, '$.record') IS NOT 'object'"


def holds_tournaments(connection: Connection) -> bool:
    """Whether the store holds the arena's tables."""
    inspector = sa.inspect(connection)
    return all(inspector.has_table(table) for table in TABLES)


def _state_where(connection: Connection, state: str) -> str:
    return {
        "waiting": "state = 'pending'",
        "playing": "state = 'playing'",
        "done": "state = 'done'",
        "failed": f"state = 'done' AND {_no_record(connection)}",
    }[state]


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
    def contract(self) -> Contract:
        """The rules its table was made by (:class:`records.contract.Contract`)."""
        return Contract.from_spec(self.spec)

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
            "local": bool(self.spec.get("local")),
            "contract": self.contract.lines(),
        }


_PROGRESS: Final = """
    SELECT t.name, t.spec, t.created_at,
        count(m.number),
        count(m.number) FILTER (WHERE m.state = 'pending'),
        count(m.number) FILTER (WHERE m.state = 'playing'),
        count(m.number) FILTER (WHERE m.state = 'done'),
        count(m.number) FILTER (WHERE m.state = 'done' AND {failed}),
        coalesce(sum(m.attempts), 0),
        count(DISTINCT m.worker) FILTER (WHERE m.state = 'playing' AND m.lease_until >= :now),
        max(m.finished_at)
    FROM arena_tournaments AS t LEFT JOIN arena_matches AS m ON m.tournament = t.name
    WHERE t.name IN ({which})
    GROUP BY t.name, t.spec, t.created_at
    ORDER BY t.created_at DESC, t.name
"""


def _progress(connection: Connection, which: str, **values: Any) -> Any:
    query = sa.text(_PROGRESS.format(which=which, failed=_no_record(connection, "m.")))
    typed = query.bindparams(sa.bindparam("now", type_=sa.DateTime(timezone=True))).columns(
        sa.column("name", sa.Text),
        sa.column("spec", _JSON),
        sa.column("created_at", sa.DateTime(timezone=True)),
        *(sa.column(f"count{n}", sa.Integer) for n in range(7)),
        sa.column("last", sa.DateTime(timezone=True)),
    )
    return connection.execute(typed, {"now": datetime.now(UTC), **values})


def _aware(moment: datetime | None) -> datetime | None:
    """A stored time as UTC (SQLite keeps them without their zone)."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def _iso(moment: datetime | None) -> str | None:
    aware = _aware(moment)
    return None if aware is None else aware.isoformat()


def _tournament(row: Any) -> Tournament:
    name, spec, submitted, games, waiting, playing, done, failed, claims, workers, last = row
    scheduled = games
    if spec.get("format") == "swiss" and spec.get("names"):
        per_round = len(spec["names"]) // max(1, int(spec.get("players", 2)))
        scheduled = max(games, per_round * int(spec.get("rounds", 0)))
    return Tournament(
        name,
        spec,
        _aware(submitted),  # type: ignore[arg-type]
        games,
        scheduled,
        waiting,
        playing,
        done,
        failed,
        int(claims),
        workers,
        _aware(last),
    )


def tournaments(connection: Connection, limit: int = MAX_LISTED) -> list[Tournament]:
    """The newest ``limit`` tournaments (at most :data:`MAX_LISTED`), newest first."""
    which = "SELECT name FROM arena_tournaments ORDER BY created_at DESC, name LIMIT :limit"
    rows = _progress(connection, which, limit=min(limit, MAX_LISTED))
    return [_tournament(row) for row in rows]


def tournament(connection: Connection, name: str) -> Tournament | None:
    """The tournament called ``name``; ``None`` if there is none."""
    row = _progress(connection, ":name", name=name).first()
    return None if row is None else _tournament(row)


def entrant_names(connection: Connection, found: Tournament) -> list[str]:
    """Its entrants' names: as submitted, or, for a tournament submitted before those
    were stored, everyone in a match queued so far."""
    if found.names or connection.dialect.name != "postgresql":
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
    query = sa.select(
        MATCHES.c.number,
        MATCHES.c.state,
        MATCHES.c.worker,
        MATCHES.c.attempts,
        MATCHES.c.lease_until,
        MATCHES.c.finished_at,
        MATCHES.c.spec,
        MATCHES.c.result,
    ).where(MATCHES.c.tournament == name, MATCHES.c.number >= start)
    if state is not None:
        query = query.where(sa.text(_state_where(connection, state)))
    rows = connection.execute(query.order_by(MATCHES.c.number).limit(count + 1)).all()
    more = rows[count][0] if len(rows) > count else None
    return [_match(row) for row in rows[:count]], more


def _match(row: Any) -> dict[str, Any]:
    number, state, worker, attempts, lease_until, finished_at, spec, result = row
    shown: dict[str, Any] = {
        "number": number,
        "state": "waiting" if state == "pending" else state,
        "worker": worker,
        "attempts": attempts,
        "lease_until": _iso(lease_until),
        "finished": _iso(finished_at),
        "world": spec.get("world"),
        "map": spec.get("map"),
        "seed": spec.get("seed"),
        "entrants": spec.get("entrants", []),
        "result": None,
    }
    if state != "done" or not isinstance(result, dict):
        return shown
    record = result.get("record")
    links = {"replay": result.get("replay"), "logs": dict(result.get("logs") or {})}
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
            **links,
        }
    else:
        shown["state"] = "failed"
        shown["result"] = {"failed": failure(result)[:500], **links}
    return shown


def failure(result: dict[str, Any]) -> str:
    """Why a match done with no record has none, in words."""
    not_started = result.get("not_started") or []
    if not_started:
        said = []
        for bot in not_started:
            last = "; its last lines: " + " / ".join(bot.get("last_lines") or ["(nothing)"])
            said.append(f"{bot.get('name')} did not start: {bot.get('why')}{last}")
        return "; ".join(said)
    return str(
        result.get("error")
        or ("no bot joined" if not result.get("joined") else "its record never came")
    )


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

    def __init__(self, name: str, names: Iterable[str], contract: Contract | None = None) -> None:
        self.name = name
        self._settled = Standings(names, contract)
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
            sa.select(MATCHES.c.number, MATCHES.c.result)
            .where(
                MATCHES.c.tournament == self.name,
                MATCHES.c.state == "done",
                MATCHES.c.number >= self._next,
                MATCHES.c.number.not_in(list(self._ahead)),
            )
            .order_by(MATCHES.c.number)
            .limit(batch)
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
