"""Winning lines of play for generated crawler levels and baddies boards, found by search.

Each function searches (:func:`mapgen.search.find_line`) with the world's own
rules, never a copy of them: crawler levels with :class:`worlds.crawler.State`,
baddies boards with :func:`worlds.baddies.play_round`. A returned line is a proof:
played from the start by those rules, it wins. ``None`` means no win was found
within ``budget`` states, which the generated outputs treat as "not winnable".

The estimate guiding each search is the number of steps to the goal on the
squares that never change (pillars, walls, abysses), counted once per level or
board by breadth-first search; pieces that move are left to the search itself.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from worlds.baddies.board import ABYSS, LADDER, WALL, Board
from worlds.baddies.rules import Escaped, HeroStayed, Step, play_round
from worlds.crawler.levelfile import DOOR, EXIT, PILLAR, TREASURE, Level
from worlds.crawler.state import Command, Outcome, State

from .search import find_line

__all__ = ["ATTEMPTS", "BADDIES_STEPS", "SEARCH_BUDGET", "baddies_line", "crawler_line", "thinned"]

SEARCH_BUDGET: Final = 4_000
"""States a search may expand before it gives up: about 0.15 s at 80 × 21. Winnable
generated levels are nearly all won within a few hundred; a placement that needs more
is simply drawn again."""

ATTEMPTS: Final = 10
"""Placements an output tries before it gives up; see :func:`thinned`."""

_FAR: Final = float("inf")
_HERO: Final = 0
"""The id of the one hero a baddies search plays."""

BADDIES_STEPS: Final[tuple[Step, ...]] = (
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 0),
)
"""The hero's nine choices, as (row step, column step); ``(0, 0)`` stays."""

_CRAWLER_COMMANDS: Final = tuple(Command)
_FOUR_WAYS: Final = ((-1, 0), (1, 0), (0, -1), (0, 1))


def thinned(attempt: int) -> float:
    """The share of its foes an output places on ``attempt`` (from 0) of :data:`ATTEMPTS`.

    The first half of the attempts place them all; each later one fewer, the last
    none, where a connected dungeon is always winnable: a bad draw costs foes, not
    the dungeon.
    """
    half = ATTEMPTS // 2
    return min(1.0, (ATTEMPTS - 1 - attempt) / half)


def _distances(
    rows: int,
    cols: int,
    sources: Iterable[tuple[int, float]],
    passable: Callable[[int], bool],
    ways: Sequence[tuple[int, int]],
) -> list[float]:
    """Steps from each square to the nearest source, over passable squares; ``inf`` if none.

    Sources are given with their starting distance, as (index, distance), so that a
    goal reached by way of another (the exit by way of a treasure) counts in one pass.
    """
    far = [_FAR] * (rows * cols)
    queue: list[tuple[float, int]] = []
    for index, distance in sources:
        if distance < far[index]:
            far[index] = distance
            queue.append((distance, index))
    heapq.heapify(queue)
    while queue:
        distance, index = heapq.heappop(queue)
        if distance > far[index]:
            continue
        row, col = divmod(index, cols)
        for d_row, d_col in ways:
            r, c = row + d_row, col + d_col
            if 0 <= r < rows and 0 <= c < cols:
                near = r * cols + c
                if distance + 1 < far[near] and passable(near):
                    far[near] = distance + 1
                    heapq.heappush(queue, (distance + 1, near))
    return far


def crawler_line(level: Level, budget: int = SEARCH_BUDGET) -> list[Command] | None:
    """Commands that take an adventurer off ``level`` alive: through a door, or out by the exit.

    The search plays a one-level :class:`State`, so a door ends it as a finished game.
    """
    tiles, cols = level.tiles, level.cols
    pillar, door, exit_, treasure = (ord(t) for t in (PILLAR, DOOR, EXIT, TREASURE))

    def passable(index: int) -> bool:
        return tiles[index] != pillar

    goals = [(i, 0) for i, tile in enumerate(tiles) if tile in (door, exit_)]
    to_goal = _distances(level.rows, cols, goals, passable, _FOUR_WAYS)
    # The exit opens only for an adventurer holding treasure: without, the way runs
    # through the nearest treasure that leads on to a goal.
    by_treasure = _distances(
        level.rows,
        cols,
        ((i, to_goal[i]) for i, tile in enumerate(tiles) if tile == treasure),
        passable,
        _FOUR_WAYS,
    )
    needs_treasure = exit_ in tiles and door not in tiles

    def play(state: State, command: Command) -> State | None:
        after = state.copy()
        after.step(command)
        return None if after.outcome is Outcome.DIED else after

    def estimate(state: State) -> float:
        # An amulet doubles the level, but the rock border seals the adventurer in
        # the top-left quarter, whose squares keep their numbers in the level.
        index = state.row * cols + state.col
        if needs_treasure and state.treasure == 0:
            return by_treasure[index]
        return to_goal[index]

    return find_line(
        State([level]),
        _CRAWLER_COMMANDS,
        play,
        State.key,
        lambda state: state.outcome in (Outcome.ESCAPED, Outcome.FINISHED),
        estimate,
        budget,
    )


def baddies_line(board: Board, budget: int = SEARCH_BUDGET) -> list[Step] | None:
    """Steps that take the board's hero from its start to a ladder, by RULES §3.

    ``board`` is not changed; the search plays copies with the hero on ``start``.
    """
    rows, cols = board.rows, board.columns
    statics = board.statics

    def passable(index: int) -> bool:
        return statics.get(divmod(index, cols)) not in (WALL, ABYSS)

    ladders = [(r * cols + c, 0) for (r, c), glyph in statics.items() if glyph == LADDER]
    ways = [step for step in BADDIES_STEPS if step != (0, 0)]
    to_ladder = _distances(rows, cols, ladders, passable, ways)
    start = board.copy()
    start.heroes = {_HERO: board.start}

    # A search state is a board and whether its hero escaped (and so left it).
    def play(state: tuple[Board, bool], step: Step) -> tuple[Board, bool] | None:
        after = state[0].copy()
        facts = play_round(after, {_HERO: step})
        if any(isinstance(fact, Escaped) for fact in facts):
            return after, True
        if _HERO not in after.heroes:
            return None
        # A step into a wall or off the board is a stay, which the search tries itself.
        if step != (0, 0) and any(isinstance(fact, HeroStayed) for fact in facts):
            return None
        return after, False

    def key(state: tuple[Board, bool]) -> tuple[object, ...]:
        board, escaped = state
        return escaped, board.heroes.get(_HERO), tuple(sorted(board.baddies.items()))

    def estimate(state: tuple[Board, bool]) -> float:
        row, col = state[0].heroes[_HERO]
        return to_ladder[row * cols + col]

    return find_line(
        (start, False),
        BADDIES_STEPS,
        play,
        key,
        lambda state: state[1],
        estimate,
        budget,
    )
