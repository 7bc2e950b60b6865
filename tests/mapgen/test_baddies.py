"""Baddies boards from generated dungeons: the mapping, the placements, winnable by search."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.mapgen import ROCK, ROOM, GenerationError, Settings, generate
from dungeon_of_doom.worlds.baddies import Board, parse_board, play_round, plugin
from dungeon_of_doom.worlds.baddies import generated as baddies_format
from dungeon_of_doom.worlds.baddies.generated import (
    ATTEMPTS,
    baddies_line,
    baddies_text,
    to_baddies,
)
from dungeon_of_doom.worlds.baddies.rules import Escaped
from dungeon_of_doom.worlds.errors import MapError

from ..conftest import StartServer
from ..helpers import Peer, bound_port


def king_steps(one: tuple[int, int], other: tuple[int, int]) -> int:
    return max(abs(one[0] - other[0]), abs(one[1] - other[1]))


def escapes(board: Board, line: list[tuple[int, int]] | None) -> bool:
    """Whether ``line``, played from the start by the game's rules, ends on the ladder."""
    assert line is not None
    game = board.copy()
    game.heroes = {0: board.start}
    facts = [fact for step in line for fact in play_round(game, {0: step})]
    return isinstance(facts[-1], Escaped) and not game.heroes


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), width=st.integers(60, 90), height=st.integers(16, 24))
def test_every_board_maps_the_dungeon_and_is_winnable(seed: int, width: int, height: int) -> None:
    dungeon = generate(seed, Settings(width=width, height=height))
    board = to_baddies(dungeon, seed=seed)
    assert (board.rows, board.columns) == (dungeon.height, dungeon.width)
    cells, rooms = dungeon.cells, dungeon.rooms
    for index, cell in enumerate(cells):
        square = divmod(index, width)
        glyph = board.statics.get(square)
        if cell != ROCK:
            assert glyph in (None, "*"), f"floor at {square} is {glyph!r}"
            continue
        beside = ROOM in (cells[index - 1], cells[index + 1]) if 0 < square[1] < width - 1 else 0
        assert glyph == ("+" if beside else "#"), f"rock at {square}"
    west = min(rooms, key=lambda room: (room.column, room.row))
    east = max(rooms, key=lambda room: (room.right, -room.row))
    (ladder,) = [square for square, glyph in board.statics.items() if glyph == "*"]
    assert board.start in west and board.start[1] < west.column + 3
    assert ladder in east and ladder[1] > east.right - 3
    assert all(king_steps(square, board.start) > 3 for square in board.baddies)
    assert all(any(square in room for room in rooms) for square in board.baddies)
    glyphs = sorted(board.baddies.values())
    monsters = glyphs.count("m") + glyphs.count("M")
    assert monsters <= len(rooms) and glyphs.count("M") == monsters // 3
    assert glyphs.count("~") <= len(rooms) // 4

    assert escapes(board, baddies_line(board))


def test_the_board_file_reads_back_and_the_same_seed_gives_the_same_bytes() -> None:
    text = baddies_text(generate(6), seed=6)
    assert text == baddies_text(generate(6), seed=6)
    assert text != baddies_text(generate(6), seed=7)
    assert parse_board(text) == ("Generated dungeon 6", to_baddies(generate(6), seed=6))


def test_the_search_escapes_and_gives_up() -> None:
    open_board = Board(1, 4, {(0, 3): "*"}, {}, (0, 0))
    line = baddies_line(open_board)
    assert line is not None and len(line) == 3 and escapes(open_board, line)
    # One row: the monster between the hero and the ladder cannot be passed.
    guarded = Board(1, 4, {(0, 3): "*"}, {(0, 2): "m"}, (0, 0))
    assert baddies_line(guarded) is None
    cut_off = Board(1, 5, {(0, 2): "#", (0, 4): "*"}, {}, (0, 0))
    assert baddies_line(cut_off) is None


def test_a_board_that_cannot_be_won_is_drawn_again_then_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tried: list[Board] = []
    monkeypatch.setattr(baddies_format, "baddies_line", lambda board: tried.append(board))
    with pytest.raises(GenerationError, match=f"no placement of {ATTEMPTS} tried"):
        to_baddies(generate(2), seed=2)
    assert len(tried) == ATTEMPTS
    assert len({tuple(sorted(board.baddies.items())) for board in tried}) > 1


def test_the_plugin_loads_a_generated_board() -> None:
    name, board = plugin.load_board("generated:seed=3,width=70", seed=0)
    assert name == "Generated dungeon 3"
    assert board == to_baddies(generate(3, Settings(width=70)), seed=3)
    assert plugin.load_board("generated", seed=3)[1] == to_baddies(generate(3), seed=3)
    with pytest.raises(MapError, match="levels is only for worlds of several levels"):
        plugin.load_board("generated:levels=2", seed=0)


async def test_a_server_on_a_generated_baddies_board_answers_look(
    start_server: StartServer,
) -> None:
    board = to_baddies(generate(7), seed=7)
    server = await start_server(world="baddies", map="generated:7")
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("HELLO") == ["GOLD 0"]
    look = await peer.ask("LOOK")
    assert look[0] == "LOOKREPLY" and [len(row) for row in look[1:]] == [5] * 5
    assert look[3][2] == "."
    row, col = board.start
    expected = list(board.drawing(".", {board.start: "@"}))
    assert await peer.ask("MAP") == [f"MAP {board.rows} {board.columns}", *expected]
    for r in range(5):
        for c in range(5):
            if (r, c) not in ((0, 0), (0, 4), (4, 0), (4, 4), (2, 2)):
                assert look[r + 1][c] == expected[row + r - 2][col + c - 2]
    await peer.aclose()
