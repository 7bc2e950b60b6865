"""Generated dungeons as crawler levels (RULES §2), every level proved winnable by search.

Rock becomes pillar ``+``; room floor and corridor become open ``-``. On each
level, drawn from ``random.Random`` of the level's seed:

* the start, on a square of a random room;
* the way on, in the room farthest from the start (in steps): a door ``?`` on
  every level but the last, the exit ``!`` on the last;
* treasure ``$``, one per :data:`ROOMS_PER_TREASURE` rooms (at least one), and one
  amulet ``@``, on room squares;
* monsters ``M``, one per :data:`ROOMS_PER_MONSTER` rooms (at least one), each in
  a room of its own other than the start's.

Then :func:`crawler_line` searches the level with the game's own
rules for a way off it alive (through the door, or out by the exit holding
treasure). If none is found, everything is placed again from the same stream, up
to :data:`ATTEMPTS` times, the later ones with fewer monsters
(:func:`mapgen.winnable.thinned`; the last with none); then
:class:`GenerationError` says so. So a caller may
rely on every level returned being winnable on its own from its start with no
treasure, and hence on the whole dungeon being winnable (treasure only opens the
exit sooner); and on the same dungeon and seed giving the same level.

A dungeon of N levels from seed S (:func:`crawler_levels`) plays the dungeon of
seed :func:`level_seed` (S, k) as level k: level 1 is the dungeon of S itself,
level 2 that of S + 1,000,000, and so on, so ``dod-generate --seed`` shows any
level's rooms.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Final

from dungeon_of_doom.mapgen.dungeon import CORRIDOR, ROCK, ROOM, Dungeon, Position
from dungeon_of_doom.mapgen.formats import Format
from dungeon_of_doom.mapgen.generator import generate
from dungeon_of_doom.mapgen.search import find_line
from dungeon_of_doom.mapgen.settings import GenerationError, Settings
from dungeon_of_doom.mapgen.winnable import ATTEMPTS, FOUR_WAYS, SEARCH_BUDGET, distances, thinned

from .levelfile import (
    AMULET,
    DOOR,
    EXIT,
    MONSTER,
    OPEN,
    PILLAR,
    TREASURE,
    Level,
)
from .state import Command, Outcome, State

__all__ = [
    "ATTEMPTS",
    "DEFAULT_LEVELS",
    "FORMAT",
    "LEVEL_SEED_STEP",
    "ROOMS_PER_MONSTER",
    "ROOMS_PER_TREASURE",
    "crawler_levels",
    "crawler_line",
    "level_seed",
    "to_crawler",
]

DEFAULT_LEVELS: Final = 3
ROOMS_PER_TREASURE: Final = 2
ROOMS_PER_MONSTER: Final = 2
LAIR_CLEARANCE: Final = 2
"""Monsters start at least this many squares (any way, diagonals too) from a corridor."""
LEVEL_SEED_STEP: Final = 1_000_000
"""Level k of seed S is the dungeon of seed S + (k - 1) × this."""

_CRAWLER_COMMANDS: Final = tuple(Command)

_TILES: Final = bytes.maketrans(
    bytes((ROCK, ROOM, CORRIDOR)), (PILLAR + OPEN + OPEN).encode("ascii")
)


def level_seed(seed: int, number: int) -> int:
    """The seed of level ``number`` (from 1) of the dungeon of ``seed``."""
    return seed + LEVEL_SEED_STEP * (number - 1)


def crawler_levels(
    seed: int, settings: Settings | None = None, levels: int = DEFAULT_LEVELS
) -> tuple[Level, ...]:
    """The ``levels`` winnable levels of the crawler dungeon of ``seed``, level 1 first."""
    if levels < 1:
        raise GenerationError(f"a crawler dungeon needs at least 1 level, not {levels}")
    return tuple(
        to_crawler(
            generate(level_seed(seed, number), settings),
            seed=level_seed(seed, number),
            last=number == levels,
            source=f"generated:{seed} level {number}",
        )
        for number in range(1, levels + 1)
    )


def to_crawler(
    dungeon: Dungeon, *, seed: int = 0, last: bool = True, source: str | None = None
) -> Level:
    """``dungeon`` as a winnable crawler level: with the exit if ``last``, else a door."""
    rng = random.Random(seed)
    base = dungeon.cells.translate(_TILES)
    source = source if source is not None else f"generated:{seed}"
    for attempt in range(ATTEMPTS):
        level = _placed(dungeon, base, rng, last, source, thinned(attempt))
        if crawler_line(level) is not None:
            return level
    raise GenerationError(
        f"{source}: no placement of {ATTEMPTS} tried could be won within the search's "
        f"{SEARCH_BUDGET:,} states; try another seed or fewer rooms"
    )


def _steps_from(dungeon: Dungeon, start: Position) -> list[int]:
    """Steps from ``start`` to every floor square (``-1`` for rock), four ways."""
    width, cells = dungeon.width, dungeon.cells
    steps = [-1] * len(cells)
    first = start[0] * width + start[1]
    steps[first] = 0
    queue = deque([first])
    while queue:
        index = queue.popleft()
        for near in (index - width, index + width, index - 1, index + 1):
            # The rock border keeps every step from floor inside the map.
            if cells[near] != ROCK and steps[near] < 0:
                steps[near] = steps[index] + 1
                queue.append(near)
    return steps


def _clear(dungeon: Dungeon, square: Position) -> bool:
    """Whether no corridor lies within :data:`LAIR_CLEARANCE` squares of ``square``, any way."""
    width, cells = dungeon.width, dungeon.cells
    row, col = square
    reach = LAIR_CLEARANCE
    return all(
        cells[r * width + c] != CORRIDOR
        for r in range(max(0, row - reach), min(dungeon.height, row + reach + 1))
        for c in range(max(0, col - reach), min(width, col + reach + 1))
    )


def _placed(
    dungeon: Dungeon, base: bytes, rng: random.Random, last: bool, source: str, share: float
) -> Level:
    """One draw of every placement on ``dungeon``, with ``share`` of the monsters."""
    rooms, width = dungeon.rooms, dungeon.width
    tiles = bytearray(base)
    home = rng.randrange(len(rooms))
    start = rng.choice(list(rooms[home].squares()))
    steps = _steps_from(dungeon, start)
    far = max(range(len(rooms)), key=lambda n: steps[rooms[n].row * width + rooms[n].column])
    goal = rng.choice(list(rooms[far].squares()))
    tiles[goal[0] * width + goal[1]] = ord(EXIT if last else DOOR)

    free = [
        (number, square)
        for number, room in enumerate(rooms)
        for square in room.squares()
        if square not in (start, goal)
    ]
    treasure = max(1, len(rooms) // ROOMS_PER_TREASURE)
    items = rng.sample(free, treasure + 1)
    for (_, (r, c)), tile in zip(items, [TREASURE] * treasure + [AMULET], strict=True):
        tiles[r * width + c] = ord(tile)
    taken = {square for _, square in items} | {start, goal}
    # A monster next to a doorway would hold it for good: lairs keep clear of
    # corridors, and one monster to a room, as two could hold a room between them.
    lairs = {
        number: squares
        for number, room in enumerate(rooms)
        if number != home
        and (squares := [s for s in room.squares() if s not in taken and _clear(dungeon, s)])
    }
    count = int(min(len(lairs), max(1, len(rooms) // ROOMS_PER_MONSTER)) * share)
    for number in rng.sample(sorted(lairs), count):
        r, c = rng.choice(lairs[number])
        tiles[r * width + c] = ord(MONSTER)
    return Level(dungeon.height, width, start, bytes(tiles), source)


def crawler_line(level: Level, budget: int = SEARCH_BUDGET) -> list[Command] | None:
    """Commands that take an adventurer off ``level`` alive: through a door, or out by the exit.

    The search plays a one-level :class:`State`, so a door ends it as a finished game.
    """
    tiles, cols = level.tiles, level.cols
    pillar, door, exit_, treasure = (ord(t) for t in (PILLAR, DOOR, EXIT, TREASURE))

    def passable(index: int) -> bool:
        return tiles[index] != pillar

    goals = [(i, 0) for i, tile in enumerate(tiles) if tile in (door, exit_)]
    to_goal = distances(level.rows, cols, goals, passable, FOUR_WAYS)
    # The exit opens only for an adventurer holding treasure: without, the way runs
    # through the nearest treasure that leads on to a goal.
    by_treasure = distances(
        level.rows,
        cols,
        ((i, to_goal[i]) for i, tile in enumerate(tiles) if tile == treasure),
        passable,
        FOUR_WAYS,
    )
    needs_treasure = exit_ in tiles and door not in tiles

    def play(state: State, command: Command) -> State | None:
        after = state.copy()
        after.step(command)
        return None if after.outcome is Outcome.DIED else after

    def estimate(state: State) -> float:
        # An amulet doubles the level, but the rock border seals the adventurer in
        # the top-left quarter, whose squares keep their numbers in the level.
        index = state.row * cols + state.col
        if needs_treasure and state.treasure == 0:
            return by_treasure[index]
        return to_goal[index]

    return find_line(
        State([level]),
        _CRAWLER_COMMANDS,
        play,
        State.key,
        lambda state: state.outcome in (Outcome.ESCAPED, Outcome.FINISHED),
        estimate,
        budget,
    )


def _texts(seed: int, settings: Settings, levels: int) -> tuple[str, ...]:
    return tuple(level.to_text() for level in crawler_levels(seed, settings, levels))


FORMAT: Final = Format(
    _texts,
    "crawler levels NAME1.txt .. NAMEN.txt (--levels), each proved winnable",
    numbered=True,
)
"""``dod-generate --format crawler`` (declared as an entry point of mapgen's formats)."""
