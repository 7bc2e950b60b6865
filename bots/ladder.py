"""``ladder``: the baddies baseline, walking the shortest way to the ladder and ignoring baddies.

Run it as ``python -m dungeon_of_doom.bots.ladder --host H --port P`` (or ``dod-bot-ladder``).
Every round it reads ``MAP`` and takes the first step of a shortest king-move
path to a ladder around walls and abysses
(:func:`bots.plan.baddies.ladder_step`); it never steps into the abyss, and it
never looks at a baddie. It is what ``baddie-lurer`` is measured against.
"""

from __future__ import annotations

import sys

from .baddie_moves import send_step
from .cli import Bot, bot_main
from .plan.baddies import board_from_map, ladder_step

__all__ = ["main", "play"]


def play(bot: Bot) -> str | None:
    """Walk to the ladder until the game ends."""
    client = bot.client
    while bot.may_move():
        step = ladder_step(board_from_map(client.map().rows))
        if step is None:
            return "no path to the ladder around the walls and abysses"
        send_step(client, step)
    return "move limit reached"


main = bot_main(
    "ladder",
    play,
    description="A baddies bot that walks the shortest way to the ladder, ignoring baddies "
    "(the baseline the lurer is measured against).",
    worlds=("baddies",),
)

if __name__ == "__main__":
    sys.exit(main())
