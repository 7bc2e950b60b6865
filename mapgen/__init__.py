"""Generated dungeons (RULES §4): rooms and winding corridors, for every world.

The parts, each in its own module:

* :func:`generate` (:mod:`mapgen.generator`): seed and :class:`Settings` in, a
  :class:`Dungeon` meeting RULES §4 out, the same on every machine;
* :func:`validate` (:mod:`mapgen.validate`): every rule a dungeon breaks, with places;
* :mod:`mapgen.formats`: a dungeon as each world reads it (the seed's drawing,
  a classic map, crawler levels, a baddies board);
* :mod:`mapgen.winnable` and :mod:`mapgen.search`: the proof, by search with each
  world's own rules, that a crawler level or baddies board can be won;
* :mod:`mapgen.spec`: the ``generated:...`` map spec that world plugins accept;
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
