"""A tournament's fairness contract: what a bot may see, how its places are decided, how
long it has for a move, and how the table ranks; stated above every results table
(``dod-arena``'s, ``dod-arena status``'s and the web page's) and kept with a submitted
tournament, so that the table is always read with the rules it was made by.

* **Sight** (``--sight``): ``map``, every command the world has (``MAP`` shows the whole
  level); ``look``, ``MAP`` refused by the arena (``LOOK`` only).
* **Places** (``--places``): winners first (a win beats any gold), among themselves by
  ``escape`` (the order they escaped: what the server records) or ``moves`` (the fewest
  moves taken, equal moves sharing a place); then the rest as the server places them
  (:func:`records.model.place_players`).
* **Time per move** (``--move-time``, the servers' ``--turn-timeout``): in worlds with turns
  or rounds the server's limit (a missed turn is a stay; ``--max-missed-turns`` in a row
  and the bot is removed); in ``classic``, which answers every action the moment it
  arrives, the arena cuts off a bot that sends nothing for that long after the server's
  last line to it.
* **The table** ranks by wins (most first), then rating (``mu - 3 sigma``, rated from
  places), then name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .model import PLACE_RULES, GameRecord, place_players

__all__ = ["SIGHTS", "Contract"]

SIGHTS: Final = ("map", "look")
RANKING: Final = (
    "the table: most wins first, then rating (mu - 3 sigma, rated from places), then name"
)


@dataclass(frozen=True, slots=True)
class Contract:
    """The rules a tournament's bots are held to; see the module docstring."""

    sight: str = "map"
    places: str = "escape"
    move_time: float = 10.0
    max_missed_turns: int = 3

    def __post_init__(self) -> None:
        if self.sight not in SIGHTS:
            raise ValueError(f"sight is {' or '.join(SIGHTS)}, not {self.sight!r}")
        if self.places not in PLACE_RULES:
            raise ValueError(f"places go by {' or '.join(PLACE_RULES)}, not {self.places!r}")
        if not self.move_time > 0:
            raise ValueError("the time per move must be more than 0 seconds")

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any]) -> Contract:
        """The contract of a stored tournament (its options as submitted; a tournament
        stored before contracts were stated had the defaults, with its turn limit)."""
        return cls(
            sight=str(spec.get("sight", "map")),
            places=str(spec.get("places", "escape")),
            move_time=float(spec.get("turn_timeout", 10.0)),
            max_missed_turns=int(spec.get("max_missed_turns", 3)),
        )

    def as_spec(self) -> dict[str, Any]:
        return {
            "sight": self.sight,
            "places": self.places,
            "turn_timeout": self.move_time,
            "max_missed_turns": self.max_missed_turns,
        }

    def forbidden(self) -> dict[str, str]:
        """Verbs the arena refuses its bots, each with the reason they are told."""
        if self.sight == "look":
            return {"MAP": "is not allowed here: this tournament's bots see with LOOK only"}
        return {}

    def lines(self) -> list[str]:
        """The contract in words, as printed above a results table."""
        sight = (
            "LOOK only (the arena refuses MAP)"
            if self.sight == "look"
            else "LOOK and MAP (MAP shows the whole level)"
        )
        winners = (
            "by the moves they took, fewest first (equal moves share a place)"
            if self.places == "moves"
            else "in the order they escaped, the first out first"
        )
        return [
            f"what a bot may see: {sight}",
            f"places: winners first (a win beats any gold), {winners}; then the rest by the "
            "gold they held (a bot that died holds none), and at equal gold a bot still in "
            "play at the end (quit, or stopped) before one that died or was beaten, before "
            "one cut off (disconnected, removed)",
            f"time per move: {self.move_time:g} s (worlds with turns or rounds: the server's "
            f"turn limit, a missed turn is a stay and {self.max_missed_turns} in a row remove "
            "the bot; classic: the arena cuts off a bot silent that long after the server's "
            "last line to it)",
            RANKING,
        ]

    def place(self, record: GameRecord) -> GameRecord:
        """``record`` with its players placed by this contract (the server places winners
        by escape; under ``moves`` the arena places them again)."""
        if self.places == "escape":
            return record
        placed = place_players([(p, p.place) for p in record.players], self.places)
        return dataclasses.replace(record, players=tuple(placed))
