"""``baddie-lurer``: reads the whole baddies board and plays an escape that lures baddies away.

Run it as ``python -m dungeon_of_doom.bots.baddie_lurer --host H --port P`` (or
``dod-bot-baddie-lurer``); ``--budget`` bounds each search.

Every round it reads ``MAP`` (:func:`bots.plan.baddies.board_from_map`) and asks
:class:`bots.plan.baddies.Lurer` for its step: a search over rounds played with
the world's own :func:`~worlds.baddies.play_round`, in which baddies that fall
into an abyss stay gone, so the escapes it finds lure them in where that opens
the way. It replans whenever the board is not the one it predicted. When the
search proves that no escape exists it stops (``QUIT``) and says so.
"""

from __future__ import annotations

import argparse
import sys

from .baddie_moves import send_step
from .cli import Bot, bot_main
from .plan.baddies import DEFAULT_BUDGET, Lurer, board_from_map

__all__ = ["main", "play"]


def play(bot: Bot) -> str | None:
    """Play the lurer's steps until the hero escapes, is caught, or no escape exists."""
    client = bot.client
    lurer = Lurer(bot.options.budget)
    while bot.may_move():
        step = lurer.step(board_from_map(client.map().rows))
        if isinstance(step, str):
            return step
        send_step(client, step)
    return "move limit reached"


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help="positions each search may expand (default: %(default)s)",
    )


main = bot_main(
    "baddie-lurer",
    play,
    description="A baddies bot that reads the board with MAP and plays an escape that lures "
    "baddies into the abyss, found by searching rounds with the exact rules.",
    add_arguments=_add_arguments,
    worlds=("baddies",),
)

if __name__ == "__main__":
    sys.exit(main())
