"""Drawing the 5×5 ``LOOK`` view, shared by every world.

The rules of RULES §1: the four corners are always ``X``, a square off the map is
``#``, and the centre shows what the player stands on, never the player. Others
standing near (players, and monsters in worlds that keep them off the map) are
drawn over the map from an ``occupants`` mapping.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from protocol.replies import LOOK_SIZE

RADIUS: Final = LOOK_SIZE // 2
CORNER: Final = "X"
OFF_MAP: Final = "#"
_OFFSETS: Final = tuple(
    (dr, dc) for dr in range(-RADIUS, RADIUS + 1) for dc in range(-RADIUS, RADIUS + 1)
)
_CORNERS: Final = frozenset({0, LOOK_SIZE - 1, LOOK_SIZE * (LOOK_SIZE - 1), LOOK_SIZE**2 - 1})
_CENTRE: Final = LOOK_SIZE**2 // 2


def look_window(
    tiles: Sequence[Sequence[str]],
    row: int,
    column: int,
    occupants: Mapping[tuple[int, int], str] | None = None,
) -> tuple[str, ...]:
    """The view centred on (row, column) of the map ``tiles`` (a list of rows).

    ``occupants`` maps a square to the glyph drawn over its tile; the centre
    square always shows its tile.
    """
    height = len(tiles)
    width = len(tiles[0]) if height else 0
    cells = []
    for index, (dr, dc) in enumerate(_OFFSETS):
        if index in _CORNERS:
            cells.append(CORNER)
            continue
        r, c = row + dr, column + dc
        if not (0 <= r < height and 0 <= c < width):
            cells.append(OFF_MAP)
            continue
        glyph = None
        if occupants and index != _CENTRE:
            glyph = occupants.get((r, c))
        cells.append(glyph or tiles[r][c])
    joined = "".join(cells)
    return tuple(joined[i : i + LOOK_SIZE] for i in range(0, LOOK_SIZE**2, LOOK_SIZE))
