"""The crawler level file (RULES §2), read liberally and checked strictly.

::

    5 3
    3 0
    M + -
    - + -
    - + !
    - - -
    @ - $

Whitespace-separated: ``rows cols``, ``start_row start_col``, then exactly
rows×cols tiles in row-major order. Line breaks and spaces carry no meaning, so
tiles may be glued together (``M+-``), files may use ``CRLF`` or ``LF`` and need
no final newline. A caller may rely on every :class:`Level` returned being valid:
sizes within the limits, the start on an open square inside the map, exactly
rows×cols known tiles, and at least one door or exit. Anything else raises
:class:`~worlds.errors.MapError` saying ``file:line:column: reason`` (the
column of the offending token; no place for "neither a door nor an exit").
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..errors import MapError, read_text

OPEN: Final = "-"
TREASURE: Final = "$"
AMULET: Final = "@"
MONSTER: Final = "M"
PILLAR: Final = "+"
DOOR: Final = "?"
EXIT: Final = "!"
PLAYER: Final = "o"
"""How the player is drawn; never a tile in a file (the start square is given by number)."""
TILES: Final = OPEN + TREASURE + AMULET + MONSTER + PILLAR + DOOR + EXIT

MAX_SIDE: Final = 999_999
MAX_AREA: Final = 2_147_483_647
"""INT32_MAX: the original stores the number of squares in an ``int``."""

_WHITESPACE: Final = " \t\r\n\v\f"
_TOKEN = re.compile(rf"[^{_WHITESPACE}]+")
_TILE_CHAR = re.compile(rf"[^{_WHITESPACE}]")
_NOT_A_TILE = re.compile(rf"[^{re.escape(TILES)}{_WHITESPACE}]")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBERS: Final = ("number of rows", "number of columns", "start row", "start column")


@dataclass(frozen=True, slots=True)
class Level:
    """A checked level: ``tiles`` holds rows×cols tile bytes, row after row."""

    rows: int
    cols: int
    start: tuple[int, int]
    tiles: bytes
    source: str = "<level>"

    def tile(self, row: int, col: int) -> str:
        return chr(self.tiles[row * self.cols + col])

    def to_text(self) -> str:
        """The level in its file format: one line per row, tiles apart, final newline."""
        lines = [f"{self.rows} {self.cols}", f"{self.start[0]} {self.start[1]}"]
        text = self.tiles.decode("ascii")
        lines += [" ".join(text[i : i + self.cols]) for i in range(0, len(text), self.cols)]
        return "\n".join(lines) + "\n"


def _place(text: str, index: int) -> tuple[int, int]:
    """(line, column), both from 1, of ``text[index]``."""
    line_start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index) + 1, index - line_start + 1


def parse_level(text: str, source: str = "<level>") -> Level:
    """Check ``text`` and return the level; raises :class:`MapError` with the place of the fault."""
    text = text.removeprefix("\ufeff")

    def fail(reason: str, index: int | None = None) -> MapError:
        if index is None:
            return MapError(source, reason)
        return MapError(source, reason, *_place(text, index))

    numbers: list[int] = []
    where: list[int] = []
    position = 0
    for what in _NUMBERS:
        token = _TOKEN.search(text, position)
        if token is None:
            raise fail(f"the {what} is missing (the file ends early)", len(text))
        if not _INTEGER.fullmatch(token.group()):
            raise fail(
                f"the {what} must be a whole number, not {token.group()[:20]!r}", token.start()
            )
        numbers.append(int(token.group()))
        where.append(token.start())
        position = token.end()
    rows, cols, start_row, start_col = numbers

    for value, what, index in ((rows, "rows", where[0]), (cols, "columns", where[1])):
        if not 1 <= value <= MAX_SIDE:
            raise fail(f"the number of {what} must be from 1 to {MAX_SIDE:,}, not {value}", index)
    area = rows * cols
    if area > MAX_AREA:
        raise fail(
            f"{rows} × {cols} = {area:,} squares, more than the limit of {MAX_AREA:,}", where[0]
        )
    if not 0 <= start_row < rows:
        raise fail(f"the start row {start_row} is outside the map (rows 0 to {rows - 1})", where[2])
    if not 0 <= start_col < cols:
        raise fail(
            f"the start column {start_col} is outside the map (columns 0 to {cols - 1})", where[3]
        )

    bad = _NOT_A_TILE.search(text, position)
    if bad is not None:
        raise fail(
            f"unknown tile {bad.group()!r}; tiles are {' '.join(TILES)}"
            + (" (o is how the player is drawn, not a tile)" if bad.group() == PLAYER else ""),
            bad.start(),
        )
    tiles = text[position:].encode("ascii").translate(None, _WHITESPACE.encode())

    def tile_index(number: int) -> int:
        """Where in ``text`` the tile numbered ``number`` (from 0) was written."""
        found = _TILE_CHAR.finditer(text, position)
        return next(itertools.islice(found, number, None)).start()

    if len(tiles) != area:
        if len(tiles) < area:
            raise fail(
                f"the level has {len(tiles)} tiles but {rows} × {cols} needs {area}", len(text)
            )
        raise fail(
            f"more tiles than {rows} × {cols} = {area}: this is tile number {area + 1}",
            tile_index(area),
        )
    start_tile = chr(tiles[start_row * cols + start_col])
    if start_tile != OPEN:
        raise fail(
            f"the start square ({start_row}, {start_col}) holds {start_tile!r}; it must be open "
            f"({OPEN!r})",
            tile_index(start_row * cols + start_col),
        )
    if DOOR.encode() not in tiles and EXIT.encode() not in tiles:
        raise fail(f"the level has neither a door ({DOOR}) nor an exit ({EXIT})")
    return Level(rows, cols, (start_row, start_col), tiles, source)


def read_level(path: str | Path) -> Level:
    """Read and check a level file; bytes that are not UTF-8 are reported by place."""
    return parse_level(read_text(path), str(path))
