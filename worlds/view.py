"""Drawing the 5×5 ``LOOK`` view, shared by every world.

The rules of RULES §1: the four corners are always ``X``, a square off the map is
``#``, and the centre shows what the player stands on, never the player. Others
standing near (players, and monsters in worlds that keep them off the map) are
drawn over the map from an ``occupants`` mapping.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, overload

from dungeon_of_doom.protocol.replies import LOOK_SIZE

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
    left, right = column - RADIUS, column + RADIUS + 1
    view: list[list[str]] = []
    if isinstance(tiles, ByteRows):
        # The commonest case on the commonest world: read the bytes, no row objects.
        cells, width = tiles.cells, tiles.width
        inside = left >= 0 and right <= width
        for r in range(row - RADIUS, row + RADIUS + 1):
            if not 0 <= r < height:
                view.append(_BLANK_ROW.copy())
                continue
            start = r * width
            if inside:
                view.append(list(cells[start + left : start + right].decode("ascii")))
            else:
                view.append(
                    [
                        chr(cells[start + c]) if 0 <= c < width else OFF_MAP
                        for c in range(left, right)
                    ]
                )
    else:
        width = len(tiles[0]) if height else 0
        inside = left >= 0 and right <= width
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
                    occupant = get(square)
                    if occupant is not None and square != (row, column):
                        view[dr][dc] = occupant
    if centre is not None:
        view[RADIUS][RADIUS] = centre
    view[0][0] = view[0][_LAST] = view[_LAST][0] = view[_LAST][_LAST] = CORNER
    return tuple(map("".join, view))


_WINDOW_TEMPLATE: Final = bytearray(
    "\n".join(
        CORNER + "." * (LOOK_SIZE - 2) + CORNER if r in (0, _LAST) else "." * LOOK_SIZE
        for r in range(LOOK_SIZE)
    )
    + "\n",
    "ascii",
)
_SPAN: Final = LOOK_SIZE - 1
"""Rows from the first row of a window to its last."""
_OFF: Final = OFF_MAP.encode("ascii")
_X: Final = ord(CORNER)


def look_window_bytes(
    cells: bytes | bytearray, width: int, row: int, column: int, centre: int
) -> bytes:
    """:func:`look_window` of a byte map, as the bytes of its rows, each ended by ``LF``.

    ``cells`` holds the map row after row, ``width`` squares a row, with the
    occupants already drawn in (a world's *scene*); ``centre`` is the byte of the
    player's own square. A window wholly on the map is five slices of ``cells``
    copied into a template, and no string at all.
    """
    index = (row - RADIUS) * width + column - RADIUS
    out = _WINDOW_TEMPLATE.copy()
    last_row = index + _SPAN * width  # where the window's last row starts
    if RADIUS <= column < width - RADIUS and row >= RADIUS and last_row + LOOK_SIZE <= len(cells):
        # Wholly on the map. LOOK_SIZE is 5 (the protocol's); the first and last
        # rows keep the template's corners.
        out[1:_LAST] = cells[index + 1 : index + _LAST]
        index += width
        out[6:11] = cells[index : index + LOOK_SIZE]
        index += width
        out[12:17] = cells[index : index + LOOK_SIZE]
        index += width
        out[18:23] = cells[index : index + LOOK_SIZE]
        index += width
        out[25:28] = cells[index + 1 : index + _LAST]
    else:
        height = len(cells) // width if width else 0
        left, right = column - RADIUS, column + RADIUS + 1
        pad_left, pad_right = max(0, -left), max(0, right - width)
        start = 0
        for r in range(row - RADIUS, row + RADIUS + 1):
            if 0 <= r < height:
                first = r * width
                line = cells[first + left + pad_left : first + right - pad_right]
                out[start : start + LOOK_SIZE] = _OFF * pad_left + line + _OFF * pad_right
            else:
                out[start : start + LOOK_SIZE] = _OFF * LOOK_SIZE
            start += LOOK_SIZE + 1
        out[0] = out[_LAST] = out[_LAST * (LOOK_SIZE + 1)] = out[_LAST * (LOOK_SIZE + 2)] = _X
    out[RADIUS * (LOOK_SIZE + 1) + RADIUS] = centre
    return bytes(out)


class ByteRows(Sequence["ByteRow"]):
    """The rows of a map kept as one ``bytearray`` of ASCII glyphs, row after row.

    A map stored so costs one byte a square (a list of one-character strings costs
    eight, a tuple per square far more). ``look_window`` takes this as its
    ``tiles`` and decodes only the squares it reads, so a view costs the same on
    any map; :meth:`lines` gives every row as text, for ``MAP``. Squares are read
    from ``cells`` when asked for, so changes to ``cells`` show; a map that is
    replaced or resized (a crawler level that doubles) needs a new :class:`ByteRows`.
    """

    __slots__ = ("_height", "cells", "width")

    def __init__(self, cells: bytes | bytearray, width: int) -> None:
        self.cells = cells
        """The squares, row after row (read, and written by their owner, in place)."""
        self.width = width
        self._height = len(cells) // width if width else 0

    def __len__(self) -> int:
        return self._height

    @overload
    def __getitem__(self, row: int) -> ByteRow: ...
    @overload
    def __getitem__(self, row: slice) -> list[ByteRow]: ...
    def __getitem__(self, row: int | slice) -> ByteRow | list[ByteRow]:
        if isinstance(row, slice):
            return [self[r] for r in range(*row.indices(len(self)))]
        height = len(self)
        if not -height <= row < height:
            raise IndexError(row)
        return ByteRow(self.cells, (row % height) * self.width, self.width)

    def lines(self) -> list[str]:
        """Every row as a string."""
        text, width = self.cells.decode("ascii"), self.width
        return [text[start : start + width] for start in range(0, len(text), width)]


class ByteRow(Sequence[str]):
    """One row of a :class:`ByteRows`: squares decoded one at a time, or a slice at once."""

    __slots__ = ("_cells", "_start", "_width")

    def __init__(self, cells: bytes | bytearray, start: int, width: int) -> None:
        self._cells = cells
        self._start = start
        self._width = width

    def __len__(self) -> int:
        return self._width

    @overload
    def __getitem__(self, column: int) -> str: ...
    @overload
    def __getitem__(self, column: slice) -> str: ...
    def __getitem__(self, column: int | slice) -> str:
        if isinstance(column, slice):
            first, last, step = column.indices(self._width)
            start = self._start
            return self._cells[start + first : start + last : step].decode("ascii")
        if not -self._width <= column < self._width:
            raise IndexError(column)
        return chr(self._cells[self._start + column % self._width])
