"""``knight``: plays the knight world's optimal path (RULES §5).

Run it as ``python -m dungeon_of_doom.bots.knight --host H --port P`` (or ``dod-bot-knight``). It
reads the whole grid once with ``MAP`` (:func:`worlds.knight.render.read_numbers`),
solves the rest of the way from the square it stands on with
:func:`worlds.knight.solver.solve`, and sends the path's ``MOVE E`` / ``MOVE S``.
The path needs the least starting health there is, so the knight wins whenever
the world gives it at least that much (the default), and loses only when no
path could win.
"""

from __future__ import annotations

import sys

from dungeon_of_doom.worlds.knight.render import read_numbers
from dungeon_of_doom.worlds.knight.solver import solve

from .cli import Bot, bot_main

__all__ = ["main", "play"]


def play(bot: Bot) -> str | None:
    """Walk the optimal path to the bottom-right square; the game ends with its last step."""
    client = bot.client
    numbers = read_numbers(client.map().rows)
    if numbers.you is None:
        return "the map does not show where I stand"
    row, column = numbers.you
    rest = [list(values[column:]) for values in list(numbers.grid)[row:]]
    # The square underfoot was taken on arrival; only the squares ahead cost health.
    rest[0][0] = 0
    for letter in solve(rest).moves:
        if not bot.may_move():
            return "move limit reached"
        client.move(letter)
    return None


main = bot_main(
    "knight",
    play,
    description="A knight-world bot that reads the grid with MAP and walks the path that "
    "needs the least starting health.",
    worlds=("knight",),
)

if __name__ == "__main__":
    sys.exit(main())
