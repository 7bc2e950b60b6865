from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from dungeon_of_doom.worlds import registry
from dungeon_of_doom.worlds.api import World, WorldPlugin
from dungeon_of_doom.worlds.registry import UnknownWorld, load_plugin, world_names


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


NOT_A_PLUGIN = object()


def test_an_entry_point_that_is_no_plugin_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = EntryPoint("chess", f"{__name__}:NOT_A_PLUGIN", "dungeon_of_doom.worlds")
    monkeypatch.setattr(registry, "entry_points", lambda group: [fake])
    with pytest.raises(TypeError, match=r"'chess' world's entry point .* is not a world plugin"):
        load_plugin("chess")


def test_every_installed_world_is_a_plugin() -> None:
    for name in world_names():
        assert isinstance(load_plugin(name), WorldPlugin)
