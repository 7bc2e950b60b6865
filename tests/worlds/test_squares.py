"""The open squares of a byte map: counted per row, found by number, drawn at random."""

from __future__ import annotations

import random

import pytest

from dungeon_of_doom.worlds.api import WorldFull
from dungeon_of_doom.worlds.squares import OpenSquares, free_square

ROWS = ["#####", "#..G#", "#####", "#E.##", "#####"]
CELLS = bytearray("".join(ROWS), "ascii")


def test_every_open_square_in_reading_order_by_number() -> None:
    squares = OpenSquares(CELLS, 5, "#")
    expected = [(r, c) for r, row in enumerate(ROWS) for c, tile in enumerate(row) if tile != "#"]
    assert len(squares) == len(expected) == 5
    assert [squares.nth(n) for n in range(len(squares))] == expected
    assert list(squares) == expected
    with pytest.raises(IndexError):
        squares.nth(5)


def test_tiles_changed_in_place_other_than_walls_are_still_open() -> None:
    cells = bytearray(CELLS)
    squares = OpenSquares(cells, 5, "#")
    cells[1 * 5 + 3] = ord(".")  # the gold picked up
    assert squares.nth(2) == (1, 3)


def test_the_draw_matches_a_list_of_the_open_squares() -> None:
    # What the classic world did before: a list of every open square, the same draws.
    squares = OpenSquares(CELLS, 5, "#")
    listed = list(squares)
    for seed in range(20):
        taken = {listed[seed % 5]}
        ours, theirs = random.Random(seed), random.Random(seed)
        expected = None
        for _ in range(16):
            square = listed[theirs.randrange(len(listed))]
            if square not in taken:
                expected = square
                break
        if expected is None:
            free = [square for square in listed if square not in taken]
            expected = free[theirs.randrange(len(free))]
        assert free_square(squares, ours, taken) == expected


def test_a_full_map_raises_world_full() -> None:
    squares = OpenSquares(CELLS, 5, "#")
    assert free_square(squares, random.Random(1), set(list(squares)[1:])) == (1, 1)
    with pytest.raises(WorldFull):
        free_square(squares, random.Random(1), set(squares))
    with pytest.raises(WorldFull):
        free_square(OpenSquares(b"###", 3, "#"), random.Random(1), ())
