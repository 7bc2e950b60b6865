"""What the web page's viewer is given of a replay, beyond the map: who is where, on
which level, and what happened in words.

A replay frame gets from :class:`FrameTeller` the same facts a live spectator with the
``board`` capability is pushed (:mod:`server.game.board`: players by name with level, square,
gold, moves and what the world adds; levels past the first), and its events told as
sentences ("Ada picked up gold (2 of 3)"), each naming the player it is about: the
sentences of :data:`server.game.wording.TELLINGS`, the table the protocol's replies and
pushes come from (and a world's own, for its own events).
"""

from __future__ import annotations

from typing import Any

from worlds.api import PlayerId, World

from ..game.board import scene_of
from ..game.wording import sentence_of
from ..replay.reader import Step

__all__ = ["FrameTeller"]

_WHY = {
    "quit": "quit",
    "disconnected": "disconnected",
    "moved": "moved to another game",
    "removed": "was removed for missing turns",
}


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
                text = sentence_of(event, self.who, world.goal, world)
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
