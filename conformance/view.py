"""A ``LOOK`` view: five rows of five characters centred on the player.

Offsets are (row, column) from the centre, rows growing downward, as in
:class:`protocol.direction.Direction`. The four corners are outside the field
of view and carry no information, so :meth:`View.cells` leaves them out.
Other players (``P``, ``B``) move on their own, so comparisons between views
ignore any square where either view shows one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

__all__ = ["CORNERS", "PLAYERS", "RADIUS", "View"]

RADIUS: Final = 2
CORNERS: Final = frozenset({(-2, -2), (-2, 2), (2, -2), (2, 2)})
PLAYERS: Final = frozenset("PB")

Offset = tuple[int, int]


@dataclass(frozen=True, slots=True)
class View:
    rows: tuple[str, ...]

    def at(self, offset: Offset) -> str:
        return self.rows[RADIUS + offset[0]][RADIUS + offset[1]]

    @property
    def centre(self) -> str:
        return self.at((0, 0))

    def cells(self) -> Iterator[tuple[Offset, str]]:
        """Every square in the field of view (corners excluded) with its glyph."""
        for dr in range(-RADIUS, RADIUS + 1):
            for dc in range(-RADIUS, RADIUS + 1):
                if (dr, dc) not in CORNERS:
                    yield (dr, dc), self.at((dr, dc))

    def find(self, glyphs: str | frozenset[str]) -> list[Offset]:
        """Offsets around the centre showing one of ``glyphs``. The centre is never one:
        it is the looking player's own square (a 2016 server shows the player there)."""
        return [offset for offset, glyph in self.cells() if glyph in glyphs and offset != (0, 0)]

    def mismatches(self, before: View, moved: Offset = (0, 0)) -> list[str]:
        """Squares where this view disagrees with ``before`` after a move by ``moved``.

        A square seen in both views must show the same glyph; with ``moved`` of
        (0, 0) the views must simply be equal. Squares showing a player in either
        view are not compared.
        """
        problems = []
        for (dr, dc), glyph in self.cells():
            old = (dr + moved[0], dc + moved[1])
            if max(abs(old[0]), abs(old[1])) > RADIUS or old in CORNERS:
                continue
            previous = before.at(old)
            if glyph != previous and not {glyph, previous} & PLAYERS:
                problems.append(f"{(dr, dc)} shows {glyph!r}, expected {previous!r}")
        return problems

    def __str__(self) -> str:
        return "/".join(self.rows)
