"""The dungeon a generator makes: squares of rock, room floor and corridor, and its rooms.

A :class:`Dungeon` is plain data and may break the rules: the validator
(:mod:`mapgen.validate`) judges it. Squares are stored row-major in ``cells``,
one byte each (:data:`ROCK`, :data:`ROOM`, :data:`CORRIDOR`), so a
1,000 × 1,000 dungeon is a megabyte. Rooms are rectangles, listed in the order
they were placed. ``hardness`` holds the rock hardness per square (0 for open
floor, 255 for the immutable border) for dungeons the generator made, and is
``None`` for hand-made ones.

:meth:`Dungeon.from_drawing` reads the seed's drawing (room ``.``, corridor
``#``, rock space); with no rooms given, each 8-connected patch of ``.`` is a
room whose rectangle is the patch's bounding box, so a patch that is not a
rectangle shows up in the validator as corridor or rock inside a room.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

__all__ = ["CORRIDOR", "ROCK", "ROOM", "Dungeon", "Position", "Room"]

Position: TypeAlias = tuple[int, int]
"""(row, column), zero-based, row 0 at the top."""

ROCK: Final = 0
ROOM: Final = 1
CORRIDOR: Final = 2

_GLYPH_CELLS: Final = {" ": ROCK, ".": ROOM, "#": CORRIDOR}


@dataclass(frozen=True, slots=True)
class Room:
    """A rectangle of room floor: its top-left square and its size."""

    row: int
    column: int
    height: int
    width: int

    @property
    def bottom(self) -> int:
        """The last row of the room."""
        return self.row + self.height - 1

    @property
    def right(self) -> int:
        """The last column of the room."""
        return self.column + self.width - 1

    def squares(self) -> Iterator[Position]:
        """Every square of the room, row by row."""
        for r in range(self.row, self.row + self.height):
            for c in range(self.column, self.column + self.width):
                yield r, c

    def __contains__(self, position: object) -> bool:
        match position:
            case (int() as r, int() as c):
                return self.row <= r <= self.bottom and self.column <= c <= self.right
            case _:
                return False


@dataclass(frozen=True, slots=True)
class Dungeon:
    """A grid of squares and its rooms; see the module docstring."""

    width: int
    height: int
    cells: bytes
    rooms: tuple[Room, ...]
    hardness: bytes | None = None

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise ValueError(f"a dungeon is at least 1 × 1, not {self.width} × {self.height}")
        size = self.width * self.height
        if len(self.cells) != size or (self.hardness is not None and len(self.hardness) != size):
            raise ValueError(f"a {self.width} × {self.height} dungeon has {size} squares")

    def drawing(self) -> str:
        """The seed's drawing: room ``.``, corridor ``#``, rock space; one line per row."""
        glyphs = bytes.maketrans(bytes((ROCK, ROOM, CORRIDOR)), b" .#")
        text = self.cells.translate(glyphs).decode("ascii")
        width = self.width
        return "".join(text[i : i + width] + "\n" for i in range(0, len(text), width))

    @classmethod
    def from_drawing(cls, text: str, rooms: Iterable[Room] | None = None) -> Dungeon:
        """Read a drawing; ``rooms`` ``None`` finds them (see the module docstring).

        Lines shorter than the longest are padded with rock, since drawings lose
        their trailing spaces easily. Characters other than ``. #`` and space
        raise :class:`ValueError`.
        """
        lines = text.splitlines()
        width = max((len(line) for line in lines), default=0)
        cells = bytearray()
        for number, line in enumerate(lines, 1):
            for column, glyph in enumerate(line.ljust(width), 1):
                if glyph not in _GLYPH_CELLS:
                    raise ValueError(f"line {number}, column {column}: unknown square {glyph!r}")
                cells.append(_GLYPH_CELLS[glyph])
        found = tuple(rooms) if rooms is not None else _room_patches(cells, width, len(lines))
        return cls(width, len(lines), bytes(cells), found)


def _room_patches(cells: Sequence[int], width: int, height: int) -> tuple[Room, ...]:
    """The bounding box of each 8-connected patch of room floor, in reading order."""
    seen = bytearray(len(cells))
    rooms = []
    for start in range(len(cells)):
        if cells[start] != ROOM or seen[start]:
            continue
        seen[start] = 1
        stack = [start]
        top, left, bottom, right = height, width, -1, -1
        while stack:
            r, c = divmod(stack.pop(), width)
            top, bottom, left, right = min(top, r), max(bottom, r), min(left, c), max(right, c)
            for nr in (r - 1, r, r + 1):
                for nc in (c - 1, c, c + 1):
                    if 0 <= nr < height and 0 <= nc < width:
                        index = nr * width + nc
                        if cells[index] == ROOM and not seen[index]:
                            seen[index] = 1
                            stack.append(index)
        rooms.append(Room(top, left, bottom - top + 1, right - left + 1))
    return tuple(rooms)
