"""Dungeons as each world reads them: one module per output, named in :data:`FORMATS`.

Each format is a function ``(dungeon, *, seed) -> str`` giving the text of a
file that world loads; ``seed`` drives whatever the format places (gold, exits)
so that the same dungeon and seed give the same file. Adding a world's output
is one module here and one entry in :data:`FORMATS`; ``dod-generate --format``
offers every entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..dungeon import Dungeon
from .classic import to_classic
from .drawing import to_drawing

__all__ = ["FORMATS", "Format", "Writer", "to_classic", "to_drawing"]


class Writer(Protocol):
    """Writes the text of one dungeon; ``seed`` drives what it places."""

    def __call__(self, dungeon: Dungeon, *, seed: int) -> str: ...


@dataclass(frozen=True, slots=True)
class Format:
    """One output: how to write it, and what it is for."""

    write: Writer
    summary: str

    def __call__(self, dungeon: Dungeon, *, seed: int) -> str:
        return self.write(dungeon, seed=seed)


def _classic_text(dungeon: Dungeon, *, seed: int) -> str:
    return to_classic(dungeon, seed=seed).to_text()


FORMATS: dict[str, Format] = {
    "drawing": Format(to_drawing, "a drawing: room '.', corridor '#', rock ' '"),
    "classic": Format(_classic_text, "a classic map file with gold and exits"),
}
