"""The knight grid type and its file format: liberal in what loads, precise about faults."""

from __future__ import annotations

from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.worlds.errors import MapError
from dungeon_of_doom.worlds.knight.grid import (
    MAX_VALUE,
    MIN_VALUE,
    Grid,
    format_grid,
    parse_grid,
    read_grid,
)

EXAMPLE = [[-2, -3, 3], [-5, -10, 1], [10, 30, -5]]


def test_the_example_file_loads() -> None:
    text = "# The seed's example\n-2  -3   3\n-5 -10   1\n10  30  -5\n"
    grid = parse_grid(text)
    assert grid.to_lists() == EXAMPLE
    assert (grid.height, grid.width, grid.goal) == (3, 3, (2, 2))
    assert grid[1][1] == -10


@pytest.mark.parametrize(
    "text",
    [
        "-2 -3 3\r\n-5 -10 1\r\n10 30 -5\r\n",
        "-2 -3 3\r-5 -10 1\r10 30 -5",
        "\ufeff-2 -3 3\n-5 -10 1\n10 30 -5",
        "\n\n# top\n-2\t-3 +3   # trailing comment\n\n-5 -10 1\n# between\n10 30 -5\n\n\n",
    ],
)
def test_line_ends_comments_blank_lines_and_signs_are_accepted(text: str) -> None:
    assert parse_grid(text).to_lists() == EXAMPLE


@pytest.mark.parametrize(
    "text, line, column, reason",
    [
        ("1 2\n3 x4\n", 2, 3, "'x4' is not a whole number"),
        ("1 2.5\n", 1, 3, "not a whole number"),
        ("1 2\n3 4 5\n", 2, 5, "this row has 3 values but the first row (line 1) has 2"),
        ("# c\n1 2 3\n\n4 5\n", 4, 4, "this row has 2 values but the first row (line 2) has 3"),
        (f"1 {MAX_VALUE + 1}\n", 1, 3, "does not fit in 64 bits"),
    ],
)
def test_faults_are_reported_with_line_and_column(
    text: str, line: int, column: int, reason: str
) -> None:
    with pytest.raises(MapError) as caught:
        parse_grid(text, "g.txt")
    assert (caught.value.line, caught.value.column) == (line, column)
    assert reason in caught.value.reason
    assert str(caught.value).startswith(f"g.txt:{line}:{column}: ")


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_a_grid_needs_rows(text: str) -> None:
    with pytest.raises(MapError, match="no rows"):
        parse_grid(text, "g.txt")


def test_read_grid_reports_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"1 2\n3 \xff\n")
    with pytest.raises(MapError) as caught:
        read_grid(path)
    assert str(caught.value) == f"{path}:2:3: bytes that are not UTF-8 text"


def test_read_grid_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    path.write_text("1 -1\n")
    assert read_grid(path) == Grid([[1, -1]])


values = st.integers(MIN_VALUE, MAX_VALUE) | st.integers(-1000, 1000)
grids = st.integers(1, 6).flatmap(
    lambda width: st.lists(st.lists(values, min_size=width, max_size=width), min_size=1, max_size=6)
)


@settings(max_examples=100, deadline=None)
@given(grids, st.sampled_from([None, "a comment", "two\nlines"]))
def test_format_then_parse_gives_the_same_grid(rows: list[list[int]], comment: str | None) -> None:
    grid = Grid(rows)
    text = format_grid(grid, comment)
    assert parse_grid(text) == grid
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert len({len(line) for line in body}) == 1, "columns are aligned"


def test_grids_compare_and_hash_by_value() -> None:
    assert Grid(EXAMPLE) == Grid(EXAMPLE)
    assert hash(Grid(EXAMPLE)) == hash(Grid([list(row) for row in EXAMPLE]))
    assert Grid(EXAMPLE) != Grid([[1]])
    assert Grid(EXAMPLE) != EXAMPLE
    assert isinstance(Grid(EXAMPLE)[0], array)
    assert list(Grid(EXAMPLE)[1:]) == [array("q", row) for row in EXAMPLE[1:]]


@pytest.mark.parametrize(
    "rows, message",
    [
        ([], "at least one row"),
        ([[]], "at least one row"),
        ([[1, 2], [3]], "row 1 has 1 values, row 0 has 2"),
        ([[MAX_VALUE + 1]], "must lie in"),
    ],
)
def test_a_grid_must_be_a_rectangle_of_64_bit_integers(rows: list[list[int]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Grid(rows)
