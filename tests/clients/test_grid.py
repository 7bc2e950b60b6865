from __future__ import annotations

import pytest

from dungeon_of_doom.clients.grid import Grid

VIEW = Grid(("X###X", "#.###", ".GG..", "###.#", "X#E.X"))


def test_reading_tiles_by_position_and_by_offset_from_the_centre() -> None:
    assert VIEW.centre == (2, 2)
    assert VIEW[2, 1] == "G" and VIEW.relative(0, 0) == "G"
    assert VIEW.relative(2, 0) == "E" and VIEW.relative(-1, -1) == "."
    assert (VIEW.height, VIEW.width) == (5, 5)


def test_positions_off_the_grid_do_not_wrap() -> None:
    with pytest.raises(IndexError):
        VIEW[-1, 0]
    assert VIEW.get((5, 0), "#") == "#"
    assert (0, -1) not in VIEW and (4, 4) in VIEW


def test_find_lists_positions_row_by_row() -> None:
    assert VIEW.find("G") == [(2, 1), (2, 2)]
    assert VIEW.find("GE") == [(2, 1), (2, 2), (4, 2)]
    assert str(VIEW).splitlines()[2] == ".GG.."


def test_rows_of_unequal_length_are_refused() -> None:
    with pytest.raises(ValueError):
        Grid(("..", "..."))
