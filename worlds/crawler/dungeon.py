"""Naming a dungeon: which level files a ``--map`` option means, read and checked.

A dungeon is a name and a level count (RULES §2): ``levels/hard`` with 3 levels
is ``levels/hard1.txt``, ``levels/hard2.txt``, ``levels/hard3.txt``. The map
option names one in any of these ways, tried in this order:

``generated[:ITEMS]``
    a dungeon generated from a seed (:mod:`worlds.mapspec`; ``levels=N`` sets the
    number of levels, 3 by default), no file needed; every level is proved
    winnable when it is made (:mod:`worlds.crawler.generated`).
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
reported before anyone plays, as ``file:line:column: reason``. Files are those
the :class:`~worlds.limits.Limits` allow (any for the operator, only those under
``--maps-dir`` for clients), and the limits bound the number of levels and the
squares of each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

from dungeon_of_doom import maps
from dungeon_of_doom.mapgen.settings import GenerationError

from ..errors import MapError
from ..limits import OPERATOR_LIMITS, Limits, printable_path
from ..mapspec import GeneratedSpec, MapSource, generated_spec, not_found
from .generated import DEFAULT_LEVELS, crawler_levels
from .levelfile import Level, parse_level

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


def _level_source(prefix: str, number: int, limits: Limits) -> MapSource | None:
    """Level ``number`` of the dungeon ``prefix``: an allowed file first, else a shipped one."""
    name = f"{prefix}{number}{SUFFIX}"
    path = limits.files.find(name)
    if path is not None:
        return MapSource(limits.files.shown(path), path=path)
    files = shipped().get(prefix, [])
    if number <= len(files):
        return MapSource(f"maps/{WORLD}/{files[number - 1].name}", shipped=files[number - 1])
    return None


def _read(found: MapSource, limits: Limits) -> Level:
    level = parse_level(found.read_text(limits), found.source)
    limits.check_cells(found.source, "a crawler level", level.rows, level.cols)
    return level


def load_level(prefix: str, number: int, limits: Limits = OPERATOR_LIMITS) -> Level:
    """Read and check level ``number`` of the dungeon ``prefix``."""
    found = _level_source(prefix, number, limits)
    if found is None:
        raise MapError(f"{prefix}{number}{SUFFIX}", "no such level file")
    return _read(found, limits)


def _generated(spec: GeneratedSpec, limits: Limits) -> Dungeon:
    count = spec.levels or DEFAULT_LEVELS
    limits.check_levels(spec.spec, count)
    try:
        levels = crawler_levels(spec.seed, spec.settings, count)
    except GenerationError as error:
        raise MapError(spec.spec, str(error)) from None
    return Dungeon(spec.spec, levels)


def open_dungeon(spec: str | None, *, seed: int = 0, limits: Limits = OPERATOR_LIMITS) -> Dungeon:
    """The dungeon ``spec`` names (see the module docstring); ``None`` is the default.

    ``seed`` is the seed of a ``generated`` spec that gives none of its own.
    Files are read as ``limits.files`` allows; more levels, or larger ones, than
    ``limits`` allow are refused before they are read or made.
    """
    spec = spec or DEFAULT
    generated = generated_spec(
        spec,
        default_seed=seed,
        with_levels=True,
        default_levels=DEFAULT_LEVELS,
        limits=limits,
        what="a generated crawler level",
    )
    if generated is not None:
        return _generated(generated, limits)
    counted = _COUNTED.fullmatch(spec)
    if counted is not None:
        prefix, count = counted.group(1), int(counted.group(2))
        if count < 1:
            raise MapError(spec, "a dungeon needs at least 1 level")
        limits.check_levels(spec, count)
        return Dungeon(prefix, tuple(load_level(prefix, n, limits) for n in range(1, count + 1)))
    whole = limits.files.find(spec)
    if whole is not None:
        source = MapSource(limits.files.shown(whole), path=whole)
        return Dungeon(printable_path(whole.stem), (_read(source, limits),))
    files = shipped().get(spec)
    if files is not None:
        return Dungeon(spec, tuple(load_level(spec, n, limits) for n in range(1, len(files) + 1)))
    found: list[MapSource] = []
    while (level := limits.files.find(f"{spec}{len(found) + 1}{SUFFIX}")) is not None:
        if len(found) == limits.levels:
            limits.check_levels(spec, len(found) + 1)
        found.append(MapSource(limits.files.shown(level), path=level))
    if not found:
        raise not_found(
            spec,
            WORLD,
            SUFFIX,
            limits,
            what="dungeon",
            names=list(shipped()),
            forms=[f"PREFIX (PREFIX1{SUFFIX}, PREFIX2{SUFFIX} ...)", "PREFIX:N (N levels)"],
        )
    return Dungeon(Path(spec).name, tuple(_read(source, limits) for source in found))
