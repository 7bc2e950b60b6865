"""A rectangle of tiles, as ``LOOK`` and ``MAP`` return it.

:class:`Grid` is immutable. Positions are ``(row, column)``, zero-based, row 0 at
the top, as everywhere in the project. ``grid[row, column]`` reads one tile and
raises :class:`IndexError` off the grid (negative indices do not wrap);
``grid.get(position, default)`` never raises. For a ``LOOK`` view,
``grid.centre`` is the square the player stands on and :meth:`Grid.relative`
reads a tile by its offset from there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Grid", "Position"]

Position = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Grid:
    """Rows of equal length; see the module docstring."""

    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        if len({len(row) for row in self.rows}) > 1:
            raise ValueError("the rows of a grid must have one length")

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    @property
    def centre(self) -> Position:
        """The middle square: where the player stands in a ``LOOK`` view."""
        return self.height // 2, self.width // 2

    def __contains__(self, position: object) -> bool:
        if not (isinstance(position, tuple) and len(position) == 2):
            return False
        row, column = position
        return bool(0 <= row < self.height and 0 <= column < self.width)

    def __getitem__(self, position: Position) -> str:
        if position not in self:
            raise IndexError(f"{position} is outside a {self.height}x{self.width} grid")
        return self.rows[position[0]][position[1]]

    def get(self, position: Position, default: str | None = None) -> str | None:
        """The tile at ``position``, or ``default`` off the grid."""
        if position not in self:
            return default
        return self.rows[position[0]][position[1]]

    def relative(self, row_offset: int, column_offset: int) -> str:
        """The tile ``row_offset`` rows down and ``column_offset`` columns right of the centre."""
        row, column = self.centre
        return self[row + row_offset, column + column_offset]

    def cells(self) -> Iterator[tuple[Position, str]]:
        """Every ``((row, column), tile)``, row by row."""
        for r, row in enumerate(self.rows):
            for c, tile in enumerate(row):
                yield (r, c), tile

    def find(self, tiles: str) -> list[Position]:
        """The positions holding any of the characters in ``tiles``, row by row."""
        return [position for position, tile in self.cells() if tile in tiles]

    def __str__(self) -> str:
        return "\n".join(self.rows)
