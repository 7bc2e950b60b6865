"""The explorer's memory: relative coordinates, what LOOK shows, shortest routes."""

from __future__ import annotations

from dungeon_of_doom.bots.memory import Memory
from dungeon_of_doom.clients import Direction, Grid

N, E, S, W = Direction.N, Direction.E, Direction.S, Direction.W


def test_a_view_is_remembered_around_the_bot_without_corners_or_players() -> None:
    memory = Memory()
    memory.see(Grid(("X###X", "#.P.#", "#.G.#", "#...#", "X###X")))
    assert memory.here() == "G"
    assert (-2, -2) not in memory.tiles  # a corner says nothing
    assert (-1, 0) not in memory.tiles  # a player hides the tile
    assert memory.tiles[(-1, -1)] == "." and memory.tiles[(0, -2)] == "#"


def test_routes_are_shortest_over_open_squares_and_follow_the_bot() -> None:
    memory = Memory()
    memory.see(Grid(("X...X", ".###.", "..G.E", ".###.", "X...X")))
    assert memory.route_to("E") == [E, E]
    memory.moved(E)
    assert memory.position == (0, 1)
    assert memory.route_to("E") == [E]
    assert memory.route_to("Z") is None


def test_the_frontier_is_an_open_square_next_to_an_unseen_one() -> None:
    memory = Memory()
    memory.see(Grid(("X###X", "#...#", "#...#", "#...#", "X#.#X")))
    assert memory.route_to_frontier() == [S, S]
    walled = Memory()
    walled.see(Grid(("X###X", "#####", "##.##", "#####", "X###X")))
    assert walled.route_to_frontier() is None and walled.open_neighbours() == []
