"""What ``--map`` (and the ``dod-knight`` argument) may say: which grid, and options.

A spec is a grid source, then optional ``key=value`` options after commas::

    example                          a shipped grid, by name (maps/knight/<name>.txt)
    path/to/my-grid.txt              a grid file (see worlds.knight.grid)
    20x30                            a generated grid, 20 rows by 30 columns
    20x30,range=-50..50,seed=7       ... values in [-50, 50], generator seed 7
    example,health=12                any grid, the knight starting with 12 health
    generated:7                      a generated dungeon as a grid (worlds.knight.generated)
    generated:7,width=40,health=50   ... with the dungeon's settings and the options

Options: ``health=N`` (N ≥ 1; default: the solver's minimum), and for generated
grids only ``range=LOW..HIGH`` (default ``-1000..1000``) and ``seed=N`` (default:
the server's ``--seed``; a ``generated`` spec gives its seed its own way, see
:mod:`worlds.mapspec`). A spec that names an existing file the limits allow is
that file, even if its name holds commas. A grid of more squares than the
limits allow is refused before it is made. Every mistake is a :class:`~worlds.errors.MapError`
that names the spec and says what is accepted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dungeon_of_doom import maps

from ..errors import MapError
from ..limits import OPERATOR_LIMITS, Limits
from ..mapspec import MapSource, generated_spec, is_generated, locate, not_found
from .dungeon_master import DEFAULT_HIGH, DEFAULT_LOW, generate
from .generated import to_grid
from .grid import MAX_VALUE, MIN_VALUE, Grid, parse_grid

__all__ = ["DEFAULT_GRID", "GRID_SUFFIX", "GridSpec", "parse_spec", "shipped_grids"]

WORLD: Final = "knight"
GRID_SUFFIX: Final = ".txt"
DEFAULT_GRID: Final = "example"

_SIZE: Final = re.compile(r"(\d+)[xX](\d+)")
_INTEGER: Final = re.compile(r"[+-]?\d+")
_RANGE: Final = re.compile(r"([+-]?\d+)\.\.([+-]?\d+)")
_OPTIONS: Final = ("health", "range", "seed")
_OURS: Final = ("health", "range")
"""The options a ``generated`` spec may carry besides the dungeon's own settings."""


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


def parse_spec(spec: str | None, *, seed: int = 0, limits: Limits = OPERATOR_LIMITS) -> GridSpec:
    """Load the grid ``spec`` names (``None``: the default shipped grid).

    ``seed`` is the generator's seed when the spec generates a grid and gives
    no ``seed=`` of its own. Files are read as ``limits.files`` allows, and a
    grid past ``limits.cells`` is refused before it is made.
    """
    spec = spec or DEFAULT_GRID
    whole = limits.files.find(spec)
    if whole is not None:
        return GridSpec(_read(spec, limits, whole), whole.stem, None)
    if is_generated(spec):
        return _generated(spec, seed, limits)
    source, *pairs = (part.strip() for part in spec.split(","))
    options = _options(spec, pairs, _OPTIONS)
    health = _health(spec, options)

    size = _SIZE.fullmatch(source)
    if size is None:
        extra = sorted(set(options) - {"health"})
        if extra:
            raise MapError(spec, f"{extra[0]}= applies only to generated grids such as 20x30")
        return GridSpec(_load(spec, source, limits), Path(source).stem, health)

    rows, cols = int(size.group(1)), int(size.group(2))
    limits.check_cells(spec, "the knight grid", rows, cols)
    low, high = _range(spec, options)
    if "seed" in options:
        seed = _integer(spec, "seed", options["seed"])
    try:
        grid = generate(rows, cols, low=low, high=high, seed=seed)
    except ValueError as error:
        raise MapError(spec, str(error)) from None
    name = f"{rows}x{cols},range={low}..{high},seed={seed}"
    return GridSpec(grid, name, health)


def _options(spec: str, pairs: list[str], accepted: tuple[str, ...]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        key = key.strip().lower()
        if not equals or key not in accepted:
            raise MapError(
                spec,
                f"unknown option {pair[:30]!r}; options are health=N, range=LOW..HIGH, seed=N",
            )
        if key in options:
            raise MapError(spec, f"{key}= is given twice")
        options[key] = value.strip()
    return options


def _health(spec: str, options: dict[str, str]) -> int | None:
    if "health" not in options:
        return None
    health = _integer(spec, "health", options["health"])
    if health < 1:
        raise MapError(spec, f"the starting health must be at least 1, not {health}")
    return health


def _range(spec: str, options: dict[str, str]) -> tuple[int, int]:
    if "range" not in options:
        return DEFAULT_LOW, DEFAULT_HIGH
    bounds = _RANGE.fullmatch(options["range"])
    if bounds is None:
        raise MapError(
            spec, f"range= takes LOW..HIGH, such as -50..50, not {options['range'][:30]!r}"
        )
    low, high = int(bounds.group(1)), int(bounds.group(2))
    if low > high:
        raise MapError(spec, f"the range {low}..{high} is empty")
    if low < MIN_VALUE or high > MAX_VALUE:
        raise MapError(spec, f"values must lie in [{MIN_VALUE}, {MAX_VALUE}]")
    return low, high


def _generated(spec: str, seed: int, limits: Limits) -> GridSpec:
    """``generated[:ITEMS]``, where ``health=`` and ``range=`` may be among the items."""
    head, _, rest = spec.partition(":")
    ours = [item for item in rest.split(",") if item.partition("=")[0].strip().lower() in _OURS]
    theirs = [item for item in rest.split(",") if item not in ours]
    options = _options(spec, [item.strip() for item in ours], _OURS)
    health = _health(spec, options)
    low, high = _range(spec, options)
    generated = generated_spec(
        f"{head}:{','.join(theirs)}", default_seed=seed, limits=limits, what="the knight grid"
    )
    assert generated is not None
    grid = to_grid(generated.generate(), low=low, high=high, seed=generated.seed)
    return GridSpec(grid, f"generated:{generated.seed}", health)


def _read(spec: str, limits: Limits, path: Path) -> Grid:
    source = MapSource(limits.files.shown(path), path=path)
    grid = parse_grid(source.read_text(limits), source.source)
    limits.check_cells(source.source, "the knight grid", grid.height, grid.width)
    return grid


def _load(spec: str, source: str, limits: Limits) -> Grid:
    found = locate(source, WORLD, GRID_SUFFIX, limits)
    if found is None:
        raise not_found(
            spec, WORLD, GRID_SUFFIX, limits, what="grid", forms=["a size such as 20x30"]
        )
    grid = parse_grid(found.read_text(limits), found.source)
    limits.check_cells(found.source, "the knight grid", grid.height, grid.width)
    return grid
