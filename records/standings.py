"""A tournament's own table: its entrants rated game by game from its records, in
schedule order, so that neither parallel play nor which worker played what changes it.

``dod-arena`` prints it, ``dod-arena status`` and the server's web page show it as a
tournament goes (:mod:`records.tournaments`); all three fold the same records the same
way (:class:`Standings`), so they show the same table: each record placed by the
tournament's contract (:class:`records.contract.Contract`), the table ranked by wins,
then rating, then name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .contract import Contract
from .model import GameRecord
from .ranking import Rating, rate_game

__all__ = ["Line", "Standings", "standings"]


@dataclass(slots=True)
class Line:
    """One entrant's line of the table."""

    name: str
    rating: Rating = field(default_factory=Rating)
    games: int = 0
    wins: int = 0
    places: int = 0
    gold: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    def as_json(self, rank: int) -> dict[str, object]:
        """The line as ``--json`` prints it, at ``rank`` (from 1)."""
        return {
            "rank": rank,
            "name": self.name,
            "rating": round(self.rating.ordinal, 4),
            "mu": round(self.rating.mu, 4),
            "sigma": round(self.rating.sigma, 4),
            "games": self.games,
            "wins": self.wins,
            "mean_place": round(self.places / self.games, 4) if self.games else None,
            "gold": self.gold,
            "outcomes": self.outcomes,
        }

    def copy(self) -> Line:
        copied = dataclasses.replace(self)
        copied.outcomes = dict(self.outcomes)
        return copied


class Standings:
    """The table being built: :meth:`add` each record in schedule order. A fold, so a
    table built up to some match can be copied and carried on (what the web page keeps
    between two looks at a tournament)."""

    def __init__(self, names: Iterable[str], contract: Contract | None = None) -> None:
        self._lines = {name: Line(name) for name in names}
        self.contract = contract or Contract()
        self.games = 0
        """Records added."""

    def add(self, record: GameRecord) -> None:
        record = self.contract.place(record)
        lines = self._lines
        current = {name: line.rating for name, line in lines.items()}
        for name, rating in rate_game(record, current).items():
            if name in lines:
                lines[name].rating = rating
        for player in record.players:
            line = lines.get(player.name or "")
            if line is None:
                continue
            line.games += 1
            line.wins += player.outcome == "win"
            line.places += player.place
            line.gold += player.gold
            line.outcomes[player.outcome] = line.outcomes.get(player.outcome, 0) + 1
        self.games += 1

    def copy(self) -> Standings:
        copied = Standings((), self.contract)
        copied._lines = {name: line.copy() for name, line in self._lines.items()}
        copied.games = self.games
        return copied

    def lines(self) -> list[Line]:
        """Best first: most wins (a win beats any gold), then the highest ``mu - 3
        sigma``, then by name."""
        return sorted(
            (line.copy() for line in self._lines.values()),
            key=lambda line: (-line.wins, -line.rating.ordinal, line.name),
        )


def standings(
    names: Iterable[str], records: Sequence[GameRecord], contract: Contract | None = None
) -> list[Line]:
    """The table of the entrants ``names`` after ``records``, rated in the order given
    (schedule order), best first."""
    table = Standings(names, contract)
    for record in records:
        table.add(record)
    return table.lines()
