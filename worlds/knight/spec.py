"""What ``--map`` (and the ``dod-knight`` argument) may say: which grid, and options.

A spec is a grid source, then optional ``key=value`` options after commas::

    example                          a shipped grid, by name (maps/knight/<name>.txt)
    path/to/my-grid.txt              a grid file (see worlds.knight.grid)
    20x30                            a generated grid, 20 rows by 30 columns
    20x30,range=-50..50,seed=7       ... values in [-50, 50], generator seed 7
    example,health=12                any grid, the knight starting with 12 health

Options: ``health=N`` (N ≥ 1; default: the solver's minimum), and for generated
grids only ``range=LOW..HIGH`` (default ``-1000..1000``) and ``seed=N`` (default:
the server's ``--seed``). A spec that names an existing file is that file, even
if its name holds commas. Every mistake is a :class:`~worlds.errors.MapError`
that names the spec and says what is accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import maps

from ..errors import MapError
from .dungeon_master import DEFAULT_HIGH, DEFAULT_LOW, generate
from .grid import Grid, parse_grid, read_grid

__all__ = ["DEFAULT_GRID", "GRID_SUFFIX", "GridSpec", "parse_spec", "shipped_grids"]

WORLD: Final = "knight"
GRID_SUFFIX: Final = ".txt"
DEFAULT_GRID: Final = "example"

_SIZE: Final = re.compile(r"(\d+)[xX](\d+)")
_INTEGER: Final = re.compile(r"[+-]?\d+")
_RANGE: Final = re.compile(r"([+-]?\d+)\.\.([+-]?\d+)")
_OPTIONS: Final = ("health", "range", "seed")


@dataclass(frozen=True, slots=True)
class GridSpec:
    """A grid loaded from a spec, what to call it, and the starting health asked for."""

    grid: Grid
    name: str
    health: int | None


def shipped_grids() -> list[str]:
    """The names of the grids shipped in ``maps/knight/``."""
    return sorted(maps.shipped(WORLD, GRID_SUFFIX))


def _integer(spec: str, key: str, text: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise MapError(spec, f"{key}= takes a whole number, not {text!r}")
    return int(text)


def parse_spec(spec: str | None, *, seed: int = 0) -> GridSpec:
    """Load the grid ``spec`` names (``None``: the default shipped grid).

    ``seed`` is the generator's seed when the spec generates a grid and gives
    no ``seed=`` of its own.
    """
    spec = spec or DEFAULT_GRID
    if Path(spec).is_file():
        return GridSpec(read_grid(spec), Path(spec).stem, None)
    source, *pairs = (part.strip() for part in spec.split(","))
    options: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        key = key.strip().lower()
        if not equals or key not in _OPTIONS:
            raise MapError(
                spec, f"unknown option {pair!r}; options are health=N, range=LOW..HIGH, seed=N"
            )
        if key in options:
            raise MapError(spec, f"{key}= is given twice")
        options[key] = value.strip()

    health = None
    if "health" in options:
        health = _integer(spec, "health", options["health"])
        if health < 1:
            raise MapError(spec, f"the starting health must be at least 1, not {health}")

    size = _SIZE.fullmatch(source)
    if size is None:
        extra = sorted(set(options) - {"health"})
        if extra:
            raise MapError(spec, f"{extra[0]}= applies only to generated grids such as 20x30")
        return GridSpec(_load(spec, source), Path(source).stem, health)

    rows, cols = int(size.group(1)), int(size.group(2))
    low, high = DEFAULT_LOW, DEFAULT_HIGH
    if "range" in options:
        bounds = _RANGE.fullmatch(options["range"])
        if bounds is None:
            raise MapError(
                spec, f"range= takes LOW..HIGH, such as -50..50, not {options['range']!r}"
            )
        low, high = int(bounds.group(1)), int(bounds.group(2))
    if "seed" in options:
        seed = _integer(spec, "seed", options["seed"])
    try:
        grid = generate(rows, cols, low=low, high=high, seed=seed)
    except ValueError as error:
        raise MapError(spec, str(error)) from None
    name = f"{rows}x{cols},range={low}..{high},seed={seed}"
    return GridSpec(grid, name, health)


def _load(spec: str, source: str) -> Grid:
    shipped = maps.shipped(WORLD, GRID_SUFFIX)
    if source in shipped and not Path(source).exists():
        return parse_grid(shipped[source].read_text("utf-8"), f"maps/{WORLD}/{source}{GRID_SUFFIX}")
    if Path(source).is_file():
        return read_grid(source)
    raise MapError(
        spec,
        f"no such file, no shipped knight grid of that name (shipped: "
        f"{', '.join(sorted(shipped))}), and not a size such as 20x30",
    )
