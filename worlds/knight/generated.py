"""A generated dungeon (RULES §4) as a knight's grid: corridors of potions through rock of traps.

Room floor and corridor squares hold values drawn from ``[0, high]`` (potions and
empty squares), rock squares values from ``[low, -1]`` (traps), all from
``random.Random(seed)``, row by row. The knight, who moves only south and east,
does best following rooms and corridors, and the solver still finds the least
health for any grid. The same dungeon, range and seed give the same grid.
"""

from __future__ import annotations

import random

from dungeon_of_doom.mapgen.dungeon import ROCK, Dungeon

from .grid import Grid

__all__ = ["to_grid"]


def to_grid(dungeon: Dungeon, *, low: int, high: int, seed: int = 0) -> Grid:
    """``dungeon`` as a grid (see the module docstring), values within ``[low, high]``.

    A range with no negative values has no traps, and one with no others no potions.
    """
    draw = random.Random(seed).randint
    trap_high = min(-1, high)
    potion_low = max(0, low)
    width, cells = dungeon.width, dungeon.cells
    rows = []
    for start in range(0, len(cells), width):
        rows.append(
            [
                draw(low, max(low, trap_high))
                if cell == ROCK
                else draw(min(potion_low, high), high)
                for cell in cells[start : start + width]
            ]
        )
    return Grid(rows)
