"""The knight world's rules, views and plugin, called directly."""

from __future__ import annotations

import pytest

from dungeon_of_doom.protocol.commands import Move, Pickup, Stay
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.worlds.api import (
    Action,
    Blocked,
    Died,
    Escaped,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PlayerKind,
    PlayerStatus,
    WorldError,
)
from dungeon_of_doom.worlds.errors import MapError
from dungeon_of_doom.worlds.knight import KnightWorld, plugin
from dungeon_of_doom.worlds.knight.dungeon_master import generate
from dungeon_of_doom.worlds.knight.grid import Grid
from dungeon_of_doom.worlds.knight.render import read_numbers
from dungeon_of_doom.worlds.knight.solver import solve
from dungeon_of_doom.worlds.registry import load_plugin

S, E, N, W = (Move(d) for d in (Direction.S, Direction.E, Direction.N, Direction.W))
EXAMPLE = Grid([[-2, -3, 3], [-5, -10, 1], [10, 30, -5]])


def step(world: KnightWorld, player: int, action: Action) -> list[Event]:
    return world.resolve([(player, action)])


def test_the_plugin_is_installed_and_opens_the_example_by_default() -> None:
    assert load_plugin("knight") is plugin
    world = plugin.open(None, seed=0)
    assert world.grid == EXAMPLE
    assert (world.minimum, world.start_health, world.goal) == (7, 7, 0)
    assert plugin.maps() == ["corridor", "example", "gauntlet", "greedy"]


def test_a_knight_starts_top_left_having_taken_the_first_square() -> None:
    world = KnightWorld(EXAMPLE)
    assert world.join(1) == [Joined(1, (0, 0))]
    assert world.health(1) == 5
    assert world.status(1) == PlayerStatus((0, 0), 0, 0)
    assert 1 in world and 2 not in world


def test_the_optimal_path_wins_with_the_least_health() -> None:
    world = KnightWorld(EXAMPLE)
    world.join(1)
    assert step(world, 1, E) == [
        Moved(1, (0, 0), (0, 1)),
        Notice(1, "Health 2 at (0, 1) after a trap of -3. Next: E 3, S -10."),
    ]
    assert step(world, 1, E)[1] == Notice(
        1, "Health 5 at (0, 2) after a potion of +3. Next: E off the grid, S 1."
    )
    told = step(world, 1, S)[1]
    assert isinstance(told, Notice) and told.text.startswith("Health 6 at (1, 2)")
    assert world.path(1) == ((0, 0), (0, 1), (0, 2), (1, 2))
    assert step(world, 1, S) == [
        Moved(1, (1, 2), (2, 2)),
        Escaped(
            1,
            0,
            4,
            "You reached the bottom-right square with 1 health in 4 moves; "
            "you set out with 7 (the least that wins here is 7).",
        ),
    ]
    assert 1 not in world and world.status(1) is None and world.health(1) is None


def test_a_bad_path_dies_at_zero() -> None:
    world = KnightWorld(EXAMPLE)
    world.join(1)
    assert step(world, 1, S) == [
        Moved(1, (0, 0), (1, 0)),
        Died(
            1,
            "A trap of -5 at (1, 0) took your last 5 health after 1 move. "
            "The least starting health that wins here is 7.",
        ),
    ]
    assert 1 not in world


def test_dying_on_the_last_square_is_a_death_not_a_win() -> None:
    world = KnightWorld(EXAMPLE, health=6)
    world.join(1)
    for action in (E, E, S):
        step(world, 1, action)
    events = step(world, 1, S)
    assert [type(event) for event in events] == [Moved, Died]


def test_more_health_than_needed_is_allowed_and_reported() -> None:
    world = KnightWorld(EXAMPLE, health=20)
    world.join(1)
    assert world.health(1) == 18
    events = [event for action in (S, S, E, E) for event in step(world, 1, action)]
    assert isinstance(events[-1], Escaped)
    assert "with 48 health in 4 moves; you set out with 20" in events[-1].text


def test_edges_and_other_actions() -> None:
    world = KnightWorld(Grid([[1, 2, 3]]))
    world.join(1)
    assert step(world, 1, S) == [Blocked(1, "the edge of the grid")]
    assert world.health(1) == 2
    assert step(world, 1, Pickup()) == [NothingToPickUp(1)]
    for action, message in ((N, "only S"), (W, "only S"), (Stay(), "STAY")):
        with pytest.raises(WorldError, match=message):
            step(world, 1, action)
    assert world.status(1) == PlayerStatus((0, 0), 0, 2), "FAIL moves count, errors do not"
    with pytest.raises(WorldError):
        step(world, 9, E)
    with pytest.raises(WorldError):
        world.join(1)


def test_knights_cross_independently_and_share_squares() -> None:
    world = KnightWorld(EXAMPLE)
    world.join(1)
    world.join(2, PlayerKind.BOT)
    step(world, 1, E)
    step(world, 2, E)
    assert world.health(1) == world.health(2) == 2
    assert world.look(1) == ("X###X", "#####", "#--+#", "#--+#", "X++EX")
    step(world, 2, E)
    assert world.look(1)[2] == "#--B#"
    assert world.leave(2) == [Left(2)]
    assert world.leave(2) == []
    assert world.look(1)[2] == "#--+#"


def test_look_is_the_2013_shape_in_glyphs() -> None:
    world = plugin.open("gauntlet", seed=0)
    world.join(1)
    assert world.look(1) == ("X###X", "#####", "##---", "##-+-", "X#--X")


def test_map_shows_values_you_other_knights_and_your_trail() -> None:
    world = KnightWorld(EXAMPLE, health=20)
    world.join(1)
    world.join(2)
    step(world, 1, E)
    step(world, 1, E)
    step(world, 2, S)
    assert world.render(1) == (
        "  -2*  -3*  [3]",
        " (-5) -10    1 ",
        "  10   30   -5 ",
    )
    assert world.render(2) == (
        "  -2*  -3   (3)",
        " [-5] -10    1 ",
        "  10   30   -5 ",
    )
    spectator = read_numbers(world.render())
    assert spectator.grid == EXAMPLE and spectator.knights == {(1, 0), (0, 2)}


def test_a_bot_can_play_from_the_map_alone() -> None:
    world = plugin.open("12x15,range=-40..25,seed=3", seed=0)
    world.join(1)
    seen = read_numbers(world.render(1))
    assert seen.you == (0, 0)
    events = [
        event for move in solve(seen.grid).moves for event in step(world, 1, Move(Direction[move]))
    ]
    assert isinstance(events[-1], Escaped)
    assert not any(isinstance(event, (Died, Blocked)) for event in events)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("1x1", "a 1 x 1 grid cannot be played"),
        ("example,health=2", "dies on the first square (-2); start with at least 3"),
        ("200x200", "too large to play: its MAP reply would be"),
    ],
)
def test_grids_that_cannot_be_played_are_map_errors(spec: str, message: str) -> None:
    with pytest.raises(MapError) as caught:
        plugin.open(spec, seed=0)
    assert str(caught.value).startswith(f"{spec}: ")
    assert message in str(caught.value)


def test_a_100_by_100_grid_is_playable() -> None:
    world = KnightWorld(generate(100, 100, seed=1))
    world.join(1)
    assert len(world.render(1)) == 100
