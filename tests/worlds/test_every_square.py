"""Every view of every shipped map of every installed world, from every square.

``LOOK`` once killed the baddies game whenever the 5×5 view lay wholly inside
the board (issue 20): a fast path of :func:`worlds.view.look_window` sliced a row
that did not support slices. Views are cheap, so rather than guess which squares
reach which path, this looks from all of them, with a neighbour in view, and
draws ``MAP`` for the player and for a spectator.
"""

from __future__ import annotations

import inspect

import pytest

from dungeon_of_doom.protocol.commands import Move
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.protocol.replies import LOOK_SIZE, LookReply
from dungeon_of_doom.worlds.api import World, WorldError
from dungeon_of_doom.worlds.registry import load_plugin, world_names


def _cases() -> list[tuple[str, str]]:
    return [(name, map_name) for name in world_names() for map_name in load_plugin(name).maps()]


def _check_views(world: World, player: int) -> None:
    view = world.look(player)
    assert len(view) == LOOK_SIZE
    assert all(len(row) == LOOK_SIZE for row in view)
    assert view[0][0] == view[0][-1] == view[-1][0] == view[-1][-1] == "X"
    drawn = world.look_bytes(player)
    if drawn is not None:  # sent as it is: it must be the view, byte for byte
        assert drawn == "".join(row + "\n" for row in view).encode("ascii")
        assert LookReply.drawn(drawn) == LookReply(view)
    for viewer in (player, None):
        rows = world.render(viewer)
        assert rows and len({len(row) for row in rows}) == 1


def _placeable(world: World) -> bool:
    return "at" in inspect.signature(world.join).parameters


@pytest.mark.parametrize(("world_name", "map_name"), _cases())
def test_look_and_map_from_every_square(world_name: str, map_name: str) -> None:
    plugin = load_plugin(world_name)
    world = plugin.open(map_name, seed=3)
    if not _placeable(world):
        pytest.skip(f"the {world_name} world places its players itself; see its own test")
    rows = world.render(None)
    looked = 0
    for r in range(len(rows)):
        for c in range(len(rows[0])):
            try:
                world.join(1, at=(r, c))  # type: ignore[call-arg]
            except WorldError:
                continue
            # A neighbour in view exercises the occupants path of the window.
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                try:
                    world.join(2, at=(r + dr, c + dc))  # type: ignore[call-arg]
                    break
                except WorldError:
                    continue
            _check_views(world, 1)
            looked += 1
            world.leave(1)
            world.leave(2)
    assert looked > 0


def _knight_cases() -> list[str]:
    return load_plugin("knight").maps() if "knight" in world_names() else []


@pytest.mark.parametrize("map_name", _knight_cases())
def test_knight_looks_from_every_square(map_name: str) -> None:
    """The knight starts in the top-left corner: walk to each square, never dying."""
    plugin = load_plugin("knight")
    world = plugin.open(f"{map_name},health=1000000000", seed=3)
    rows = world.render(None)
    height, width = len(rows), len(rows[0].split())
    for r in range(height):
        for c in range(width):
            player = 1 + r * width + c
            world.join(player)
            steps = [Direction.S] * r + [Direction.E] * c
            for direction in steps:
                world.resolve([(player, Move(direction))])
            if (r, c) == (height - 1, width - 1):
                assert player not in world  # reaching the corner is escaping
            else:
                _check_views(world, player)
