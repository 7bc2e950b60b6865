"""What a bot remembers of a classic map it can only see through ``LOOK``.

A bot does not know where it stands on the map, so :class:`Memory` counts in
coordinates relative to its first square, ``(0, 0)``. It keeps the last tile seen
on each square; squares never seen are unknown. Other players (``P``, ``B``) are
not tiles: a square seen under a player keeps what was known of it before, and so
does the bot's own square where a server draws the player at the centre of ``LOOK``.

Routes (:meth:`Memory.route`) are shortest paths, four-way, over squares known
not to be walls, found by breadth-first search; neighbours are tried in the
order N, E, S, W, so the same memory always gives the same route.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Final

from dungeon_of_doom.clients import Direction, Grid, Position

__all__ = ["FOUR_WAYS", "Memory", "step"]

FOUR_WAYS: Final = (Direction.N, Direction.E, Direction.S, Direction.W)
WALL: Final = "#"
CORNER: Final = "X"
PLAYERS: Final = "PB"


def step(position: Position, direction: Direction) -> Position:
    """The square one step from ``position`` in ``direction``."""
    return position[0] + direction.row_step, position[1] + direction.column_step


class Memory:
    """Tiles seen so far, and where the bot is; see the module docstring."""

    def __init__(self) -> None:
        self.position: Position = (0, 0)
        self.tiles: dict[Position, str] = {}

    def see(self, view: Grid) -> None:
        """Take in a ``LOOK`` view taken where the bot stands now."""
        centre_row, centre_column = view.centre
        row, column = self.position
        for (r, c), tile in view.cells():
            if tile == CORNER or tile in PLAYERS:
                continue
            self.tiles[row + r - centre_row, column + c - centre_column] = tile
        # The centre is the tile underfoot, or (2016 servers) the player itself: then
        # what was seen there before the bot stepped on it stays.
        if view[view.centre] not in PLAYERS or self.position not in self.tiles:
            self.tiles[self.position] = view[view.centre]

    def moved(self, direction: Direction) -> None:
        """The bot's ``MOVE`` in ``direction`` succeeded."""
        self.position = step(self.position, direction)

    def set(self, position: Position, tile: str) -> None:
        """Record a change the bot made itself (gold picked up)."""
        self.tiles[position] = tile

    def here(self) -> str:
        return self.tiles.get(self.position, "?")

    def open(self, position: Position) -> bool:
        """True for a square known not to be a wall."""
        tile = self.tiles.get(position)
        return tile is not None and tile != WALL

    def frontier(self, position: Position) -> bool:
        """True for an open square next to one never seen: walking there shows more."""
        return self.open(position) and any(
            step(position, direction) not in self.tiles for direction in FOUR_WAYS
        )

    def open_neighbours(self) -> list[Direction]:
        return [d for d in FOUR_WAYS if self.open(step(self.position, d))]

    def route_to(self, tiles: str) -> list[Direction] | None:
        """The shortest walk to the nearest other square holding one of ``tiles``."""
        return self.route(lambda _, tile: tile in tiles)

    def route_to_frontier(self) -> list[Direction] | None:
        """The shortest walk to the nearest frontier square."""
        return self.route(lambda square, _: self.frontier(square))

    def route(self, goal: Callable[[Position, str], bool]) -> list[Direction] | None:
        """The shortest walk to the nearest other square where ``goal(square, tile)`` holds.

        ``None`` when no such square can be reached over open squares.
        """
        start = self.position
        came_from: dict[Position, tuple[Position, Direction] | None] = {start: None}
        queue = deque([start])
        while queue:
            square = queue.popleft()
            if square != start and goal(square, self.tiles[square]):
                return self._walk_back(came_from, square)
            for direction in FOUR_WAYS:
                neighbour = step(square, direction)
                if neighbour not in came_from and self.open(neighbour):
                    came_from[neighbour] = (square, direction)
                    queue.append(neighbour)
        return None

    @staticmethod
    def _walk_back(
        came_from: dict[Position, tuple[Position, Direction] | None], square: Position
    ) -> list[Direction]:
        path: list[Direction] = []
        link = came_from[square]
        while link is not None:
            square, direction = link
            path.append(direction)
            link = came_from[square]
        path.reverse()
        return path
