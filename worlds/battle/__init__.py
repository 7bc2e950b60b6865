"""The battle world: the multiplayer Dungeon of Dooom of 2013–2015 on classic maps.

Turns, action points, hit points, ``ATTACK``, and the items of the 2013 rulebook
(sword, armour, lantern, health potion); see :mod:`worlds.battle.world` and
``docs/worlds/battle.md``. Maps are classic maps (RULES §1): the battle maps shipped
in ``maps/battle`` (the default, ``arena``, has items), every shipped classic map, a
file path, or a generated dungeon.
"""

from __future__ import annotations

from dungeon_of_doom import maps

from ..classic import MAP_SUFFIX, ClassicPlugin, load_map
from ..limits import OPERATOR_LIMITS, Limits
from .world import BattleWorld

DEFAULT_MAP = "arena"

__all__ = ["BattlePlugin", "BattleWorld", "plugin"]


class BattlePlugin:
    """Opens battle worlds on classic maps."""

    name = "battle"
    summary = "fight in turns for the gold, then reach an exit (the 2013 multiplayer rules)"

    def __init__(self) -> None:
        self._maps = ClassicPlugin()

    def maps(self) -> list[str]:
        return sorted({*maps.shipped(self.name, MAP_SUFFIX), *self._maps.maps()})

    def open(
        self, map_spec: str | None, *, seed: int, limits: Limits = OPERATOR_LIMITS
    ) -> BattleWorld:
        # The one map-spec resolver (worlds.mapspec), through the classic world's loader.
        dungeon = load_map(
            self.name, map_spec, seed=seed, limits=limits, default=DEFAULT_MAP, also=("classic",)
        )
        return BattleWorld(dungeon, seed=seed)


plugin = BattlePlugin()
