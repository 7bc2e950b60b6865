"""The seed's own drawing: room ``.``, corridor ``#``, rock space, one line per row.

Every line is exactly as wide as the dungeon (trailing rock is kept as spaces)
and ends with ``LF``; :meth:`mapgen.dungeon.Dungeon.from_drawing` reads it back.
"""

from __future__ import annotations

from ..dungeon import Dungeon

__all__ = ["to_drawing"]


def to_drawing(dungeon: Dungeon, *, seed: int = 0) -> str:
    """The drawing of ``dungeon``; ``seed`` is unused, as nothing is placed."""
    return dungeon.drawing()
