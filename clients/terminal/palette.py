"""What each square of a map is, for colouring, and which part of a big map to show.

Pure: no terminal. What a caller may rely on:

* :func:`classify` gives one :class:`Tile` per character of every row, so a row
  and its tiles can be sliced together. The glyphs are each world's own (see
  ``docs/worlds/``); the knight world's ``MAP`` is numbers, read field by field
  (``[v]`` you, ``(v)`` another knight, ``v*`` your trail, the bottom-right
  value the goal).
* :func:`legend` lists a world's glyphs and what they are, for the help.
* :func:`window` crops rows (and their tiles) to a viewport around a square,
  so a map larger than the screen keeps the player in view.
* :data:`STYLES` is the colour of each kind of tile, as a Rich style.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "STYLES",
    "Tile",
    "classify",
    "find_self",
    "legend",
    "window",
]


class Tile(enum.Enum):
    """The kinds of square a map shows; each has one colour."""

    WALL = "wall"
    FLOOR = "floor"
    GOLD = "gold"
    EXIT = "exit"
    MONSTER = "monster"
    HAZARD = "hazard"
    ITEM = "item"
    SELF = "you"
    PLAYER = "player"
    TRAIL = "trail"
    EDGE = "edge"
    OTHER = "other"


STYLES: dict[Tile, str] = {
    Tile.WALL: "bold #c0c0c0 on #4e4e4e",
    Tile.FLOOR: "#6c6c6c",
    Tile.GOLD: "bold #ffd700",
    Tile.EXIT: "bold #000000 on #5fd75f",
    Tile.MONSTER: "bold #ff5f5f",
    Tile.HAZARD: "bold #ff8787 on #5f0000",
    Tile.ITEM: "bold #5fd7ff",
    Tile.SELF: "bold #000000 on #ffffff",
    Tile.PLAYER: "bold #ff87ff",
    Tile.TRAIL: "#87afd7",
    Tile.EDGE: "#3a3a3a",
    Tile.OTHER: "",
}


@dataclass(frozen=True, slots=True)
class Glyph:
    char: str
    tile: Tile
    meaning: str


_PLAYERS = (
    Glyph("P", Tile.PLAYER, "another player"),
    Glyph("B", Tile.PLAYER, "a bot"),
    Glyph("X", Tile.EDGE, "corner of the 5×5 view"),
)

_GLYPHS: dict[str, tuple[Glyph, ...]] = {
    "classic": (
        Glyph("@", Tile.SELF, "you"),
        Glyph(".", Tile.FLOOR, "floor"),
        Glyph("#", Tile.WALL, "wall (or off the map)"),
        Glyph("G", Tile.GOLD, "gold"),
        Glyph("E", Tile.EXIT, "exit"),
        Glyph("L", Tile.ITEM, "lantern"),
        Glyph("S", Tile.ITEM, "sword"),
        Glyph("A", Tile.ITEM, "armour"),
        Glyph("H", Tile.ITEM, "health potion"),
        *_PLAYERS,
    ),
    "crawler": (
        Glyph("o", Tile.SELF, "you"),
        Glyph("-", Tile.FLOOR, "open floor"),
        Glyph("+", Tile.WALL, "pillar"),
        Glyph("#", Tile.EDGE, "off the map"),
        Glyph("$", Tile.GOLD, "treasure"),
        Glyph("@", Tile.ITEM, "amulet: doubles the level"),
        Glyph("M", Tile.MONSTER, "monster"),
        Glyph("?", Tile.EXIT, "door to the next level"),
        Glyph("!", Tile.EXIT, "exit (opens with a treasure)"),
        *_PLAYERS,
    ),
    "baddies": (
        Glyph("@", Tile.SELF, "you"),
        Glyph(".", Tile.FLOOR, "nothing"),
        Glyph("+", Tile.WALL, "wall"),
        Glyph("#", Tile.HAZARD, "abyss (or off the board)"),
        Glyph("*", Tile.EXIT, "escape ladder"),
        Glyph("m", Tile.MONSTER, "monster"),
        Glyph("M", Tile.MONSTER, "super monster"),
        Glyph("~", Tile.MONSTER, "bat"),
        *_PLAYERS,
    ),
    "knight": (
        Glyph("-", Tile.HAZARD, "trap (LOOK)"),
        Glyph("+", Tile.ITEM, "potion (LOOK)"),
        Glyph(".", Tile.FLOOR, "empty square (LOOK)"),
        Glyph("E", Tile.EXIT, "the bottom-right square, your goal"),
        Glyph("#", Tile.EDGE, "off the grid"),
        *_PLAYERS,
    ),
}

_KNIGHT_NUMBERS = (
    ("[v]", Tile.SELF, "you, on a square of value v (MAP)"),
    ("(v)", Tile.PLAYER, "another knight (MAP)"),
    ("v*", Tile.TRAIL, "a square you crossed (MAP)"),
    ("-v", Tile.HAZARD, "a trap: its value is taken from your health"),
    ("v", Tile.ITEM, "a potion: its value is added to your health"),
)

_UNKNOWN_WORLD = (
    Glyph("@", Tile.SELF, "you"),
    Glyph("#", Tile.WALL, "wall (or off the map)"),
    Glyph(".", Tile.FLOOR, "floor"),
    Glyph("G", Tile.GOLD, "gold"),
    Glyph("E", Tile.EXIT, "exit"),
    *_PLAYERS,
)


def legend(world: str | None) -> list[tuple[str, Tile, str]]:
    """``(glyph, tile, meaning)`` for each glyph of ``world``'s maps."""
    glyphs = _GLYPHS.get(world or "", _UNKNOWN_WORLD)
    entries = [(glyph.char, glyph.tile, glyph.meaning) for glyph in glyphs]
    if world == "knight":
        entries += list(_KNIGHT_NUMBERS)
    return entries


_KNIGHT_FIELD = re.compile(r"\[-?\d+\]|\(-?\d+\)|-?\d+\*|-?\d+")


def classify(world: str | None, rows: Sequence[str], *, look: bool = False) -> list[list[Tile]]:
    """One :class:`Tile` per character of each row.

    ``look`` says the rows are a 5×5 ``LOOK`` (the centre is then shown as you;
    the knight world's ``LOOK`` is glyphs, its ``MAP`` numbers).
    """
    if world == "knight" and not look:
        return _classify_knight_numbers(rows)
    table = {glyph.char: glyph.tile for glyph in _GLYPHS.get(world or "", _UNKNOWN_WORLD)}
    tiles = [[table.get(char, Tile.OTHER) for char in row] for row in rows]
    if look and tiles:
        middle = len(tiles) // 2
        if tiles[middle]:
            tiles[middle][len(tiles[middle]) // 2] = Tile.SELF
    return tiles


def _classify_knight_numbers(rows: Sequence[str]) -> list[list[Tile]]:
    tiles = [[Tile.FLOOR] * len(row) for row in rows]
    goal: tuple[int, int, int] | None = None
    for r, row in enumerate(rows):
        for match in _KNIGHT_FIELD.finditer(row):
            text = match.group()
            if text.startswith("["):
                tile = Tile.SELF
            elif text.startswith("("):
                tile = Tile.PLAYER
            elif text.endswith("*"):
                tile = Tile.TRAIL
            else:
                value = int(text)
                tile = Tile.HAZARD if value < 0 else Tile.ITEM if value > 0 else Tile.FLOOR
            tiles[r][match.start() : match.end()] = [tile] * (match.end() - match.start())
            goal = (r, match.start(), match.end())
    if goal is not None:
        r, start, end = goal
        if tiles[r][start] not in (Tile.SELF, Tile.PLAYER):
            tiles[r][start:end] = [Tile.EXIT] * (end - start)
    return tiles


def find_self(tiles: Sequence[Sequence[Tile]]) -> tuple[int, int] | None:
    """Where the player is drawn (the first square shown as you), if anywhere."""
    for r, row in enumerate(tiles):
        for c, tile in enumerate(row):
            if tile is Tile.SELF:
                return r, c
    return None


def window(
    rows: Sequence[str],
    tiles: Sequence[Sequence[Tile]],
    focus: tuple[int, int] | None,
    height: int,
    width: int,
) -> tuple[list[str], list[list[Tile]]]:
    """The part of ``rows`` (and ``tiles``) that fits ``height`` × ``width``.

    The viewport is centred on ``focus`` as far as the map allows (on the
    top-left corner without one); a map that fits is returned whole.
    """
    height, width = max(height, 1), max(width, 1)
    total_rows = len(rows)
    total_columns = max((len(row) for row in rows), default=0)
    focus_row, focus_column = focus if focus is not None else (0, 0)
    top = _start(focus_row, height, total_rows)
    left = _start(focus_column, width, total_columns)
    shown = slice(top, top + height)
    columns = slice(left, left + width)
    return [row[columns] for row in rows[shown]], [list(row[columns]) for row in tiles[shown]]


def _start(focus: int, size: int, total: int) -> int:
    if total <= size:
        return 0
    return min(max(focus - size // 2, 0), total - size)
