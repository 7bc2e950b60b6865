"""A bounded best-first search for a winning line of play, for any game given as functions.

The generated outputs prove a placement winnable by finding a line of play that
wins, played by the world's own rules (the crawler's :class:`~worlds.crawler.State`,
the baddies' :func:`~worlds.baddies.play_round`). The game is described to
:func:`find_line` by functions, so this module knows no game's rules.

A caller may rely on:

* a returned line winning when played from ``start`` with ``play`` (each state
  on it was produced by ``play`` and the last satisfies ``won``);
* the search expanding at most ``budget`` states, so it always ends; ``None``
  means no win was found within the budget (or none exists at all);
* the same inputs giving the same line: ties in the queue go to the state found
  first, and actions are tried in the order given.

States are ordered by moves so far plus twice the ``estimate`` of the moves left
(a weighted A*): it finds a line quickly when the estimate is good, at the price
of the line not always being the shortest, which a proof does not need.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final, TypeAlias, TypeVar

__all__ = ["ESTIMATE_WEIGHT", "find_line"]

State = TypeVar("State")
Action = TypeVar("Action")

ESTIMATE_WEIGHT: Final = 2
"""How much more the estimate of moves left counts than the moves already made."""

_Link: TypeAlias = "tuple[Any, _Link] | None"
"""A line as (last action, the line before it) links back to the start, so that each
queued state costs one link rather than a copy of its whole line."""


def find_line(
    start: State,
    actions: Sequence[Action],
    play: Callable[[State, Action], State | None],
    key: Callable[[State], Hashable],
    won: Callable[[State], bool],
    estimate: Callable[[State], float],
    budget: int,
) -> list[Action] | None:
    """A line of ``actions`` that wins from ``start``, or ``None`` if none is found in budget.

    ``play(state, action)`` returns the next state (a new object; ``state`` is left
    as it was) or ``None`` when the action loses. ``key`` identifies states with
    the same future, ``won`` says whether a state is a win, ``estimate`` guesses
    the moves left (``math.inf`` for a state that cannot win).
    """
    if won(start):
        return []
    order = itertools.count()
    queue: list[tuple[float, int, int, State, _Link]] = [(0.0, next(order), 0, start, None)]
    seen = {key(start)}
    expanded = 0
    while queue and expanded < budget:
        _, _, moves, state, line = heapq.heappop(queue)
        expanded += 1
        for action in actions:
            after = play(state, action)
            if after is None:
                continue
            state_key = key(after)
            if state_key in seen:
                continue
            seen.add(state_key)
            link: _Link = (action, line)
            if won(after):
                return _unwind(link)
            left = estimate(after)
            if left != float("inf"):
                priority = moves + 1 + ESTIMATE_WEIGHT * left
                heapq.heappush(queue, (priority, next(order), moves + 1, after, link))
    return None


def _unwind(link: _Link) -> list[Any]:
    line = []
    while link is not None:
        action, link = link
        line.append(action)
    line.reverse()
    return line
