"""Helpers the checks share: joining as a player, exploring, directions."""

from __future__ import annotations

from collections.abc import Callable

from protocol.direction import Direction

from ..explorer import DIRECTIONS, WALKABLE, Explorer, Position
from ..registry import Context
from ..results import CheckSkipped
from ..view import View

__all__ = ["explore_or_skip", "floor_directions", "join", "wall_directions"]


async def join(ctx: Context, name: str = "client") -> Explorer:
    """A new connection that has said ``HELLO`` and looked once."""
    explorer = Explorer(await ctx.connect(name))
    await explorer.hello()
    await explorer.look()
    return explorer


def wall_directions(view: View) -> list[Direction]:
    """Directions in which the square next to the centre is a wall."""
    return [d for d in DIRECTIONS if view.at(d.value) == "#"]


def floor_directions(view: View) -> list[Direction]:
    """Directions in which the square next to the centre can be walked onto safely."""
    return [d for d in DIRECTIONS if view.at(d.value) in WALKABLE]


async def explore_or_skip(
    ctx: Context,
    explorer: Explorer,
    found: Callable[[Explorer], bool],
    what: str,
    toward: Callable[[Position], bool] | None = None,
) -> None:
    """Explore until ``found``; skip the check, saying ``what`` was missing, if never."""
    limit = ctx.config.max_steps
    if not await explorer.explore(found, limit, toward):
        if explorer.exhausted:
            raise CheckSkipped(
                f"{what}: every square reachable was seen, in {explorer.moves} moves of exploring"
            )
        raise CheckSkipped(f"{what} within {limit} moves of exploring")
