"""The crawler world: treasure, amulets, doors, line-of-sight monsters, multi-level dungeons.

The rules of RULES §2 (from the Dungeon Crawler assignment). Modules, from the
bottom up: :mod:`.levelfile` reads level files, :mod:`.grid` is a level in play
and every rule of a turn, :mod:`.state` is one adventurer's whole game as a
copyable value (for the console game, solvers and checkers), :mod:`.dungeon`
names dungeons for the map option, :mod:`.world` is the multiplayer world the
server plays, :mod:`.text` is what the game says.
"""

from __future__ import annotations

from ..limits import OPERATOR_LIMITS, Limits
from .dungeon import DEFAULT, Dungeon, open_dungeon, shipped
from .grid import Grid, Status
from .levelfile import Level, parse_level, read_level
from .state import KEYS, Command, GameOver, Outcome, State, Turn
from .world import CrawlerWorld

__all__ = [
    "KEYS",
    "Command",
    "CrawlerPlugin",
    "CrawlerWorld",
    "Dungeon",
    "GameOver",
    "Grid",
    "Level",
    "Outcome",
    "State",
    "Status",
    "Turn",
    "open_dungeon",
    "parse_level",
    "plugin",
    "read_level",
]


class CrawlerPlugin:
    """Opens crawler worlds on a dungeon named as :mod:`.dungeon` describes."""

    name = "crawler"
    summary = "take a treasure and escape: doors, amulets, monsters that see in lines"

    def maps(self) -> list[str]:
        return sorted(shipped())

    def open(
        self, map_spec: str | None, *, seed: int, limits: Limits = OPERATOR_LIMITS
    ) -> CrawlerWorld:
        """A fresh world; ``seed`` names a ``generated`` dungeon that gives no seed itself."""
        dungeon = open_dungeon(map_spec or DEFAULT, seed=seed, limits=limits)
        return CrawlerWorld(dungeon, limits=limits)


plugin = CrawlerPlugin()
