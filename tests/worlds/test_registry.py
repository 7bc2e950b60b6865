from __future__ import annotations

import pytest

from worlds.api import World
from worlds.registry import UnknownWorld, load_plugin, world_names


def test_classic_is_found_through_entry_points() -> None:
    assert "classic" in world_names()
    plugin = load_plugin("classic")
    assert plugin.name == "classic"
    assert isinstance(plugin.open(None, seed=1), World)


def test_unknown_world_lists_the_installed_ones() -> None:
    with pytest.raises(UnknownWorld) as caught:
        load_plugin("chess")
    assert "classic" in str(caught.value)


def test_the_interface_is_abstract() -> None:
    with pytest.raises(TypeError):
        World()  # type: ignore[abstract]
