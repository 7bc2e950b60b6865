"""The generator: RULES §4 on every seed and size tried, the same bytes for the same seed."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dungeon_of_doom.mapgen import (
    CORRIDOR,
    ROCK,
    Dungeon,
    GenerationError,
    Rule,
    Settings,
    Violation,
    generate,
    generator,
    validate,
)

SEEDS = st.integers(min_value=0, max_value=2**64)
KNOWN_SEED_7 = "ac11519cb8a4b6b7bd1b2c00708144ede6068e9f4b44d11b74a660463fe391a7"


def test_a_thousand_seeds_meet_the_rules() -> None:
    small, default = Settings(width=40, height=12), Settings()
    for seed in range(1000):
        dungeon = generate(seed, default if seed % 10 == 0 else small)
        assert validate(dungeon) == [], f"seed {seed}"
        assert len(dungeon.rooms) >= 5


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, width=st.integers(26, 160), height=st.integers(5, 60))
def test_any_seed_and_size_where_five_rooms_fit_gives_a_good_dungeon(
    seed: int, width: int, height: int
) -> None:
    # 26 × 5 holds five 4 × 3 rooms in a row: the generator must always manage it.
    dungeon = generate(seed, Settings(width=width, height=height))
    assert (dungeon.width, dungeon.height) == (width, height)
    assert validate(dungeon) == []


@settings(max_examples=150, deadline=None)
@given(
    seed=SEEDS,
    width=st.integers(5, 40),
    height=st.integers(4, 14),
    room_width=st.tuples(st.integers(3, 6), st.integers(0, 6)),
    room_height=st.tuples(st.integers(2, 4), st.integers(0, 4)),
)
def test_cramped_settings_give_a_good_dungeon_or_say_why(
    seed: int,
    width: int,
    height: int,
    room_width: tuple[int, int],
    room_height: tuple[int, int],
) -> None:
    try:
        dungeon = generate(
            seed,
            Settings(
                width=width,
                height=height,
                room_width=(room_width[0], sum(room_width)),
                room_height=(room_height[0], sum(room_height)),
            ),
        )
    except GenerationError as error:
        assert "room" in str(error)
    else:
        assert validate(dungeon) == []


@pytest.mark.parametrize(
    "size", [(80, 21), (21 * 4, 21), (200, 60), (60, 200), (26, 5), (400, 300)]
)
def test_several_sizes_including_large_ones(size: tuple[int, int]) -> None:
    width, height = size
    dungeon = generate(3, Settings(width=width, height=height))
    assert validate(dungeon) == []
    assert len(dungeon.rooms) >= max(5, (width - 2) * (height - 2) // 170 // 2)


def test_rooms_never_exceed_the_asked_number_or_sizes() -> None:
    wanted = Settings(rooms=6, room_width=(5, 7), room_height=(2, 3))
    for seed in range(30):
        rooms = generate(seed, wanted).rooms
        assert 5 <= len(rooms) <= 6
        assert all(5 <= r.width <= 7 and 2 <= r.height <= 3 for r in rooms)


def test_the_same_seed_gives_the_same_bytes() -> None:
    for seed in (0, 1, 2**40 + 7):
        first, again = generate(seed), generate(seed)
        assert first == again
        assert first.drawing() == again.drawing()


def test_a_known_seed_gives_a_known_dungeon() -> None:
    # Pinned so that a change in the algorithm, or a platform's randomness, shows up.
    dungeon = generate(7)
    digest = hashlib.sha256(dungeon.cells + (dungeon.hardness or b"")).hexdigest()
    assert digest == KNOWN_SEED_7


def test_different_seeds_give_different_dungeons() -> None:
    drawings = {generate(seed).drawing() for seed in range(50)}
    assert len(drawings) == 50


def test_hardness_is_open_on_floor_immutable_on_the_border_and_varied_in_rock() -> None:
    dungeon = generate(11)
    assert dungeon.hardness is not None
    width, height = dungeon.width, dungeon.height
    rock = []
    for index, cell in enumerate(dungeon.cells):
        r, c = divmod(index, width)
        if r in (0, height - 1) or c in (0, width - 1):
            assert dungeon.hardness[index] == 255
        elif cell == ROCK:
            assert 1 <= dungeon.hardness[index] <= 254
            rock.append(dungeon.hardness[index])
        else:
            assert dungeon.hardness[index] == 0
    assert max(rock) - min(rock) > 150, "veins of hard and soft rock"


def corridor_squares(dungeon: Dungeon) -> set[int]:
    return {index for index, cell in enumerate(dungeon.cells) if cell == CORRIDOR}


def test_loops_add_corridors_to_the_same_spanning_tree() -> None:
    grew = 0
    for seed in range(20):
        tree = corridor_squares(generate(seed, Settings(loops=0)))
        looped = corridor_squares(generate(seed, Settings(loops=1)))
        assert tree <= looped, "the tree is dug first, the loops come on top"
        grew += looped > tree
    assert grew >= 15


def test_winding_makes_corridors_longer() -> None:
    straight = sum(len(corridor_squares(generate(s, Settings(winding=0)))) for s in range(20))
    winding = sum(len(corridor_squares(generate(s, Settings(winding=2)))) for s in range(20))
    assert winding > straight * 1.1


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"width": 12, "height": 8}, "cannot fit"),
        ({"width": 5}, "no room for a 4 × 3 room"),
        ({"rooms": 4}, "at least 5 rooms"),
        ({"room_width": (2, 5)}, "room width must be at least 3"),
        ({"room_height": (1, 5)}, "room height must be at least 2"),
        ({"room_width": (6, 5)}, "range 6-5 is empty"),
        ({"winding": -1}, "winding"),
        ({"loops": 1.5}, "loops"),
    ],
)
def test_impossible_settings_are_refused_with_the_reason(
    fields: dict[str, object], reason: str
) -> None:
    with pytest.raises(GenerationError, match=reason):
        Settings(**fields)  # type: ignore[arg-type]


def test_a_dungeon_with_room_for_exactly_five_rooms_is_still_made() -> None:
    # 26 × 5 fits five 4 × 3 rooms in one way only; random throws rarely find it.
    for seed in range(20):
        dungeon = generate(seed, Settings(width=26, height=5, room_width=(4, 4)))
        assert [room.column for room in sorted(dungeon.rooms, key=lambda r: r.column)] == [
            1,
            6,
            11,
            16,
            21,
        ]


def test_too_small_for_five_rooms_by_placement_is_an_error() -> None:
    # Enough area for five 4 × 3 rooms, but the rows only hold four of them.
    with pytest.raises(GenerationError, match="only 4 rooms of 4 × 3 fit in 21 × 8"):
        generate(0, Settings(width=21, height=8))


def test_a_dungeon_breaking_the_rules_is_never_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = Violation(Rule.BORDER, (0, 0), "an outermost square must stay rock")
    monkeypatch.setattr(generator, "validate", lambda dungeon: [broken])
    with pytest.raises(GenerationError, match=r"seed 5 .*\(0, 0\): rock border"):
        generate(5)


def test_more_rooms_than_can_fit_are_refused_at_once() -> None:
    """A room count is a number a client sends: it must not make the generator try for ever."""
    with pytest.raises(GenerationError, match=r"at most \d+ rooms of 4 × 3 fit in 80 × 21; 10"):
        Settings(rooms=10**12)
