"""The open squares of a map kept as bytes, and the random free square a player joins on.

A map of one byte a square (``bytes`` or ``bytearray``, row after row) needs no
list of its open squares to draw one at random: :class:`OpenSquares` counts the
open squares of each row once (a few milliseconds for 2000 × 2000) and finds the
*n*-th open square in reading order by a binary search over the rows and a scan
of one row. It holds one integer per row, where a list of the open squares held
one or more objects per square (16 MiB as an ``array``, 300 MiB and more as tuples,
on a 2000 × 2000 map).

:func:`free_square` is the draw the classic and battle worlds share; its result
depends only on the random generator and the squares taken, so a world that used to
keep the list of open squares draws exactly the same squares from the same seed.
"""

from __future__ import annotations

import random
import re
from array import array
from bisect import bisect_right
from collections.abc import Container, Iterator
from itertools import islice
from typing import Final

from .api import WorldFull

Square = tuple[int, int]

_COUNT_TYPE: Final = "Q" if array("L").itemsize < 8 else "L"
DRAWS: Final = 16
"""Random draws before the exact list of free squares is built (a crowded map)."""


class OpenSquares:
    """The squares of ``cells`` (``width`` a row) that are not ``wall``, in reading order.

    Which squares are open must not change after this is built (a world's walls
    never move); other tiles may change in place.
    """

    __slots__ = ("_before", "_cells", "_open", "_width", "total")

    def __init__(self, cells: bytes | bytearray, width: int, wall: str) -> None:
        self._cells = cells
        self._width = width
        wall_byte = wall.encode("ascii")
        self._open = re.compile(b"[^" + re.escape(wall_byte) + b"]")
        before = array(_COUNT_TYPE, [0])
        running = 0
        for start in range(0, len(cells), width):
            running += width - cells.count(wall_byte, start, start + width)
            before.append(running)
        self._before = before
        """Open squares in the rows above each row (and, last, in all of them)."""
        self.total = running
        """How many squares are open."""

    def __len__(self) -> int:
        return self.total

    def nth(self, number: int) -> Square:
        """The open square ``number`` (0 ≤ ``number`` < ``total``) in reading order."""
        if not 0 <= number < self.total:
            raise IndexError(number)
        row = bisect_right(self._before, number) - 1
        start = row * self._width
        found = self._open.finditer(self._cells, start, start + self._width)
        match = next(islice(found, number - self._before[row], None))
        return row, match.start() - start

    def __iter__(self) -> Iterator[Square]:
        width = self._width
        for match in self._open.finditer(self._cells):
            yield divmod(match.start(), width)


def free_square(squares: OpenSquares, rng: random.Random, taken: Container[Square]) -> Square:
    """An open square not in ``taken``, drawn with ``rng``; :class:`WorldFull` if none is left.

    A few draws among all the open squares first (cheap while the map is mostly
    free), then one among the exact list of free ones, so a crowded map neither
    hangs nor loses determinism.
    """
    total = squares.total
    if total:
        for _ in range(DRAWS):
            square = squares.nth(rng.randrange(total))
            if square not in taken:
                return square
    free = [square for square in squares if square not in taken]
    if not free:
        raise WorldFull("there is no free square left on this map")
    return free[rng.randrange(len(free))]
