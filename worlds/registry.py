"""Finding world plugins through Python entry points.

Every installed distribution can add worlds under the entry-point group
``dungeon_of_doom.worlds``; each entry point loads to an object that follows
:class:`worlds.api.WorldPlugin`.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Final

from .api import WorldPlugin

ENTRY_POINT_GROUP: Final = "dungeon_of_doom.worlds"
DEFAULT_WORLD: Final = "classic"


class UnknownWorld(LookupError):
    """No plugin of that name is installed; ``str()`` lists those that are."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"unknown world {name!r}; installed worlds: {', '.join(known) or 'none'}")


def world_names() -> list[str]:
    """The names of every installed world, sorted."""
    return sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def load_plugin(name: str) -> WorldPlugin:
    """The plugin called ``name``; raises :class:`UnknownWorld` if none is installed."""
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            return ep.load()
    raise UnknownWorld(name, world_names())
