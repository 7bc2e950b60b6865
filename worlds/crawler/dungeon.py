"""Naming a dungeon: which level files a ``--map`` option means, read and checked.

A dungeon is a name and a level count (RULES §2): ``levels/hard`` with 3 levels
is ``levels/hard1.txt``, ``levels/hard2.txt``, ``levels/hard3.txt``. The map
option names one in any of these ways, tried in this order:

``generated[:ITEMS]``
    a dungeon generated from a seed (:mod:`mapgen.spec`; ``levels=N`` sets the
    number of levels, 3 by default), no file needed; every level is proved
    winnable when it is made (:mod:`mapgen.formats.crawler`).
``<prefix>:<N>``
    the N levels ``<prefix>1.txt`` … ``<prefix>N.txt`` (the original's
    "name and number of levels"); the prefix is a path, or a shipped dungeon's name.
an existing file
    a dungeon of that single level.
a shipped dungeon's name (``tutorial``, ``easy``, ``hard``)
    every level shipped under that name.
``<prefix>``
    ``<prefix>1.txt``, ``<prefix>2.txt`` … for as many as exist in a row.

Every level is read and checked when the dungeon is opened, so a bad level is
reported before anyone plays, as ``file:line:column: reason``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

import maps
from mapgen.settings import GenerationError
from mapgen.spec import GeneratedSpec, parse_spec

from ..errors import MapError
from .levelfile import Level, parse_level, read_level

WORLD: Final = "crawler"
SUFFIX: Final = ".txt"
DEFAULT: Final = "tutorial"
_COUNTED = re.compile(r"(?s)(.+):([0-9]+)")
_LEVEL_NAME = re.compile(r"(.+?)([1-9][0-9]*)")


@dataclass(frozen=True, slots=True)
class Dungeon:
    """A named dungeon's checked levels, in the order they are played."""

    name: str
    levels: tuple[Level, ...]


def shipped() -> dict[str, list[Traversable]]:
    """The shipped dungeons by name, each with its level files in order from level 1."""
    numbered: dict[str, dict[int, Traversable]] = {}
    for name, entry in maps.shipped(WORLD, SUFFIX).items():
        match = _LEVEL_NAME.fullmatch(name)
        if match:
            numbered.setdefault(match.group(1), {})[int(match.group(2))] = entry
    dungeons = {}
    for name, files in numbered.items():
        count = 0
        while count + 1 in files:
            count += 1
        if count:
            dungeons[name] = [files[number] for number in range(1, count + 1)]
    return dungeons


def level_file(prefix: str, number: int) -> Path | Traversable | None:
    """Level ``number`` of the dungeon ``prefix``: a file on disk first, else a shipped one."""
    path = Path(f"{prefix}{number}{SUFFIX}")
    if path.is_file():
        return path
    files = shipped().get(prefix, [])
    return files[number - 1] if number <= len(files) else None


def load_level(prefix: str, number: int) -> Level:
    """Read and check level ``number`` of the dungeon ``prefix``."""
    found = level_file(prefix, number)
    if found is None:
        raise MapError(f"{prefix}{number}{SUFFIX}", "no such level file")
    if isinstance(found, Path):
        return read_level(found)
    return _read_shipped(found)


def _read_shipped(entry: Traversable) -> Level:
    return parse_level(entry.read_text("utf-8"), f"maps/{WORLD}/{entry.name}")


def _generated(spec: GeneratedSpec) -> Dungeon:
    # Imported here: the crawler output imports this package's level format.
    from mapgen.formats.crawler import DEFAULT_LEVELS, crawler_levels

    try:
        levels = crawler_levels(spec.seed, spec.settings, spec.levels or DEFAULT_LEVELS)
    except GenerationError as error:
        raise MapError(spec.spec, str(error)) from None
    return Dungeon(spec.spec, levels)


def open_dungeon(spec: str | None, *, seed: int = 0) -> Dungeon:
    """The dungeon ``spec`` names (see the module docstring); ``None`` is the default.

    ``seed`` is the seed of a ``generated`` spec that gives none of its own.
    """
    spec = spec or DEFAULT
    generated = parse_spec(spec, default_seed=seed, with_levels=True)
    if generated is not None:
        return _generated(generated)
    counted = _COUNTED.fullmatch(spec)
    if counted is not None:
        prefix, count = counted.group(1), int(counted.group(2))
        if count < 1:
            raise MapError(spec, "a dungeon needs at least 1 level")
        return Dungeon(prefix, tuple(load_level(prefix, n) for n in range(1, count + 1)))
    if Path(spec).is_file():
        return Dungeon(Path(spec).stem, (read_level(spec),))
    files = shipped().get(spec)
    if files is not None:
        return Dungeon(spec, tuple(_read_shipped(entry) for entry in files))
    count = 0
    while Path(f"{spec}{count + 1}{SUFFIX}").is_file():
        count += 1
    if count == 0:
        raise MapError(
            spec,
            f"no such level file, no {spec}1{SUFFIX}, and no shipped dungeon of that name "
            f"(shipped: {', '.join(sorted(shipped()))})",
        )
    levels = tuple(read_level(f"{spec}{n}{SUFFIX}") for n in range(1, count + 1))
    return Dungeon(Path(spec).name, levels)
