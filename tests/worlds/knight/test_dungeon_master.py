"""The dungeon master: seeded grids within the range asked for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.worlds.knight.dungeon_master import DEFAULT_HIGH, DEFAULT_LOW, generate


def test_the_same_seed_gives_the_same_grid() -> None:
    assert generate(7, 9, seed=3) == generate(7, 9, seed=3)
    assert generate(7, 9, seed=3) != generate(7, 9, seed=4)


def test_the_default_range_is_the_studys() -> None:
    grid = generate(60, 60, seed=1)
    values = [value for row in grid for value in row]
    assert (DEFAULT_LOW, DEFAULT_HIGH) == (-1000, 1000)
    assert min(values) >= -1000 and max(values) <= 1000
    assert min(values) < -900 and max(values) > 900, "the whole range is used"


@settings(max_examples=50, deadline=None)
@given(
    rows=st.integers(1, 8),
    cols=st.integers(1, 8),
    low=st.integers(-50, 50),
    span=st.integers(0, 20),
    seed=st.integers(0, 2**40),
)
def test_values_lie_in_the_range(rows: int, cols: int, low: int, span: int, seed: int) -> None:
    grid = generate(rows, cols, low=low, high=low + span, seed=seed)
    assert (grid.height, grid.width) == (rows, cols)
    assert all(low <= value <= low + span for row in grid for value in row)


@pytest.mark.parametrize(
    "rows, cols, low, high, message",
    [
        (0, 3, -1, 1, "at least 1 x 1"),
        (3, 0, -1, 1, "at least 1 x 1"),
        (3, 3, 5, 4, "empty"),
        (3, 3, -(2**63) - 1, 0, "must lie in"),
    ],
)
def test_impossible_requests_are_refused(
    rows: int, cols: int, low: int, high: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        generate(rows, cols, low=low, high=high)
