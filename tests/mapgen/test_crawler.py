"""Crawler dungeons from generated ones: the level format, the placements, winnable by search."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.mapgen import ROCK, GenerationError, Settings, generate
from dungeon_of_doom.worlds.crawler import Command, Outcome, State, parse_level
from dungeon_of_doom.worlds.crawler import generated as crawler_format
from dungeon_of_doom.worlds.crawler.dungeon import open_dungeon
from dungeon_of_doom.worlds.crawler.generated import (
    ATTEMPTS,
    crawler_levels,
    crawler_line,
    level_seed,
    to_crawler,
)
from dungeon_of_doom.worlds.crawler.levelfile import Level
from dungeon_of_doom.worlds.errors import MapError

from ..conftest import StartServer
from ..helpers import Peer, bound_port


def assert_winnable(levels: tuple[Level, ...]) -> None:
    """Each level's line, found by search, played in turn through the whole dungeon, escapes."""
    state = State(levels)
    for number, level in enumerate(levels):
        line = crawler_line(level)
        assert line is not None, f"level {number + 1} has no winning line"
        for command in line:
            state.step(command)
        assert state.outcome is (Outcome.ESCAPED if number == len(levels) - 1 else None)
        assert state.outcome is not None or state.level == number + 1


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    width=st.integers(50, 80),
    height=st.integers(14, 21),
    count=st.integers(1, 3),
)
def test_every_generated_crawler_dungeon_is_winnable(
    seed: int, width: int, height: int, count: int
) -> None:
    shape = Settings(width=width, height=height)
    levels = crawler_levels(seed, shape, count)
    assert len(levels) == count
    assert_winnable(levels)
    for number, level in enumerate(levels, 1):
        assert parse_level(level.to_text(), level.source) == level
        dungeon = generate(level_seed(seed, number), shape)
        assert (level.rows, level.cols) == (dungeon.height, dungeon.width)
        for index, cell in enumerate(dungeon.cells):
            assert (level.tiles[index] == ord("+")) == (cell == ROCK)
        tiles = level.tiles.decode()
        last = number == count
        assert (tiles.count("!"), tiles.count("?")) == ((1, 0) if last else (0, 1))
        assert tiles.count("@") == 1
        assert tiles.count("$") == max(1, len(dungeon.rooms) // 2)
        assert tiles.count("M") <= max(1, len(dungeon.rooms) // 2)
        assert any(level.start in room for room in dungeon.rooms)


def test_the_same_seed_gives_the_same_bytes_and_another_seed_others() -> None:
    shape = Settings(width=60, height=16)
    texts = [level.to_text() for level in crawler_levels(11, shape, 2)]
    assert texts == [level.to_text() for level in crawler_levels(11, shape, 2)]
    assert texts != [level.to_text() for level in crawler_levels(12, shape, 2)]


def test_level_k_is_the_dungeon_of_its_own_seed() -> None:
    shape = Settings(width=60, height=16)
    second = crawler_levels(4, shape, 2)[1]
    alone = to_crawler(generate(1_000_004, shape), seed=1_000_004, last=True)
    assert second.tiles == alone.tiles and second.start == alone.start


def test_a_level_that_cannot_be_won_is_drawn_again_then_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tried: list[Level] = []

    def never(level: Level) -> None:
        tried.append(level)

    monkeypatch.setattr(crawler_format, "crawler_line", never)
    with pytest.raises(GenerationError, match=f"no placement of {ATTEMPTS} tried"):
        to_crawler(generate(3), seed=3, source="generated:3 level 1")
    assert len(tried) == ATTEMPTS
    assert len({level.tiles for level in tried}) > 1, "each attempt is a new draw"


def test_at_least_one_level() -> None:
    with pytest.raises(GenerationError, match="at least 1 level"):
        crawler_levels(1, None, 0)


def test_the_search_finds_a_way_round_a_monster() -> None:
    # The monster sees down its column only; going round it by the bottom row wins.
    maze = parse_level("3 5\n0 0\n- - M - -\n- + + + -\n$ - - - !\n")
    line = crawler_line(maze)
    assert line is not None
    state = State([maze])
    for command in line:
        state.step(command)
    assert state.outcome is Outcome.ESCAPED


@pytest.mark.parametrize(
    "text",
    [
        "1 4\n0 0\n- - M ?\n",  # the monster holds the only way to the door
        "2 3\n0 0\n- + ?\n- + +\n",  # pillars wall the door off
        "1 3\n0 0\n- - !\n",  # the exit needs a treasure and there is none
    ],
)
def test_the_search_finds_no_way_where_there_is_none(text: str) -> None:
    assert crawler_line(parse_level(text)) is None


def test_the_map_option_names_a_generated_dungeon() -> None:
    shape = Settings(width=60, height=16)
    dungeon = open_dungeon("generated:seed=5,width=60,height=16,levels=2")
    assert dungeon.name == "generated:seed=5,width=60,height=16,levels=2"
    assert dungeon.levels == crawler_levels(5, shape, 2)
    assert open_dungeon("generated:width=60,height=16", seed=5).levels == crawler_levels(
        5, shape, 3
    )


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        ("generated:levels=0", "at least 1 level"),
        ("generated:width=21,height=8", "only 4 rooms"),
    ],
)
def test_bad_generated_dungeons_are_map_errors(spec: str, reason: str) -> None:
    with pytest.raises(MapError, match=reason) as caught:
        open_dungeon(spec)
    assert caught.value.source == spec


async def test_a_server_on_a_generated_crawler_dungeon_answers_look(
    start_server: StartServer,
) -> None:
    spec = "generated:seed=7,width=60,height=16,levels=2"
    first = crawler_levels(7, Settings(width=60, height=16), 2)[0]
    server = await start_server(world="crawler", map=spec)
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("HELLO") == ["GOLD 1"]
    look = await peer.ask("LOOK")
    assert look[0] == "LOOKREPLY" and [len(row) for row in look[1:]] == [5] * 5
    assert look[1][0] == look[1][4] == look[5][0] == look[5][4] == "X"
    assert look[3][2] == "-", "the centre is the open start square"
    row, col = first.start
    expected = [first.tiles[r * first.cols : (r + 1) * first.cols].decode() for r in range(16)]
    expected[row] = expected[row][:col] + "o" + expected[row][col + 1 :]
    assert await peer.ask("MAP") == [f"MAP {first.rows} {first.cols}", *expected]
    for r in range(5):
        for c in range(5):
            if (r, c) not in ((0, 0), (0, 4), (4, 0), (4, 4), (2, 2)):
                assert look[r + 1][c] == expected[row + r - 2][col + c - 2]
    await peer.aclose()


def test_a_level_line_is_real_play() -> None:
    # The line is the game's own commands, and it wins on its very last one.
    levels = crawler_levels(2, Settings(width=60, height=16), 1)
    line = crawler_line(levels[0])
    assert line is not None and all(isinstance(command, Command) for command in line)
    state = State(levels)
    for command in line[:-1]:
        state.step(command)
    assert state.outcome is None
    state.step(line[-1])
    assert state.outcome is Outcome.ESCAPED
