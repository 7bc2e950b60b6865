"""A generated dungeon as a baddies board (RULES §3), proved winnable by search.

The mapping keeps what each glyph means in the baddies game, where walls and
abysses are thin features that baddies fly over and only the landing square counts:

* room floor and corridor are nothing (``.``): where anyone may stand;
* rock that touches a room, diagonals included, is wall ``+``: each room is walled
  in, its doorways open where corridors leave it, so a baddie chasing the hero
  across a room wall is held by the wall rule as by the original's walls;
* all other rock is abyss ``#``: the corridors are bridges over it, and a
  baddie that leaps off one toward the hero falls, as into the original's abysses.

As the original puts the hero in the three leftmost columns and the ladder in the
three rightmost, the hero starts in the three leftmost columns of the room that
reaches furthest west and the ladder stands in the three rightmost columns of the
room that reaches furthest east (a map's outer columns are rock here). Baddies
stand on room squares outside the hero's room: :data:`MONSTERS_PER_ROOM` monsters
per room, about a third of them super monsters (``n/3``, as the original), and a
bat per :data:`ROOMS_PER_BAT` rooms.

:func:`baddies_line` then searches the board with the game's own
rules for a way to the ladder; if none is found, the pieces are placed again from
the same stream, up to :data:`ATTEMPTS` times, the later ones with fewer baddies
(:func:`mapgen.winnable.thinned`; the last with none), then :class:`GenerationError`.
So a caller may rely on every board returned being winnable from its start, and
on the same dungeon and seed giving the same board.
"""

from __future__ import annotations

import random
from typing import Final

from dungeon_of_doom.mapgen.dungeon import ROCK, ROOM, Dungeon, Room
from dungeon_of_doom.mapgen.formats import Format, one_file
from dungeon_of_doom.mapgen.search import find_line
from dungeon_of_doom.mapgen.settings import GenerationError
from dungeon_of_doom.mapgen.winnable import ATTEMPTS, SEARCH_BUDGET, distances, thinned

from .board import (
    ABYSS,
    BAT,
    LADDER,
    MONSTER,
    SUPER_MONSTER,
    WALL,
    Board,
    Position,
)
from .boardfile import format_board
from .rules import Escaped, HeroStayed, Step, play_round

__all__ = [
    "ATTEMPTS",
    "BADDIES_STEPS",
    "FORMAT",
    "MONSTERS_PER_ROOM",
    "ROOMS_PER_BAT",
    "baddies_line",
    "baddies_text",
    "to_baddies",
]

BADDIES_STEPS: Final[tuple[Step, ...]] = (
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 0),
)
"""The hero's nine choices, as (row step, column step); ``(0, 0)`` stays."""

_HERO: Final = 0
"""The id of the one hero a baddies search plays."""

MONSTERS_PER_ROOM: Final = 1
ROOMS_PER_BAT: Final = 4
SIDE: Final = 3
"""The columns at the west of the hero's room and at the east of the ladder's."""
CLEARANCE: Final = 3
"""No baddie starts within this many king moves of the hero, as the original keeps
three columns between the hero and the baddies."""


def baddies_text(dungeon: Dungeon, *, seed: int) -> str:
    """The board file of ``dungeon``'s board (:func:`to_baddies`)."""
    return format_board(f"Generated dungeon {seed}", to_baddies(dungeon, seed=seed))


def to_baddies(dungeon: Dungeon, *, seed: int = 0) -> Board:
    """``dungeon`` as a winnable baddies board, pieces placed from ``random.Random(seed)``."""
    statics = _statics(dungeon)
    rng = random.Random(seed)
    for attempt in range(ATTEMPTS):
        board = _placed(dungeon, statics, rng, thinned(attempt))
        if baddies_line(board) is not None:
            return board
    raise GenerationError(
        f"seed {seed}: no placement of {ATTEMPTS} tried could be won within the search's "
        f"{SEARCH_BUDGET:,} states; try another seed or fewer rooms"
    )


def _statics(dungeon: Dungeon) -> dict[Position, str]:
    """Walls and abysses: rock beside a room, west or east of it, is wall; other rock abyss."""
    width, cells = dungeon.width, dungeon.cells
    statics = {}
    for index, cell in enumerate(cells):
        if cell != ROCK:
            continue
        row, col = divmod(index, width)
        # The rock border keeps both neighbours of an inner rock square on the map,
        # and a border square has no room beside it.
        beside = 0 < col < width - 1 and ROOM in (cells[index - 1], cells[index + 1])
        statics[(row, col)] = WALL if beside else ABYSS
    return statics


def _king_steps(one: Position, other: Position) -> int:
    return max(abs(one[0] - other[0]), abs(one[1] - other[1]))


def _side(room: Room, columns: range, rng: random.Random) -> Position:
    """A random square of ``room`` in ``columns``."""
    return rng.randrange(room.row, room.bottom + 1), rng.choice(columns)


def _placed(
    dungeon: Dungeon, statics: dict[Position, str], rng: random.Random, share: float
) -> Board:
    """One draw of the hero, the ladder and the baddies (see the module docstring)."""
    rooms = dungeon.rooms
    west = min(range(len(rooms)), key=lambda n: (rooms[n].column, rooms[n].row))
    east = max(range(len(rooms)), key=lambda n: (rooms[n].right, -rooms[n].row))
    start = _side(rooms[west], range(rooms[west].column, rooms[west].column + SIDE), rng)
    ladder = _side(rooms[east], range(rooms[east].right - SIDE + 1, rooms[east].right + 1), rng)
    free = [
        square
        for number, room in enumerate(rooms)
        if number != west
        for square in room.squares()
        if square != ladder and _king_steps(square, start) > CLEARANCE
    ]
    monsters = int(MONSTERS_PER_ROOM * len(rooms) * share)
    supers = monsters // 3
    bats = int(len(rooms) // ROOMS_PER_BAT * share)
    glyphs = [MONSTER] * (monsters - supers) + [SUPER_MONSTER] * supers + [BAT] * bats
    baddies = dict(zip(rng.sample(free, len(glyphs)), glyphs, strict=True))
    return Board(dungeon.height, dungeon.width, {**statics, ladder: LADDER}, baddies, start)


def baddies_line(board: Board, budget: int = SEARCH_BUDGET) -> list[Step] | None:
    """Steps that take the board's hero from its start to a ladder, by RULES §3.

    ``board`` is not changed; the search plays copies with the hero on ``start``.
    """
    rows, cols = board.rows, board.columns
    statics = board.statics

    def passable(index: int) -> bool:
        return statics.get(divmod(index, cols)) not in (WALL, ABYSS)

    ladders = [(r * cols + c, 0) for (r, c), glyph in statics.items() if glyph == LADDER]
    ways = [step for step in BADDIES_STEPS if step != (0, 0)]
    to_ladder = distances(rows, cols, ladders, passable, ways)
    start = board.copy()
    start.heroes = {_HERO: board.start}

    # A search state is a board and whether its hero escaped (and so left it).
    def play(state: tuple[Board, bool], step: Step) -> tuple[Board, bool] | None:
        after = state[0].copy()
        facts = play_round(after, {_HERO: step})
        if any(isinstance(fact, Escaped) for fact in facts):
            return after, True
        if _HERO not in after.heroes:
            return None
        # A step into a wall or off the board is a stay, which the search tries itself.
        if step != (0, 0) and any(isinstance(fact, HeroStayed) for fact in facts):
            return None
        return after, False

    def key(state: tuple[Board, bool]) -> tuple[object, ...]:
        board, escaped = state
        return escaped, board.heroes.get(_HERO), tuple(sorted(board.baddies.items()))

    def estimate(state: tuple[Board, bool]) -> float:
        row, col = state[0].heroes[_HERO]
        return to_ladder[row * cols + col]

    return find_line(
        (start, False),
        BADDIES_STEPS,
        play,
        key,
        lambda state: state[1],
        estimate,
        budget,
    )


FORMAT: Final = Format(
    one_file(lambda dungeon, seed: baddies_text(dungeon, seed=seed)),
    "a baddies board file, proved winnable",
)
"""``dod-generate --format baddies`` (declared as an entry point of mapgen's formats)."""
