"""Outputs: the seed's drawing reads back; every classic map loads and is winnable by search."""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.mapgen import ROCK, Dungeon, GenerationError, Settings, generate
from dungeon_of_doom.mapgen.formats import formats
from dungeon_of_doom.mapgen.formats.drawing import to_drawing
from dungeon_of_doom.worlds.baddies.boardfile import parse_board
from dungeon_of_doom.worlds.baddies.generated import to_baddies
from dungeon_of_doom.worlds.classic.generated import to_classic
from dungeon_of_doom.worlds.classic.mapfile import ClassicMap, parse_map
from dungeon_of_doom.worlds.crawler.generated import crawler_levels
from dungeon_of_doom.worlds.crawler.levelfile import parse_level

from .test_validate import GOOD_DUNGEON


def test_the_drawing_reads_back_as_the_same_squares_and_rooms() -> None:
    dungeon = generate(4)
    drawing = to_drawing(dungeon)
    lines = drawing.splitlines()
    assert len(lines) == 21 and {len(line) for line in lines} == {80}
    assert set(drawing) <= set(" .#\n")
    again = Dungeon.from_drawing(drawing)
    assert again.cells == dungeon.cells
    assert sorted(again.rooms, key=lambda r: (r.row, r.column)) == sorted(
        dungeon.rooms, key=lambda r: (r.row, r.column)
    )


def parts(dungeon: ClassicMap) -> list[set[tuple[int, int]]]:
    """The sets of open squares that reach each other, four ways (an independent search)."""
    open_squares = {
        (r, c) for r, row in enumerate(dungeon.rows) for c, tile in enumerate(row) if tile != "#"
    }
    found = []
    while open_squares:
        start = min(open_squares)
        seen, queue = {start}, deque([start])
        while queue:
            r, c = queue.popleft()
            for near in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if near in open_squares and near not in seen:
                    seen.add(near)
                    queue.append(near)
        open_squares -= seen
        found.append(seen)
    return found


def assert_winnable(dungeon: ClassicMap) -> None:
    """From every open square a player reaches the target gold and an exit."""
    for part in parts(dungeon):
        tiles = [dungeon.rows[r][c] for r, c in part]
        assert tiles.count("G") >= dungeon.goal
        assert "E" in tiles


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    width=st.integers(26, 120),
    height=st.integers(5, 40),
)
def test_every_classic_map_loads_and_is_winnable(seed: int, width: int, height: int) -> None:
    dungeon = generate(seed, Settings(width=width, height=height))
    classic = to_classic(dungeon, seed=seed)
    assert parse_map(classic.to_text()) == classic
    assert_winnable(classic)
    assert sum(row.count("E") for row in classic.rows) >= 2, "room for several players"
    gold = sum(row.count("G") for row in classic.rows)
    assert classic.goal >= 1 and classic.goal * 4 <= gold


def test_walls_are_exactly_the_rock_and_items_lie_on_floor() -> None:
    dungeon = generate(9)
    classic = to_classic(dungeon, seed=9)
    for index, cell in enumerate(dungeon.cells):
        r, c = divmod(index, dungeon.width)
        assert (classic.rows[r][c] == "#") == (cell == ROCK)
    exits = [(r, c) for r, row in enumerate(classic.rows) for c, t in enumerate(row) if t == "E"]
    rooms_with_exits = {i for i, room in enumerate(dungeon.rooms) for e in exits if e in room}
    assert len(rooms_with_exits) == len(exits), "one exit per room at most"


def test_the_same_dungeon_and_seed_give_the_same_map_and_another_seed_moves_the_gold() -> None:
    dungeon = generate(2)
    assert to_classic(dungeon, seed=2).to_text() == to_classic(generate(2), seed=2).to_text()
    assert to_classic(dungeon, seed=2).rows != to_classic(dungeon, seed=3).rows


def test_chosen_gold_exits_target_and_name() -> None:
    classic = to_classic(GOOD_DUNGEON, seed=1, name="Seven", gold=10, exits=7, goal=10)
    assert classic.name == "Seven" and classic.goal == 10
    assert sum(row.count("G") for row in classic.rows) == 10
    assert sum(row.count("E") for row in classic.rows) == 7
    assert_winnable(classic)


class ClassicChoice(TypedDict, total=False):
    """The counts ``to_classic`` lets a caller choose."""

    gold: int
    exits: int
    goal: int


@pytest.mark.parametrize(
    ("choice", "reason"),
    [
        ({"exits": 8}, "1 to 7"),
        ({"exits": 0}, "1 to 7"),
        ({"gold": 3, "goal": 4}, "target 4"),
        ({"gold": 200}, "do not fit"),
    ],
)
def test_impossible_classic_choices_are_refused(choice: ClassicChoice, reason: str) -> None:
    with pytest.raises(GenerationError, match=reason):
        to_classic(GOOD_DUNGEON, **choice)


def test_every_format_is_text_of_the_dungeon() -> None:
    dungeon, settings = generate(5), Settings()
    assert formats()["drawing"].texts(5, settings, 1) == (dungeon.drawing(),)
    (classic,) = formats()["classic"].texts(5, settings, 1)
    assert parse_map(classic) == to_classic(dungeon, seed=5)
    (board,) = formats()["baddies"].texts(5, settings, 1)
    assert parse_board(board) == ("Generated dungeon 5", to_baddies(dungeon, seed=5))
    levels = formats()["crawler"].texts(5, settings, 2)
    assert [parse_level(text) for text in levels] == [
        replace(level, source="<level>") for level in crawler_levels(5, settings, 2)
    ]
