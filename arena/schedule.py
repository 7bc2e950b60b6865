"""Which games a tournament plays: round-robin and Swiss rounds, as numbered matches."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from records.ranking import Rating

from .entrants import Entrant

__all__ = ["Match", "round_robin", "swiss_round"]


@dataclass(frozen=True, slots=True)
class Match:
    """One scheduled game: its number in the schedule, where, and who plays (in order)."""

    number: int
    world: str
    map: str | None
    seed: int
    entrants: tuple[Entrant, ...]

    def game_name(self, tournament: str) -> str:
        return f"{tournament}-{self.number:05d}"


def round_robin(
    entrants: Sequence[Entrant],
    players: int,
    worlds: Sequence[str],
    maps: Sequence[str | None],
    seeds: Sequence[int],
    games: int | None,
) -> list[Match]:
    """Every group of ``players`` entrants on every world, map and seed; cycled (with
    seeds moved on by the length of ``seeds``) until ``games`` matches if given.

    Who joins first (and so moves first) alternates from game to game of a group, over
    the seeds and the cycles, so that no entrant always has the first move."""
    groups = list(itertools.combinations(entrants, players))
    settings = list(itertools.product(worlds, maps, seeds))
    matches: list[Match] = []
    span = max(seeds) - min(seeds) + 1
    for cycle in itertools.count():
        for setting, (world, map_spec, seed) in enumerate(settings):
            for index, group in enumerate(groups):
                flip = (cycle * len(settings) + setting + index) % 2
                order = tuple(reversed(group)) if flip else group
                number = len(matches)
                matches.append(Match(number, world, map_spec, seed + cycle * span, order))
                if games is not None and len(matches) >= games:
                    return matches
        if games is None:
            return matches
    raise AssertionError("unreachable")


def swiss_round(
    entrants: Sequence[Entrant],
    table: dict[str, Rating],
    met: set[frozenset[str]],
    players: int,
    round_number: int,
    first_number: int,
    world: str,
    map_spec: str | None,
    seed: int,
) -> list[Match]:
    """One Swiss round: entrants by rating (best first, ties in entrant order), cut into
    groups of ``players`` neighbours, swapping with the next entrant to avoid a pair that
    met before where that is possible. An entrant left over sits the round out."""
    ranked = sorted(entrants, key=lambda e: (-table.get(e.name, Rating()).ordinal, e.index))
    matches: list[Match] = []
    pool = list(ranked)
    while len(pool) >= players:
        group = [pool.pop(0)]
        while len(group) < players:
            choice = next(
                (
                    i
                    for i, e in enumerate(pool)
                    if all(frozenset((e.name, g.name)) not in met for g in group)
                ),
                0,
            )
            group.append(pool.pop(choice))
        for a, b in itertools.combinations(group, 2):
            met.add(frozenset((a.name, b.name)))
        order = tuple(group if round_number % 2 == 0 else reversed(group))
        matches.append(Match(first_number + len(matches), world, map_spec, seed, order))
    return matches
