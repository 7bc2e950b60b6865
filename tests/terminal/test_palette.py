"""Colouring decisions and cropping, without a terminal."""

from __future__ import annotations

from dungeon_of_doom.clients.terminal.palette import Tile, classify, find_self, legend, window


def test_classic_glyphs() -> None:
    (row,) = classify("classic", ["#@GEP."])
    assert row == [Tile.WALL, Tile.SELF, Tile.GOLD, Tile.EXIT, Tile.PLAYER, Tile.FLOOR]


def test_the_same_glyph_differs_by_world() -> None:
    assert classify("crawler", ["@"]) == [[Tile.ITEM]]  # the amulet
    assert classify("classic", ["@"]) == [[Tile.SELF]]
    assert classify("baddies", ["#"]) == [[Tile.HAZARD]]  # the abyss
    assert classify("crawler", ["M?!$"]) == [[Tile.MONSTER, Tile.EXIT, Tile.EXIT, Tile.GOLD]]
    assert classify("baddies", ["mM~*"]) == [[Tile.MONSTER] * 3 + [Tile.EXIT]]


def test_look_marks_the_centre_as_the_player() -> None:
    tiles = classify("classic", ["X###X", "#...#", "#.G.#", "#...#", "X###X"], look=True)
    assert find_self(tiles) == (2, 2)
    assert tiles[0][0] is Tile.EDGE


def test_knight_numbers_are_read_field_by_field() -> None:
    rows = [" [-2]  -3    3 ", "  -5  -10    1*", "  10  (30)  -5 "]
    tiles = classify("knight", rows)
    assert find_self(tiles) == (0, 1)
    assert tiles[0][1:5] == [Tile.SELF] * 4
    assert tiles[0][7] is Tile.HAZARD and tiles[0][13] is Tile.ITEM
    assert tiles[1][13] is Tile.TRAIL
    assert tiles[2][7] is Tile.PLAYER
    assert tiles[2][12:14] == [Tile.EXIT] * 2  # the bottom-right value is the goal


def test_window_keeps_the_player_in_view() -> None:
    rows = [f"{r:02d}" + "." * 38 for r in range(40)]
    rows[30] = rows[30][:35] + "@" + rows[30][36:]
    tiles = classify("classic", rows)
    shown, shown_tiles = window(rows, tiles, find_self(tiles), 10, 20)
    assert len(shown) == 10 and all(len(row) == 20 for row in shown)
    assert "@" in shown[5]
    assert find_self(shown_tiles) == (5, 15)


def test_window_returns_a_small_map_whole() -> None:
    rows = ["#####", "#@.E#", "#####"]
    shown, _ = window(rows, classify("classic", rows), (1, 1), 20, 40)
    assert shown == rows


def test_legend_names_every_world_glyph() -> None:
    glyphs = {glyph for glyph, _, _ in legend("baddies")}
    assert {"@", ".", "+", "#", "*", "m", "M", "~", "P", "B"} <= glyphs
    assert any(glyph == "[v]" for glyph, _, _ in legend("knight"))
