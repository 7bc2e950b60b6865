"""The state of a baddies board (RULES §3): plain data a planner may copy and play on.

A :class:`Board` holds

* ``statics``: the squares that never change during play (walls ``+``, abysses
  ``#``, escape ladders ``*``), a read-only mapping shared between copies;
* ``baddies``: square → glyph (``m`` monster, ``M`` super monster, ``~`` bat);
* ``heroes``: hero id → square, in the order the heroes joined (dict order);
* ``start``: the square the board's own hero started on.

Everything else is nothing. Storage is sparse, so a board costs memory in
proportion to its pieces, not to rows × columns. ``copy()`` is cheap and
independent: play a round on a copy and the original is untouched.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, TypeAlias

Position: TypeAlias = tuple[int, int]
"""(row, column), zero-based, row 0 at the top."""
HeroId: TypeAlias = int

HERO: Final = "H"
LADDER: Final = "*"
WALL: Final = "+"
ABYSS: Final = "#"
MONSTER: Final = "m"
SUPER_MONSTER: Final = "M"
BAT: Final = "~"
NOTHING: Final = " "
"""How the original console game draws an empty square."""

STATICS: Final = frozenset({LADDER, WALL, ABYSS})
BADDIES: Final = frozenset({MONSTER, SUPER_MONSTER, BAT})
POWER: Final = {MONSTER: 1, SUPER_MONSTER: 2}
"""The step a monster takes on each axis where it is not aligned with its hero."""
NAMES: Final = {MONSTER: "monster", SUPER_MONSTER: "super monster", BAT: "bat"}


@dataclass(slots=True)
class Board:
    """A board and the pieces on it; see the module docstring."""

    rows: int
    columns: int
    statics: Mapping[Position, str]
    baddies: dict[Position, str]
    start: Position
    heroes: dict[HeroId, Position] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.statics, MappingProxyType):
            self.statics = MappingProxyType(dict(self.statics))

    def copy(self) -> Board:
        """An independent copy (the statics, which never change, are shared)."""
        return Board(
            self.rows, self.columns, self.statics, dict(self.baddies), self.start, dict(self.heroes)
        )

    def __deepcopy__(self, memo: dict[int, object]) -> Board:
        # What copy() gives is already independent (keys and values are immutable), and
        # the read-only statics need no copy: a server keeps a world's untouched copy for
        # its restarts (server.game.builds) this way.
        copied = self.copy()
        memo[id(self)] = copied
        return copied

    def __reduce__(self) -> tuple[type[Board], tuple[object, ...]]:
        # A mappingproxy cannot be pickled: pickle the statics as a plain dict, which
        # __post_init__ makes read-only again.
        return Board, (
            self.rows,
            self.columns,
            dict(self.statics),
            self.baddies,
            self.start,
            self.heroes,
        )

    def on_board(self, square: Position) -> bool:
        return 0 <= square[0] < self.rows and 0 <= square[1] < self.columns

    def drawing(
        self, nothing: str = NOTHING, heroes: Mapping[Position, str] | None = None
    ) -> Iterator[str]:
        """The rows of the whole board, empty squares drawn as ``nothing``.

        Heroes are drawn as ``H``, or, when ``heroes`` is given, exactly the glyphs
        it maps squares to are drawn in their place.
        """
        if heroes is None:
            heroes = dict.fromkeys(self.heroes.values(), HERO)
        by_row: dict[int, list[tuple[int, str]]] = {}
        for group in (self.statics, self.baddies, heroes):
            for (r, c), glyph in group.items():
                by_row.setdefault(r, []).append((c, glyph))
        blank = nothing * self.columns
        for r in range(self.rows):
            cells = by_row.get(r)
            if not cells:
                yield blank
                continue
            row = list(blank)
            for c, glyph in cells:
                row[c] = glyph
            yield "".join(row)
