"""A one-machine tournament's progress, kept in its records store as the workers of a
distributed one keep theirs (the arena's tables, :data:`records.tournaments.TOURNAMENTS`
and :data:`~records.tournaments.MATCHES`), so that a ``dod-server`` started on the
same store (SQLite or PostgreSQL) shows it on its web page's Tournaments tab, live, and
``dod-arena status`` reads it.

A local tournament is marked ``"local": true`` in its spec: workers sharing a
PostgreSQL store never claim its matches (:func:`arena.queue.claim`). A run under a name
used before in the same store replaces that tournament's board (its records stay).

Blocking SQLAlchemy calls: call them from a worker thread, one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import sqlalchemy as sa

from records.store import Store
from records.tournaments import MATCHES, TOURNAMENTS, create_tables

from .schedule import Match

__all__ = ["WORKER", "Board", "match_row"]

WORKER: Final = "dod-arena"
"""The worker a local run's matches are shown played by."""


def match_row(match: Match) -> dict[str, Any]:
    """A match as the arena's tables keep it."""
    return {
        "world": match.world,
        "map": match.map,
        "seed": match.seed,
        "entrants": [e.name for e in match.entrants],
    }


class Board:
    """The tournament ``name`` (with ``spec``) in ``store``'s arena tables."""

    def __init__(self, store: Store, name: str, spec: dict[str, Any], lease: float) -> None:
        self.store = store
        self.name = name
        self.spec = {**spec, "local": True}
        self.lease = lease
        """Seconds a match is shown being played before it counts as abandoned (a run
        killed mid-match leaves it so)."""

    def open(self) -> None:
        """Make the tables if missing, and the tournament afresh."""
        with self.store.engine.begin() as connection:
            create_tables(connection)
            connection.execute(MATCHES.delete().where(MATCHES.c.tournament == self.name))
            connection.execute(TOURNAMENTS.delete().where(TOURNAMENTS.c.name == self.name))
            connection.execute(
                TOURNAMENTS.insert().values(
                    name=self.name, spec=self.spec, created_at=datetime.now(UTC)
                )
            )

    def add(self, matches: Sequence[Match]) -> None:
        """Matches scheduled (a Swiss round at a time), waiting."""
        if not matches:
            return
        with self.store.engine.begin() as connection:
            connection.execute(
                MATCHES.insert(),
                [
                    {
                        "tournament": self.name,
                        "number": match.number,
                        "spec": match_row(match),
                        "state": "pending",
                        "attempts": 0,
                    }
                    for match in matches
                ],
            )

    def playing(self, match: Match) -> None:
        now = datetime.now(UTC)
        self._update(
            match,
            state="playing",
            worker=WORKER,
            attempts=MATCHES.c.attempts + 1,
            lease_until=now + timedelta(seconds=self.lease),
        )

    def done(self, match: Match, result: dict[str, Any]) -> None:
        self._update(
            match,
            state="done",
            result=result,
            lease_until=None,
            finished_at=datetime.now(UTC),
        )

    def _update(self, match: Match, **values: Any) -> None:
        with self.store.engine.begin() as connection:
            connection.execute(
                sa.update(MATCHES)
                .where(MATCHES.c.tournament == self.name, MATCHES.c.number == match.number)
                .values(**values)
            )
