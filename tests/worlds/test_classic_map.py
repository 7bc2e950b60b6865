"""Classic map files: every real-world form loads; every bad map says where it is wrong."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest

from dungeon_of_doom.worlds.classic import plugin
from dungeon_of_doom.worlds.classic.mapfile import ClassicMap, parse_map, read_map
from dungeon_of_doom.worlds.errors import MapError

SMALL = "name Small\nwin 1\n#####\n#G.E#\n#####\n"


def test_plain_map() -> None:
    dungeon = parse_map(SMALL)
    assert dungeon == ClassicMap("Small", 1, ("#####", "#G.E#", "#####"))
    assert (dungeon.height, dungeon.width) == (3, 5)


@pytest.mark.parametrize(
    "text",
    [
        SMALL.replace("\n", "\r\n"),
        SMALL.rstrip("\n"),
        SMALL.replace("\n", "\r\n").rstrip("\r\n"),
        SMALL + "\n\n\n",
        SMALL.replace("\n", "\r\n") + "\r\n\r\n",
        "\ufeff" + SMALL,
        SMALL.replace("\n", "\r"),
        SMALL.replace("name", "NAME").replace("win", "Win"),
        SMALL.replace("#G.E#", "#G.E#  "),
        SMALL.replace("win 1\n", "win 1\n\n"),
    ],
    ids=[
        "crlf",
        "no-final-newline",
        "crlf-no-final",
        "blank-after",
        "crlf-blank-after",
        "bom",
        "cr",
        "header-case",
        "trailing-spaces",
        "blank-before-grid",
    ],
)
def test_real_world_forms_load(text: str) -> None:
    assert parse_map(text).rows == ("#####", "#G.E#", "#####")


def test_items_and_no_border_load() -> None:
    dungeon = parse_map("name Items\nwin 0\nLSAH\nE..G\n")
    assert dungeon.rows == ("LSAH", "E..G")


@pytest.mark.parametrize(
    ("text", "where", "fragment"),
    [
        ("win 1\n#E#\n", "m:1:1", "expected 'name"),
        ("", "m:1:1", "expected 'name"),
        ("name X", "m:2:1", "missing 'win'"),
        ("name X\n", "m:2:1", "expected 'win"),
        ("name X\nwon 1\n#E#\n", "m:2:1", "expected 'win"),
        ("name X\nwin -1\n#E#\n", "m:2:5", "negative"),
        ("name X\nwin two\n#E#\n", "m:2:5", "whole number"),
        ("name X\nwin\n#E#\n", "m:2:4", "whole number"),
        ("name X\nwin 0\n", "m:3:1", "no rows"),
        ("name X\nwin 0\n#E#\n##\n", "m:4:3", "2 squares wide"),
        ("name X\nwin 0\n#E#\n####\n", "m:4:4", "4 squares wide"),
        ("name X\nwin 0\n#E#\n#x#\n", "m:4:2", "unknown tile 'x'"),
        ("name X\nwin 0\n#E#\n#.\u00e9#\n", "m:4:3", "unknown tile '\u00e9'"),
        ("name X\r\nwin 0\r\n#E#\r\n#\t.#\r\n", "m:4:2", "unknown tile '\\t'"),
        ("name X\nwin 0\n#E#\n\n###\n", "m:4:1", "blank line inside"),
        ("name X\nwin 0\n#.#\n", "m", "no exit"),
        ("name X\nwin 3\n#EG#\n", "m:2:5", "holds 1 gold"),
    ],
)
def test_bad_maps_report_file_line_and_column(text: str, where: str, fragment: str) -> None:
    with pytest.raises(MapError) as caught:
        parse_map(text, "m")
    message = str(caught.value)
    assert message.startswith(where + ": "), message
    assert fragment in message


def test_undecodable_file_reports_the_place(tmp_path: Path) -> None:
    path = tmp_path / "bad.map"
    path.write_bytes(b"name X\nwin 0\n#E\xff#\n")
    with pytest.raises(MapError) as caught:
        read_map(path)
    assert str(caught.value) == f"{path}:3:3: bytes that are not UTF-8 text"


def test_round_trip_through_text() -> None:
    dungeon = parse_map(SMALL)
    assert parse_map(dungeon.to_text()) == dungeon


def reachable(dungeon: ClassicMap, start: tuple[int, int]) -> set[tuple[int, int]]:
    seen = {start}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if (
                0 <= nr < dungeon.height
                and 0 <= nc < dungeon.width
                and dungeon.rows[nr][nc] != "#"
                and (nr, nc) not in seen
            ):
                seen.add((nr, nc))
                queue.append((nr, nc))
    return seen


def test_compat_maps_from_the_wild_all_load(compat: Path) -> None:
    files = sorted((compat / "dod-maps").iterdir())
    assert len(files) == 6
    for path in files:
        dungeon = read_map(path)
        assert dungeon.goal >= 0 and dungeon.height > 0
        # CRLF copies circulate too.
        crlf = path.read_text().replace("\n", "\r\n")
        assert parse_map(crlf) == dungeon


def test_compat_default_map_has_items_and_no_border(compat: Path) -> None:
    dungeon = read_map(compat / "dod-maps" / "defaultMap")
    assert dungeon.rows[2] == "LG.HL"


@pytest.mark.parametrize("name", plugin.maps())
def test_shipped_maps_are_winnable_from_every_square(name: str) -> None:
    dungeon = plugin.load_map(name)
    squares = {(r, c) for r, row in enumerate(dungeon.rows) for c, t in enumerate(row) if t != "#"}
    start = min(squares)
    assert reachable(dungeon, start) == squares, "every open square reaches every other"
    assert sum(row.count("G") for row in dungeon.rows) >= dungeon.goal


def test_at_least_three_maps_ship_and_a_default() -> None:
    assert len(plugin.maps()) >= 3
    assert "default" in plugin.maps()


def test_unknown_map_name_lists_the_shipped_ones() -> None:
    with pytest.raises(MapError) as caught:
        plugin.load_map("no-such-map")
    assert "labyrinth" in str(caught.value)


def test_a_missing_file_is_a_map_error(tmp_path: Path) -> None:
    with pytest.raises(MapError) as caught:
        read_map(tmp_path / "absent.map")
    assert str(caught.value).endswith("absent.map: cannot read the file: No such file or directory")
