"""What a finished game leaves behind, as plain data, and the tally a game keeps to make it.

A :class:`Game <server.game.game.Game>` owns one :class:`Tally`. It tells the tally who
joined, who acted, and how each player left; when the game is over
:meth:`Tally.finish` gives one :class:`GameRecord` and the tally starts afresh.
Nothing here touches a database or the network: recording is the writer's job.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

__all__ = [
    "OUTCOMES",
    "PLACE_RULES",
    "GameRecord",
    "PlayerResult",
    "Tally",
    "now",
    "place_players",
]

OUTCOMES: Final = ("win", "lose", "quit", "disconnected", "removed", "unfinished")
"""How a player's game can end: escaped with the gold (``win``), died (``lose``), left
by ``QUIT``, lost its connection, was removed (missed turns, moved to another game), or
was still playing when the game was stopped (server shutdown, world failure)."""

DEFAULT_DIALECT: Final = "2013"
"""The protocol dialect a game is recorded under until the server tells dialects apart."""


def now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One player of a finished game."""

    player: int
    """The player's number in the game (1, 2, ... in join order)."""
    name: str | None
    """The name it played under; ``None`` for a player that never gave one."""
    kind: str
    """``person`` or ``bot`` (``EXTEND bot``)."""
    outcome: str
    """One of :data:`OUTCOMES`."""
    gold: int
    """Gold (or treasure) held at the end."""
    moves: int
    """Actions made."""
    place: int = 0
    """Rank in the game, 1 for the best; players who did equally well share a place.
    Filled in by :func:`place_players`."""
    claimed: bool = False
    """Whether the name was logged in (``LOGIN``) and so is its owner's."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game, as it is stored. ``id`` is unique across servers and retries."""

    id: str
    game: str
    world: str
    map: str | None
    seed: int
    dialect: str
    started: datetime
    ended: datetime
    rounds: int
    end: str
    """Why the game ended (``all players left``, ``server stopped``, ...)."""
    replay: str | None
    """The replay file's path, where the server wrote one."""
    players: tuple[PlayerResult, ...]
    server: str = ""
    """Which server played it (host:port), for a ladder several servers share."""

    @property
    def rated(self) -> bool:
        """Whether the game moves ratings: two or more named players, all of whom finished it
        one way or another (a game stopped under its players says nothing about them)."""
        named = [p for p in self.players if p.name is not None]
        return len(named) >= 2 and all(p.outcome != "unfinished" for p in named)


PLACE_RULES: Final = ("escape", "moves")
"""How winners are placed among themselves: in the order they escaped (the first out is
first), or by the moves they took (fewest first, equal moves sharing a place)."""
ENDED_IN_PLAY: Final = ("quit", "unfinished")
ENDED_DEAD: Final = ("lose",)
"""Outcomes by how a game that was not won ended, at equal gold best first: still in
play (stopped by ``QUIT`` or by the game's end), then died or beaten, then cut off
(``disconnected``, ``removed``: the bot stopped playing)."""


def _key(result: PlayerResult, order: int, rule: str) -> tuple[int, int, int]:
    if result.outcome == "win":
        return (0, result.moves if rule == "moves" else order, 0)
    if result.outcome in ENDED_IN_PLAY:
        ended = 0
    elif result.outcome in ENDED_DEAD:
        ended = 1
    else:
        ended = 2
    return (1, -result.gold if result.outcome not in ENDED_DEAD else 0, ended)


def place_players(
    results: Sequence[tuple[PlayerResult, int]], rule: str = "escape"
) -> list[PlayerResult]:
    """Each result with its ``place`` set; ``order`` is when the player's game ended
    (1 for the first to finish).

    Winners first (a win beats any gold), among themselves by ``rule``
    (:data:`PLACE_RULES`); then everyone else by the gold held at the end, most first (a
    player who died holds none), and at equal gold by how the game ended
    (:data:`ENDED_IN_PLAY`, then died, then cut off). Players equal on all of these
    share a place (1, 2, 2, 4)."""
    if rule not in PLACE_RULES:
        raise ValueError(f"places go by {' or '.join(PLACE_RULES)}, not {rule!r}")
    keys = [_key(result, order, rule) for result, order in results]
    placed = []
    for (result, _), key in zip(results, keys, strict=True):
        place = 1 + sum(other < key for other in keys)
        placed.append(dataclasses.replace(result, place=place))
    return placed


@dataclass(slots=True)
class _Entry:
    player: int
    name: str | None
    kind: str
    claimed: bool = False
    moves: int = 0
    outcome: str | None = None
    gold: int = 0
    order: int = 0
    probe: bool = False


@dataclass(slots=True)
class Tally:
    """The facts of the game being played; see the module docstring.

    Every method is cheap and never raises for a player it does not know, so the
    game may call it on its hot path without guarding it.
    """

    game: str
    world: str
    map: str | None
    seed: int
    dialect: str = DEFAULT_DIALECT
    started: datetime | None = None
    _entries: dict[int, _Entry] = field(default_factory=dict)
    _departures: int = 0

    def joined(
        self,
        player: int,
        name: str | None,
        kind: str,
        *,
        claimed: bool = False,
        dialect: str | None = None,
        probe: bool = False,
    ) -> None:
        """A player entered; the first one's protocol dialect is the game's. ``probe``:
        its client checks the server (``EXTEND probe``, a conformance run)."""
        if self.started is None:
            self.started = now()
            self.dialect = dialect or DEFAULT_DIALECT
        self._entries[player] = _Entry(player, name, kind, claimed, probe=probe)

    def named(self, player: int, name: str, *, claimed: bool = False) -> None:
        entry = self._entries.get(player)
        if entry is not None:
            entry.name = name
            entry.claimed = claimed

    def acted(self, player: int) -> None:
        entry = self._entries.get(player)
        if entry is not None:
            entry.moves += 1

    def left(self, player: int, outcome: str, gold: int = 0, moves: int | None = None) -> None:
        """The player's game is over: ``outcome`` is one of :data:`OUTCOMES`."""
        entry = self._entries.get(player)
        if entry is None or entry.outcome is not None:
            return
        entry.outcome = outcome
        entry.gold = gold
        if moves is not None:
            entry.moves = moves
        self._departures += 1
        entry.order = self._departures

    @property
    def empty(self) -> bool:
        return not self._entries

    @property
    def probing(self) -> bool:
        """Whether everyone who played was a probe (a conformance run's game, not one
        worth a record)."""
        return bool(self._entries) and all(entry.probe for entry in self._entries.values())

    def finish(
        self, *, rounds: int, end: str, replay: str | None, server: str = ""
    ) -> GameRecord | None:
        """The record of the game now over (``None`` if nobody played, or only probes:
        :attr:`probing`), and a fresh tally."""
        probing = self.probing
        entries, self._entries = self._entries, {}
        started, self.started = self.started, None
        self._departures = 0
        if not entries or started is None or probing:
            return None
        players = place_players(
            [
                (
                    PlayerResult(
                        player=e.player,
                        name=e.name,
                        kind=e.kind,
                        outcome=e.outcome or "unfinished",
                        gold=e.gold,
                        moves=e.moves,
                        claimed=e.claimed,
                    ),
                    e.order,
                )
                for e in sorted(entries.values(), key=lambda e: e.player)
            ]
        )
        return GameRecord(
            id=str(uuid.uuid4()),
            game=self.game,
            world=self.world,
            map=self.map,
            seed=self.seed,
            dialect=self.dialect,
            started=started,
            ended=now(),
            rounds=rounds,
            end=end,
            replay=replay,
            players=tuple(players),
            server=server,
        )
