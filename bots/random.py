"""``random``: a classic-world bot that wanders at random.

Run it as ``python -m bots.random --host H --port P [--seed S] [--max-moves N]``
(or ``dod-bot-random``). Each turn it looks, picks up whatever lies on its
square (gold or an item; not again on the same view once the server refused it), and
moves one step in a random direction among those
that are not walls in what it has just seen (so it never walks into a wall it
has seen), avoiding squares other players stand on unless there is no other. It
plays until the game ends (it can stumble onto an exit holding enough gold and
win) or it has made ``--max-moves`` moves (10,000 unless told). The same ``--seed`` on the same game
makes the same choices.
"""

from __future__ import annotations

import sys
from typing import Final

from .cli import Bot, bot_main
from .memory import FOUR_WAYS

__all__ = ["main", "play"]

WALL: Final = "#"
PLAYERS: Final = "PB"
PICKABLE: Final = "GLSAH"
"""Gold and the 2015 items."""


def play(bot: Bot) -> str | None:
    """Wander until the game ends or the move limit is reached."""
    client = bot.client
    # What the square underfoot showed before the player stepped onto it: a 2016
    # server shows the player itself (P) at the centre of every view.
    underfoot: str | None = None
    # The view in which a PICKUP was refused: an item the player may not take (ldjb's
    # 'FAIL: Already have a sword') still shows; asked again and again, the server
    # refused it 10,000 times (issue 39).
    refused: tuple[str, ...] | None = None
    while bot.may_move():
        view = client.look()
        centre = view.relative(0, 0)
        if centre in PLAYERS:
            centre = underfoot or centre
        if centre in PICKABLE and view.rows != refused:
            if not client.pickup():
                refused = view.rows
            underfoot = "."  # picked up, or nothing there to pick: never try twice
            continue
        tiles = {d: view.relative(d.row_step, d.column_step) for d in FOUR_WAYS}
        open_ = [d for d, tile in tiles.items() if tile != WALL]
        if not open_:
            return "walled in: no square to move to"
        # Squares taken by players are tried only when there is nothing else: the
        # move fails, which spends a turn waiting for them to go.
        free = [d for d in open_ if tiles[d] not in PLAYERS]
        direction = bot.rng.choice(free or open_)
        if client.move(direction):
            underfoot = tiles[direction]
    return "move limit reached"


DEFAULT_MAX_MOVES: Final = 10_000
"""A wanderer may never find the exit: without ``--max-moves`` it stops after this many."""

main = bot_main(
    "random",
    play,
    description="A classic-world bot that moves at random, never into a wall it has seen, "
    "and picks up what it stands on.",
    default_max_moves=DEFAULT_MAX_MOVES,
)

if __name__ == "__main__":
    sys.exit(main())
