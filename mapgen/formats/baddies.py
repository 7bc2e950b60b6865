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

:func:`mapgen.winnable.baddies_line` then searches the board with the game's own
rules for a way to the ladder; if none is found, the pieces are placed again from
the same stream, up to :data:`ATTEMPTS` times, the later ones with fewer baddies
(:func:`mapgen.winnable.thinned`; the last with none), then :class:`GenerationError`.
So a caller may rely on every board returned being winnable from its start, and
on the same dungeon and seed giving the same board.
"""

from __future__ import annotations

import random
from typing import Final

from worlds.baddies.board import (
    ABYSS,
    BAT,
    LADDER,
    MONSTER,
    SUPER_MONSTER,
    WALL,
    Board,
    Position,
)
from worlds.baddies.boardfile import format_board

from ..dungeon import ROCK, ROOM, Dungeon, Room
from ..settings import GenerationError
from ..winnable import ATTEMPTS, SEARCH_BUDGET, baddies_line, thinned

__all__ = ["ATTEMPTS", "MONSTERS_PER_ROOM", "ROOMS_PER_BAT", "baddies_text", "to_baddies"]

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
