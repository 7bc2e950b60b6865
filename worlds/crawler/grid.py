"""One crawler level in play: its tiles, the player's step, the monsters' scans, doubling.

This is the rule book of RULES §2 "A turn" as operations on a mutable grid of
tile bytes. Players are not stored in the grid: the square under a player is
always open (treasure and amulets are taken on entry, and the start square is
open), so callers keep positions themselves and :meth:`Grid.step` is told which
squares other players hold. A caller may rely on:

* :meth:`Grid.step` changing nothing when the player stays, and otherwise only
  clearing a treasure or amulet taken; doors and exits stay in place.
* :meth:`Grid.hunt` costing time in proportion to the squares on the four lines
  of sight it scans, never to the area of the level.
* :meth:`Grid.double` keeping every square's coordinates in the top-left quarter.
"""

from __future__ import annotations

import enum
from collections.abc import Container
from typing import Final

from .levelfile import (
    AMULET,
    DOOR,
    EXIT,
    MAX_AREA,
    MAX_SIDE,
    MONSTER,
    OPEN,
    PILLAR,
    TREASURE,
    Level,
)

_OPEN: Final = ord(OPEN)
_TREASURE: Final = ord(TREASURE)
_AMULET: Final = ord(AMULET)
_MONSTER: Final = ord(MONSTER)
_PILLAR: Final = ord(PILLAR)
_DOOR: Final = ord(DOOR)
_EXIT: Final = ord(EXIT)


class Status(enum.Enum):
    """What the player's step did (the original's ``STATUS_*``)."""

    STAY = "stay"
    MOVE = "move"
    TREASURE = "treasure"
    AMULET = "amulet"
    LEAVE = "leave"
    ESCAPE = "escape"


class Grid:
    """The tiles of a level being played; see the module docstring."""

    __slots__ = ("cells", "cols", "rows")

    def __init__(self, rows: int, cols: int, cells: bytearray) -> None:
        self.rows = rows
        self.cols = cols
        self.cells = cells

    @classmethod
    def from_level(cls, level: Level) -> Grid:
        return cls(level.rows, level.cols, bytearray(level.tiles))

    def copy(self) -> Grid:
        return Grid(self.rows, self.cols, self.cells[:])

    def tile(self, row: int, col: int) -> str:
        return chr(self.cells[row * self.cols + col])

    def has_monster(self, row: int, col: int) -> bool:
        return self.cells[row * self.cols + col] == _MONSTER

    def inside(self, row: int, col: int) -> bool:
        return 0 <= row < self.rows and 0 <= col < self.cols

    # -- step 1: the player -----------------------------------------------------

    def step(
        self,
        row: int,
        col: int,
        d_row: int,
        d_col: int,
        treasure: int,
        occupied: Container[tuple[int, int]] = (),
    ) -> Status:
        """Try to step from (row, col) by (d_row, d_col) holding ``treasure``.

        Outside the map, a pillar, a monster, a square in ``occupied`` (other
        players) or an exit without treasure: ``STAY``. Otherwise the status of
        the square entered; a treasure or amulet entered is taken off the map.
        """
        row, col = row + d_row, col + d_col
        if not (0 <= row < self.rows and 0 <= col < self.cols) or (row, col) in occupied:
            return Status.STAY
        index = row * self.cols + col
        tile = self.cells[index]
        if tile == _OPEN:
            return Status.MOVE
        if tile == _TREASURE:
            self.cells[index] = _OPEN
            return Status.TREASURE
        if tile == _AMULET:
            self.cells[index] = _OPEN
            return Status.AMULET
        if tile == _DOOR:
            return Status.LEAVE
        if tile == _EXIT and treasure > 0:
            return Status.ESCAPE
        return Status.STAY

    # -- step 3: the monsters -----------------------------------------------------

    def hunt(self, row: int, col: int, moved: set[int]) -> None:
        """Every monster in sight of (row, col) moves one square toward it.

        Scans go up, down, left, right, each outward from the square next to the
        target and stopping at the edge or the first pillar. A monster whose
        index is in ``moved`` has moved this round already and stays (a monster
        stuck behind it stays too, so monsters never merge off the target's
        square); each monster that moves adds its new index to ``moved``.
        """
        cells = self.cells
        cols = self.cols
        here = row * cols + col
        line_start = here - col

        def advance(source: int, target: int) -> None:
            if source in moved or (target != here and cells[target] == _MONSTER):
                return
            cells[target] = _MONSTER
            cells[source] = _OPEN
            moved.add(target)

        index = here - cols
        while index >= 0:
            tile = cells[index]
            if tile == _PILLAR:
                break
            if tile == _MONSTER:
                advance(index, index + cols)
            index -= cols
        index = here + cols
        end = len(cells)
        while index < end:
            tile = cells[index]
            if tile == _PILLAR:
                break
            if tile == _MONSTER:
                advance(index, index - cols)
            index += cols
        index = here - 1
        while index >= line_start:
            tile = cells[index]
            if tile == _PILLAR:
                break
            if tile == _MONSTER:
                advance(index, index + 1)
            index -= 1
        index = here + 1
        end = line_start + cols
        while index < end:
            tile = cells[index]
            if tile == _PILLAR:
                break
            if tile == _MONSTER:
                advance(index, index - 1)
            index += 1

    # -- step 5: the amulet ---------------------------------------------------------

    def can_double(self, max_area: int = MAX_AREA) -> bool:
        """Whether doubling keeps the level within the limits of a level file and ``max_area``."""
        rows, cols = 2 * self.rows, 2 * self.cols
        return rows <= MAX_SIDE and cols <= MAX_SIDE and rows * cols <= min(max_area, MAX_AREA)

    def double(self, max_area: int = MAX_AREA) -> bool:
        """Grow to 2×rows by 2×cols: this map top-left and a copy right, below and diagonally.

        Returns ``False``, changing nothing, when the result would break the limits
        of a level file or pass ``max_area`` squares (a server's
        :attr:`~worlds.limits.Limits.grown_cells`). Squares under players are open,
        so the copies hold no players.
        """
        if not self.can_double(max_area):
            return False
        cells, cols = self.cells, self.cols
        half = bytearray()
        for start in range(0, len(cells), cols):
            row = cells[start : start + cols]
            half += row
            half += row
        self.cells = half + half
        self.rows *= 2
        self.cols *= 2
        return True

    def moved_after_doubling(self, moved: set[int], old_cols: int) -> set[int]:
        """``moved`` (indices on the grid ``old_cols`` wide) as indices on this grid."""
        return {(index // old_cols) * self.cols + index % old_cols for index in moved}

    # -- drawing ----------------------------------------------------------------------

    def text_rows(self, marks: dict[tuple[int, int], str] | None = None) -> list[str]:
        """The tiles as strings, one per row, with ``marks`` drawn over their squares."""
        text = self.cells.decode("ascii")
        cols = self.cols
        lines = [text[i : i + cols] for i in range(0, len(text), cols)]
        for (row, col), glyph in (marks or {}).items():
            lines[row] = lines[row][:col] + glyph + lines[row][col + 1 :]
        return lines
