"""One adventurer in a dungeon: the whole single-player game as a copyable value.

This is the crawler rules' entry point for anything that plays or searches:
the console game and the world plugin use it, and a solver or winnability
checker can explore game states with exactly the same rules::

    state = State(dungeon.levels)
    nxt = state.copy()
    turn = nxt.step(Command.RIGHT)   # one turn: player, monsters, death, amulet
    seen.add(nxt.key())

A caller may rely on: :meth:`State.step` applying exactly one turn of RULES §2
(every command counts one move, stays and bumps included) and nothing else;
:meth:`State.copy` sharing only the immutable levels; :meth:`State.key` being
equal for two states exactly when every future of theirs is the same (the move
count is left out, so a breadth-first search can use it as a visited set).
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from .grid import Grid, Status
from .levelfile import PLAYER, Level


class Command(enum.Enum):
    """A turn's command; ``value`` is the step (rows, columns) it tries."""

    UP = (-1, 0)
    DOWN = (1, 0)
    LEFT = (0, -1)
    RIGHT = (0, 1)
    STAY = (0, 0)


KEYS: dict[str, Command] = {
    "w": Command.UP,
    "s": Command.DOWN,
    "a": Command.LEFT,
    "d": Command.RIGHT,
    "e": Command.STAY,
}
"""The original console's keys."""


class Outcome(enum.Enum):
    """How a game ended."""

    ESCAPED = "escaped"
    DIED = "died"
    FINISHED = "finished"
    """Through a door on the last level: the game ends, without an escape."""


class GameOver(Exception):
    """A turn was asked of a game that has ended."""


@dataclass(frozen=True, slots=True)
class Turn:
    """What one turn did.

    ``row``, ``col`` are where the player stands after stepping, on the level
    they stepped on (for a door: the door). ``grew`` is ``None`` unless an
    amulet was taken and the player survived: then whether the level doubled.
    """

    status: Status
    row: int
    col: int
    died: bool = False
    grew: bool | None = None


class State:
    """A game in progress; see the module docstring."""

    __slots__ = ("col", "grid", "level", "levels", "moves", "outcome", "row", "treasure")

    def __init__(self, levels: Sequence[Level], *, treasure: int = 0, moves: int = 0) -> None:
        if not levels:
            raise ValueError("a dungeon needs at least one level")
        self.levels = tuple(levels)
        self.level = 0
        self.grid = Grid.from_level(self.levels[0])
        self.row, self.col = self.levels[0].start
        self.treasure = treasure
        self.moves = moves
        self.outcome: Outcome | None = None

    @property
    def level_number(self) -> int:
        """The level being played, from 1."""
        return self.level + 1

    def copy(self) -> State:
        twin = State.__new__(State)
        twin.levels = self.levels
        twin.level = self.level
        twin.grid = self.grid.copy()
        twin.row, twin.col = self.row, self.col
        twin.treasure = self.treasure
        twin.moves = self.moves
        twin.outcome = self.outcome
        return twin

    def key(self) -> Hashable:
        grid = self.grid
        return (
            self.outcome,
            self.level,
            self.row,
            self.col,
            self.treasure,
            grid.cols,
            bytes(grid.cells),
        )

    def step(self, command: Command) -> Turn:
        """Play one turn (RULES §2 "A turn", steps 1 to 5)."""
        if self.outcome is not None:
            raise GameOver(f"the game is over: the adventurer {self.outcome.value}")
        self.moves += 1
        grid = self.grid
        if command is Command.STAY:
            status = Status.STAY
        else:
            d_row, d_col = command.value
            status = grid.step(self.row, self.col, d_row, d_col, self.treasure)
            if status is not Status.STAY:
                self.row += d_row
                self.col += d_col
        row, col = self.row, self.col
        if status is Status.TREASURE:
            self.treasure += 1
        elif status is Status.ESCAPE:
            self.outcome = Outcome.ESCAPED
            return Turn(status, row, col)
        elif status is Status.LEAVE:
            self._next_level()
            return Turn(status, row, col)
        grid.hunt(row, col, set())
        if grid.has_monster(row, col):
            self.outcome = Outcome.DIED
            return Turn(status, row, col, died=True)
        grew = grid.double() if status is Status.AMULET else None
        return Turn(status, row, col, grew=grew)

    def _next_level(self) -> None:
        if self.level + 1 == len(self.levels):
            self.outcome = Outcome.FINISHED
            return
        self.level += 1
        level = self.levels[self.level]
        self.grid = Grid.from_level(level)
        self.row, self.col = level.start

    def render(self) -> list[str]:
        """The level as rows of tiles, the player drawn as ``o`` unless a monster took them."""
        marks = {} if self.outcome is Outcome.DIED else {(self.row, self.col): PLAYER}
        return self.grid.text_rows(marks)
