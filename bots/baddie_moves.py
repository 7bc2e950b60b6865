"""Sending a baddies step: ``(0, 0)`` is ``STAY``, any other step the ``MOVE`` of its direction."""

from __future__ import annotations

from dungeon_of_doom.clients import Client
from dungeon_of_doom.worlds.baddies.rules import STAY, Step

from .plan.baddies import DIRECTIONS

__all__ = ["send_step"]


def send_step(client: Client, step: Step) -> bool:
    """Play ``step`` as this round's action; ``True`` if the hero ended on another square."""
    if step == STAY:
        return client.stay()
    return client.move(DIRECTIONS[step])
