"""Dungeons as files a world reads: the format registry behind ``dod-generate --format``.

Each format turns a seed and :class:`~mapgen.settings.Settings` into the text of
the files a world loads: one file for most, one per level for the crawler. The
seed drives both the dungeon and whatever the format places (gold, exits,
treasure, monsters), so the same seed and settings give the same bytes.

mapgen knows no world: the seed's own ``drawing`` is the one format defined
here, and each world adds its own from its package through the entry-point
group :data:`ENTRY_POINT_GROUP` (``worlds.classic.generated:FORMAT`` and the
like), so packages stack one way: worlds import mapgen, never the reverse.
Adding a world's output is one :class:`Format` in that world and one entry point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Final

from ..dungeon import Dungeon
from ..generator import generate
from ..settings import Settings
from .drawing import to_drawing

__all__ = ["DEFAULT_LEVELS", "ENTRY_POINT_GROUP", "Format", "Texts", "formats", "one_file"]

ENTRY_POINT_GROUP: Final = "dungeon_of_doom.map_formats"
DEFAULT_LEVELS: Final = 3
"""Levels of a numbered format when none are asked for."""

Texts = Callable[[int, Settings, int], tuple[str, ...]]
"""``(seed, settings, levels)`` to the text of each file; ``levels`` is for numbered formats."""


@dataclass(frozen=True, slots=True)
class Format:
    """One output: its files' texts, what it is for, and whether it is one file per level."""

    texts: Texts
    summary: str
    numbered: bool = False
    """One file per level, ``<name>1.txt`` … ``<name>N.txt``, rather than one file."""


def one_file(write: Callable[[Dungeon, int], str]) -> Texts:
    """The texts of a one-file format that writes the dungeon of each seed with ``write``."""

    def texts(seed: int, settings: Settings, levels: int) -> tuple[str, ...]:
        return (write(generate(seed, settings), seed),)

    return texts


DRAWING: Final = Format(
    one_file(lambda dungeon, seed: to_drawing(dungeon)),
    "a drawing: room '.', corridor '#', rock ' '",
)


def formats() -> dict[str, Format]:
    """Every format by name: ``drawing`` and those the installed worlds declare."""
    found = {"drawing": DRAWING}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name, entry.load())
    return found
