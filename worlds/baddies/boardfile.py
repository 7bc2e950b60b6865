"""Baddies board files: a name line, then the board drawn with one glyph per square.

::

    name Two monsters in a row
    ..........
    H..mm....*
    ..........

Glyphs: ``.`` nothing, ``H`` the hero's start (exactly one), ``*`` escape ladder
(at least one), ``+`` wall, ``#`` abyss, ``m`` monster, ``M`` super monster,
``~`` bat. Nothing is a dot, not the console's space, so that editors that trim
trailing spaces cannot change a board.

Read liberally: ``LF``, ``CRLF`` or ``CR`` line ends, with or without a final
newline, blank lines after the grid, a UTF-8 byte-order mark, ``name`` in any
case. Refused with ``file:line:column: reason``: a missing name line, rows of
unequal length, an unknown glyph, a blank line inside the grid, no rows, no hero
or more than one, no ladder, or a board larger than the generator allows.

:func:`format_board` writes a board (its pieces and its start) in this format;
:func:`parse_board` of that text gives the same board back.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from ..errors import MapError, read_text
from .board import BADDIES, HERO, LADDER, STATICS, Board, Position
from .generate import MAX_COLUMNS, MAX_ROWS

NOTHING: Final = "."
GLYPHS: Final = frozenset({NOTHING, HERO}) | STATICS | BADDIES
_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")
_NAME: Final = re.compile(r"(?i)name(?:[ \t]+(.*))?")


def parse_board(text: str, source: str = "<board>") -> tuple[str, Board]:
    """The name and board written in ``text``; raises :class:`MapError` at the fault."""
    lines = _LINE_BREAK.split(text.removeprefix("\ufeff"))
    header = _NAME.fullmatch(lines[0].rstrip())
    if header is None:
        raise MapError(source, f"expected 'name <text>' here, found {lines[0][:30]!r}", 1, 1)
    name = (header.group(1) or "").strip()
    last = len(lines)
    while last > 1 and not lines[last - 1].strip():
        last -= 1
    if last <= 1:
        raise MapError(source, "the board has no rows", len(lines), 1)
    if last - 1 > MAX_ROWS:
        raise MapError(source, f"the board has more than {MAX_ROWS} rows", MAX_ROWS + 2, 1)

    statics: dict[Position, str] = {}
    baddies: dict[Position, str] = {}
    starts: list[tuple[Position, int, int]] = []
    width = len(lines[1])
    for index in range(1, last):
        row = lines[index]
        number, r = index + 1, index - 1
        if not row:
            raise MapError(source, "blank line inside the board", number, 1)
        for c, glyph in enumerate(row):
            if glyph not in GLYPHS:
                raise MapError(
                    source,
                    f"unknown glyph {glyph!r}; glyphs are . H * + # m M ~",
                    number,
                    c + 1,
                )
            if glyph in STATICS:
                statics[(r, c)] = glyph
            elif glyph in BADDIES:
                baddies[(r, c)] = glyph
            elif glyph == HERO:
                starts.append(((r, c), number, c + 1))
        if len(row) != width:
            raise MapError(
                source,
                f"row is {len(row)} squares wide but the first row is {width}",
                number,
                min(len(row), width) + 1,
            )
        if width > MAX_COLUMNS:
            raise MapError(
                source, f"rows may be at most {MAX_COLUMNS} squares wide", number, MAX_COLUMNS + 1
            )
    if not starts:
        raise MapError(source, "the board has no hero start (H)")
    if len(starts) > 1:
        _, line, column = starts[1]
        raise MapError(source, "a second hero start (H); a board has exactly one", line, column)
    if LADDER not in statics.values():
        raise MapError(source, "the board has no escape ladder (*)")
    return name, Board(last - 1, width, statics, baddies, starts[0][0])


def read_board(path: str | Path) -> tuple[str, Board]:
    """Read and check a board file; undecodable bytes are reported by place."""
    return parse_board(read_text(path), str(path))


def format_board(name: str, board: Board) -> str:
    """``board`` in the file format (``LF`` line ends, final newline).

    The start is written as ``H``; heroes at play are left out.
    """
    rows = board.drawing(NOTHING, {board.start: HERO})
    return "\n".join([f"name {name}", *rows]) + "\n"
