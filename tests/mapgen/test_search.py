"""The bounded best-first search, on a game small enough to check by hand."""

from __future__ import annotations

from dungeon_of_doom.mapgen.search import find_line

# A counter game: add 1 or double; losing above the target. Keys are the numbers.


def play(number: int, action: str) -> int | None:
    after = number + 1 if action == "+1" else number * 2
    return after if after <= 37 else None


def search(budget: int, estimate: float = 0) -> list[str] | None:
    return find_line(
        1, ("+1", "*2"), play, lambda n: n, lambda n: n == 37, lambda n: estimate, budget
    )


def test_a_line_it_returns_wins() -> None:
    line = search(1000)
    assert line is not None
    number = 1
    for action in line:
        after = play(number, action)
        assert after is not None
        number = after
    assert number == 37


def test_the_budget_bounds_the_search() -> None:
    assert search(3) is None
    assert search(1000) is not None


def test_no_win_no_line() -> None:
    assert find_line(1, ("+1",), play, lambda n: n, lambda n: n == 99, lambda n: 0, 10**6) is None


def test_a_state_that_cannot_win_is_not_explored() -> None:
    assert search(1000, estimate=float("inf")) is None


def test_the_same_inputs_give_the_same_line() -> None:
    assert search(1000) == search(1000)


def test_a_won_start_needs_no_moves() -> None:
    assert find_line(37, ("+1",), play, lambda n: n, lambda n: n == 37, lambda n: 0, 1) == []
