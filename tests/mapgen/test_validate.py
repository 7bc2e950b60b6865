"""The validator on hand-made dungeons: a good one passes; each broken rule is caught, placed."""

from __future__ import annotations

import pytest

from dungeon_of_doom.mapgen import CORRIDOR, ROCK, ROOM, Dungeon, Room, Rule, Violation, validate

# Seven rooms; the corridors make one loop (rooms 0-1-2-3-5-4-0). "|" marks the right edge.
GOOD = """\
                              |
 ....   ....   ....   ....    |
 ....###....   ....   ....    |
 ....   ....###....###....    |
   #                   #      |
   #  ......     ###########  |
   ###......     #         #  |
      ......#####...     ...  |
                 ...     ...  |
                              |
""".replace("|", "")
GOOD_DUNGEON = Dungeon.from_drawing(GOOD)


def edited(
    changes: dict[tuple[int, int], int], rooms: tuple[Room, ...] = GOOD_DUNGEON.rooms
) -> Dungeon:
    """GOOD with some squares changed, keeping its rooms unless others are given."""
    cells = bytearray(GOOD_DUNGEON.cells)
    for (r, c), cell in changes.items():
        cells[r * GOOD_DUNGEON.width + c] = cell
    return Dungeon(GOOD_DUNGEON.width, GOOD_DUNGEON.height, bytes(cells), rooms)


def places(found: list[Violation], rule: Rule) -> list[tuple[int, int] | None]:
    return [violation.position for violation in found if violation.rule is rule]


def test_a_good_dungeon_has_no_violations() -> None:
    assert validate(GOOD_DUNGEON) == []


def test_drawn_rooms_are_found_as_rectangles_in_reading_order() -> None:
    assert len(GOOD_DUNGEON.rooms) == 7
    assert GOOD_DUNGEON.rooms[0] == Room(1, 1, 3, 4)
    assert GOOD_DUNGEON.rooms[4] == Room(5, 6, 3, 6)
    assert GOOD_DUNGEON.drawing() == GOOD


def test_too_few_rooms() -> None:
    found = validate(Dungeon.from_drawing("              \n ....###....  \n ....   ....  \n\n"))
    assert found == [
        Violation(Rule.ROOM_COUNT, None, "2 rooms; a dungeon needs at least 5"),
    ]


def test_a_room_too_narrow_and_one_too_short() -> None:
    narrow = {(r, c): ROCK for r in (1, 2, 3) for c in (3, 4)}
    short = {(8, c): ROCK for c in (17, 18, 19)}
    dungeon = Dungeon.from_drawing(edited(narrow | short, ()).drawing())
    found = validate(dungeon)
    assert places(found, Rule.ROOM_SIZE) == [(1, 1), (7, 17)]
    assert str(found[0]).startswith("(1, 1): room size: room 0 is 2 wide and 3 tall")


def test_rooms_side_by_side_touch() -> None:
    split = (*GOOD_DUNGEON.rooms[:4], Room(5, 6, 3, 3), Room(5, 9, 3, 3), *GOOD_DUNGEON.rooms[5:])
    found = validate(edited({}, split))
    assert places(found, Rule.ROOMS_TOUCH) == [(5, 9)]
    assert "room 5 touches room 4" in str(found[0])


def test_rooms_that_meet_only_at_a_corner_touch() -> None:
    drawing = "         \n ...     \n ...     \n    ...  \n    ...  \n         \n"
    rooms = (Room(1, 1, 2, 3), Room(3, 4, 2, 3))
    found = validate(Dungeon.from_drawing(drawing, rooms))
    assert places(found, Rule.ROOMS_TOUCH) == [(3, 4)]


def test_overlapping_rooms_are_reported_once_per_pair() -> None:
    found = validate(edited({}, (*GOOD_DUNGEON.rooms, Room(1, 2, 2, 3))))
    assert places(found, Rule.ROOMS_TOUCH) == [(1, 2)]
    assert "rooms 0 and 7 overlap" in str(found[0])


def test_a_corridor_through_a_room() -> None:
    found = validate(edited({(2, 2): CORRIDOR}))
    assert found == [Violation(Rule.CORRIDOR_IN_ROOM, (2, 2), "corridor inside room 0")]


def test_a_drawn_room_with_a_corridor_inside_is_caught_too() -> None:
    found = validate(Dungeon.from_drawing(GOOD.replace(" ....###....", " ..#.###....", 1)))
    assert places(found, Rule.CORRIDOR_IN_ROOM) == [(2, 3)]


def test_rock_in_a_room_and_floor_outside_every_room() -> None:
    found = validate(edited({(1, 8): ROCK, (8, 2): ROOM}))
    assert places(found, Rule.ROOM_SHAPE) == [(1, 8), (8, 2)]
    assert places(found, Rule.CONNECTED) == [(8, 2)], "the stray square is cut off as well"


def test_a_room_off_the_map() -> None:
    found = validate(edited({}, (*GOOD_DUNGEON.rooms, Room(8, 27, 3, 4))))
    assert places(found, Rule.ROOM_SHAPE) == [(8, 27)]


def test_floor_on_the_border_is_caught_square_by_square() -> None:
    found = validate(edited({(0, 2): CORRIDOR, (3, 29): CORRIDOR, (9, 3): CORRIDOR}))
    assert places(found, Rule.BORDER) == [(0, 2), (3, 29), (9, 3)]


def test_each_cut_off_part_is_reported_with_its_first_square_and_size() -> None:
    cuts = {(2, 5): ROCK, (2, 6): ROCK, (2, 7): ROCK, (4, 23): ROCK}
    cuts |= {(7, c): ROCK for c in range(12, 17)}
    found = validate(edited(cuts))
    assert found == [
        Violation(Rule.CONNECTED, (1, 8), "42 floor squares here cannot be reached from (1, 1)"),
        Violation(Rule.CONNECTED, (5, 17), "25 floor squares here cannot be reached from (1, 1)"),
    ]


def test_one_missing_corridor_of_a_loop_leaves_it_connected() -> None:
    assert validate(edited({(2, 5): ROCK, (2, 6): ROCK, (2, 7): ROCK})) == []


def test_a_dungeon_of_only_rock_breaks_the_room_rule_only() -> None:
    found = validate(Dungeon.from_drawing("     \n     \n     \n"))
    assert [violation.rule for violation in found] == [Rule.ROOM_COUNT]


def test_bad_drawings_and_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="line 2, column 3"):
        Dungeon.from_drawing("   \n  x\n")
    with pytest.raises(ValueError, match="squares"):
        Dungeon(3, 3, bytes(8), ())
