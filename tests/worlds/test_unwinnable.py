"""Every shipped map of every world starts winnable: ``World.unwinnable`` is ``None``
for a fresh world with a player in it (the server would end such a game at once)."""

from __future__ import annotations

import pytest

from dungeon_of_doom.worlds.api import PlayerKind
from dungeon_of_doom.worlds.registry import load_plugin, world_names

CASES = [(name, map_name) for name in world_names() for map_name in load_plugin(name).maps()]


@pytest.mark.parametrize(("world", "map_name"), CASES)
def test_a_fresh_world_on_a_shipped_map_can_be_won(world: str, map_name: str) -> None:
    opened = load_plugin(world).open(map_name, seed=1)
    assert opened.unwinnable() is None
    opened.join(1, PlayerKind.BOT)
    assert opened.unwinnable() is None
