"""The knight's two views: glyphs for LOOK, aligned numbers for MAP, and reading MAP back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.worlds.knight.grid import Grid
from dungeon_of_doom.worlds.knight.render import (
    CROSSED,
    KNIGHT,
    YOU,
    glyph_rows,
    number_rows,
    read_numbers,
)

EXAMPLE = Grid([[-2, -3, 3], [-5, -10, 1], [10, 0, -5]])


def test_glyphs_show_traps_potions_empty_squares_and_the_goal() -> None:
    assert glyph_rows(EXAMPLE) == ("--+", "--+", "+.E")
    assert glyph_rows(Grid([[7]])) == ("E",)


def test_numbers_are_aligned_and_marked() -> None:
    rows = number_rows(EXAMPLE, {(0, 0): CROSSED, (0, 1): YOU, (2, 2): KNIGHT})
    assert rows == (
        "  -2* [-3]   3 ",
        "  -5  -10    1 ",
        "  10    0  (-5)",
    )
    assert number_rows(Grid([[5, -100]])) == ("    5  -100 ",)


def test_reading_numbers_back() -> None:
    rows = number_rows(EXAMPLE, {(0, 0): CROSSED, (0, 1): YOU, (2, 2): KNIGHT, (1, 1): KNIGHT})
    seen = read_numbers(rows)
    assert seen.grid == EXAMPLE
    assert seen.you == (0, 1)
    assert seen.knights == {(2, 2), (1, 1)}
    assert seen.crossed == {(0, 0)}
    assert read_numbers(number_rows(EXAMPLE)).you is None


marks = st.sampled_from([YOU, KNIGHT, CROSSED])
grids = st.integers(1, 5).flatmap(
    lambda width: st.lists(
        st.lists(st.integers(-(10**12), 10**12), min_size=width, max_size=width),
        min_size=1,
        max_size=5,
    )
)


@settings(max_examples=100, deadline=None)
@given(grids, st.data())
def test_any_drawing_reads_back(rows: list[list[int]], data: st.DataObject) -> None:
    grid = Grid(rows)
    squares = [(r, c) for r in range(grid.height) for c in range(grid.width)]
    chosen = data.draw(st.dictionaries(st.sampled_from(squares), marks, max_size=4))
    drawing = number_rows(grid, chosen)
    assert len({len(line) for line in drawing}) == 1
    seen = read_numbers(drawing)
    assert seen.grid == grid
    assert seen.crossed == {square for square, mark in chosen.items() if mark == CROSSED}
    assert seen.knights == {square for square, mark in chosen.items() if mark == KNIGHT}


@pytest.mark.parametrize("lines", [["1 2", "3 x"], ["1 2", "3"], []])
def test_reading_refuses_what_is_not_a_drawing(lines: list[str]) -> None:
    with pytest.raises(ValueError):
        read_numbers(lines)
