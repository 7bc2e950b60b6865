"""What the web page's viewer is given of a replay, beyond the map: who is where, on
which level, and what happened in words.

A replay frame gets from :class:`FrameTeller` the same facts a live spectator with the
``board`` capability is pushed (:mod:`server.game.board`: players by name with level, square,
gold, moves and what the world adds; levels past the first), and its events told as
sentences ("Ada picked up gold (2 of 3)"), each naming the player it is about. Only the
world API and its generic events are read, so every world plugin is told the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from worlds.api import (
    Blocked,
    Died,
    Escaped,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PickedUp,
    PlayerId,
    Stayed,
    World,
)
from worlds.turns import Attacked, Defeated, HitPointsChanged

from ..game.board import scene_of
from ..replay.reader import Step

__all__ = ["FrameTeller", "tell"]

_WHY = {
    "quit": "quit",
    "disconnected": "disconnected",
    "moved": "moved to another game",
    "removed": "was removed for missing turns",
}


def tell(event: Event, who: Callable[[PlayerId], str], goal: int) -> str:
    """``event`` as a sentence, or ``""`` for one not worth telling (a blocked move is)."""
    if isinstance(event, Moved):
        return ""  # the board shows it; a log of steps would drown the rest
    if isinstance(event, Blocked):
        return f"{who(event.player)} bumped into {event.reason}" if event.reason else ""
    if isinstance(event, PickedUp):
        if event.is_gold:
            of = f" of {goal}" if goal > 0 else ""
            return f"{who(event.player)} picked up gold ({event.gold}{of})"
        return f"{who(event.player)} picked up {event.item}"
    if isinstance(event, NothingToPickUp):
        return f"{who(event.player)} found nothing to pick up"
    if isinstance(event, Stayed):
        return ""
    if isinstance(event, Joined):
        return f"{who(event.player)} entered the dungeon"
    if isinstance(event, Left):
        return ""  # the leave record says why (FrameTeller)
    if isinstance(event, Escaped):
        return f"{who(event.player)} won: {event.text}"
    if isinstance(event, Died):
        return f"{who(event.player)} died: {event.text}"
    if isinstance(event, Attacked):
        if event.target is None:
            return f"{who(event.player)} attacked thin air"
        blow = f"hit for {event.damage}" if event.hit else "missed"
        return f"{who(event.player)} attacked {who(event.target)} and {blow}"
    if isinstance(event, HitPointsChanged):
        return f"{who(event.player)} has {event.points} HP"
    if isinstance(event, Defeated):
        return f"{who(event.player)} lost: {who(event.winner)} won"
    if isinstance(event, Notice):  # told to its player, if it has one: say whose
        return event.text if event.player is None else f"{who(event.player)}: {event.text}"
    return ""


class FrameTeller:
    """Tells each frame of one replay: call :meth:`frame` after the world ran each step."""

    def __init__(self, names: dict[int, str]) -> None:
        self.names = names
        self._in: dict[PlayerId, str] = {}  # players in the world now, by join order

    def who(self, player: PlayerId) -> str:
        return self.names.get(player, f"#{player}")

    def frame(self, world: World, step: Step | None, *, draw: bool) -> dict[str, Any]:
        """The board fields of the frame after ``step`` (``None``: the start): ``players``
        (as ``BOARD`` tells them), ``cell``, ``events`` (sentences, each with the name of
        its player), and ``levels`` (levels 2 and on) when ``draw``."""
        events: list[dict[str, Any]] = []
        if step is not None:
            record = step.record
            if "join" in record:
                self._in[int(record["join"])] = ""
            for event in step.events:
                text = tell(event, self.who, world.goal)
                if text:
                    player = event.player
                    events.append(
                        {"player": None if player is None else self.who(player), "text": text}
                    )
            if "leave" in record:
                player = int(record["leave"])
                reason = str(record.get("why", ""))
                if reason not in ("escaped", "died"):  # (a win or death was told as it came)
                    why = _WHY.get(reason, reason or "left")
                    events.append({"player": self.who(player), "text": f"{self.who(player)} {why}"})
            elif "end" in record:
                events.append({"player": None, "text": f"game over: {record['end']}"})
        scene = scene_of(world, {player: self.who(player) for player in self._in})
        told: dict[str, Any] = {
            "players": [seat.as_json() for seat in scene.seats],
            "cell": scene.cell,
            "events": events,
        }
        if draw:
            told["levels"] = [list(rows) for rows in scene.levels[1:]]
        return told
