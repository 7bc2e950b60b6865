"""What the terminal client knows about its game, and how replies and pushes change it.

Pure: no terminal, no sockets. The session feeds it what the server says; the
screen reads it. What a caller may rely on:

* :func:`read_help` learns the world from the server's ``HELP`` ("You are in the
  <world> world.", the directions line, whether ``STAY`` is listed); this works
  before joining and for any world, so it is how the client learns where it is.
  ``JOIN`` and ``WATCH`` name the world in their ``GAME`` line instead.
* :meth:`GameState.take_push` applies a pushed line: chat and news go to the log,
  ``ROUND`` to the round number, ``VIEW`` (level 1) and ``LEVEL`` (the levels after
  it, ``EXTEND board``) to the spectator's map, which shows every level side by side,
  and world notices that carry numbers the protocol has no reply for (the crawler's
  treasure and level, the knight's health) to the status.
* ``gold`` and ``moves`` count from the start of the current game: ``JOIN``
  resets them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from protocol.direction import Direction
from protocol.replies import (
    GameInfo,
    GameOver,
    HitMod,
    LevelView,
    Notice,
    Push,
    RoundEnded,
    TurnBegins,
    TurnOf,
    TurnOver,
    View,
)

from .keys import Keymap, keymap_for, spectator_keymap
from .messages import Kind, MessageLog, describe_push

__all__ = ["GameState", "WorldInfo", "read_help", "side_by_side"]

LEVEL_GAP = "   "
"""What separates two levels shown side by side."""


def side_by_side(levels: list[tuple[str, ...]]) -> tuple[str, ...]:
    """The levels' rows as one drawing, each level beside the last, tops aligned."""
    widths = [max((len(row) for row in level), default=0) for level in levels]
    height = max(len(level) for level in levels)
    return tuple(
        LEVEL_GAP.join(
            (level[r] if r < len(level) else "").ljust(width)
            for level, width in zip(levels, widths, strict=True)
        ).rstrip()
        for r in range(height)
    )


_WORLD_LINE = re.compile(r"You are in the (\S+) world\.")
_DIRECTIONS_LINE = re.compile(r"directions here:\s*([A-Z ]+)")


@dataclass(frozen=True, slots=True)
class WorldInfo:
    """What ``HELP`` says about the world: its name (if it says), moves and ``STAY``."""

    name: str | None
    directions: tuple[Direction, ...] = (Direction.N, Direction.E, Direction.S, Direction.W)
    stay: bool = False


def read_help(lines: tuple[str, ...] | list[str]) -> WorldInfo:
    """The world a ``HELP`` reply describes; unknown parts keep the 2013 defaults."""
    name = None
    directions: tuple[Direction, ...] | None = None
    stay = False
    for line in lines:
        if name is None and (found := _WORLD_LINE.search(line)):
            name = found.group(1)
        if directions is None and (found := _DIRECTIONS_LINE.search(line)):
            parsed = (Direction.parse(word) for word in found.group(1).split())
            directions = tuple(d for d in parsed if d is not None) or None
        if line.split()[:1] == ["STAY"]:
            stay = True
    if directions is None:
        return WorldInfo(name, stay=stay)
    return WorldInfo(name, directions, stay)


# Numbers some worlds tell only in notices (see docs/worlds/crawler.md and knight.md).
_TREASURE = re.compile(r"You now have (\d+) treasures?\.")
_LEVEL = re.compile(r"^Level (\d+)$")
_HEALTH = re.compile(r"^Health (-?\d+) ")
_CARRIED = re.compile(r"^You now carry: (.*)\.$")


@dataclass
class GameState:
    """The client's picture of its game; see the module docstring."""

    host: str
    port: int
    world: WorldInfo = field(default_factory=lambda: WorldInfo(None))
    game: str = "default"
    watching: bool = False
    rounds: bool = False
    name: str | None = None
    goal: int | None = None
    gold: int = 0
    moves: int = 0
    players: int | None = None
    watchers: int | None = None
    round: int | None = None
    health: int | None = None
    level: int | None = None
    hp: int | None = None
    """Battle world: hit points (``HPGET``, then ``HITMOD`` pushes)."""
    ap: int | None = None
    """Battle world: action points left this turn (``STARTTURN``, ``APGET``)."""
    items: str = ""
    """Battle world: what the player carries, as the world last said."""
    turn: str | None = None
    """Battle world: whose turn it is ("you", a player's name), if known."""
    map_rows: tuple[str, ...] = ()
    """The last ``MAP`` (or ``LOOK``) the player asked for."""
    view_rows: tuple[str, ...] = ()
    """The last ``VIEW`` pushed to a spectator (it may come before ``WATCH``'s answer is read)."""
    levels: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """The last ``LEVEL`` pushed to a spectator for each level after the first."""
    look: bool = False
    """True when ``map_rows`` is a 5×5 ``LOOK`` (the world offers no ``MAP``)."""
    pending: str | None = None
    """The turn sent and not yet answered (``MOVE N``), if any."""
    connected: bool = False
    log: MessageLog = field(default_factory=MessageLog)

    @property
    def rows(self) -> tuple[str, ...]:
        """The map on screen: the spectator's view (every level, side by side, in a
        world of several), or the player's map."""
        if not self.watching:
            return self.map_rows
        if not self.levels:
            return self.view_rows
        return side_by_side([self.view_rows, *(self.levels[n] for n in sorted(self.levels))])

    @property
    def showing_look(self) -> bool:
        """True when the map on screen is a 5×5 ``LOOK``."""
        return self.look and not self.watching

    @property
    def keymap(self) -> Keymap:
        if self.watching:
            return spectator_keymap()
        world = self.world
        return keymap_for(world.name, directions=world.directions, stay=world.stay)

    def enter(self, info: GameInfo, *, watching: bool) -> None:
        """A ``JOIN`` or ``WATCH`` answered: a new game, maybe a new world."""
        if info.world != self.world.name:
            self.world = WorldInfo(info.world)
        self.game = info.name
        self.watching = watching
        self.rounds = info.turn is not None
        self.players, self.watchers = info.players, info.watchers
        self.gold = self.moves = 0
        self.round = self.health = self.level = None
        self.hp = self.ap = self.turn = None
        self.items = ""
        self.map_rows = ()
        self.levels = {}

    def update_games(self, games: tuple[GameInfo, ...]) -> None:
        """A ``GAMES`` reply: the player and spectator counts of this game."""
        for info in games:
            if info.name == self.game:
                self.players, self.watchers = info.players, info.watchers
                self.rounds = info.turn is not None

    def take_push(self, push: Push) -> None:
        """Apply a pushed line (see the module docstring)."""
        if isinstance(push, RoundEnded):
            self.round = push.number
        elif isinstance(push, View):
            self.view_rows = push.rows
        elif isinstance(push, LevelView) and push.level > 1:
            self.levels[push.level] = push.rows
        elif isinstance(push, GameOver):
            self.levels.clear()  # the next world's levels come with its first views
        elif isinstance(push, Notice):
            self._read_notice(push.text)
        elif isinstance(push, TurnBegins):
            self.ap, self.turn = push.points, "you"
        elif isinstance(push, TurnOver):
            self.ap, self.turn = 0, None
        elif isinstance(push, TurnOf):
            self.turn = push.player
        elif isinstance(push, HitMod) and self.hp is not None:
            self.hp += push.change
        entry = describe_push(push)
        if entry is not None:
            self.log.add(entry.kind, entry.text)

    def _read_notice(self, text: str) -> None:
        if self.world.name == "crawler":
            if found := _TREASURE.search(text):
                self.gold = int(found.group(1))
            elif found := _LEVEL.match(text):
                self.level = int(found.group(1))
        elif self.world.name == "knight" and (found := _HEALTH.match(text)):
            self.health = int(found.group(1))
        elif found := _CARRIED.match(text):
            self.items = found.group(1)

    def note(self, text: str, kind: Kind = Kind.INFO) -> None:
        self.log.add(kind, text)
