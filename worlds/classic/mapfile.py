"""The classic map file format (RULES §1), read liberally and checked strictly.

::

    name Small Dungeon of Doom
    win 2
    ###################
    #......G........E.#
    ###################

Accepted as found in the wild: ``LF``, ``CRLF`` or ``CR`` line ends, with or
without a final newline, blank lines after the grid (and between header and
grid), a UTF-8 byte-order mark, header words in any case, trailing spaces on a
row, and the item tiles ``L S A H`` of the 2015 multiplayer maps. Rejected, with
``file:line:column: reason``: a missing or malformed header, a negative target,
rows of unequal length, unknown characters, a blank line inside the grid, an
empty grid, no exit, and less gold than the target.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..errors import MapError, read_text

FLOOR: Final = "."
WALL: Final = "#"
GOLD: Final = "G"
EXIT: Final = "E"
ITEMS: Final = "LSAH"
"""Lantern, sword, armour, health potion: they lie on floor and can be picked up."""
TILES: Final = frozenset(FLOOR + WALL + GOLD + EXIT + ITEMS)

_TILE_BYTES: Final = "".join(sorted(TILES)).encode("ascii")
_UNKNOWN_TILE = re.compile("[^" + re.escape("".join(sorted(TILES))) + "]")
"""The first square of a row that is no tile, for the message."""


def _only_tiles(row: str) -> bool:
    """Whether every square of ``row`` is a known tile: one pass in C, where a loop per
    square took most of the time of loading a 2000 x 2000 map."""
    try:
        return not row.encode("ascii").translate(None, _TILE_BYTES)
    except UnicodeEncodeError:
        return False


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_HEADER = re.compile(r"(?i)(name|win)(?:[ \t]+(.*))?")


@dataclass(frozen=True, slots=True)
class ClassicMap:
    """A checked classic map: every row has the same length and only known tiles."""

    name: str
    goal: int
    rows: tuple[str, ...]

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    def to_text(self) -> str:
        """The map in its file format, ``LF`` line ends, final newline."""
        return "\n".join((f"name {self.name}", f"win {self.goal}", *self.rows)) + "\n"


def _header(lines: list[str], index: int, keyword: str, source: str) -> str:
    if index >= len(lines):
        raise MapError(source, f"missing '{keyword}' line (the file ends early)", index + 1, 1)
    match = _HEADER.fullmatch(lines[index].rstrip())
    if match is None or match.group(1).lower() != keyword:
        raise MapError(
            source, f"expected '{keyword} ...' here, found {lines[index][:30]!r}", index + 1, 1
        )
    return (match.group(2) or "").strip()


def parse_map(text: str, source: str = "<map>") -> ClassicMap:
    """Check ``text`` and return the map; raises :class:`MapError` with the place of the fault."""
    text = text.removeprefix("\ufeff")
    # Most files end their lines with LF alone: str.split is many times faster.
    lines = _LINE_BREAK.split(text) if "\r" in text else text.split("\n")
    name = _header(lines, 0, "name", source)
    goal_text = _header(lines, 1, "win", source)
    goal_column = lines[1].find(goal_text) + 1 if goal_text else len(lines[1]) + 1
    if not re.fullmatch(r"[+-]?\d+", goal_text):
        raise MapError(
            source,
            f"the target after 'win' must be a whole number, not {goal_text!r}",
            2,
            goal_column,
        )
    goal = int(goal_text)
    if goal < 0:
        raise MapError(source, f"the target cannot be negative ({goal})", 2, goal_column)

    first = 2
    while first < len(lines) and not lines[first].strip():
        first += 1
    last = len(lines)
    while last > first and not lines[last - 1].strip():
        last -= 1
    if first >= last:
        raise MapError(source, "the map has no rows", len(lines), 1)

    rows: list[str] = []
    for index in range(first, last):
        row = lines[index].rstrip(" \t")
        number = index + 1
        if not row:
            raise MapError(source, "blank line inside the grid", number, 1)
        unknown = None if _only_tiles(row) else _UNKNOWN_TILE.search(row)
        if unknown is not None:
            raise MapError(
                source,
                f"unknown tile {unknown.group()!r}; tiles are . # G E and the items L S A H",
                number,
                unknown.start() + 1,
            )
        if rows and len(row) != len(rows[0]):
            raise MapError(
                source,
                f"row is {len(row)} squares wide but the first row is {len(rows[0])}",
                number,
                min(len(row), len(rows[0])) + 1,
            )
        rows.append(row)

    if not any(EXIT in row for row in rows):
        raise MapError(source, "the map has no exit (E)")
    gold = sum(row.count(GOLD) for row in rows)
    if gold < goal:
        raise MapError(
            source, f"the map holds {gold} gold but 'win' asks for {goal}", 2, goal_column
        )
    return ClassicMap(name, goal, tuple(rows))


def read_map(path: str | Path) -> ClassicMap:
    """Read and check a map file; undecodable bytes are reported by place."""
    return parse_map(read_text(path), str(path))
