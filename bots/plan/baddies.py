"""Escapes on a baddies board, searched with the world's own round (:func:`play_round`).

A hero sees the whole board (``MAP``), and baddies move by fixed rules, so a game
is a puzzle: :func:`board_from_map` turns a ``MAP`` reply into a
:class:`~worlds.baddies.Board`, and the policies below choose each round's step
from it. The bots play them over TCP; ``bench/bots_figures.py`` plays them
in-process on the same boards, and gets the same games.

* :class:`Lurer` searches rounds (every one of the nine steps, each played on a
  copy of the board with :func:`play_round`) for a sequence that reaches the
  ladder alive. Baddies that fall into an abyss are gone from the states that
  follow, so the plans it finds lure them in whenever that is what opens the
  way. The search is a weighted A* (rounds played plus 1.5 × the king-move
  distance to the nearest ladder): it finds an escape quickly, not always the
  shortest. It replans whenever the board is not the one it predicted (another
  hero changed things). When the search has seen every reachable position and
  none escapes, no escape exists and it says so; when it runs out of budget first,
  it plays a few rounds toward the most promising position and searches again.
* :func:`ladder_step` is the baseline: the first step of a shortest king-move
  path to the ladder around walls and abysses, ignoring the baddies.

Other heroes on the board are taken to stand still in a plan; the plan is checked
against the board every round.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from dungeon_of_doom.worlds.baddies import Board, play_round
from dungeon_of_doom.worlds.baddies.board import ABYSS, BADDIES, LADDER, STATICS, WALL, Position
from dungeon_of_doom.worlds.baddies.rules import Escaped, Step

__all__ = [
    "DEFAULT_BUDGET",
    "DIRECTIONS",
    "HERO",
    "Lurer",
    "Search",
    "board_from_map",
    "ladder_step",
    "search_escape",
]

HERO: Final = 0
"""The id of the planning hero on a board made by :func:`board_from_map`."""
YOU: Final = "@"
OTHER_HEROES: Final = "PB"
DIRECTIONS: Final[dict[Step, str]] = {
    (-1, 0): "N",
    (-1, 1): "NE",
    (0, 1): "E",
    (1, 1): "SE",
    (1, 0): "S",
    (1, -1): "SW",
    (0, -1): "W",
    (-1, -1): "NW",
}
"""The protocol's ``MOVE`` direction of each step but the stay ``(0, 0)``."""
STEPS: Final[tuple[Step, ...]] = ((0, 0), *DIRECTIONS)
DEFAULT_BUDGET: Final = 60_000
"""Positions a search may expand before it settles for the most promising one."""
WEIGHT: Final = 1.5
"""How much the distance left counts against the rounds played: above 1 finds escapes sooner."""
PARTIAL_ROUNDS: Final = 5
"""Rounds played toward the most promising position before searching again."""


def board_from_map(rows: Sequence[str]) -> Board:
    """The board a baddies ``MAP`` reply shows; the viewer ``@`` is hero :data:`HERO`.

    Other heroes (``P``, ``B``) become heroes 1, 2, ... in reading order.
    """
    statics: dict[Position, str] = {}
    baddies: dict[Position, str] = {}
    you: Position | None = None
    others: list[Position] = []
    for r, row in enumerate(rows):
        for c, glyph in enumerate(row):
            if glyph in STATICS:
                statics[r, c] = glyph
            elif glyph in BADDIES:
                baddies[r, c] = glyph
            elif glyph == YOU:
                you = (r, c)
            elif glyph in OTHER_HEROES:
                others.append((r, c))
    if you is None:
        raise ValueError("the map does not show you (@)")
    heroes = {HERO: you} | {number: square for number, square in enumerate(others, 1)}
    return Board(len(rows), len(rows[0]), statics, baddies, you, heroes)


def _key(board: Board) -> Hashable:
    return tuple(board.heroes.items()), frozenset(board.baddies.items())


def _distance(square: Position, ladders: list[Position]) -> int:
    row, column = square
    return min(max(abs(row - r), abs(column - c)) for r, c in ladders)


@dataclass(frozen=True, slots=True)
class Search:
    """What :func:`search_escape` found.

    ``steps`` reach the ladder when ``escapes``; otherwise they lead toward the
    position nearest the ladder that the search reached alive. ``complete``: every
    reachable position was seen (so without an escape, none exists).
    """

    steps: tuple[Step, ...]
    escapes: bool
    expanded: int
    complete: bool


_Trail: TypeAlias = "tuple[Step, _Trail] | None"
"""Steps as a linked list from the last one back: (step, the steps before it)."""


def search_escape(board: Board, budget: int = DEFAULT_BUDGET) -> Search:
    """Search rounds from ``board`` for an escape of :data:`HERO` (see the module docstring)."""
    ladders = [square for square, glyph in board.statics.items() if glyph == LADDER]
    start = board.heroes[HERO]
    order = itertools.count()
    # A step list is a linked list from the last step back, shared between positions.
    heap: list[tuple[float, int, int, Board, _Trail]] = [
        (WEIGHT * _distance(start, ladders), 0, next(order), board, None)
    ]
    seen = {_key(board)}
    closest: tuple[int, int, _Trail] = (_distance(start, ladders), 0, None)
    expanded = 0
    while heap and expanded < budget:
        _, rounds, _, current, trail = heapq.heappop(heap)
        expanded += 1
        for step in STEPS:
            after = current.copy()
            facts = play_round(after, {HERO: step})
            if any(isinstance(fact, Escaped) and fact.hero == HERO for fact in facts):
                return Search(_steps((step, trail)), True, expanded, True)
            if HERO not in after.heroes:
                continue
            key = _key(after)
            if key in seen:
                continue
            seen.add(key)
            left = _distance(after.heroes[HERO], ladders)
            # The nearest to a ladder, the deepest among equals: it has survived longest.
            closest = min(closest, (left, -(rounds + 1), (step, trail)), key=lambda c: c[:2])
            priority = rounds + 1 + WEIGHT * left
            heapq.heappush(heap, (priority, rounds + 1, next(order), after, (step, trail)))
    return Search(_steps(closest[2]), False, expanded, not heap)


def _steps(trail: _Trail) -> tuple[Step, ...]:
    steps: list[Step] = []
    while trail is not None:
        step, trail = trail
        steps.append(step)
    return tuple(reversed(steps))


class Lurer:
    """The lurer's policy: :meth:`step` gives each round's step, or a reason to stop."""

    def __init__(self, budget: int = DEFAULT_BUDGET) -> None:
        self.budget = budget
        self.plan: deque[Step] = deque()
        self.expected: Board | None = None
        self.searches = 0

    def step(self, board: Board) -> Step | str:
        """This round's step for the hero :data:`HERO` on ``board`` (left unchanged)."""
        expected = self.expected
        if (
            not self.plan
            or expected is None
            or expected.heroes != board.heroes
            or expected.baddies != board.baddies
        ):
            found = search_escape(board, self.budget)
            self.searches += 1
            if not found.escapes and found.complete:
                return f"no escape exists: every one of {found.expanded} positions ends badly"
            if not found.steps:
                return f"no move survives: searched {found.expanded} positions"
            steps = found.steps if found.escapes else found.steps[:PARTIAL_ROUNDS]
            self.plan = deque(steps)
        step = self.plan.popleft()
        self.expected = board.copy()
        play_round(self.expected, {HERO: step})
        return step


def ladder_step(board: Board) -> Step | None:
    """The first step of a shortest path to a ladder around walls and abysses; ``None``: none."""
    start = board.heroes[HERO]
    first: dict[Position, Step | None] = {start: None}
    queue = deque([start])
    while queue:
        square = queue.popleft()
        for step in DIRECTIONS:
            nxt = (square[0] + step[0], square[1] + step[1])
            if nxt in first or not board.on_board(nxt):
                continue
            glyph = board.statics.get(nxt)
            if glyph in (WALL, ABYSS):
                continue
            first[nxt] = first[square] or step
            if glyph == LADDER:
                return first[nxt]
            queue.append(nxt)
    return None
