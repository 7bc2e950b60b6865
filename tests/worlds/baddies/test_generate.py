"""Board generation: the original's layout, piece counts, checks, and the original's boards."""

from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.clients.baddies_console import draw
from dungeon_of_doom.worlds.baddies import Parameters, generate
from dungeon_of_doom.worlds.baddies.board import ABYSS, BAT, LADDER, MONSTER, SUPER_MONSTER, WALL
from dungeon_of_doom.worlds.baddies.generate import MIN_COLUMNS, ParameterError


def counts(parameters: Parameters, seed: int) -> dict[str, int]:
    board = generate(parameters, seed)
    result: dict[str, int] = {}
    for glyph in [*board.statics.values(), *board.baddies.values()]:
        result[glyph] = result.get(glyph, 0) + 1
    return result


@st.composite
def setups(draw_: st.DrawFn) -> tuple[Parameters, int]:
    rows = draw_(st.integers(1, 40))
    columns = draw_(st.integers(MIN_COLUMNS, 60))
    empty = Parameters(rows, columns, 0, 0, 0)
    room = empty.free_squares
    abysses = draw_(st.integers(0, room))
    monsters = draw_(st.integers(0, room - abysses))
    bats = draw_(st.integers(0, room - abysses - monsters))
    seed = draw_(st.integers(0, 2**32 - 1))
    return Parameters(rows, columns, abysses, monsters, bats), seed


@settings(max_examples=150, deadline=None)
@given(setups())
def test_layout_and_counts(setup: tuple[Parameters, int]) -> None:
    parameters, seed = setup
    rows, columns = parameters.rows, parameters.columns
    board = generate(parameters, seed)
    assert board.start[1] in (0, 1, 2) and 0 <= board.start[0] < rows
    ladders = [square for square, glyph in board.statics.items() if glyph == LADDER]
    assert len(ladders) == 1 and ladders[0][1] >= columns - 3
    walls: dict[int, list[int]] = {}
    for (r, c), glyph in board.statics.items():
        if glyph == WALL:
            walls.setdefault(c, []).append(r)
    expected = [
        tuple(range(rows // 2)),
        tuple(range(rows // 2 + 1, rows)),
        tuple(range(rows // 4, 3 * rows // 4)),
    ]
    assert sorted(tuple(sorted(rs)) for rs in walls.values()) == sorted(filter(None, expected))
    wall_columns = sorted(walls)
    assert all(3 <= c <= columns - 4 for c in wall_columns)
    assert all(b - a > 1 for a, b in itertools.pairwise(wall_columns))
    # Every piece is on a square of its own, in the middle columns: nothing overwrote anything.
    found = counts(parameters, seed)
    assert found.get(MONSTER, 0) == parameters.monsters - parameters.monsters // 3
    assert found.get(SUPER_MONSTER, 0) == parameters.monsters // 3
    assert found.get(BAT, 0) == parameters.bats
    assert found.get(ABYSS, 0) == parameters.abysses
    assert found.get(WALL, 0) == parameters.wall_squares
    abysses = [square for square, glyph in board.statics.items() if glyph == ABYSS]
    pieces = abysses + list(board.baddies)
    assert len(set(pieces)) == len(pieces)
    assert all(3 <= c <= columns - 4 for _, c in pieces)
    assert board.start not in board.statics and board.start not in board.baddies


def test_the_same_seed_gives_the_same_board() -> None:
    parameters = Parameters(15, 40, 50, 6, 2)
    assert draw(generate(parameters, 11)) == draw(generate(parameters, 11))
    assert draw(generate(parameters, 11)) != draw(generate(parameters, 12))


def test_a_full_board_is_filled_without_hanging() -> None:
    parameters = Parameters(4, 13, 0, 0, 0)
    full = Parameters(4, 13, parameters.free_squares, 0, 0)
    board = generate(full, 3)
    assert len(board.statics) == 1 + full.wall_squares + full.free_squares


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        (Parameters(0, 40, 0, 0, 0), "rows must be from 1 to 10000, not 0"),
        (Parameters(15, 12, 0, 0, 0), "columns must be from 13 to 10000"),
        (Parameters(15, 40, -1, 0, 0), "abysses cannot be negative (-1)"),
        (Parameters(15, 40, 0, 0, -2), "bats cannot be negative (-2)"),
        (
            Parameters(10, 15, 200, 30, 10),
            "240 pieces (200 abysses, 30 monsters, 10 bats) do not fit on the 76 free squares "
            "of a 10x15 board",
        ),
    ],
)
def test_parameters_are_checked(parameters: Parameters, message: str) -> None:
    with pytest.raises(ParameterError) as error:
        generate(parameters, 1)
    assert message in str(error.value)


def original_board(game: Path, answers: list[int]) -> list[str]:
    """The first board the original game draws for ``answers`` (it then waits for a move)."""
    text = "".join(f"{answer}\n" for answer in answers)
    result = subprocess.run([str(game)], input=text, capture_output=True, text=True)
    lines = result.stdout.split("\n")
    return lines[6 : 6 + answers[0] + 2]


@pytest.mark.parametrize(
    "answers",
    [
        [15, 40, 50, 6, 2, 0],
        [15, 40, 50, 6, 2, 1],
        [10, 15, 20, 5, 3, 2],
        [30, 100, 200, 30, 10, 2024],
        [23, 57, 131, 17, 9, 2147483647],
        [11, 16, 40, 12, 1, 99],
    ],
)
def test_boards_match_the_original(reference_game: Path, answers: list[int]) -> None:
    *sizes, seed = answers
    board = generate(Parameters(*sizes), seed)
    board.heroes[0] = board.start
    assert original_board(reference_game, answers) == draw(board)
