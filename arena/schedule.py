"""Which games a tournament plays: round-robin and Swiss rounds, as numbered matches."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from dungeon_of_doom.records.ranking import Rating

from .entrants import Entrant

__all__ = [
    "Match",
    "fair_part",
    "fairness_note",
    "games_per_entrant",
    "round_robin",
    "swiss_round",
]


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

    Fair: each world, map and seed plays every group once, which gives every entrant
    the same number of games; where ``games`` cuts the last of these short, its groups
    are picked so that the entrants' numbers of games differ by at most one (see
    :func:`fair_part`). Who joins first (and so moves first) alternates from game to
    game of a group, over the seeds and the cycles, so that no entrant always has the
    first move."""
    groups = list(itertools.combinations(entrants, players))
    settings = list(itertools.product(worlds, maps, seeds))
    matches: list[Match] = []
    span = max(seeds) - min(seeds) + 1
    for cycle in itertools.count():
        for setting, (world, map_spec, seed) in enumerate(settings):
            left = len(groups) if games is None else min(len(groups), games - len(matches))
            if left <= 0:
                return matches
            order = range(len(groups)) if left == len(groups) else fair_part(groups, left)
            for index in order:
                group = groups[index]
                flip = (cycle * len(settings) + setting + index) % 2
                seats = tuple(reversed(group)) if flip else group
                number = len(matches)
                matches.append(Match(number, world, map_spec, seed + cycle * span, seats))
        if games is None:
            return matches
    raise AssertionError("unreachable")


SEARCH_BUDGET: Final = 2_000_000
"""Groups looked at while searching for a fair part without repeats, before settling
for one that may repeat a group (still fair)."""


def fair_part(groups: Sequence[tuple[Entrant, ...]], count: int) -> list[int]:
    """The indices of ``count`` of ``groups`` (all the groups of some size, as
    :func:`itertools.combinations` gives them), in play order, such that after each one
    the entrants' numbers of games differ by at most one.

    A fair next group holds as many of the entrants with the fewest games as it can and
    the rest from those with one more; choosing only such groups keeps every count within
    one of the others. The groups are distinct where a search (bounded by
    :data:`SEARCH_BUDGET`) finds such an order; else a group may play twice, the least
    played fair group first."""
    if not groups or count <= 0:
        return []
    found = _distinct_fair_order(groups, count)
    return found if found is not None else _greedy_fair_order(groups, count)


def _fair(group: tuple[Entrant, ...], games: dict[str, int], low: int, need: int) -> bool:
    return sum(games[e.name] == low for e in group) == need


def _target(games: dict[str, int], size: int) -> tuple[int, int]:
    low = min(games.values())
    return low, min(size, sum(1 for n in games.values() if n == low))


def _distinct_fair_order(groups: Sequence[tuple[Entrant, ...]], count: int) -> list[int] | None:
    """A depth-first search over fair, unplayed groups; ``None`` past the budget."""
    games = {e.name: 0 for group in groups for e in group}
    size = len(groups[0])
    used = [False] * len(groups)
    chosen: list[int] = []
    resume = [0]  # for each depth, the next index to try
    budget = SEARCH_BUDGET
    while len(chosen) < count:
        low, need = _target(games, size)
        start = resume[-1]
        index = None
        for i in range(start, len(groups)):
            budget -= 1
            if not used[i] and _fair(groups[i], games, low, need):
                index = i
                break
        if budget <= 0:
            return None
        if index is None:
            if not chosen:
                return None
            # Dead end: undo the last choice and try the next group in its place.
            resume.pop()
            last = chosen.pop()
            used[last] = False
            for entrant in groups[last]:
                games[entrant.name] -= 1
            resume[-1] = last + 1
            continue
        resume[-1] = index
        used[index] = True
        chosen.append(index)
        for entrant in groups[index]:
            games[entrant.name] += 1
        resume.append(0)
    return chosen


def _greedy_fair_order(groups: Sequence[tuple[Entrant, ...]], count: int) -> list[int]:
    games = {e.name: 0 for group in groups for e in group}
    size = len(groups[0])
    plays = [0] * len(groups)
    chosen: list[int] = []
    for _ in range(count):
        low, need = _target(games, size)
        index = min(
            (i for i, g in enumerate(groups) if _fair(g, games, low, need)),
            key=lambda i: (plays[i], i),
        )
        plays[index] += 1
        for entrant in groups[index]:
            games[entrant.name] += 1
        chosen.append(index)
    return chosen


def games_per_entrant(entrants: Sequence[Entrant], matches: Sequence[Match]) -> dict[str, int]:
    """How many of ``matches`` each entrant plays."""
    games = {e.name: 0 for e in entrants}
    for match in matches:
        for entrant in match.entrants:
            games[entrant.name] += 1
    return games


def fairness_note(entrants: Sequence[Entrant], matches: Sequence[Match]) -> str:
    """One line on how many games each entrant plays, and why they differ if they do."""
    games = games_per_entrant(entrants, matches)
    fewest, most = min(games.values()), max(games.values())
    if fewest == most:
        return f"each entrant plays {most} games"
    more = sorted(name for name, n in games.items() if n == most)
    if most - fewest == 1:
        seats = sum(len(m.entrants) for m in matches)
        return (
            f"entrants play {fewest} or {most} games: {len(matches)} games of their seats "
            f"({seats}) do not divide evenly among {len(entrants)} entrants, so "
            f"{len(more)} play one more ({', '.join(more)})"
        )
    return f"UNFAIR: entrants play between {fewest} and {most} games ({games})"


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
    byes: dict[str, int] | None = None,
) -> list[Match]:
    """One Swiss round: entrants by rating (best first, ties in entrant order), cut into
    groups of ``players`` neighbours, swapping with the next entrant to avoid a pair that
    met before where that is possible.

    The entrants left over (as many as ``players`` does not divide) sit the round out:
    those who sat out least so far (``byes``, updated), the lowest rated among them, so
    that over the rounds the entrants' numbers of games differ by at most one."""
    byes = {} if byes is None else byes
    ranked = sorted(entrants, key=lambda e: (-table.get(e.name, Rating()).ordinal, e.index))
    out = len(ranked) % players
    sitting = sorted(ranked, key=lambda e: (byes.get(e.name, 0), -ranked.index(e)))[:out]
    for entrant in sitting:
        byes[entrant.name] = byes.get(entrant.name, 0) + 1
    matches: list[Match] = []
    pool = [e for e in ranked if e not in sitting]
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
