"""What every world's proof that a generated map is winnable shares: budgets, retries, distances.

Each world searches (:func:`mapgen.search.find_line`) its generated maps with
its own rules, never a copy of them (``worlds.crawler.generated.crawler_line``,
``worlds.baddies.generated.baddies_line``). A returned line is a proof: played
from the start by those rules, it wins. ``None`` means no win was found within
``budget`` states, which the generated outputs treat as "not winnable".

The estimate guiding each search is the number of steps to the goal on the
squares that never change (pillars, walls, abysses), counted once per level or
board by :func:`distances`; pieces that move are left to the search itself.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from typing import Final

__all__ = ["ATTEMPTS", "FOUR_WAYS", "SEARCH_BUDGET", "distances", "thinned"]

SEARCH_BUDGET: Final = 4_000
"""States a search may expand before it gives up: about 0.15 s at 80 × 21. Winnable
generated levels are nearly all won within a few hundred; a placement that needs more
is simply drawn again."""

ATTEMPTS: Final = 10
"""Placements an output tries before it gives up; see :func:`thinned`."""

_FAR: Final = float("inf")
FOUR_WAYS: Final = ((-1, 0), (1, 0), (0, -1), (0, 1))
"""Steps north, south, west and east, as (row step, column step)."""


def thinned(attempt: int) -> float:
    """The share of its foes an output places on ``attempt`` (from 0) of :data:`ATTEMPTS`.

    The first half of the attempts place them all; each later one fewer, the last
    none, where a connected dungeon is always winnable: a bad draw costs foes, not
    the dungeon.
    """
    half = ATTEMPTS // 2
    return min(1.0, (ATTEMPTS - 1 - attempt) / half)


def distances(
    rows: int,
    cols: int,
    sources: Iterable[tuple[int, float]],
    passable: Callable[[int], bool],
    ways: Sequence[tuple[int, int]],
) -> list[float]:
    """Steps from each square to the nearest source, over passable squares; ``inf`` if none.

    Sources are given with their starting distance, as (index, distance), so that a
    goal reached by way of another (the exit by way of a treasure) counts in one pass.
    """
    far = [_FAR] * (rows * cols)
    queue: list[tuple[float, int]] = []
    for index, distance in sources:
        if distance < far[index]:
            far[index] = distance
            queue.append((distance, index))
    heapq.heapify(queue)
    while queue:
        distance, index = heapq.heappop(queue)
        if distance > far[index]:
            continue
        row, col = divmod(index, cols)
        for d_row, d_col in ways:
            r, c = row + d_row, col + d_col
            if 0 <= r < rows and 0 <= c < cols:
                near = r * cols + c
                if distance + 1 < far[near] and passable(near):
                    far[near] = distance + 1
                    heapq.heappush(queue, (distance + 1, near))
    return far
