"""The README's example classic map loads and can be won, as a new user would try it."""

from __future__ import annotations

import re
from pathlib import Path

from dungeon_of_doom.protocol.commands import Move, Pickup
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.worlds.api import Escaped, PlayerKind
from dungeon_of_doom.worlds.registry import load_plugin

from ..helpers import status_of

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_example_map_loads_and_is_winnable(tmp_path: Path) -> None:
    block = re.search(r"```\n(name Small Dungeon of Doom\n.*?)```", README.read_text(), re.S)
    assert block, "the README's example map is gone"
    path = tmp_path / "small.map"
    path.write_text(block.group(1))
    world = load_plugin("classic").open(str(path), seed=1)
    world.join(1, PlayerKind.HUMAN)
    # Walk the corridor west to east, picking up every gold on the way: the exit wins.
    _row, column = status_of(world, 1).position
    for _ in range(column):
        world.resolve([(1, Move(Direction.W))])
    events = []
    for _ in range(20):
        events += world.resolve([(1, Pickup())])
        events += world.resolve([(1, Move(Direction.E))])
        if any(isinstance(event, Escaped) for event in events):
            break
    assert any(isinstance(event, Escaped) for event in events)
