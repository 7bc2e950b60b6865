"""Board files and --map specs: round trips, liberal reading, precise errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from dungeon_of_doom import maps
from dungeon_of_doom.worlds.baddies import (
    Parameters,
    format_board,
    generate,
    parse_board,
    plugin,
    read_board,
    spec_parameters,
)
from dungeon_of_doom.worlds.errors import MapError

SMALL = "name Small\n.H.m\n+#M*\n~...\n"


def test_a_board_reads_back_as_written() -> None:
    name, board = parse_board(SMALL)
    assert name == "Small"
    assert (board.rows, board.columns, board.start) == (3, 4, (0, 1))
    assert dict(board.statics) == {(1, 0): "+", (1, 1): "#", (1, 3): "*"}
    assert board.baddies == {(0, 3): "m", (1, 2): "M", (2, 0): "~"}
    assert format_board(name, board) == SMALL


def test_a_generated_board_survives_the_file_format() -> None:
    board = generate(Parameters(15, 40, 50, 6, 2), 5)
    name, again = parse_board(format_board("seed 5", board))
    assert name == "seed 5"
    assert (again.rows, again.columns, again.start) == (board.rows, board.columns, board.start)
    assert dict(again.statics) == dict(board.statics) and again.baddies == board.baddies


def test_line_ends_bom_and_trailing_blank_lines_are_accepted() -> None:
    text = "\ufeffNAME Small\r\n.H.m\r\n+#M*\r\n~...\r\n\r\n\r\n"
    assert parse_board(text)[1].baddies == parse_board(SMALL)[1].baddies
    assert parse_board(SMALL.rstrip("\n"))[1].rows == 3


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("title x\nH*\n", ":1:1:", "expected 'name <text>' here"),
        ("name x\n", ":", "the board has no rows"),
        ("name x\nH*.\n..\n", ":3:3:", "row is 2 squares wide but the first row is 3"),
        ("name x\nH*\n.x\n", ":3:2:", "unknown glyph 'x'"),
        ("name x\nH* \n...\n", ":2:3:", "unknown glyph ' '"),
        ("name x\nH*\n\n..\n", ":3:1:", "blank line inside the board"),
        ("name x\n.*\n", ":", "no hero start (H)"),
        ("name x\nH*\n.H\n", ":3:2:", "a second hero start (H)"),
        ("name x\nH.\n", ":", "no escape ladder (*)"),
    ],
)
def test_bad_boards_are_refused_with_their_place(text: str, where: str, reason: str) -> None:
    with pytest.raises(MapError) as error:
        parse_board(text, "b.map")
    assert str(error.value).startswith(f"b.map{where}")
    assert reason in str(error.value)


def test_a_file_that_is_not_utf8_is_refused_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "bad.map"
    path.write_bytes(b"name x\nH*\n.\xff\n")
    with pytest.raises(MapError, match=r"bad\.map:3:2: bytes that are not UTF-8"):
        read_board(path)


def test_shipped_boards_load_and_the_seed_board_is_the_generated_one() -> None:
    assert plugin.maps() == sorted(maps.shipped("baddies", ".map"))
    assert {"lure", "bats", "medium-seed-1"} <= set(plugin.maps())
    for name in plugin.maps():
        plugin.load_board(name, seed=0)
    _, shipped = plugin.load_board("medium-seed-1", seed=0)
    _, made = plugin.load_board("random:seed=1", seed=0)
    assert shipped.baddies == made.baddies and dict(shipped.statics) == dict(made.statics)


def test_the_old_generate_spec_is_refused_with_its_new_name_and_generated_is_mapgens() -> None:
    """Issue 18: baddies' ``generate:`` clashed with every world's ``generated:``; it is
    ``random:`` now, and the old name says so rather than meaning something else."""
    with pytest.raises(MapError) as caught:
        plugin.load_board("generate: rows=20, seed=3", seed=0)
    assert str(caught.value) == (
        "generate: rows=20, seed=3: the 'generate:' spec is now 'random:' "
        "(so that it is not taken for 'generated:'): random: rows=20, seed=3"
    )
    name, board = plugin.load_board("generated:seed=3,width=30,height=12", seed=0)
    assert name == "Generated dungeon 3" and (board.rows, board.columns) == (12, 30)
    _, random_board = plugin.load_board("random: rows=20, seed=3", seed=0)
    assert random_board.rows == 20


def test_the_default_board_is_the_medium_game_from_the_server_seed() -> None:
    name, board = plugin.load_board(None, seed=9)
    assert name == "random:rows=15,cols=40,abysses=50,monsters=6,bats=2,seed=9"
    assert board.baddies == generate(Parameters(15, 40, 50, 6, 2), 9).baddies


def test_generate_specs() -> None:
    assert spec_parameters("random: rows=20, cols=50, bats=0", 4) == (
        Parameters(20, 50, 50, 6, 0),
        4,
    )
    assert spec_parameters("random:seed=-3", 4)[1] == -3
    for spec, reason in [
        ("random:rows", "expected key=number, found 'rows'"),
        ("random:depth=3", "unknown key 'depth'"),
        ("random:cols=5", "columns must be from 13"),
        ("random:rows=10,cols=15,abysses=200", "do not fit"),
    ]:
        with pytest.raises(MapError, match=reason):
            plugin.open(spec, seed=0)


def test_an_unknown_spec_names_the_shipped_boards() -> None:
    with pytest.raises(
        MapError, match="no such baddies board; a map spec may name a shipped baddies board"
    ):
        plugin.open("no-such-board", seed=0)
