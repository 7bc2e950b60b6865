"""The knight world: cross a grid of traps and potions with just enough health (RULES §5).

Every knight starts on the top-left square with the world's starting health
(given, or by default the least that can win, from the solver) and takes that
square's value at once. ``MOVE S`` and ``MOVE E`` step one square and add its
value; the other directions are not moves in this world. A knight whose health
drops to 0 or below dies (``LOSE``); one who arrives alive on the bottom-right
square wins (``WIN``). A step off the grid is ``FAIL`` and costs nothing;
``PICKUP`` always fails, since every value is taken by stepping on it.

Several knights cross the same grid independently: squares are never used up
and knights never block each other, so any number may share a square. Nothing
moves on its own and there is no chance in the rules: the seed plays no part
once the grid is made.

Views: ``look`` shows glyphs and ``render`` shows numbers, as described in
:mod:`worlds.knight.render`. After each step the knight is told, as a
:class:`~worlds.api.Notice`, its health and the values east and south of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dungeon_of_doom.protocol.commands import Move, Pickup, Stay
from dungeon_of_doom.protocol.direction import Direction

from ..api import (
    Action,
    Blocked,
    Died,
    Escaped,
    Event,
    Joined,
    Left,
    Moved,
    NothingToPickUp,
    Notice,
    PlayerId,
    PlayerKind,
    PlayerStatus,
    Position,
    World,
    WorldError,
)
from ..view import look_window
from .grid import Grid
from .render import CROSSED, KNIGHT, YOU, glyph_rows, number_rows
from .solver import min_health

__all__ = ["MAX_MAP_BYTES", "KnightWorld"]

MAX_MAP_BYTES: Final = 128 * 1024
"""The largest ``MAP`` reply a knight world may need: a grid is for playing square by
square, and one whose every value no longer fits a screen or two is for ``dod-knight``."""

START: Final = (0, 0)


def _moves(count: int) -> str:
    return "1 move" if count == 1 else f"{count} moves"


class _Knight:
    __slots__ = ("health", "kind", "moves", "path")

    def __init__(self, health: int, kind: PlayerKind) -> None:
        self.health = health
        self.kind = kind
        self.moves = 0
        self.path: list[Position] = [START]


class KnightWorld(World):
    """A knight game on one grid; see the module docstring.

    Raises :class:`ValueError` for a grid that cannot be played: a single square
    (the knight would start on the goal), a starting health that does not
    survive the first square, or a grid whose ``MAP`` would exceed
    :data:`MAX_MAP_BYTES`.
    """

    emits = frozenset({Moved, Blocked, NothingToPickUp, Joined, Left, Escaped, Died, Notice})
    """The events this world reports (the server tells each as ``server/render.py`` says)."""

    directions = frozenset({Direction.S, Direction.E})
    help_notes = (
        "Cross from the top-left to the bottom-right moving only S and E; health at 0 ends you.",
        "LOOK: - trap, + potion, . empty, E goal. MAP shows every value; [v] is you.",
    )

    def __init__(self, grid: Grid, *, health: int | None = None, name: str = "grid") -> None:
        if grid.height * grid.width < 2:
            raise ValueError("a 1 x 1 grid cannot be played: the knight would start on the goal")
        self.grid = grid
        self.name = name
        self.minimum = min_health(grid)
        """The least starting health with which some path wins."""
        self.start_health = self.minimum if health is None else health
        first = grid[0][0]
        if self.start_health + first <= 0:
            raise ValueError(
                f"a knight starting with {self.start_health} health dies on the first square "
                f"({first}); start with at least {1 - first}"
            )
        self._glyphs = glyph_rows(grid)
        self._numbers = number_rows(grid)
        self.cell_width = len(self._numbers[0]) // grid.width
        size = sum(len(row) + 1 for row in self._numbers) + len("MAP 0000 000000\n")
        if size > MAX_MAP_BYTES:
            raise ValueError(
                f"a {grid.height} x {grid.width} grid is too large to play: its MAP reply "
                f"would be {size} bytes (the limit is {MAX_MAP_BYTES}); solve it with "
                "dod-knight instead"
            )
        self._goal = grid.goal
        self._knights: dict[PlayerId, _Knight] = {}

    @property
    def goal(self) -> int:
        """``HELLO`` answers ``GOLD 0``: there is no gold to collect in this world."""
        return 0

    # -- players --------------------------------------------------------------

    def join(self, player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN) -> list[Event]:
        if player in self._knights:
            raise WorldError(f"player {player} is already in the world")
        self._knights[player] = _Knight(self.start_health + self.grid[0][0], kind)
        return [Joined(player, START)]

    def leave(self, player: PlayerId) -> list[Event]:
        if self._knights.pop(player, None) is None:
            return []
        return [Left(player)]

    def status(self, player: PlayerId) -> PlayerStatus | None:
        knight = self._knights.get(player)
        if knight is None:
            return None
        return PlayerStatus(knight.path[-1], 0, knight.moves)

    def health(self, player: PlayerId) -> int | None:
        """The knight's health now, or ``None`` if they are not in the world."""
        knight = self._knights.get(player)
        return None if knight is None else knight.health

    def details(self, player: PlayerId) -> dict[str, int]:
        """The knight's health (a spectator's ``BOARD`` says it)."""
        knight = self._knights.get(player)
        return {} if knight is None else {"health": knight.health}

    def path(self, player: PlayerId) -> tuple[Position, ...]:
        """The squares the knight has stood on, from (0, 0) to where they are."""
        knight = self._knights.get(player)
        return () if knight is None else tuple(knight.path)

    def __contains__(self, player: object) -> bool:
        return player in self._knights

    # -- actions ----------------------------------------------------------------

    def resolve(self, actions: Sequence[tuple[PlayerId, Action]]) -> list[Event]:
        events: list[Event] = []
        for player, action in actions:
            knight = self._knights.get(player)
            if knight is None:
                raise WorldError(f"player {player} is not in the world")
            if type(action) is Move:
                if action.direction not in self.directions:
                    raise WorldError("the knight moves only S (down) or E (right)")
                knight.moves += 1
                self._step(player, knight, action.direction, events)
            elif type(action) is Pickup:
                knight.moves += 1
                events.append(NothingToPickUp(player))
            elif type(action) is Stay:
                raise WorldError("STAY is not an action in the knight world")
            else:
                raise WorldError(f"unknown action {action!r}")
        return events

    def _step(
        self, player: PlayerId, knight: _Knight, direction: Direction, events: list[Event]
    ) -> None:
        origin = knight.path[-1]
        row, column = origin[0] + direction.row_step, origin[1] + direction.column_step
        if row >= self.grid.height or column >= self.grid.width:
            events.append(Blocked(player, "the edge of the grid"))
            return
        target = (row, column)
        value = self.grid[row][column]
        before = knight.health
        knight.health += value
        knight.path.append(target)
        events.append(Moved(player, origin, target))
        if knight.health <= 0:
            del self._knights[player]
            events.append(
                Died(
                    player,
                    f"A trap of {value} at {target} took your last {before} health "
                    f"after {_moves(knight.moves)}. The least starting health that wins "
                    f"here is {self.minimum}.",
                )
            )
        elif target == self._goal:
            del self._knights[player]
            events.append(
                Escaped(
                    player,
                    0,
                    knight.moves,
                    f"You reached the bottom-right square with {knight.health} health "
                    f"in {_moves(knight.moves)}; you set out with {self.start_health} "
                    f"(the least that wins here is {self.minimum}).",
                )
            )
        else:
            events.append(Notice(player, self._report(knight, value)))

    def _report(self, knight: _Knight, value: int) -> str:
        row, column = knight.path[-1]
        if value < 0:
            what = f"a trap of {value}"
        elif value > 0:
            what = f"a potion of +{value}"
        else:
            what = "an empty square"
        east = self.grid[row][column + 1] if column + 1 < self.grid.width else "off the grid"
        south = self.grid[row + 1][column] if row + 1 < self.grid.height else "off the grid"
        return f"Health {knight.health} at {(row, column)} after {what}. Next: E {east}, S {south}."

    # -- views --------------------------------------------------------------------

    def look(self, player: PlayerId) -> tuple[str, ...]:
        row, column = self._knights[player].path[-1]
        others = {
            knight.path[-1]: knight.kind.value
            for other, knight in self._knights.items()
            if other != player
        }
        return look_window(self._glyphs, row, column, others)

    def render(self, viewer: PlayerId | None = None) -> tuple[str, ...]:
        me = self._knights.get(viewer) if viewer is not None else None
        marks: dict[Position, tuple[str, str]] = {}
        if me is not None:
            marks.update(dict.fromkeys(me.path[:-1], CROSSED))
        for knight in self._knights.values():
            if knight is not me:
                marks[knight.path[-1]] = KNIGHT
        if me is not None:
            marks[me.path[-1]] = YOU
        if not marks:
            return self._numbers
        return number_rows(self.grid, marks)
