"""Finding world plugins through Python entry points.

Every installed distribution can add worlds under the entry-point group
``dungeon_of_doom.worlds``; each entry point loads to an object that follows
:class:`worlds.api.WorldPlugin`.
"""

from __future__ import annotations

import inspect
from importlib.metadata import entry_points
from typing import Final

from .api import World, WorldPlugin
from .limits import Limits

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
            plugin = ep.load()
            if not isinstance(plugin, WorldPlugin):
                raise TypeError(
                    f"the {name!r} world's entry point {ep.value} is not a world plugin "
                    "(it needs name, summary, open and maps)"
                )
            return plugin
    raise UnknownWorld(name, world_names())


class LimitedPlugin:
    """A plugin whose every world opens within fixed :class:`Limits`, whatever its caller passes.

    The server wraps the plugin of a client's ``CREATE`` in one, so the game it
    makes, and every restart of that game, stays within the clients' limits.
    Everything else is the wrapped plugin's. A plugin written before limits
    existed (its ``open`` takes no ``limits``) is opened without them: it bounds
    its own maps, or nothing does.
    """

    def __init__(self, plugin: WorldPlugin, limits: Limits) -> None:
        self.plugin = plugin
        self.limits = limits
        self._takes_limits = _takes_limits(plugin)

    @property
    def name(self) -> str:
        return self.plugin.name

    @property
    def summary(self) -> str:
        return self.plugin.summary

    def maps(self) -> list[str]:
        return self.plugin.maps()

    def open(self, map_spec: str | None, *, seed: int, limits: Limits | None = None) -> World:
        if not self._takes_limits:
            return self.plugin.open(map_spec, seed=seed)
        return self.plugin.open(map_spec, seed=seed, limits=self.limits)

    def __getattr__(self, name: str) -> object:
        return getattr(self.plugin, name)


def _takes_limits(plugin: WorldPlugin) -> bool:
    try:
        parameters = inspect.signature(plugin.open).parameters
    except (TypeError, ValueError):
        return True
    return "limits" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )
