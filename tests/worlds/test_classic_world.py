"""Every classic rule (RULES §1), on tiny hand-made maps."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dungeon_of_doom.protocol.commands import Move, Pickup
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.worlds.api import (
    Action,
    Blocked,
    Escaped,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    PickedUp,
    PlayerKind,
    WorldError,
    WorldFull,
    blocked,
    moved,
)
from dungeon_of_doom.worlds.classic import ClassicWorld, parse_map

from ..helpers import joined_at, status_of

N, S, E, W = (Move(d) for d in (Direction.N, Direction.S, Direction.E, Direction.W))


def world(rows: list[str], goal: int = 0, seed: int = 0) -> ClassicWorld:
    text = "name T\nwin {}\n{}\n".format(goal, "\n".join(rows))
    return ClassicWorld(parse_map(text), seed=seed)


def place(w: ClassicWorld, player: int, position: tuple[int, int]) -> None:
    w.join(player, at=position)


def test_spawn_is_on_open_free_squares_and_seeded() -> None:
    rows = ["#####", "#.G.#", "#.#E#", "#####"]
    a, b = world(rows, seed=7), world(rows, seed=7)
    spots_a = [joined_at(a.join(p)) for p in range(1, 6)]
    spots_b = [joined_at(b.join(p)) for p in range(1, 6)]
    assert spots_a == spots_b
    assert len(set(spots_a)) == 5
    assert all(a.tile(s) != "#" for s in spots_a)


def test_different_seeds_spawn_differently() -> None:
    rows = ["." * 30 + "E"] * 10
    spots = {joined_at(world(rows, seed=s).join(1)) for s in range(20)}
    assert len(spots) > 1


def test_full_map_refuses_another_player() -> None:
    w = world(["#E.#"])
    w.join(1)
    w.join(2)
    with pytest.raises(WorldFull):
        w.join(3)


def test_joined_event() -> None:
    w = world(["E"])
    assert w.join(1) == [Joined(1, (0, 0))]


def test_cannot_place_on_a_wall_or_a_player() -> None:
    w = world(["#.E"])
    with pytest.raises(WorldError):
        w.join(1, at=(0, 0))
    w.join(1, at=(0, 1))
    with pytest.raises(WorldError):
        w.join(2, at=(0, 1))
    with pytest.raises(WorldError):
        w.join(1)


def test_walls_edges_and_players_block() -> None:
    w = world(["#..", "..E"])
    place(w, 1, (0, 1))
    place(w, 2, (0, 2))
    assert w.resolve([(1, W)]) == [Blocked(1, "a wall")]
    assert w.resolve([(1, N)]) == [Blocked(1, "the edge of the map")]
    assert w.resolve([(1, E)]) == [Blocked(1, "another player")]
    assert w.resolve([(2, E)]) == [Blocked(2, "the edge of the map")]
    assert status_of(w, 1).position == (0, 1)
    assert w.resolve([(1, S)]) == [Moved(1, (0, 1), (1, 1))]
    assert w.resolve([(2, W)]) == [Moved(2, (0, 2), (0, 1))]


def test_moves_count_every_action() -> None:
    w = world(["#.E"])
    place(w, 1, (0, 1))
    w.resolve([(1, W), (1, Pickup())])
    assert status_of(w, 1).moves == 2


def test_pickup_gold_is_gone_for_everyone() -> None:
    w = world([".G.E"])
    place(w, 1, (0, 1))
    place(w, 2, (0, 0))
    assert w.resolve([(1, Pickup())]) == [PickedUp(1, "G", 1)]
    assert w.resolve([(1, Pickup())]) == [NothingToPickUp(1)]
    assert w.tile((0, 1)) == "."
    w.resolve([(1, E), (2, E)])
    assert w.resolve([(2, Pickup())]) == [NothingToPickUp(2)]
    assert status_of(w, 1).gold == 1 and status_of(w, 2).gold == 0


def test_pickup_an_item_succeeds_without_gold() -> None:
    w = world(["S.E"])
    place(w, 1, (0, 0))
    assert w.resolve([(1, Pickup())]) == [PickedUp(1, "S", 0, is_gold=False)]
    assert w.tile((0, 0)) == "."


def test_exit_without_enough_gold_is_just_floor() -> None:
    w = world(["G.E"], goal=1)
    place(w, 1, (0, 1))
    assert w.resolve([(1, E)]) == [Moved(1, (0, 1), (0, 2))]
    assert 1 in w
    assert w.look(1)[2] == "G.E##"


def test_escape_with_enough_gold_leaves_the_world() -> None:
    w = world(["G.E"], goal=1)
    place(w, 1, (0, 0))
    w.resolve([(1, Pickup())])
    events = w.resolve([(1, E), (1, E)][:1])
    assert events == [Moved(1, (0, 0), (0, 1))]
    events = w.resolve([(1, E)])
    assert events[0] == Moved(1, (0, 1), (0, 2))
    assert isinstance(events[1], Escaped)
    assert (events[1].gold, events[1].moves) == (1, 3)
    assert 1 not in w
    assert w.status(1) is None
    assert w.render() == ("..E",)


def test_target_zero_wins_on_first_exit_step() -> None:
    w = world([".E"])
    place(w, 1, (0, 0))
    assert isinstance(w.resolve([(1, E)])[1], Escaped)


def test_look_has_x_corners_hash_off_map_and_the_tile_under_the_player() -> None:
    w = world(["G.E", "..."])
    place(w, 1, (0, 0))
    assert w.look(1) == ("X###X", "#####", "##G.E", "##...", "X###X")


def test_look_matches_the_specification_example() -> None:
    rows = ["#####", "#.###", ".GG..", "###.#", "##G.#"]
    w = world([r + "E" for r in rows])
    place(w, 1, (2, 2))
    assert w.look(1) == ("X###X", "#.###", ".GG..", "###.#", "X#G.X")


def test_others_show_as_p_or_b_and_leave_no_trace() -> None:
    w = world([".....", "....E"])
    place(w, 1, (0, 0))
    w.join(2, PlayerKind.BOT, at=(1, 1))
    place(w, 3, (0, 2))
    assert w.look(1)[2:4] == ("##..P", "##.B.")
    assert w.look(3)[2] == "P...."  # the centre is the tile, never the player
    assert w.leave(3) == [Left(3)]
    assert w.look(1)[2] == "##..."
    assert w.leave(3) == []


def test_render_draws_the_viewer_as_at_sign() -> None:
    w = world(["....E"])
    place(w, 1, (0, 0))
    place(w, 2, (0, 2))
    assert w.render(1) == ("@.P.E",)
    assert w.render(None) == ("P.P.E",)


def test_same_seed_and_actions_same_game() -> None:
    rows = ["#########", "#.G..G..#", "#..#..E.#", "#########"]
    script: list[Action] = [N, E, Pickup(), S, W, E, E, Pickup(), N]

    def play(seed: int) -> list[object]:
        w = world(rows, goal=1, seed=seed)
        log: list[object] = [*w.join(1), *w.join(2)]
        for action in script:
            for player in (1, 2):
                if player in w:
                    log += w.resolve([(player, action)])
        return log

    assert play(3) == play(3)


def naive_look(w: ClassicWorld, player: int) -> tuple[str, ...]:
    """LOOK computed from scratch from the rules, to check the world's faster one."""
    row, column = status_of(w, player).position
    others = {status_of(w, p).position: w._players[p].kind.value for p in w._players if p != player}
    rows = []
    for r in range(row - 2, row + 3):
        line = ""
        for c in range(column - 2, column + 3):
            if abs(r - row) == 2 and abs(c - column) == 2:
                line += "X"
            elif not (0 <= r < w.map.height and 0 <= c < w.map.width):
                line += "#"
            else:
                line += others.get((r, c)) or w.tile((r, c))
        rows.append(line)
    return tuple(rows)


@given(
    st.lists(st.tuples(st.integers(1, 6), st.sampled_from("NSEWPJL")), max_size=80),
    st.integers(0, 1000),
)
def test_look_always_matches_the_rules(script: list[tuple[int, str]], seed: int) -> None:
    w = world(["G.#..G", "..G.#.", "#...G.", "..E..."], goal=2, seed=seed)
    for player, step in script:
        if step == "J" and player not in w:
            w.join(player, PlayerKind.BOT if player % 2 else PlayerKind.HUMAN)
        elif step == "L":
            w.leave(player)
        elif player in w:
            action = Pickup() if step == "P" else Move(Direction[step]) if step != "J" else None
            if action is not None:
                w.resolve([(player, action)])
        for p in list(w._players):
            expected = naive_look(w, p)
            assert w.look(p) == expected
            # Twice: the second LOOK is the window kept since the last change (issue 31).
            for _ in range(2):
                assert w.look_bytes(p) == "".join(f"{line}\n" for line in expected).encode()


@pytest.mark.parametrize(
    "rows",
    [
        ("E.G",),
        ("E", ".", "G"),
        ("E.", ".G"),
        ("#E.G#", "#...#"),
        ("E......", ".#.#.#.", "G......", ".......", "......."),
    ],
)
def test_look_bytes_are_the_view_from_every_square_of_maps_narrower_than_it(
    rows: tuple[str, ...],
) -> None:
    # The byte window pads past every edge itself; small maps reach all edges at once.
    world = ClassicWorld(parse_map("name tiny\nwin 0\n" + "\n".join(rows) + "\n"))
    for r, row in enumerate(rows):
        for c, tile in enumerate(row):
            if tile == "#":
                continue
            world.join(1, at=(r, c))
            expected = "".join(line + "\n" for line in world.look(1)).encode("ascii")
            assert world.look_bytes(1) == expected
            world.leave(1)


def test_no_win_is_possible_once_the_gold_a_player_needs_is_gone() -> None:
    """The 2013 conundrum: one player took both coins and escaped; the others cannot win."""
    w = world(["#######", "#GG.E.#", "#######"], goal=2)
    place(w, 1, (1, 1))
    place(w, 2, (1, 5))
    assert w.unwinnable() is None
    w.resolve([(1, Pickup()), (1, E), (1, Pickup())])
    assert w.unwinnable() is None, "player 1 holds the two coins: a win is still possible"
    w.resolve([(1, E), (1, E)])
    assert 1 not in w
    assert w.unwinnable() == (
        "nobody can win any more: 0 gold is left in the dungeon, "
        "no player still here holds more than 0, and 2 is needed to escape"
    )


def test_a_player_who_leaves_with_gold_can_leave_the_rest_without_a_win() -> None:
    w = world(["######", "#GG.E#", "######"], goal=2)
    place(w, 1, (1, 1))
    place(w, 2, (1, 3))
    w.resolve([(1, Pickup())])
    assert w.unwinnable() is None  # one coin on the map, one held: still 2
    w.leave(1)
    assert w.unwinnable() is not None
    assert world(["####", "#.E#", "####"], goal=0).unwinnable() is None


def test_look_bytes_show_every_change_since_the_last_look() -> None:
    # The world keeps each square's window until something changes (issue 31).
    w = world(["G...E", ".....", "S...."])
    place(w, 1, (0, 0))
    place(w, 2, (2, 0))
    assert w.look_bytes(1) == b"X###X\n#####\n##G..\n##...\nX#P.X\n"
    w.resolve([(1, Pickup())])  # the gold under the player is gone
    assert w.look_bytes(1) == b"X###X\n#####\n##...\n##...\nX#P.X\n"
    w.resolve([(2, Pickup())])  # an item under another, who hides it
    assert w.look_bytes(1) == b"X###X\n#####\n##...\n##...\nX#P.X\n"
    w.resolve([(2, E)])  # another moves in view
    assert w.look_bytes(1) == b"X###X\n#####\n##...\n##...\nX#.PX\n"
    w.leave(2)
    assert w.look_bytes(1) == b"X###X\n#####\n##...\n##...\nX#..X\n"
    place(w, 3, (1, 1))
    assert w.look_bytes(1) == b"X###X\n#####\n##...\n##.P.\nX#..X\n"


@given(
    st.integers(min_value=1, max_value=10**6),
    st.tuples(st.integers(0, 2000), st.integers(0, 2000)),
    st.tuples(st.integers(0, 2000), st.integers(0, 2000)),
)
def test_the_fast_moved_is_the_dataclass_moved(
    player: int, origin: tuple[int, int], target: tuple[int, int]
) -> None:
    # The classic world builds its Moved events through their slots (issue 31): they
    # must be the very events the dataclass builds, frozen like them.
    fast = moved(player, origin, target)
    built = Moved(player, origin, target)
    assert type(fast) is Moved
    assert fast == built and hash(fast) == hash(built) and repr(fast) == repr(built)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.player = player + 1  # type: ignore[misc]


@given(st.integers(min_value=1, max_value=10**6), st.text(max_size=40))
def test_the_fast_blocked_is_the_dataclass_blocked(player: int, reason: str) -> None:
    # Blocked events are built through their slots too (issue 31).
    fast = blocked(player, reason)
    built = Blocked(player, reason)
    assert type(fast) is Blocked
    assert fast == built and hash(fast) == hash(built) and repr(fast) == repr(built)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.reason = reason + "!"  # type: ignore[misc]


def test_a_square_is_taken_while_its_player_stands_there_whatever_lies_under_it() -> None:
    """Who stands where is read from the drawn scene (issue 31): a player on an item, on
    gold picked up from under it, or left behind by a move must count as it did."""
    w = world(["GS.", "..E"])
    place(w, 1, (0, 0))  # on gold
    place(w, 2, (0, 1))  # on an item
    assert w.resolve([(1, Pickup())]) == [PickedUp(1, "G", 1)]  # the floor under it now
    assert w.resolve([(2, W)]) == [Blocked(2, "another player")]
    assert w.resolve([(1, E)]) == [Blocked(1, "another player")]
    with pytest.raises(WorldError):
        w.join(3, at=(0, 0))
    with pytest.raises(WorldError):
        w.join(3, at=(0, 1))
    assert w.resolve([(2, S)]) == [Moved(2, (0, 1), (1, 1))]
    place(w, 3, (0, 1))  # free again, its item still there
    assert w.resolve([(3, W)]) == [Blocked(3, "another player")]
    w.leave(1)
    assert w.resolve([(3, W)]) == [Moved(3, (0, 1), (0, 0))]
    for player in range(10, 14):  # a random square is never a taken one: all six filled
        w.join(player)
    with pytest.raises(WorldFull):
        w.join(14)
    assert len({status_of(w, p).position for p in (2, 3, 10, 11, 12, 13)}) == 6
