"""Ratings from places in a finished game (openskill's Plackett-Luce model).

Places (:func:`place_players`, kept with the records in :mod:`records.model` and
re-exported here): players who won come first, in the order they won (the first to escape
with the gold is first); then everyone else by the gold they held at the end,
most first. Equal gold shares a place (competition ranking: 1, 2, 2, 4). Dying
costs the gold, so a player who died ranks with those who ended with none.

Ratings: one per world and name, a skill estimate ``mu`` with its uncertainty
``sigma``; the table orders players by the conservative ``mu - 3 sigma`` (which
openskill calls the ordinal), so a newcomer climbs as its games make it certain.
Unnamed players are placed but not rated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

from .model import GameRecord, place_players

__all__ = ["MODEL", "Rating", "place_players", "rate_game"]

MODEL: Final = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Rating:
    """A name's standing in one world."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    wins: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate the leaderboard sorts by: ``mu - 3 sigma``."""
        return self.mu - 3 * self.sigma


def rate_game(record: GameRecord, current: dict[str, Rating]) -> dict[str, Rating]:
    """The new ratings of the named players of a rated game, from ``current`` (missing
    names start at the model's default). A game that is not rated changes nothing."""
    if not record.rated:
        return {}
    players = [p for p in record.players if p.name is not None]
    teams = []
    for player in players:
        before = current.get(player.name, Rating())  # type: ignore[arg-type]
        teams.append([MODEL.rating(mu=before.mu, sigma=before.sigma)])
    rated = MODEL.rate(teams, ranks=[float(p.place) for p in players])
    updated = {}
    for player, [after] in zip(players, rated, strict=True):
        before = current.get(player.name, Rating())  # type: ignore[arg-type]
        updated[player.name] = Rating(
            mu=after.mu,
            sigma=after.sigma,
            games=before.games + 1,
            wins=before.wins + (player.outcome == "win"),
        )
    return updated  # type: ignore[return-value]
