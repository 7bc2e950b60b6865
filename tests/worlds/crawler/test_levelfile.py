"""Crawler level files: every real-world form loads; every invalid file says where it is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from dungeon_of_doom.worlds.crawler.levelfile import MAX_AREA, Level, parse_level, read_level
from dungeon_of_doom.worlds.errors import MapError

EXAMPLE = "5 3\n3 0\nM + -\n- + -\n- + !\n- - -\n@ - $\n"
TILES = b"M+--+--+!---@-$"


@pytest.mark.parametrize(
    "text",
    [
        EXAMPLE,
        EXAMPLE.replace("\n", "\r\n"),
        EXAMPLE.rstrip("\n"),
        "5 3\n3 0\n" + EXAMPLE.split("\n", 2)[2].replace(" ", ""),
        "5 3 3 0 M+--+--+!---@-$",
        "5\n3\n\n3\t0\nM+- -+-\n-+!---@\n-$",
        "\ufeff" + EXAMPLE,
        "+5 3\n3 +0\n" + EXAMPLE.split("\n", 2)[2],
    ],
    ids=["lf", "crlf", "no-final-newline", "glued", "one-line", "any-whitespace", "bom", "signs"],
)
def test_whitespace_and_line_breaks_carry_no_meaning(text: str) -> None:
    level = parse_level(text)
    assert (level.rows, level.cols, level.start, level.tiles) == (5, 3, (3, 0), TILES)


def test_round_trip_through_the_file_format() -> None:
    level = parse_level(EXAMPLE)
    assert parse_level(level.to_text()) == level
    assert level.tile(4, 0) == "@"


@pytest.mark.parametrize(
    ("text", "where", "fragment"),
    [
        ("", "L:1:1", "number of rows is missing"),
        ("3", "L:1:2", "number of columns is missing"),
        ("3 3\n0", "L:2:2", "start column is missing"),
        ("x 3\n0 0\n---------", "L:1:1", "number of rows must be a whole number, not 'x'"),
        ("3 3.5\n0 0\n---------", "L:1:3", "number of columns must be a whole number"),
        ("3 3\n0 -\n---------", "L:2:3", "start column must be a whole number, not '-'"),
        ("0 3\n0 0\n", "L:1:1", "rows must be from 1 to 999,999, not 0"),
        ("3 1000000\n0 0\n", "L:1:3", "columns must be from 1 to 999,999, not 1000000"),
        ("-2 3\n0 0\n", "L:1:1", "not -2"),
        ("999999 999999\n0 0\n", "L:1:1", f"more than the limit of {MAX_AREA:,}"),
        ("3 3\n3 0\n---------", "L:2:1", "start row 3 is outside the map (rows 0 to 2)"),
        ("3 3\n0 -1\n---------", "L:2:3", "start column -1 is outside the map"),
        ("2 2\n0 0\n- ?\n- x", "L:4:3", "unknown tile 'x'"),
        ("2 2\n0 0\n- ?\n- o", "L:4:3", "o is how the player is drawn"),
        ("2 2\n0 0\n- ?\n-", "L:4:2", "has 3 tiles but 2 × 2 needs 4"),
        ("2 2\n0 0\n- ?\n- - $", "L:4:5", "this is tile number 5"),
        ("2 2\n1 1\n- ?\n- M", "L:4:3", "start square (1, 1) holds 'M'"),
        ("2 2\n0 0\n- -\n- $", "L", "neither a door (?) nor an exit (!)"),
    ],
)
def test_invalid_levels_report_file_line_and_column(text: str, where: str, fragment: str) -> None:
    with pytest.raises(MapError) as caught:
        parse_level(text, "L")
    message = str(caught.value)
    assert message.startswith(where + ": "), message
    assert fragment in message


def test_a_door_or_an_exit_is_enough() -> None:
    assert parse_level("1 2\n0 0\n- !").tiles == b"-!"
    assert parse_level("1 2\n0 0\n- ?").tiles == b"-?"


def test_files_are_read_and_named(tmp_path: Path) -> None:
    good, bad = tmp_path / "good1.txt", tmp_path / "bad1.txt"
    good.write_bytes(EXAMPLE.replace("\n", "\r\n").encode())
    bad.write_bytes(b"1 2\n0 0\n-\xff")
    assert read_level(good) == Level(5, 3, (3, 0), TILES, str(good))
    with pytest.raises(MapError, match=r"bad1\.txt:3:2: bytes that are not UTF-8"):
        read_level(bad)
    with pytest.raises(MapError, match="cannot read the file"):
        read_level(tmp_path / "missing.txt")


def test_compat_levels_load(compat: Path) -> None:
    levels = {p.stem: read_level(p) for p in sorted((compat / "crawler-levels").glob("*.txt"))}
    assert len(levels) == 10
    assert (levels["example"].rows, levels["example"].cols) == (5, 3)
    assert levels["hard1"].start == (0, 0)
