"""The dungeon master: seeded random grids of traps and potions (RULES §5).

:func:`generate` fills a grid row by row with values drawn uniformly from
``[low, high]`` (``[-1000, 1000]`` by default, as in the study) by a
``random.Random(seed)`` of its own. The same size, range and seed give the same
grid on every machine and every run.
"""

from __future__ import annotations

import random
from typing import Final

from .grid import MAX_VALUE, MIN_VALUE, Grid

__all__ = ["DEFAULT_HIGH", "DEFAULT_LOW", "generate"]

DEFAULT_LOW: Final = -1000
DEFAULT_HIGH: Final = 1000


def generate(
    rows: int, cols: int, *, low: int = DEFAULT_LOW, high: int = DEFAULT_HIGH, seed: int = 0
) -> Grid:
    """A ``rows`` × ``cols`` grid of values drawn from ``[low, high]`` with ``seed``.

    Raises :class:`ValueError` for a size below 1 × 1 or an empty or out-of-range range.
    """
    if rows < 1 or cols < 1:
        raise ValueError(f"a grid is at least 1 x 1, not {rows} x {cols}")
    if low > high:
        raise ValueError(f"the range {low}..{high} is empty")
    if low < MIN_VALUE or high > MAX_VALUE:
        raise ValueError(f"values must lie in [{MIN_VALUE}, {MAX_VALUE}]")
    draw = random.Random(seed).randint
    return Grid([draw(low, high) for _ in range(cols)] for _ in range(rows))
