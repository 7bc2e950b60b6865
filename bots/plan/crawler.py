"""Shortest plans through crawler levels, by breadth-first search over the rules' own states.

A crawler player sees one level at a time (``MAP``), so plans are made per level:
:func:`level_from_map` turns a ``MAP`` reply into a :class:`~worlds.crawler.Level`
whose start is the player's square, and :func:`plan_level` searches
:class:`~worlds.crawler.State` values from there, every command including
``STAY``, with the exact monster rules, amulet doubling included.

What a plan means, since the levels behind a door are unknown:

* an **escape** (the exit, holding treasure) is the only end that can be proved
  to win, so a level whose exit can be reached is always left by its exit, by the
  fewest moves, even when a door is nearer;
* otherwise the plan goes through a **door**, by the fewest moves; a player who
  holds no treasure takes the shortest way that picks one up on the way, when
  there is one, because every exit of the dungeon asks for a treasure and a later
  level may have none.

With :attr:`Objective.TREASURE` the plan takes the most treasure it can find,
then the fewest moves (an escape still beats a door).

Searches are bounded by a number of states (``budget``): levels without amulets
are small and are searched to the end; an amulet doubles the level, and copies
of it can double it again, so there the plan is the best found within the budget
(:attr:`Plan.complete` says which).

:func:`level_front` and :func:`dungeon_front` compute, for a dungeon whose
levels are all known, the fewest moves that escape with each amount of treasure:
levels interact only through the treasure carried, and a level plays the same
for any positive amount, so the dungeon's figures are exact combinations of
per-level searches.
"""

from __future__ import annotations

import enum
import heapq
import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final

from dungeon_of_doom.worlds.crawler import Command, Level, Outcome, State, parse_level
from dungeon_of_doom.worlds.crawler.levelfile import AMULET, DOOR, EXIT, OPEN, PLAYER, TREASURE

__all__ = [
    "DEFAULT_BUDGET",
    "DIRECTIONS",
    "DungeonFront",
    "Front",
    "Objective",
    "Plan",
    "dungeon_front",
    "level_from_map",
    "level_front",
    "plan_level",
]

DEFAULT_BUDGET: Final = 300_000
"""States a search may visit before it settles for the best plan found."""
DIRECTIONS: Final = {Command.UP: "N", Command.DOWN: "S", Command.LEFT: "W", Command.RIGHT: "E"}
"""The protocol's ``MOVE`` direction for each command but ``STAY``."""
_AMULET_TILE: Final = AMULET.encode()
_TREASURE_TILE: Final = TREASURE.encode()
_OTHERS: Final = "PB"
"""Other players in a ``MAP`` reply: not tiles, and the square under them is open."""


class Objective(enum.Enum):
    """What a plan makes as small or as large as it can."""

    MOVES = "moves"
    """Fewest moves (see the module docstring for escapes, doors and treasure)."""
    TREASURE = "treasure"
    """Most treasure, then fewest moves."""


@dataclass(frozen=True, slots=True)
class Plan:
    """Commands that leave a level: by its exit (``escapes``) or through a door."""

    commands: tuple[Command, ...]
    escapes: bool
    treasure: int
    """Treasure held at the end, the treasure held at the start included."""
    searched: int
    """States the search visited."""
    complete: bool
    """Whether the search saw every state it could reach (else it stopped at its budget)."""

    @property
    def moves(self) -> int:
        return len(self.commands)


def level_from_map(rows: Sequence[str]) -> Level:
    """The level a crawler ``MAP`` reply shows, starting on the viewer's square ``o``.

    Other players (``P``, ``B``) stand on open squares and are left out. Raises
    :class:`~worlds.errors.MapError` if the rows are not a level with the viewer on it.
    """
    text = "".join(rows)
    cols = len(rows[0]) if rows else 0
    at = text.find(PLAYER)
    start = divmod(at, cols) if at >= 0 and cols else (-1, -1)
    tiles = text.replace(PLAYER, OPEN)
    for other in _OTHERS:
        tiles = tiles.replace(other, OPEN)
    return parse_level(f"{len(rows)} {cols}\n{start[0]} {start[1]}\n{tiles}", "<MAP reply>")


Trail = tuple[Command, "Trail"] | None
"""Commands as a linked list from the last one back, so that states share their past."""


def _commands(trail: Trail) -> tuple[Command, ...]:
    commands = []
    while trail is not None:
        command, trail = trail
        commands.append(command)
    return tuple(reversed(commands))


@dataclass(frozen=True, slots=True)
class _Found:
    """What a search ended with: the end it was asked for (if any) and what it cost."""

    end: State | None
    trail: Trail
    searched: int
    complete: bool


def _squares(state: State, tiles: bytes) -> list[tuple[int, int]]:
    """Where the tiles of ``tiles`` lie on the player's level."""
    cells, cols = state.grid.cells, state.grid.cols
    found = []
    for tile in tiles:
        index = cells.find(tile)
        while index >= 0:
            found.append(divmod(index, cols))
            index = cells.find(tile, index + 1)
    return found


def _apart(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _estimate(state: State, ends: bytes, treasure: int) -> int | None:
    """A lower bound on the moves to an end among ``ends`` holding ``treasure``; ``None``: never.

    Every such end is reached by walking to one of its tiles, after a treasure tile
    if more treasure is needed, and no tile appears but by doubling, which takes
    walking to an amulet first. Walls are ignored, so it never overestimates.
    """
    here = (state.row, state.col)
    amulets = _squares(state, _AMULET_TILE)
    goals = _squares(state, ends) + amulets
    if not goals:
        return None
    if state.treasure >= treasure:
        return min(_apart(here, goal) for goal in goals)
    bounds = [_apart(here, amulet) for amulet in amulets]
    bounds += [
        _apart(here, square) + min(_apart(square, goal) for goal in goals)
        for square in _squares(state, _TREASURE_TILE)
    ]
    return min(bounds) if bounds else None


def _shortest(start: State, ends: str, treasure: int, budget: int) -> _Found:
    """The fewest commands from ``start`` to an end (``ends``: the exit or a door) holding
    at least ``treasure``.

    A* over :meth:`State.key` with :func:`_estimate`, which never overestimates, so
    the first end taken off the queue is a nearest one. A state from which
    :func:`_estimate` sees no way is dropped, so the search is complete wherever
    the level cannot grow. It stops after visiting ``budget`` states.
    """
    wanted = EXIT if ends == EXIT else DOOR
    outcome = Outcome.ESCAPED if ends == EXIT else Outcome.FINISHED
    tiles = wanted.encode()
    best: dict[Hashable, int] = {start.key(): 0}
    first = _estimate(start, tiles, treasure)
    if first is None:
        return _Found(None, None, 1, True)
    order = itertools.count()
    heap: list[tuple[int, int, int, State, Trail]] = [(first, 0, next(order), start, None)]
    while heap:
        _, depth, _, current, trail = heapq.heappop(heap)
        moves = -depth
        if current.outcome is not None:
            if current.outcome is outcome and current.treasure >= treasure:
                return _Found(current, trail, len(best), True)
            continue
        if best[current.key()] < moves:
            continue
        if len(best) >= budget:
            return _Found(None, None, len(best), False)
        for command in Command:
            after = current.copy()
            after.step(command)
            if after.outcome is Outcome.DIED:
                continue
            if after.outcome is None:
                estimate = _estimate(after, tiles, treasure)
                if estimate is None:
                    continue
            else:
                estimate = 0
            key = after.key()
            if best.get(key, moves + 2) <= moves + 1:
                continue
            best[key] = moves + 1
            # Ties go to the deeper state, which is nearer an end.
            heapq.heappush(
                heap, (moves + 1 + estimate, -(moves + 1), next(order), after, (command, trail))
            )
    return _Found(None, None, len(best), True)


def plan_level(
    level: Level,
    treasure: int = 0,
    objective: Objective = Objective.MOVES,
    budget: int = DEFAULT_BUDGET,
) -> Plan | None:
    """The plan that leaves ``level`` from its start, holding ``treasure``; ``None`` if none.

    See the module docstring for which plan is chosen.
    """
    start = State([level], treasure=treasure)
    searched = 0
    complete = True

    def shortest(ends: str, wanted: int) -> _Found:
        nonlocal searched, complete
        found = _shortest(start, ends, wanted, budget)
        searched += found.searched
        complete = complete and found.complete
        return found

    def plan(found: _Found) -> Plan:
        assert found.end is not None
        return Plan(
            _commands(found.trail),
            found.end.outcome is Outcome.ESCAPED,
            found.end.treasure,
            searched,
            complete,
        )

    if objective is Objective.TREASURE:
        for targets in (EXIT, DOOR):
            best = None
            wanted = treasure
            while (found := shortest(targets, wanted)).end is not None:
                best = found
                wanted = found.end.treasure + 1
            if best is not None:
                return plan(best)
        return None
    if EXIT in level.tiles.decode() and (found := shortest(EXIT, 0)).end:
        return plan(found)
    # An exit asks for one treasure: carry one through the door when the level has one.
    if treasure == 0 and TREASURE in level.tiles.decode():
        found = shortest(DOOR, 1)
        if found.end is not None:
            return plan(found)
    found = shortest(DOOR, 0)
    return plan(found) if found.end is not None else None


@dataclass(frozen=True, slots=True)
class Front:
    """The fewest moves out of a level, by the least treasure gained on the way."""

    escapes: dict[int, int]
    """k → fewest moves to escape having gained at least k treasure."""
    doors: dict[int, int]
    """k → fewest moves through a door having gained at least k treasure."""
    searched: int
    complete: bool


def level_front(level: Level, *, holding: bool, most: int, budget: int = DEFAULT_BUDGET) -> Front:
    """The ways out of ``level`` for gains 0 to ``most``, entered with treasure or without."""
    initial = int(holding)
    start = State([level], treasure=initial)
    fronts: dict[str, dict[int, int]] = {EXIT: {}, DOOR: {}}
    searched = 0
    complete = True
    for targets, front in fronts.items():
        gain = 0
        while gain <= most:
            found = _shortest(start, targets, initial + gain, budget)
            searched += found.searched
            complete = complete and found.complete
            if found.end is None:
                break
            gained = found.end.treasure - initial
            for k in range(gain, min(gained, most) + 1):
                front[k] = len(_commands(found.trail))
            gain = gained + 1
    return Front(fronts[EXIT], fronts[DOOR], searched, complete)


@dataclass(frozen=True, slots=True)
class DungeonFront:
    """The fewest moves that escape a whole dungeon, by the least treasure held at the end."""

    escapes: dict[int, int]
    """T → fewest moves to escape holding at least T treasure (T from 1)."""
    searched: int
    complete: bool
    """Whether every search was complete; if not, these are the best found."""

    def pareto(self) -> list[tuple[int, int]]:
        """(treasure, moves) of the escapes that more treasure cannot match in moves."""
        return [
            (treasure, moves)
            for treasure, moves in sorted(self.escapes.items())
            if self.escapes.get(treasure + 1) != moves
        ]


def dungeon_front(
    levels: Sequence[Level], *, most: int, budget: int = DEFAULT_BUDGET
) -> DungeonFront:
    """Combine :func:`level_front` over ``levels``, for escapes with 1 to ``most`` treasure."""
    fronts: dict[tuple[int, bool], Front] = {}
    reach = {0: 0}  # c → fewest moves to stand on this level's start holding at least c
    escapes: dict[int, int] = {}

    def better(table: dict[int, int], key: int, moves: int) -> None:
        if key <= most and moves < table.get(key, moves + 1):
            table[key] = moves

    for index, level in enumerate(levels):
        onward: dict[int, int] = {}
        for carried, so_far in reach.items():
            holding = carried > 0
            if (index, holding) not in fronts:
                fronts[index, holding] = level_front(
                    level, holding=holding, most=most, budget=budget
                )
            front = fronts[index, holding]
            for gain, moves in front.escapes.items():
                better(escapes, max(carried + gain, 1), so_far + moves)
            if index + 1 < len(levels):
                for gain, moves in front.doors.items():
                    better(onward, carried + gain, so_far + moves)
        reach = onward
    # At least T is also at least every smaller T.
    for treasure in range(most - 1, 0, -1):
        if treasure + 1 in escapes:
            better(escapes, treasure, escapes[treasure + 1])
    return DungeonFront(
        escapes,
        sum(front.searched for front in fronts.values()),
        all(front.complete for front in fronts.values()),
    )
