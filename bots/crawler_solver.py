"""``crawler-solver``: reads each crawler level whole and plays the shortest way out it can prove.

Run it as ``python -m dungeon_of_doom.bots.crawler_solver --host H --port P`` (or
``dod-bot-crawler-solver``); ``--objective treasure`` takes the most treasure it
can find instead, then the fewest moves; ``--budget`` bounds each search.

On every level it reads ``MAP``, searches the level with the crawler rules'
own :class:`~worlds.crawler.State` (:func:`bots.plan.crawler.plan_level`, whose
docstring says which plan it takes), and plays the plan with ``MOVE`` and
``STAY``. Only the level in view can be planned, so "shortest" is per level:
the fewest moves to escape when this level's exit can be reached, else the
fewest moves through a door, carrying a treasure when none is held yet. On
the shipped dungeons that is the whole dungeon's shortest escape except where a
treasure is cheaper on a later level (``bench/bots_figures.py`` prints both).

Before every move it reads ``MAP`` again and plans afresh if the level is not
the one its plan predicts (a new level after a door, other players at work), so
it follows the real game. Its treasure is counted from its own moves: a move
that succeeds onto a ``$`` the last ``MAP`` showed takes it. It ends with the
server's final line; its moves are the server's count (bumps and stays count).
"""

from __future__ import annotations

import argparse
import sys
from collections import deque

from dungeon_of_doom.worlds.crawler import Command, Outcome, State

from .cli import Bot, bot_main
from .plan.crawler import DEFAULT_BUDGET, DIRECTIONS, Objective, level_from_map, plan_level

__all__ = ["main", "play"]

TREASURE = "$"


def play(bot: Bot) -> str | None:
    """Plan each level as it comes and play the plan; see the module docstring."""
    client = bot.client
    objective = Objective(bot.options.objective)
    treasure = 0
    plan: deque[Command] = deque()
    expected: State | None = None
    while bot.may_move():
        rows = client.map().rows
        if expected is None or expected.outcome is not None or expected.render() != list(rows):
            level = level_from_map(rows)
            found = plan_level(level, treasure, objective, bot.options.budget)
            if found is None:
                return "no way out of this level: every way ends in death or nowhere"
            plan = deque(found.commands)
            expected = State([level], treasure=treasure)
        command = plan.popleft()
        target = (expected.row + command.value[0], expected.col + command.value[1])
        expected.step(command)
        if command is Command.STAY:
            client.stay()
        elif client.move(DIRECTIONS[command]) and rows[target[0]][target[1]] == TREASURE:
            treasure += 1
            bot.gold = treasure
        if expected.outcome is Outcome.ESCAPED:
            return None
    return "move limit reached"


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--objective",
        choices=[objective.value for objective in Objective],
        default=Objective.MOVES.value,
        help="fewest moves, or most treasure then fewest moves (default: %(default)s)",
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help="states each search may visit (default: %(default)s)",
    )


main = bot_main(
    "crawler-solver",
    play,
    description="A crawler bot that reads each level with MAP, searches it with the exact "
    "monster rules, and plays the shortest escape it can prove.",
    add_arguments=_add_arguments,
    worlds=("crawler",),
)

if __name__ == "__main__":
    sys.exit(main())
