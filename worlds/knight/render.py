"""How the knight's grid is drawn as text, and read back by clients.

Two views, because a value does not fit in one character:

* **Glyphs**, one character a square, for ``LOOK`` (which must stay five lines of
  five characters for classic clients): ``-`` a trap (a negative value), ``+`` a
  potion (positive), ``.`` an empty square (0), ``E`` the bottom-right square
  the knight must reach, whatever its value. ``LOOK`` adds, as for every world,
  ``X`` in the corners, ``#`` off the grid, and ``P``/``B`` for other knights.

* **Numbers**, for ``MAP`` and the ``dod-knight`` command: every square is a field
  of the same width, its value right-aligned, so the columns line up and every
  line has the same length::

       [-2]  -3*    3
         -5  -10    1
         10   30   -5

  A value may be wrapped in marks: ``[v]`` the viewer (or, from ``dod-knight``,
  a square of the optimal path), ``(v)`` another knight, ``v*`` a square the
  viewer has already crossed. Fields are ``width + 2`` characters: the value
  right-aligned in ``width`` characters (the widest value of the grid), with
  room for a mark on each side.

:func:`read_numbers` turns such lines back into a grid and the marked squares,
which is what a bot needs to play the solver's path from a ``MAP`` reply.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from .grid import Grid

__all__ = [
    "CROSSED",
    "EMPTY",
    "GOAL",
    "KNIGHT",
    "POTION",
    "TRAP",
    "YOU",
    "Numbers",
    "glyph_rows",
    "number_rows",
    "read_numbers",
]

TRAP: Final = "-"
POTION: Final = "+"
EMPTY: Final = "."
GOAL: Final = "E"

YOU: Final = ("[", "]")
KNIGHT: Final = ("(", ")")
CROSSED: Final = (" ", "*")
_PLAIN: Final = (" ", " ")

_FIELD: Final = re.compile(r"([\[(]?)([+-]?\d+)([\])*]?)")


def glyph_rows(grid: Grid) -> tuple[str, ...]:
    """The grid as one glyph a square (see the module docstring), for ``LOOK``."""
    rows = [
        "".join(TRAP if value < 0 else POTION if value > 0 else EMPTY for value in row)
        for row in grid
    ]
    rows[-1] = rows[-1][:-1] + GOAL
    return tuple(rows)


def number_rows(
    grid: Grid, marks: Mapping[tuple[int, int], tuple[str, str]] | None = None
) -> tuple[str, ...]:
    """The grid as aligned numbers, ``marks`` wrapping the values of some squares.

    A mark is a pair of characters put left and right of the value: :data:`YOU`,
    :data:`KNIGHT` or :data:`CROSSED`. Every line has the same length.
    """
    texts = [[str(value) for value in row] for row in grid]
    width = max(len(text) for row in texts for text in row)
    marks = marks or {}
    lines = []
    for r, row in enumerate(texts):
        fields = []
        for c, text in enumerate(row):
            left, right = marks.get((r, c), _PLAIN)
            fields.append(" " * (width - len(text)) + left + text + right)
        lines.append("".join(fields))
    return tuple(lines)


@dataclass(frozen=True, slots=True)
class Numbers:
    """What :func:`read_numbers` found: the grid and the marked squares."""

    grid: Grid
    you: tuple[int, int] | None
    knights: frozenset[tuple[int, int]]
    crossed: frozenset[tuple[int, int]]


def read_numbers(lines: Sequence[str]) -> Numbers:
    """Read rows drawn by :func:`number_rows` (the rows of a knight ``MAP`` reply).

    Raises :class:`ValueError` if the lines are not such a drawing.
    """
    values: list[list[int]] = []
    you = None
    knights = set()
    crossed = set()
    for r, line in enumerate(lines):
        row = []
        for c, field in enumerate(_FIELD.finditer(line)):
            left, text, right = field.groups()
            row.append(int(text))
            if left == "[":
                you = (r, c)
            elif left == "(":
                knights.add((r, c))
            elif right == "*":
                crossed.add((r, c))
        if _FIELD.sub("", line).strip():
            raise ValueError(f"line {r + 1} is not a row of numbers: {line[:40]!r}")
        values.append(row)
    return Numbers(Grid(values), you, frozenset(knights), frozenset(crossed))
