"""The four solvers (RULES §5): the seed's answer, edge cases, agreement, and large grids."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.worlds.knight.dungeon_master import generate
from dungeon_of_doom.worlds.knight.grid import Grid
from dungeon_of_doom.worlds.knight.solver import (
    ALGORITHMS,
    MAX_RECURSIVE_PATH,
    GridTooLarge,
    Solution,
    Values,
    health_along,
    min_health,
    path_need,
    recursive_calls,
    solve_binary,
    solve_bottom_up,
    solve_memoised,
    solve_recursive,
    surviving_path,
)
from dungeon_of_doom.worlds.knight.solver import Path as KnightPath

SEED_EXAMPLE = [[-2, -3, 3], [-5, -10, 1], [10, 30, -5]]
LARGE_GRID_SOLVERS = [solve_memoised, solve_bottom_up, solve_binary]


def every_path(height: int, width: int) -> list[tuple[tuple[int, int], ...]]:
    """All right/down paths, by choosing which of the steps go south."""
    steps = height + width - 2
    paths = []
    for souths in itertools.combinations(range(steps), height - 1):
        row = column = 0
        path = [(0, 0)]
        for step in range(steps):
            if step in souths:
                row += 1
            else:
                column += 1
            path.append((row, column))
        paths.append(tuple(path))
    return paths


def brute_force(values: list[list[int]]) -> int:
    """The least starting health by trying every path, independent of the solvers."""
    return min(path_need(values, path) for path in every_path(len(values), len(values[0])))


def check(values: list[list[int]] | Grid, solution: Solution, expected: int) -> None:
    assert solution.health == expected
    assert path_need(values, solution.path) == expected
    assert len(solution.path) == len(values) + len(values[0]) - 1


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_the_seed_example_needs_seven(name: str) -> None:
    solution = ALGORITHMS[name](SEED_EXAMPLE)
    assert solution.health == 7
    assert solution.path == ((0, 0), (0, 1), (0, 2), (1, 2), (2, 2))
    assert solution.moves == "EESS"
    assert health_along(SEED_EXAMPLE, solution.path, 7) == [5, 2, 5, 6, 1]


EDGE_CASES = {
    "1x1 trap": ([[-5]], 6),
    "1x1 potion": ([[5]], 1),
    "1x1 zero": ([[0]], 1),
    "one row": ([[3, -4, -2, 5, -7, 1, -1]], 6),
    "one column": ([[-1], [-2], [4], [-6]], 6),
    "all positive": ([[1, 2, 3], [4, 5, 6]], 1),
    "all zero": ([[0, 0], [0, 0]], 1),
    # The least bad path is -1, -2, -8, -1, -2 (a total of -14).
    "all negative": ([[-1, -2, -9], [-4, -8, -1], [-7, -6, -2]], 15),
    "first square only": ([[-10, 5], [5, 5]], 11),
    "last square only": ([[5, 5], [5, -100]], 91),
}


@pytest.mark.parametrize("name", list(ALGORITHMS))
@pytest.mark.parametrize("case", list(EDGE_CASES))
def test_edge_cases(name: str, case: str) -> None:
    values, expected = EDGE_CASES[case]
    assert brute_force(values) == expected
    check(values, ALGORITHMS[name](values), expected)


def test_a_one_square_path_has_no_moves() -> None:
    assert solve_bottom_up([[4]]).moves == ""


def test_the_path_with_the_largest_sum_is_not_the_answer() -> None:
    # The study's warning: a min-cost (max-sum) path need not keep the knight alive.
    values = [[1, -30, 90, 1], [-4, -4, -4, 1], [-4, -4, -4, 1]]
    largest = max(every_path(3, 4), key=lambda p: sum(values[r][c] for r, c in p))
    assert path_need(values, largest) == 30
    for solver in ALGORITHMS.values():
        check(values, solver(values), 12)


grids = st.integers(1, 6).flatmap(
    lambda height: st.integers(1, 6).flatmap(
        lambda width: st.lists(
            st.lists(st.integers(-30, 20), min_size=width, max_size=width),
            min_size=height,
            max_size=height,
        )
    )
)


@settings(max_examples=300, deadline=None)
@given(grids)
def test_all_four_agree_with_every_path_tried(values: list[list[int]]) -> None:
    expected = brute_force(values)
    for solver in ALGORITHMS.values():
        check(values, solver(values), expected)


@settings(max_examples=100, deadline=None)
@given(
    rows=st.integers(1, 40),
    cols=st.integers(1, 40),
    seed=st.integers(0, 2**32),
    low=st.integers(-1000, 0),
)
def test_the_fast_three_agree_on_larger_generated_grids(
    rows: int, cols: int, seed: int, low: int
) -> None:
    grid = generate(rows, cols, low=low, high=1000, seed=seed)
    expected = min_health(grid)
    for solver in LARGE_GRID_SOLVERS:
        check(grid, solver(grid), expected)


@settings(max_examples=60, deadline=None)
@given(grids, st.integers(0, 50))
def test_surviving_path_works_for_any_sufficient_health(
    values: list[list[int]], extra: int
) -> None:
    health = min_health(values) + extra
    path = surviving_path(values, health)
    assert min(health_along(values, path, health)) > 0


def test_surviving_path_refuses_too_little_health() -> None:
    with pytest.raises(ValueError, match="needs 7"):
        surviving_path(SEED_EXAMPLE, 6)


@pytest.mark.parametrize("shape", [(3000, 2), (2, 3000), (1, 5000), (5000, 1)])
@pytest.mark.parametrize("solver", LARGE_GRID_SOLVERS)
def test_long_paths_do_not_hit_the_recursion_limit(
    shape: tuple[int, int], solver: Callable[[Values], Solution]
) -> None:
    # A path of 3,000 squares or more is deeper than Python's default limit (1,000)
    # would allow any recursive version.
    grid = generate(*shape, low=-10, high=9, seed=1)
    check(grid, solver(grid), min_health(grid))


def test_the_fast_three_agree_on_a_300_by_300_grid() -> None:
    grid = generate(300, 300, low=-1000, high=800, seed=5)
    answers = {solver(grid) for solver in LARGE_GRID_SOLVERS}
    assert len({solution.health for solution in answers}) == 1
    for solution in answers:
        assert path_need(grid, solution.path) == solution.health


def test_plain_recursion_refuses_paths_beyond_its_limit() -> None:
    with pytest.raises(GridTooLarge, match="limit is"):
        solve_recursive([[1] * MAX_RECURSIVE_PATH, [1] * MAX_RECURSIVE_PATH])
    solve_recursive([[1] * (MAX_RECURSIVE_PATH - 1)])


def test_recursive_call_count_is_one_call_per_path_to_each_square() -> None:
    for height, width in [(1, 1), (1, 7), (3, 3), (4, 6)]:
        paths = sum(
            len(every_path(row + 1, column + 1)) for row in range(height) for column in range(width)
        )
        assert recursive_calls(height, width) == paths


@pytest.mark.parametrize(
    "path, message",
    [
        (((0, 0), (1, 1), (2, 2)), "not one step"),
        (((0, 0), (0, 1), (0, 2)), "bottom-right"),
        (((0, 1), (0, 2), (1, 2), (2, 2)), "bottom-right"),
        ((), "bottom-right"),
    ],
)
def test_health_along_rejects_paths_that_are_not_paths(path: KnightPath, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        health_along(SEED_EXAMPLE, path, 10)


@pytest.mark.parametrize("values", [[], [[]], [[1, 2], [3]]])
def test_solvers_reject_grids_that_are_not_rectangles(values: list[list[int]]) -> None:
    for solver in ALGORITHMS.values():
        with pytest.raises(ValueError):
            solver(values)
