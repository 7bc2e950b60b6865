"""The battle world: the multiplayer Dungeon of Dooom of 2013–2015 on classic maps.

Turns, action points, hit points, ``ATTACK``, and the items of the 2013 rulebook
(sword, armour, lantern, health potion); see :mod:`worlds.battle.world` and
``docs/worlds/battle.md``. Maps are classic maps (RULES §1), read by the classic
plugin: every shipped classic map, a file path, or a generated dungeon.
"""

from __future__ import annotations

from ..classic import ClassicPlugin
from .world import BattleWorld

__all__ = ["BattlePlugin", "BattleWorld", "plugin"]


class BattlePlugin:
    """Opens battle worlds on classic maps."""

    name = "battle"
    summary = "fight in turns for the gold, then reach an exit (the 2013 multiplayer rules)"

    def __init__(self) -> None:
        self._maps = ClassicPlugin()

    def maps(self) -> list[str]:
        return self._maps.maps()

    def open(self, map_spec: str | None, *, seed: int) -> BattleWorld:
        return BattleWorld(self._maps.load_map(map_spec, seed=seed), seed=seed)


plugin = BattlePlugin()
