"""The knight's minimum health (RULES §5): solvers, a grid generator, and a playable world.

* :mod:`worlds.knight.solver`: the least starting health and an optimal path, by
  plain recursion, memoised recursion, the bottom-up table and binary search.
* :mod:`worlds.knight.dungeon_master`: seeded random grids.
* :mod:`worlds.knight.grid`: the grid type and its file format.
* :mod:`worlds.knight.spec`: what ``--map`` may name (a file, a shipped grid, a
  generated one) and the starting health.
* :mod:`worlds.knight.render`: the glyphs of ``LOOK`` and the numbers of ``MAP``,
  and reading a ``MAP`` reply back.
* :mod:`worlds.knight.world`: the world the server plays; :data:`plugin` opens it.
* :mod:`worlds.knight.cli`: the ``dod-knight`` command.
"""

from __future__ import annotations

from ..errors import MapError
from ..limits import OPERATOR_LIMITS, Limits
from .grid import Grid, format_grid, parse_grid, read_grid
from .spec import parse_spec, shipped_grids
from .world import KnightWorld

__all__ = [
    "Grid",
    "KnightPlugin",
    "KnightWorld",
    "format_grid",
    "parse_grid",
    "plugin",
    "read_grid",
]


class KnightPlugin:
    """Opens knight worlds from a spec (see :mod:`worlds.knight.spec`)."""

    name = "knight"
    summary = "cross a grid of traps and potions, moving only S and E, without dying"

    def maps(self) -> list[str]:
        return shipped_grids()

    def open(
        self, map_spec: str | None, *, seed: int, limits: Limits = OPERATOR_LIMITS
    ) -> KnightWorld:
        """A world on the grid ``map_spec`` names; ``seed`` generates grids that give none."""
        spec = parse_spec(map_spec, seed=seed, limits=limits)
        try:
            return KnightWorld(spec.grid, health=spec.health, name=spec.name)
        except ValueError as error:
            raise MapError(map_spec or spec.name, str(error)) from None


plugin = KnightPlugin()
