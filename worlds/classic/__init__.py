"""The classic world: gold and exits, the 2013 Dungeon of Doom rules (RULES §1).

A map spec is what :mod:`worlds.mapspec` resolves: a shipped map's name, a file
the limits allow, or a generated dungeon (``generated:7``,
``generated:seed=7,width=120,height=40``) whose gold and exits are placed by
:func:`worlds.classic.generated.to_classic`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dungeon_of_doom import maps

from ..limits import OPERATOR_LIMITS, Limits
from ..mapspec import generated_spec, locate, not_found
from .generated import to_classic
from .mapfile import ClassicMap, parse_map, read_map
from .world import ClassicWorld

__all__ = [
    "ClassicMap",
    "ClassicPlugin",
    "ClassicWorld",
    "load_map",
    "parse_map",
    "plugin",
    "read_map",
]

MAP_SUFFIX: Final = ".map"
DEFAULT_MAP: Final = "default"


def load_map(
    world: str,
    map_spec: str | None,
    *,
    seed: int = 0,
    limits: Limits = OPERATOR_LIMITS,
    default: str = DEFAULT_MAP,
    also: Sequence[str] = (),
) -> ClassicMap:
    """The classic map ``map_spec`` names for ``world``: its shipped maps, then those of ``also``.

    ``None`` is ``default``; a ``generated`` spec without its own seed uses ``seed``.
    Worlds played on classic maps (battle) load theirs through here.
    """
    what = f"a generated {world} map"
    generated = generated_spec(map_spec, default_seed=seed, limits=limits, what=what)
    if generated is not None:
        return to_classic(generated.generate(), seed=generated.seed)
    spec = map_spec or default
    found = locate(spec, world, MAP_SUFFIX, limits)
    for other in also:
        found = found or locate(spec, other, MAP_SUFFIX, limits)
    if found is None:
        raise not_found(spec, world, MAP_SUFFIX, limits)
    loaded = parse_map(found.read_text(limits), found.source)
    if loaded.height * loaded.width > limits.cells:
        limits.check_cells(found.source, f"a {world} map", loaded.height, loaded.width)
    return loaded


class ClassicPlugin:
    """Opens classic worlds on what :func:`load_map` resolves."""

    name = "classic"
    summary = "collect the gold, then reach an exit (the 2013 rules)"

    def maps(self) -> list[str]:
        return sorted(maps.shipped(self.name, MAP_SUFFIX))

    def load_map(
        self, map_spec: str | None, *, seed: int = 0, limits: Limits = OPERATOR_LIMITS
    ) -> ClassicMap:
        """The map named by ``map_spec`` (see :func:`load_map`)."""
        return load_map(self.name, map_spec, seed=seed, limits=limits)

    def open(
        self, map_spec: str | None, *, seed: int, limits: Limits = OPERATOR_LIMITS
    ) -> ClassicWorld:
        return ClassicWorld(self.load_map(map_spec, seed=seed, limits=limits), seed=seed)


plugin = ClassicPlugin()
