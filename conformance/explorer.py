"""Finding one's way by ``LOOK`` alone, in coordinates relative to where one began.

An :class:`Explorer` knows nothing about the map: it joins, looks, and remembers
every square it has seen, relative to its first position (0, 0). It walks only
on floor, gold and item squares; never onto an exit, which would end the game
for a player holding enough gold, and never into a wall or another player.
Every walk is bounded by a number of moves; each move is followed by a ``LOOK``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Final

from protocol.commands import Look, Move
from protocol.direction import CARDINAL, Direction
from protocol.replies import Fail, LookReply, Success

from .session import BadReply, Session, describe
from .view import View

__all__ = ["WALKABLE", "Explorer"]

WALKABLE: Final = frozenset(".GLSAH")
# A fixed order keeps runs against a deterministic server deterministic.
DIRECTIONS: Final = tuple(sorted(CARDINAL, key=lambda d: d.name))

Position = tuple[int, int]


def step(position: Position, direction: Direction) -> Position:
    return position[0] + direction.row_step, position[1] + direction.column_step


class Explorer:
    """One player finding its way; see the module docstring."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.position: Position = (0, 0)
        self.tiles: dict[Position, str] = {}
        self._view: View | None = None
        self.moves = 0
        self.exhausted = False
        """Whether the last :meth:`explore` ended with nothing left to explore (every
        square it could reach seen), not for want of moves."""

    @property
    def view(self) -> View:
        """The latest view; only after the first :meth:`look`."""
        if self._view is None:
            raise RuntimeError("no LOOK yet")
        return self._view

    async def hello(self) -> None:
        """``HELLO``, as every 2013 client begins (see :meth:`Session.greet`)."""
        await self.session.greet()

    async def look(self) -> View:
        reply = await self.session.expect(Look(), LookReply)
        view = View(reply.rows)
        self._view = view
        row, column = self.position
        for (dr, dc), glyph in view.cells():
            if (dr, dc) == (0, 0) and glyph == "P":
                continue  # the player itself (2016): the tile underfoot was seen from nearby
            self.tiles[(row + dr, column + dc)] = glyph
        return view

    @property
    def underfoot(self) -> str | None:
        """The tile the player stands on: the centre of the view, or, where a 2016 server
        shows the player there, what an earlier view showed at this square (``None``
        while unseen)."""
        return self.tiles.get(self.position)

    async def move(self, direction: Direction) -> bool:
        """``MOVE``; True on ``SUCCESS``. The view is stale afterwards until :meth:`look`."""
        self.moves += 1
        reply = await self.session.ask(Move(direction))
        if isinstance(reply, Success):
            self.position = step(self.position, direction)
            return True
        if isinstance(reply, Fail):
            return False
        raise BadReply(
            f"{self.session.name}: the reply to MOVE {direction.name}: expected SUCCESS or FAIL, "
            f"got {describe(self.session.last_lines)}"
        )

    def route(self, goal: Callable[[Position], bool]) -> list[Direction] | None:
        """The shortest walk over known squares to a square where ``goal`` holds."""
        came: dict[Position, tuple[Position, Direction] | None] = {self.position: None}
        queue = deque([self.position])
        while queue:
            here = queue.popleft()
            if goal(here):
                path: list[Direction] = []
                while (link := came[here]) is not None:
                    here, direction = link
                    path.append(direction)
                return path[::-1]
            for direction in DIRECTIONS:
                there = step(here, direction)
                if there not in came and self.tiles.get(there) in WALKABLE:
                    came[there] = (here, direction)
                    queue.append(there)
        return None

    def beside(self, position: Position, glyphs: str | frozenset[str]) -> bool:
        """Whether a square next to ``position`` was seen showing one of ``glyphs``."""
        return any(self.tiles.get(step(position, d), "") in glyphs for d in DIRECTIONS)

    def _frontier(self, position: Position) -> bool:
        return any(step(position, d) not in self.tiles for d in DIRECTIONS)

    async def explore(
        self,
        found: Callable[[Explorer], bool],
        max_moves: int,
        toward: Callable[[Position], bool] | None = None,
    ) -> bool:
        """Look, then walk until ``found(self)`` holds; False if the moves run out first.

        Each move heads for the nearest known square where ``toward`` holds, or,
        when there is none, for the nearest square next to unseen ones.
        """
        self.exhausted = False
        if self._view is None:
            await self.look()
        while not found(self):
            if self.moves >= max_moves:
                return False
            path = (self.route(toward) if toward else None) or self.route(self._frontier)
            if not path:
                self.exhausted = True
                return False
            await self.move(path[0])
            await self.look()
        return True
