"""The knight's minimum health (RULES §5), by the four algorithms of the study.

The knight starts on the top-left square of a grid, moves only east (right) or
south (down), adds each square's value to its health (the first and the last
square included), must keep its health above 0 after every square, and must
reach the bottom-right square. Every solver returns a :class:`Solution`: the
least starting health that makes this possible, and one path that achieves it.
All four always agree on the health; when several paths are optimal they may
return different ones.

=================  ====================  ===================  =======================
function           time                  extra space          meant for
=================  ====================  ===================  =======================
solve_recursive    O(2^(rows+cols))      O(rows + cols)       small grids only
solve_memoised     O(rows × cols)        O(rows × cols)       any size
solve_bottom_up    O(rows × cols)        O(cols)              any size (the default)
solve_binary       O(rows × cols × log)  O(cols)              any size
=================  ====================  ===================  =======================

Only :func:`solve_recursive` uses Python recursion, one level per square of the
path, so it refuses a grid whose path is longer than :data:`MAX_RECURSIVE_PATH`
squares with :class:`GridTooLarge` (its time explodes long before that on
square grids). The other three use loops and explicit stacks: no grid size makes
them hit Python's recursion limit.

Terms used below: the *need* of a square is the least health the knight must
have just before stepping onto it to finish alive; the answer is the need of the
top-left square. A square's need is ``max(1, min(need east, need south) - value)``,
and the bottom-right square's is ``max(1, 1 - value)``.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

__all__ = [
    "ALGORITHMS",
    "MAX_RECURSIVE_PATH",
    "GridTooLarge",
    "Path",
    "Solution",
    "Values",
    "health_along",
    "min_health",
    "path_need",
    "recursive_calls",
    "solve",
    "solve_binary",
    "solve_bottom_up",
    "solve_memoised",
    "solve_recursive",
    "surviving_path",
]

Values: TypeAlias = Sequence[Sequence[int]]
"""A grid as rows of integers: a :class:`~worlds.knight.grid.Grid` or a list of lists."""
Path: TypeAlias = tuple[tuple[int, int], ...]
"""Squares (row, column) from (0, 0) to the bottom-right square, each one step E or S."""
_Chain: TypeAlias = "tuple[tuple[int, int], _Chain] | None"
"""A path as nested pairs (square, rest of the path), built by plain recursion."""

MAX_RECURSIVE_PATH: Final = 400
"""The longest path (rows + cols - 1 squares) plain recursion accepts: one call deep per square."""


class GridTooLarge(ValueError):
    """Plain recursion was asked to solve a grid whose path would exceed the recursion limit."""


@dataclass(frozen=True, slots=True)
class Solution:
    """The least starting health, and a path that survives with exactly that health."""

    health: int
    path: Path

    @property
    def moves(self) -> str:
        """The path as ``MOVE`` directions, one letter per step: ``"EESS"``."""
        return "".join(
            "E" if column != before[1] else "S"
            for before, (_, column) in zip(self.path, self.path[1:], strict=False)
        )


def _shape(grid: Values) -> tuple[list[Sequence[int]], int, int]:
    rows = list(grid)
    if not rows or not rows[0]:
        raise ValueError("a grid needs at least one row and one column")
    width = len(rows[0])
    if any(len(row) != width for row in rows):
        raise ValueError("every row of a grid must have the same length")
    return rows, len(rows), width


# -- checking a path ----------------------------------------------------------------


def health_along(grid: Values, path: Path, health: int) -> list[int]:
    """The knight's health after each square of ``path``, starting with ``health``.

    Raises :class:`ValueError` if ``path`` does not go from the top-left to the
    bottom-right square in single steps east or south. The health is followed
    even below zero: the caller decides what to make of it.
    """
    rows, height, width = _shape(grid)
    if not path or path[0] != (0, 0) or path[-1] != (height - 1, width - 1):
        raise ValueError("a path runs from (0, 0) to the bottom-right square")
    after = []
    previous = None
    for row, column in path:
        if previous is not None and (row - previous[0], column - previous[1]) not in (
            (0, 1),
            (1, 0),
        ):
            raise ValueError(f"{previous} to {(row, column)} is not one step east or south")
        health += rows[row][column]
        after.append(health)
        previous = (row, column)
    return after


def path_need(grid: Values, path: Path) -> int:
    """The least starting health with which ``path`` keeps the knight alive."""
    lowest = min(health_along(grid, path, 0))
    return max(1, 1 - lowest)


# -- plain recursion ------------------------------------------------------------------


def recursive_calls(rows: int, cols: int) -> int:
    """How many calls plain recursion makes on a grid of this size (C(rows+cols, rows) - 1)."""
    return math.comb(rows + cols, rows) - 1


def solve_recursive(grid: Values) -> Solution:
    """Plain recursion, as in the study: exponential, for small grids only.

    Raises :class:`GridTooLarge` when the path is longer than
    :data:`MAX_RECURSIVE_PATH` squares.
    """
    rows, height, width = _shape(grid)
    if height + width - 1 > MAX_RECURSIVE_PATH:
        raise GridTooLarge(
            f"plain recursion goes one call deep per square of the path; a {height} x {width} "
            f"grid's path has {height + width - 1} squares (the limit is {MAX_RECURSIVE_PATH})"
        )
    last_row, last_col = height - 1, width - 1

    # Each call returns (need, path) with the path as nested pairs (square, rest),
    # so that extending it costs O(1) instead of copying a tuple per call.
    def need(row: int, column: int) -> tuple[int, _Chain]:
        value = rows[row][column]
        if row == last_row and column == last_col:
            return max(1, 1 - value), ((row, column), None)
        if row == last_row:
            after = need(row, column + 1)
        elif column == last_col:
            after = need(row + 1, column)
        else:
            east = need(row, column + 1)
            south = need(row + 1, column)
            after = east if east[0] <= south[0] else south
        return max(1, after[0] - value), ((row, column), after[1])

    health, chain = need(0, 0)
    path: list[tuple[int, int]] = []
    while chain is not None:
        square, chain = chain
        path.append(square)
    return Solution(health, tuple(path))


# -- memoised recursion -----------------------------------------------------------------


def solve_memoised(grid: Values) -> Solution:
    """Memoised recursion (top-down), with an explicit stack instead of Python calls.

    The recursion visits squares depth-first from the top-left, exactly as the
    study's memoised version does, and stores each need once; the stack of
    pending squares lives in a list, so the depth is bounded by memory only.
    """
    rows, height, width = _shape(grid)
    size = height * width
    last_row, last_col = height - 1, width - 1
    # Needs are at least 1, so 0 marks "not computed yet"; an array of 64-bit
    # integers keeps 4 million needs in 32 MB.
    need = array("q", bytes(8 * size))
    stack = [0]
    while stack:
        index = stack[-1]
        if need[index]:
            stack.pop()
            continue
        row, column = divmod(index, width)
        east = index + 1 if column < last_col else -1
        south = index + width if row < last_row else -1
        waiting = False
        if east >= 0 and not need[east]:
            stack.append(east)
            waiting = True
        if south >= 0 and not need[south]:
            stack.append(south)
            waiting = True
        if waiting:
            continue
        stack.pop()
        if east < 0 and south < 0:
            after = 1
        elif south < 0:
            after = need[east]
        elif east < 0:
            after = need[south]
        else:
            after = min(need[east], need[south])
        found = after - rows[row][column]
        need[index] = found if found > 1 else 1

    path = [(0, 0)]
    row = column = 0
    while (row, column) != (last_row, last_col):
        index = row * width + column
        if row == last_row or (column < last_col and need[index + 1] <= need[index + width]):
            column += 1
        else:
            row += 1
        path.append((row, column))
    return Solution(need[0], tuple(path))


# -- the bottom-up table, one row at a time ----------------------------------------------


def _needs(rows: list[Sequence[int]], r0: int, c0: int, r1: int, c1: int, end: int) -> list[int]:
    """The need of each square of row ``r0``, columns ``c0..c1``, in the rectangle to (r1, c1).

    ``end`` is the health the knight must still have after the square (r1, c1)
    (at least 1). The table is built from the bottom row up, keeping one row.
    """
    values = rows[r1]
    width = c1 - c0 + 1
    need = [0] * width
    after = end
    for k in range(width - 1, -1, -1):
        found = after - values[c0 + k]
        after = need[k] = found if found > 1 else 1
    for r in range(r1 - 1, r0 - 1, -1):
        values = rows[r]
        found = need[-1] - values[c1]
        right = need[-1] = found if found > 1 else 1
        for k in range(width - 2, -1, -1):
            below = need[k]
            found = (below if below < right else right) - values[c0 + k]
            right = need[k] = found if found > 1 else 1
    return need


def _best(rows: list[Sequence[int]], r0: int, c0: int, r1: int, c1: int, start: int) -> list[int]:
    """The most health the knight can have after each square of row ``r1``, columns ``c0..c1``.

    The knight enters (r0, c0) with ``start`` health and must stay above 0 on
    the way; 0 marks a square it cannot reach alive. Built from the top row down,
    keeping one row.
    """
    values = rows[r0]
    width = c1 - c0 + 1
    best = [0] * width
    health = start
    for k in range(width):
        if health > 0:
            health += values[c0 + k]
        best[k] = health if health > 0 else 0
    for r in range(r0 + 1, r1 + 1):
        values = rows[r]
        left = 0
        for k in range(width):
            above = best[k]
            came = above if above > left else left
            if came:
                came += values[c0 + k]
                left = best[k] = came if came > 0 else 0
            else:
                left = best[k] = 0
    return best


def _trace(rows: list[Sequence[int]], height: int, width: int, health: int) -> Path:
    """A path that keeps a knight starting with ``health`` alive; the health must suffice.

    Divide and conquer in the manner of Hirschberg's algorithm, so that only
    one row of numbers is kept at a time: split the rectangle at its middle row,
    run :func:`_best` down to it and :func:`_needs` up to the row below, and
    cross where the most health that can arrive covers the least that is needed
    below. The two halves are solved the same way, on an explicit stack. Each
    level costs half the area of the one before, so the whole costs about twice
    the area of the grid.
    """
    path: list[tuple[int, int]] = []
    # (r0, c0, r1, c1, start, end): get from (r0, c0), entered with `start`
    # health, to (r1, c1), left with at least `end`.
    stack = [(0, 0, height - 1, width - 1, health, 1)]
    while stack:
        r0, c0, r1, c1, start, end = stack.pop()
        if r0 == r1:
            path.extend((r0, c) for c in range(c0, c1 + 1))
            continue
        if c0 == c1:
            path.extend((r, c0) for r in range(r0, r1 + 1))
            continue
        middle = (r0 + r1) // 2
        best = _best(rows, r0, c0, middle, c1, start)
        need = _needs(rows, middle + 1, c0, r1, c1, end)
        # Some column qualifies: the caller made sure `start` suffices.
        k = next(k for k in range(c1 - c0 + 1) if best[k] >= need[k])
        column = c0 + k
        # Pushed second half first: the first half is taken off the stack, and
        # so written to the path, before it.
        stack.append((middle + 1, column, r1, c1, need[k], end))
        stack.append((r0, c0, middle, column, start, need[k]))
    return tuple(path)


def min_health(grid: Values) -> int:
    """The least starting health alone, from the bottom-up table: O(rows × cols), O(cols) space."""
    rows, height, width = _shape(grid)
    return _needs(rows, 0, 0, height - 1, width - 1, 1)[0]


def surviving_path(grid: Values, health: int) -> Path:
    """A path on which a knight starting with ``health`` stays alive, in O(cols) extra space.

    Raises :class:`ValueError` if no path survives with that health.
    """
    rows, height, width = _shape(grid)
    least = _needs(rows, 0, 0, height - 1, width - 1, 1)[0]
    if health < least:
        raise ValueError(f"{health} health is not enough to cross this grid (it needs {least})")
    return _trace(rows, height, width, health)


def solve_bottom_up(grid: Values) -> Solution:
    """The bottom-up table: O(rows × cols) time, O(cols) extra space.

    The need table is filled from the bottom-right corner one row at a time,
    keeping a single row; the path is then recovered by :func:`surviving_path`,
    which also keeps one row at a time (and costs about twice the table again).
    """
    rows, height, width = _shape(grid)
    health = _needs(rows, 0, 0, height - 1, width - 1, 1)[0]
    return Solution(health, _trace(rows, height, width, health))


# -- binary search over the starting health ----------------------------------------------


def solve_binary(grid: Values) -> Solution:
    """Binary search over the starting health, as in the study, in O(cols) extra space.

    Each guess is checked by a forward pass that keeps, for every square of a
    row, the most health the knight can arrive with. The search runs between 1
    and the health the path "all the way east, then all the way south" needs,
    which always suffices, so it takes about log2 of that many passes.
    """
    rows, height, width = _shape(grid)
    last_row, last_col = height - 1, width - 1
    low, high = (
        1,
        path_need(
            rows,
            tuple((0, c) for c in range(width)) + tuple((r, last_col) for r in range(1, height)),
        ),
    )
    while low < high:
        guess = (low + high) // 2
        if _best(rows, 0, 0, last_row, last_col, guess)[-1] > 0:
            high = guess
        else:
            low = guess + 1
    return Solution(low, _trace(rows, height, width, low))


solve = solve_bottom_up
"""The solver to use when you have no reason to choose: fast, and O(cols) extra space."""

ALGORITHMS: Final[dict[str, Callable[[Values], Solution]]] = {
    "recursive": solve_recursive,
    "memoised": solve_memoised,
    "bottom-up": solve_bottom_up,
    "binary-search": solve_binary,
}
"""Every algorithm by the name the command line and the benchmark use, slowest first."""
