"""Dungeons as each world reads them: one module per output, named in :data:`FORMATS`.

Each format turns a seed and :class:`~mapgen.settings.Settings` into the text of
the files a world loads: one file for most, one per level for the crawler. The
seed drives both the dungeon and whatever the format places (gold, exits,
treasure, monsters), so the same seed and settings give the same bytes. Adding a
world's output is one module here and one entry in :data:`FORMATS`;
``dod-generate --format`` offers every entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..dungeon import Dungeon
from ..generator import generate
from ..settings import Settings
from .baddies import baddies_text, to_baddies
from .classic import to_classic
from .crawler import DEFAULT_LEVELS, crawler_levels, to_crawler
from .drawing import to_drawing

__all__ = [
    "DEFAULT_LEVELS",
    "FORMATS",
    "Format",
    "crawler_levels",
    "to_baddies",
    "to_classic",
    "to_crawler",
    "to_drawing",
]

Texts = Callable[[int, Settings, int], tuple[str, ...]]
"""``(seed, settings, levels)`` to the text of each file; ``levels`` is for numbered formats."""


@dataclass(frozen=True, slots=True)
class Format:
    """One output: its files' texts, what it is for, and whether it is one file per level."""

    texts: Texts
    summary: str
    numbered: bool = False
    """One file per level, ``<name>1.txt`` … ``<name>N.txt``, rather than one file."""


def _one_file(write: Callable[[Dungeon, int], str]) -> Texts:
    def texts(seed: int, settings: Settings, levels: int) -> tuple[str, ...]:
        return (write(generate(seed, settings), seed),)

    return texts


def _crawler_texts(seed: int, settings: Settings, levels: int) -> tuple[str, ...]:
    return tuple(level.to_text() for level in crawler_levels(seed, settings, levels))


FORMATS: dict[str, Format] = {
    "drawing": Format(
        _one_file(lambda dungeon, seed: to_drawing(dungeon)),
        "a drawing: room '.', corridor '#', rock ' '",
    ),
    "classic": Format(
        _one_file(lambda dungeon, seed: to_classic(dungeon, seed=seed).to_text()),
        "a classic map file with gold and exits",
    ),
    "crawler": Format(
        _crawler_texts,
        "crawler levels NAME1.txt .. NAMEN.txt (--levels), each proved winnable",
        numbered=True,
    ),
    "baddies": Format(
        _one_file(lambda dungeon, seed: baddies_text(dungeon, seed=seed)),
        "a baddies board file, proved winnable",
    ),
}
