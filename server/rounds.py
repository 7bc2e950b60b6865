"""One round of a world with rounds: the actions gathered, and when it must end.

What a caller may rely on:

* Each player acts at most once per round; the round is handed to the world in
  **join order** (players in the order they entered the game, which is the order
  of their player numbers), whatever order the actions arrived in.
* ``deadline`` is ``inf`` until a second player is waiting for the round to end;
  from then on it is the trio time at which the missing actions become stays.
* ``done`` is set once the round has been resolved (or abandoned because the
  world failed); connections waiting for their reply wait on it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import trio

from protocol.commands import Stay
from worlds.api import Action, PlayerId

_STAY = Stay()


class Round:
    """The actions of round ``number`` gathered so far."""

    __slots__ = ("actions", "deadline", "done", "number", "opened")

    def __init__(self, number: int) -> None:
        self.number = number
        self.opened = trio.current_time()
        """When the round's first action came (its duration is measured from here)."""
        self.actions: dict[PlayerId, Action] = {}
        self.deadline = math.inf
        self.done = trio.Event()

    def complete(self, players: Iterable[PlayerId]) -> bool:
        """Whether every one of ``players`` has acted."""
        actions = self.actions
        return all(player in actions for player in players)

    def missing(self, players: Iterable[PlayerId]) -> list[PlayerId]:
        """Those of ``players`` who have not acted, in join order."""
        return sorted(player for player in players if player not in self.actions)

    def in_order(self, stays: Iterable[PlayerId] = ()) -> list[tuple[PlayerId, Action]]:
        """The actions in join order, with a stay for each of ``stays``."""
        actions = dict(self.actions)
        for player in stays:
            actions.setdefault(player, _STAY)
        return sorted(actions.items(), key=lambda item: item[0])
