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
_BLANK_ROW: Final = [OFF_MAP] * LOOK_SIZE
_LAST: Final = LOOK_SIZE - 1


def look_window(
    tiles: Sequence[Sequence[str]],
    row: int,
    column: int,
    occupants: Mapping[tuple[int, int], str] | None = None,
    *,
    centre: str | None = None,
) -> tuple[str, ...]:
    """The view centred on (row, column) of the map ``tiles`` (a list of rows).

    ``occupants`` maps a square to the glyph drawn over its tile; the centre
    square always shows its tile, or ``centre`` when given (for a world whose
    ``tiles`` already have its players drawn in). The cost does not depend on the map's size, and
    depends on the number of occupants only up to the 24 squares in view.
    """
    height = len(tiles)
    width = len(tiles[0]) if height else 0
    left, right = column - RADIUS, column + RADIUS + 1
    inside = left >= 0 and right <= width
    view: list[list[str]] = []
    for r in range(row - RADIUS, row + RADIUS + 1):
        if not 0 <= r < height:
            view.append(_BLANK_ROW.copy())
        elif inside:
            view.append(list(tiles[r][left:right]))
        else:
            line = tiles[r]
            view.append([line[c] if 0 <= c < width else OFF_MAP for c in range(left, right)])
    if occupants:
        top = row - RADIUS
        if len(occupants) <= LOOK_SIZE * LOOK_SIZE:
            for (r, c), glyph in occupants.items():
                dr, dc = r - top, c - left
                if 0 <= dr < LOOK_SIZE and 0 <= dc < LOOK_SIZE and (r, c) != (row, column):
                    view[dr][dc] = glyph
        else:
            get = occupants.get
            for dr in range(LOOK_SIZE):
                for dc in range(LOOK_SIZE):
                    square = (top + dr, left + dc)
                    glyph = get(square)
                    if glyph is not None and square != (row, column):
                        view[dr][dc] = glyph
    if centre is not None:
        view[RADIUS][RADIUS] = centre
    view[0][0] = view[0][_LAST] = view[_LAST][0] = view[_LAST][_LAST] = CORNER
    return tuple(map("".join, view))
