"""The classic world: gold and exits, the 2013 Dungeon of Doom rules (RULES §1).

A map spec is a file path, the name of a shipped map, or a generated dungeon
(``generated:7``, ``generated:seed=7,width=120,height=40``; see :mod:`mapgen.spec`)
whose gold and exits are placed by :func:`mapgen.formats.to_classic`.
"""

from __future__ import annotations

from pathlib import Path

import maps
from mapgen.spec import parse_spec

from ..errors import MapError
from .mapfile import ClassicMap, parse_map, read_map
from .world import ClassicWorld

__all__ = ["ClassicMap", "ClassicPlugin", "ClassicWorld", "parse_map", "plugin", "read_map"]

MAP_SUFFIX = ".map"
DEFAULT_MAP = "default"


class ClassicPlugin:
    """Opens classic worlds from a file path or the name of a shipped map."""

    name = "classic"
    summary = "collect the gold, then reach an exit (the 2013 rules)"

    def maps(self) -> list[str]:
        return sorted(maps.shipped(self.name, MAP_SUFFIX))

    def load_map(self, map_spec: str | None, *, seed: int = 0) -> ClassicMap:
        """The map named by ``map_spec``: a file path, a shipped map's name, or ``None``.

        A ``generated`` spec without its own seed uses ``seed``.
        """
        generated = parse_spec(map_spec, default_seed=seed)
        if generated is not None:
            # Imported here: mapgen.formats imports this package's map format.
            from mapgen.formats.classic import to_classic

            return to_classic(generated.generate(), seed=generated.seed)
        spec = map_spec or DEFAULT_MAP
        shipped = maps.shipped(self.name, MAP_SUFFIX)
        if spec in shipped and not Path(spec).exists():
            return parse_map(
                shipped[spec].read_text("utf-8"), f"maps/{self.name}/{spec}{MAP_SUFFIX}"
            )
        path = Path(spec)
        if not path.is_file():
            raise MapError(
                spec,
                f"no such file, and no shipped classic map of that name "
                f"(shipped: {', '.join(sorted(shipped))})",
            )
        return read_map(path)

    def open(self, map_spec: str | None, *, seed: int) -> ClassicWorld:
        return ClassicWorld(self.load_map(map_spec, seed=seed), seed=seed)


plugin = ClassicPlugin()
