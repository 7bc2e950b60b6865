"""The classic Dungeon of Doom rules (RULES §1).

Players walk a map of floor, walls, gold and exits, four ways. Gold picked up is
gone for everyone; no two players share a square; a player holding the target
gold who steps onto an exit escapes and leaves the world. Nothing moves on its
own, so every action is resolved at once.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import cast

from dungeon_of_doom.protocol.commands import Move, Pickup, Stay
from dungeon_of_doom.protocol.direction import Direction

from ..api import (
    Action,
    Blocked,
    Escaped,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    PickedUp,
    PlayerId,
    PlayerKind,
    PlayerStatus,
    Position,
    World,
    WorldError,
    blocked,
    moved,
)
from ..squares import OpenSquares, free_square
from ..view import ByteRows, look_window, look_window_bytes
from .mapfile import EXIT, FLOOR, GOLD, ITEMS, WALL, ClassicMap

_FLOOR = ord(FLOOR)
_WALL, _EXIT = ord(WALL), ord(EXIT)  # a move compares the map's byte, not a str made of it
_GOLD = ord(GOLD)

SELF = "@"
"""How ``render`` draws the viewer (the roguelike convention); others show as P or B."""


class _Player:
    __slots__ = ("gold", "index", "kind", "mark", "moves", "position")

    def __init__(self, position: Position, index: int, kind: PlayerKind) -> None:
        self.position = position
        self.index = index  # the square's number (row by row): what a move vacates
        self.kind = kind
        # How the player is drawn, kept as a byte: ``Enum.value`` is a descriptor call,
        # and a move draws the player anew.
        self.mark = ord(kind.value)
        self.gold = 0
        self.moves = 0


class _Occupied:
    """The squares players stand on, as a container of positions (``square in it``).

    It reads the scene: the scene differs from the map's tiles exactly where a player
    stands, for a player is drawn as ``P`` or ``B`` and no tile is either. So there is no
    set of positions to keep beside the scene, and a move hashes no tuple."""

    __slots__ = ("_scene", "_tiles", "_width")

    def __init__(self, scene: bytearray, tiles: bytearray, width: int) -> None:
        self._scene = scene
        self._tiles = tiles
        self._width = width

    def __contains__(self, square: object) -> bool:
        row, column = cast(Position, square)
        index = row * self._width + column
        return self._scene[index] != self._tiles[index]


class ClassicWorld(World):
    """A classic game on one map; see the module docstring."""

    emits = frozenset({Moved, Blocked, PickedUp, NothingToPickUp, Joined, Left, Escaped})
    """The events this world reports (the server tells each as ``server/render.py`` says)."""

    help_notes = (
        "Tiles: . floor, # wall, G gold, E exit; L S A H are items PICKUP takes.",
        "Others show as P (people) or B (bots); in MAP you are @.",
        "Hold the gold HELLO names and step onto an exit to win.",
    )

    def __init__(self, dungeon: ClassicMap, *, seed: int = 0) -> None:
        self.map = dungeon
        self._height = dungeon.height
        self._width = width = dungeon.width
        # One byte a square (issue 19: a list per row and a tuple per open square
        # held 336 MiB of a 2000 x 2000 map); squares are numbered row by row.
        self._tiles = bytearray("".join(dungeon.rows), "ascii")
        self._rng = random.Random(seed)
        self._open = OpenSquares(self._tiles, width, WALL)
        self._players: dict[PlayerId, _Player] = {}
        # The map with every player drawn on it, kept up to date move by move, so that
        # LOOK (the commonest command) is five slices whatever the number of players.
        self._scene = bytearray(self._tiles)
        # Where players stand, read from the scene: nothing to keep up to date apart.
        self._occupied = _Occupied(self._scene, self._tiles, width)
        self._scene_rows = ByteRows(self._scene, width)
        # Each square's LOOK window since the scene or the tiles last changed (issue 31):
        # bots look far more often than anything moves. At most one entry a player,
        # since a player only looks from where it stands; emptied by every change.
        self._windows: dict[int, bytes] = {}
        self._gold_left = self._tiles.count(_GOLD)  # on the map: kept, for unwinnable()

    @property
    def goal(self) -> int:
        return self.map.goal

    @property
    def name(self) -> str:
        return self.map.name

    def tile(self, position: Position) -> str:
        """The map tile at ``position`` (players are not part of the map)."""
        return chr(self._tiles[position[0] * self._width + position[1]])

    # -- players --------------------------------------------------------------

    def join(
        self, player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN, *, at: Position | None = None
    ) -> list[Event]:
        """Place a player on a random free square, or on ``at`` (for set-ups and tests)."""
        if player in self._players:
            raise WorldError(f"player {player} is already in the world")
        if at is None:
            position = self._free_square()
        elif (
            not (0 <= at[0] < self.map.height and 0 <= at[1] < self.map.width)
            or at in self._occupied
            or self.tile(at) == WALL
        ):
            raise WorldError(f"cannot place a player on {at}")
        else:
            position = at
        index = position[0] * self._width + position[1]
        self._players[player] = _Player(position, index, kind)
        self._scene[index] = ord(kind.value)
        self._windows.clear()
        return [Joined(player, position)]

    def _free_square(self) -> Position:
        return free_square(self._open, self._rng, self._occupied)

    def leave(self, player: PlayerId) -> list[Event]:
        state = self._players.pop(player, None)
        if state is None:
            return []
        self._vacate(state.position)
        return [Left(player)]

    def status(self, player: PlayerId) -> PlayerStatus | None:
        state = self._players.get(player)
        if state is None:
            return None
        return PlayerStatus(state.position, state.gold, state.moves)

    def __contains__(self, player: object) -> bool:
        return player in self._players

    def unwinnable(self) -> str | None:
        """Gold is never dropped here: once the gold on the map and the most any player
        still here holds fall short of the goal, nobody can win (the 2013 conundrum)."""
        goal, left = self.map.goal, self._gold_left
        if left >= goal or not self._players:  # the common case, in constant time
            return None
        most = max(state.gold for state in self._players.values())
        if most + left >= goal:
            return None
        return (
            f"nobody can win any more: {left} gold is left in the dungeon, "
            f"no player still here holds more than {most}, and {goal} is needed to escape"
        )

    # -- actions ----------------------------------------------------------------

    def resolve(self, actions: Sequence[tuple[PlayerId, Action]]) -> list[Event]:
        events: list[Event] = []
        for player, action in actions:
            state = self._players.get(player)
            if state is None:
                raise WorldError(f"player {player} is not in the world")
            state.moves += 1
            if type(action) is Move:
                self._move(player, state, action.direction, events)
            elif type(action) is Pickup:
                events.append(self._pickup(player, state))
            elif type(action) is Stay:
                raise WorldError("STAY is not an action in the classic world")
            else:
                raise WorldError(f"unknown action {action!r}")
        return events

    def _move(
        self, player: PlayerId, state: _Player, direction: Direction, events: list[Event]
    ) -> None:
        if direction.is_diagonal:
            raise WorldError("the classic world allows only N, S, E and W")
        origin = state.position
        row, column = origin[0] + direction.row_step, origin[1] + direction.column_step
        if not (0 <= row < self._height and 0 <= column < self._width):
            events.append(blocked(player, "the edge of the map"))
            return
        index = row * self._width + column
        tiles, scene = self._tiles, self._scene
        tile = tiles[index]
        if tile == _WALL:
            events.append(blocked(player, "a wall"))
            return
        if scene[index] != tile:  # a player stands there (_Occupied, inline)
            events.append(blocked(player, "another player"))
            return
        target = (row, column)
        # _vacate(origin), inline: a move is the commonest action.
        left = state.index
        scene[left] = tiles[left]
        self._windows.clear()
        scene[index] = state.mark
        state.position = target
        state.index = index
        events.append(moved(player, origin, target))
        if tile == _EXIT and state.gold >= self.map.goal:
            del self._players[player]
            self._vacate(target)
            events.append(
                Escaped(
                    player,
                    state.gold,
                    state.moves,
                    f"You escaped the dungeon with {state.gold} gold in {state.moves} moves.",
                )
            )

    def _vacate(self, square: Position) -> None:
        index = square[0] * self._width + square[1]
        self._scene[index] = self._tiles[index]
        self._windows.clear()

    def _pickup(self, player: PlayerId, state: _Player) -> Event:
        row, column = state.position
        index = row * self._width + column
        tile = chr(self._tiles[index])
        if tile == GOLD:
            self._tiles[index] = _FLOOR
            self._windows.clear()
            self._gold_left -= 1
            state.gold += 1
            return PickedUp(player, GOLD, state.gold)
        if tile in ITEMS:
            self._tiles[index] = _FLOOR
            self._windows.clear()
            return PickedUp(player, tile, state.gold, is_gold=False)
        return NothingToPickUp(player)

    # -- views --------------------------------------------------------------------

    def look(self, player: PlayerId) -> tuple[str, ...]:
        row, column = self._players[player].position
        centre = chr(self._tiles[row * self._width + column])
        return look_window(self._scene_rows, row, column, centre=centre)

    def look_bytes(self, player: PlayerId) -> bytes:
        row, column = self._players[player].position
        width = self._width
        index = row * width + column
        window = self._windows.get(index)
        if window is None:
            window = self._windows[index] = look_window_bytes(
                self._scene, width, row, column, self._tiles[index]
            )
        return window

    def render(self, viewer: PlayerId | None = None) -> tuple[str, ...]:
        rows = self._scene_rows.lines()
        me = self._players.get(viewer) if viewer is not None else None
        if me is not None:
            row, column = me.position
            line = rows[row]
            rows[row] = line[:column] + SELF + line[column + 1 :]
        return tuple(rows)
