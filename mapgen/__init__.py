"""Generated dungeons (RULES §4): rooms and winding corridors, for every world.

mapgen knows no world: it sits below ``worlds`` (an import-linter contract holds it),
and each world turns a :class:`Dungeon` into its own map in its own package.

The parts, each in its own module:

* :func:`generate` (:mod:`mapgen.generator`): seed and :class:`Settings` in, a
  :class:`Dungeon` meeting RULES §4 out, the same on every machine;
* :func:`validate` (:mod:`mapgen.validate`): every rule a dungeon breaks, with places;
* :mod:`mapgen.formats`: the output registry of ``dod-generate``: the seed's
  drawing, and each world's format found by entry point;
* :mod:`mapgen.search` and :mod:`mapgen.winnable`: the bounded search, and what
  every world's proof that its generated map can be won shares;
* :mod:`mapgen.cli`: the ``dod-generate`` command.
"""

from __future__ import annotations

from .dungeon import CORRIDOR, ROCK, ROOM, Dungeon, Room
from .generator import generate
from .settings import GenerationError, Settings
from .validate import Rule, Violation, validate

__all__ = [
    "CORRIDOR",
    "ROCK",
    "ROOM",
    "Dungeon",
    "GenerationError",
    "Room",
    "Rule",
    "Settings",
    "Violation",
    "generate",
    "validate",
]
