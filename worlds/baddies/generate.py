"""Random boards exactly as the original game drew them from a seed (RULES §3).

:func:`generate` seeds :class:`~worlds.baddies.glibc.GlibcRandom` and draws, in
the original's order: the hero (row, then one of the three leftmost columns), the
ladder (row, then one of the three rightmost columns), the top wall column
(rows ``0 .. R/2-1``), the bottom wall column (redrawn until not within 1 of the
top one; rows ``R-1`` down to ``R/2+1``), the middle wall column (redrawn until
not within 1 of either; rows ``R/4 .. 3R/4-1``), then every monster
(``n - n/3``), super monster (``n/3``), bat and abyss, each on a square of the
middle columns ``3 .. C-4``, drawn again until empty. For the same parameters and
seed the board is the original's, square for square.

:meth:`Parameters.check` refuses, before anything is drawn, sizes out of range
and pieces that cannot fit, so generation always ends: with at least 7 middle
columns every wall has a free column, and the pieces fit on the free squares.
The redraw loops are bounded as well; a stream that failed to find a free square
within the bound would raise :class:`ParameterError` rather than hang.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .board import ABYSS, BAT, HERO, LADDER, MONSTER, SUPER_MONSTER, WALL, Board, Position
from .glibc import GlibcRandom

MIN_ROWS: Final = 1
MAX_ROWS: Final = 10_000
MIN_COLUMNS: Final = 13
"""The walls stand in the columns ``3 .. C-4``; fewer than 7 of those can leave no room
for a third wall column that is not within 1 of the other two."""
MAX_COLUMNS: Final = 10_000
SIDE: Final = 3
"""Columns at each side kept for the hero and for the ladder."""
_DRAW_FACTOR: Final = 64


class ParameterError(ValueError):
    """Parameters that cannot make a board; ``str()`` says which and why."""


@dataclass(frozen=True, slots=True)
class Parameters:
    """What the original asks for: board size and how many of each piece."""

    rows: int
    columns: int
    abysses: int
    monsters: int
    bats: int

    @property
    def super_monsters(self) -> int:
        """About a third of ``monsters`` are super monsters (``n/3``, rounded down)."""
        return self.monsters // 3

    @property
    def regular_monsters(self) -> int:
        return self.monsters - self.super_monsters

    @property
    def wall_squares(self) -> int:
        """Squares the three walls take (the same wherever their columns fall)."""
        r = self.rows
        return r // 2 + (r - 1 - r // 2) + (3 * r // 4 - r // 4)

    @property
    def free_squares(self) -> int:
        """Squares of the middle columns left for pieces once the walls stand."""
        return self.rows * (self.columns - 2 * SIDE) - self.wall_squares

    @property
    def pieces(self) -> int:
        return self.abysses + self.monsters + self.bats

    def check(self) -> None:
        """Raise :class:`ParameterError` unless a board can be drawn from these."""
        if not MIN_ROWS <= self.rows <= MAX_ROWS:
            raise ParameterError(f"rows must be from {MIN_ROWS} to {MAX_ROWS}, not {self.rows}")
        if not MIN_COLUMNS <= self.columns <= MAX_COLUMNS:
            raise ParameterError(
                f"columns must be from {MIN_COLUMNS} to {MAX_COLUMNS} (three walls need "
                f"7 middle columns), not {self.columns}"
            )
        for what, count in (
            ("abysses", self.abysses),
            ("monsters", self.monsters),
            ("bats", self.bats),
        ):
            if count < 0:
                raise ParameterError(f"{what} cannot be negative ({count})")
        if self.pieces > self.free_squares:
            raise ParameterError(
                f"{self.pieces} pieces ({self.abysses} abysses, {self.monsters} monsters, "
                f"{self.bats} bats) do not fit on the {self.free_squares} free squares "
                f"of a {self.rows}x{self.columns} board"
            )


def generate(parameters: Parameters, seed: int) -> Board:
    """The board the original draws after ``srand(seed)``; its hero's square is ``start``.

    The seed is taken modulo 2**32, as C's ``srand`` takes an ``unsigned int``. The
    returned board has no heroes on it yet: a hero joins on ``board.start``.
    """
    parameters.check()
    rows, columns = parameters.rows, parameters.columns
    middle = columns - 2 * SIDE
    rand = GlibcRandom(seed).rand
    taken: dict[Position, str] = {}

    start = (rand() % rows, rand() % SIDE)
    taken[start] = HERO
    ladder_row = rand() % rows
    taken[(ladder_row, columns - 1 - rand() % SIDE)] = LADDER

    wall_draws = _DRAW_FACTOR * middle

    def wall_column(*others: int) -> int:
        for _ in range(wall_draws):
            column = SIDE + rand() % middle
            if all(abs(column - other) > 1 for other in others):
                return column
        raise ParameterError(f"no wall column found in {wall_draws} draws")

    top = SIDE + rand() % middle
    for r in range(rows // 2):
        taken[(r, top)] = WALL
    bottom = wall_column(top)
    for r in range(rows - 1, rows // 2, -1):
        taken[(r, bottom)] = WALL
    centre = wall_column(top, bottom)
    for r in range(rows // 4, 3 * rows // 4):
        taken[(r, centre)] = WALL

    piece_draws = _DRAW_FACTOR * rows * middle
    for glyph, count in (
        (MONSTER, parameters.regular_monsters),
        (SUPER_MONSTER, parameters.super_monsters),
        (BAT, parameters.bats),
        (ABYSS, parameters.abysses),
    ):
        for _ in range(count):
            for _ in range(piece_draws):
                square = (rand() % rows, SIDE + rand() % middle)
                if square not in taken:
                    taken[square] = glyph
                    break
            else:
                raise ParameterError(f"no free square found in {piece_draws} draws")

    del taken[start]
    statics = {square: glyph for square, glyph in taken.items() if glyph in (WALL, ABYSS, LADDER)}
    baddies = {
        square: glyph for square, glyph in taken.items() if glyph in (MONSTER, SUPER_MONSTER, BAT)
    }
    return Board(rows, columns, statics, baddies, start)
