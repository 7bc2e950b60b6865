"""The generator: a seed and settings in, a dungeon meeting RULES §4 out.

:func:`generate` is pure: it draws from one ``random.Random(seed)`` in a fixed
order (rock hardness, then rooms, then which extra corridors to dig), so the
same seed and settings give the same dungeon, byte for byte, on every machine.
It checks its own result with :func:`mapgen.validate.validate` and raises
:class:`GenerationError` rather than return a dungeon that breaks a rule; bad
or impossible settings raise it too, with the reason.
"""

from __future__ import annotations

import random

from .corridors import carve_corridors
from .dungeon import ROOM, Dungeon, Room
from .hardness import rock_hardness
from .rooms import place_rooms
from .settings import GenerationError, Settings
from .validate import validate

__all__ = ["generate", "mark_rooms"]


def mark_rooms(rooms: list[Room], width: int, cells: bytearray, hardness: bytearray) -> None:
    """Lay the rooms' floor into ``cells``; room squares cost nothing to cross."""
    for room in rooms:
        for r in range(room.row, room.bottom + 1):
            start = r * width + room.column
            cells[start : start + room.width] = bytes((ROOM,)) * room.width
            hardness[start : start + room.width] = bytes(room.width)


def generate(seed: int, settings: Settings | None = None) -> Dungeon:
    """The dungeon of ``seed`` with ``settings`` (the defaults: 80 × 21)."""
    settings = settings or Settings()
    width, height = settings.width, settings.height
    rng = random.Random(seed)
    hardness = rock_hardness(width, height, rng)
    rooms = place_rooms(settings, rng)
    cells = bytearray(width * height)
    mark_rooms(rooms, width, cells, hardness)
    carve_corridors(
        width,
        height,
        rooms,
        hardness,
        cells,
        winding=settings.winding,
        loops=settings.loops,
        rng=rng,
    )
    dungeon = Dungeon(width, height, bytes(cells), tuple(rooms), bytes(hardness))
    violations = validate(dungeon)
    if violations:
        raise GenerationError(
            f"seed {seed} gave a dungeon that breaks RULES §4: "
            + "; ".join(str(violation) for violation in violations[:5])
        )
    return dungeon
