"""Worlds for server tests: a small round-based world, and a plugin that records events.

``ticker`` is a one-row corridor where players walk east and west; after the
players' actions, a clock ticks once per round and says so in a notice. It is
deterministic and has rounds, so tests of rounds need no other world.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dungeon_of_doom.protocol.commands import Move, Pickup, Stay
from dungeon_of_doom.worlds.api import (
    Action,
    Blocked,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PlayerId,
    PlayerKind,
    PlayerStatus,
    Stayed,
    World,
    WorldError,
    WorldFull,
    WorldPlugin,
)
from dungeon_of_doom.worlds.limits import OPERATOR_LIMITS, Limits
from dungeon_of_doom.worlds.view import look_window

WIDTH = 12


class TickerWorld(World):
    has_rounds = True
    allows_stay = True

    def __init__(self, seed: int) -> None:
        self._start = seed % WIDTH
        self._players: dict[PlayerId, list[Any]] = {}  # id -> [column, kind, moves]
        self._ticks = 0

    @property
    def goal(self) -> int:
        return 0

    def join(self, player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN) -> list[Event]:
        taken = {state[0] for state in self._players.values()}
        free = [c for c in range(WIDTH) if c not in taken]
        if not free:
            raise WorldFull("the corridor is full")
        column = min(free, key=lambda c: (abs(c - self._start), c))
        self._players[player] = [column, kind, 0]
        return [Joined(player, (0, column))]

    def leave(self, player: PlayerId) -> list[Event]:
        return [Left(player)] if self._players.pop(player, None) else []

    def resolve(self, actions: Sequence[tuple[PlayerId, Action]]) -> list[Event]:
        events: list[Event] = []
        for player, action in actions:
            state = self._players.get(player)
            if state is None:
                raise WorldError(f"player {player} is not here")
            state[2] += 1
            if type(action) is Move:
                target = state[0] + action.direction.column_step
                taken = {s[0] for s in self._players.values()}
                if action.direction.row_step or not 0 <= target < WIDTH or target in taken:
                    events.append(Blocked(player, "wall"))
                else:
                    events.append(Moved(player, (0, state[0]), (0, target)))
                    state[0] = target
            elif type(action) is Stay:
                events.append(Stayed(player))
            elif type(action) is Pickup:
                events.append(NothingToPickUp(player))
        self._ticks += 1
        events.append(Notice(None, f"tick {self._ticks}"))
        return events

    def _row(self, viewer: PlayerId | None) -> str:
        row = ["."] * WIDTH
        for player, (column, kind, _) in self._players.items():
            row[column] = "@" if player == viewer else kind.value
        return "".join(row)

    def look(self, player: PlayerId) -> tuple[str, ...]:
        column = self._players[player][0]
        others = {(0, c): kind.value for p, (c, kind, _) in self._players.items() if p != player}
        return look_window(["." * WIDTH], 0, column, others)

    def render(self, viewer: PlayerId | None = None) -> tuple[str, ...]:
        return (self._row(viewer),)

    def status(self, player: PlayerId) -> PlayerStatus | None:
        state = self._players.get(player)
        return None if state is None else PlayerStatus((0, state[0]), 0, state[2])


class TickerPlugin:
    name = "ticker"
    summary = "a corridor and a clock, for tests of rounds"

    def maps(self) -> list[str]:
        return []

    def open(
        self, map_spec: str | None, *, seed: int, limits: Limits = OPERATOR_LIMITS
    ) -> TickerWorld:
        return TickerWorld(seed)  # one fixed small board: no limit can be exceeded


class RecordingPlugin:
    """Wraps a plugin; every world it opens appends each call's events to ``log``."""

    def __init__(self, inner: WorldPlugin) -> None:
        self.inner = inner
        self.name = inner.name
        self.summary = inner.summary
        self.logs: list[list[Event]] = []
        """One event log per world opened, in order."""

    def maps(self) -> list[str]:
        return self.inner.maps()

    def open(self, map_spec: str | None, *, seed: int) -> World:
        log: list[Event] = []
        self.logs.append(log)
        return _Recording(self.inner.open(map_spec, seed=seed), log)  # type: ignore[return-value]


class _Recording:
    def __init__(self, world: World, log: list[Event]) -> None:
        self._world = world
        self._log = log
        self.has_rounds = world.has_rounds
        self.allows_stay = world.allows_stay
        self.directions = world.directions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._world, name)

    def _record(self, events: list[Event]) -> list[Event]:
        self._log.extend(events)
        return events

    def join(self, player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN) -> list[Event]:
        return self._record(self._world.join(player, kind))

    def leave(self, player: PlayerId) -> list[Event]:
        return self._record(self._world.leave(player))

    def resolve(self, actions: Sequence[tuple[PlayerId, Action]]) -> list[Event]:
        return self._record(self._world.resolve(actions))

    def time_out(self, player: PlayerId) -> list[Event]:
        """Turn-based worlds: a turn that ran out is recorded like any call."""
        return self._record(self._world.time_out(player))  # type: ignore[attr-defined]
