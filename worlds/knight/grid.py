"""The knight's grid, and its file format (RULES §5).

A :class:`Grid` is a rectangle of integers, at least one row and one column:
traps are negative, potions positive. It is immutable, compares by value, and
stores each row as a compact ``array('q')`` so that a 2,000 × 2,000 grid takes
32 MB rather than the hundred or so that lists of Python integers would. Values
must therefore fit in 64 bits; sums computed from them never overflow (they are
Python integers).

The file format is one row per line, the values separated by spaces or tabs::

    # The seed's example: the least starting health is 7.
    -2  -3   3
    -5 -10   1
    10  30  -5

``#`` starts a comment that runs to the end of its line; blank lines and
comment-only lines are skipped anywhere. ``LF``, ``CRLF`` or ``CR`` line ends,
a final newline or none, and a UTF-8 byte-order mark are all accepted. Refused,
with ``file:line:column: reason``: a value that is not a whole number, a value
outside 64 bits, rows of unequal length, no rows at all, and bytes that are not
UTF-8. :func:`format_grid` writes a grid back in this format, aligned in
columns, so that ``parse_grid(format_grid(grid)) == grid``.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Final, overload

from ..errors import MapError, read_text

__all__ = ["MAX_VALUE", "MIN_VALUE", "Grid", "format_grid", "parse_grid", "read_grid"]

MIN_VALUE: Final = -(2**63)
MAX_VALUE: Final = 2**63 - 1

_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")
_TOKEN: Final = re.compile(r"\S+")
_INTEGER: Final = re.compile(r"[+-]?\d+")


class Grid(Sequence["array[int]"]):
    """An immutable rectangle of integers; ``grid[row][column]`` is a value."""

    __slots__ = ("_rows",)

    def __init__(self, rows: Iterable[Iterable[int]]) -> None:
        try:
            built = tuple(array("q", row) for row in rows)
        except OverflowError:
            raise ValueError(f"grid values must lie in [{MIN_VALUE}, {MAX_VALUE}]") from None
        if not built or not built[0]:
            raise ValueError("a grid needs at least one row and one column")
        width = len(built[0])
        for number, row in enumerate(built):
            if len(row) != width:
                raise ValueError(f"row {number} has {len(row)} values, row 0 has {width}")
        self._rows = built

    @property
    def height(self) -> int:
        return len(self._rows)

    @property
    def width(self) -> int:
        return len(self._rows[0])

    @property
    def goal(self) -> tuple[int, int]:
        """The bottom-right square, where the knight must arrive."""
        return (len(self._rows) - 1, len(self._rows[0]) - 1)

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> array[int]: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[array[int], ...]: ...
    def __getitem__(self, index: int | slice) -> array[int] | tuple[array[int], ...]:
        # Rows are handed out as they are: callers must not change them, and the
        # solvers rely on getting them without a copy.
        return self._rows[index]

    def __iter__(self) -> Iterator[array[int]]:
        return iter(self._rows)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and self._rows == other._rows

    def __hash__(self) -> int:
        return hash(tuple(tuple(row) for row in self._rows))

    def __repr__(self) -> str:
        if self.height * self.width <= 25:
            return f"Grid({[list(row) for row in self._rows]!r})"
        return f"<Grid {self.height} x {self.width}>"

    def to_lists(self) -> list[list[int]]:
        """The values as a list of lists of ``int``."""
        return [list(row) for row in self._rows]


def parse_grid(text: str, source: str = "<grid>") -> Grid:
    """Check ``text`` and return its grid; raises :class:`MapError` with the place of a fault."""
    rows: list[list[int]] = []
    first_line = 0
    for number, line in enumerate(_LINE_BREAK.split(text.removeprefix("\ufeff")), 1):
        content = line.split("#", 1)[0]
        row: list[int] = []
        for token in _TOKEN.finditer(content):
            word = token.group()
            if not _INTEGER.fullmatch(word):
                raise MapError(
                    source, f"{word[:20]!r} is not a whole number", number, token.start() + 1
                )
            value = int(word)
            if not MIN_VALUE <= value <= MAX_VALUE:
                raise MapError(
                    source, f"{word[:20]} does not fit in 64 bits", number, token.start() + 1
                )
            row.append(value)
        if not row:
            continue
        if rows and len(row) != len(rows[0]):
            tokens = list(_TOKEN.finditer(content))
            place = (
                tokens[len(rows[0])].start() + 1
                if len(row) > len(rows[0])
                else len(content.rstrip()) + 1
            )
            raise MapError(
                source,
                f"this row has {len(row)} values but the first row "
                f"(line {first_line}) has {len(rows[0])}",
                number,
                place,
            )
        if not rows:
            first_line = number
        rows.append(row)
    if not rows:
        raise MapError(source, "the grid has no rows")
    return Grid(rows)


def read_grid(path: str | Path) -> Grid:
    """Read and check a grid file; undecodable bytes are reported by place."""
    return parse_grid(read_text(path), str(path))


def format_grid(grid: Grid, comment: str | None = None) -> str:
    """``grid`` in the file format, columns right-aligned, ``LF`` line ends.

    ``comment`` (one or more lines) is written first, each line after ``# ``.
    """
    width = max(len(str(value)) for row in grid for value in row)
    lines = [f"# {line}".rstrip() for line in comment.splitlines()] if comment else []
    lines += [" ".join(f"{value:>{width}}" for value in row) for row in grid]
    return "\n".join(lines) + "\n"
