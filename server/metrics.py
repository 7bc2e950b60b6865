"""What the server counts for ``/metrics``: plain integers on the hot path.

The connection's command loop adds one to a :class:`collections.Counter` keyed by
the command's class (a dictionary update, no allocation, no lock: trio runs one
task at a time); everything that can be read off the server's state at scrape
time (connections, players, games by world) is not counted at all but read then,
by :mod:`server.web.prometheus`. So keeping metrics costs a player nothing whether or
not anyone scrapes them.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field


@dataclass
class Counts:
    """Totals since the server started; only ever incremented."""

    commands: collections.Counter[type] = field(default_factory=collections.Counter)
    """Commands handled, by the command's class (its ``verb`` names it)."""
    protocol_errors: int = 0
    """Lines refused as malformed (each answered ``ERROR``, or ``BYE`` when fatal)."""
    connections: int = 0
    """Connections served (refused ones not included)."""
    refused: int = 0
    """Connections refused (server full, too many from one address, shutting down)."""
    cut_off: int = 0
    """Clients cut off for leaving their replies unread."""
    rounds: int = 0
    round_seconds: float = 0.0
    """Rounds resolved in worlds with rounds, and the seconds they waited in all."""


class Histogram:
    """Observations counted into fixed buckets, as Prometheus histograms are exposed."""

    __slots__ = ("buckets", "counts", "sum")

    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = (*buckets, float("inf"))
        self.counts = [0] * len(self.buckets)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.sum += value
        for index, bound in enumerate(self.buckets):
            if value <= bound:
                self.counts[index] += 1
                return

    def cumulative(self) -> list[tuple[str, int]]:
        """``(upper bound, observations at or below it)`` pairs, ``+Inf`` last."""
        total, rows = 0, []
        for bound, count in zip(self.buckets, self.counts, strict=True):
            total += count
            rows.append(("+Inf" if bound == float("inf") else f"{bound:g}", total))
        return rows


ROUND_SECONDS = Histogram((0.001, 0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300))
"""How long rounds of worlds with rounds took, from the first action to resolution;
one histogram for the process (servers built in one process share it)."""
