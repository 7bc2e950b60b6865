"""Compass directions, as they are written on the wire and as grid steps.

Rows grow downward: ``N`` is one row up, ``(-1, 0)``. The classic protocol knows
``N S E W``; worlds that allow diagonal moves also take ``NE SE SW NW``.
"""

from __future__ import annotations

import enum


class Direction(enum.Enum):
    """A direction of movement; ``value`` is the (row, column) step."""

    N = (-1, 0)
    NE = (-1, 1)
    E = (0, 1)
    SE = (1, 1)
    S = (1, 0)
    SW = (1, -1)
    W = (0, -1)
    NW = (-1, -1)

    def __init__(self, row_step: int, column_step: int) -> None:
        # Plain attributes: ``Enum.value`` is a descriptor and slow on the hot path.
        self.row_step = row_step
        self.column_step = column_step
        self.is_diagonal = row_step != 0 and column_step != 0

    # Members are singletons compared by identity: the identity hash is a C slot, where
    # ``Enum.__hash__`` is a Python call on every set or dict look-up (each ``MOVE``).
    __hash__ = object.__hash__

    @classmethod
    def parse(cls, text: str) -> Direction | None:
        """The direction named by ``text`` in any letter case, or ``None``."""
        return _BY_NAME.get(text.upper())


_BY_NAME = {d.name: d for d in Direction}

CARDINAL: frozenset[Direction] = frozenset({Direction.N, Direction.E, Direction.S, Direction.W})
ALL_DIRECTIONS: frozenset[Direction] = frozenset(Direction)
