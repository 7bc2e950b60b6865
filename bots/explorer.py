"""``explorer``: a classic-world bot that sees only through ``LOOK`` and remembers.

Run it as ``python -m dungeon_of_doom.bots.explorer --host H --port P`` (or ``dod-bot-explorer``).
Each turn it looks, remembers what it saw (:mod:`bots.memory`), and then:

1. picks up the gold it stands on;
2. while it holds less gold than the target, walks the shortest known path
   towards the nearest gold it has seen;
3. once it holds enough, walks to the nearest exit it has seen;
4. when it knows no such square, walks to the nearest frontier (an open square
   next to one it has never seen) to see more.

It never sends ``MAP``. Given a map whose gold and exits can all be reached, it
wins: every step either ends on a target or shows new squares, and there are
finitely many. It stops (``QUIT``) when it has seen every square it can reach and
still cannot win, for example because other players took the gold. A step
blocked by another player is retried, or, half of the time, a random open
neighbour is taken instead so that two bots in a corridor do not wait forever.
"""

from __future__ import annotations

import sys

from .cli import Bot, bot_main
from .memory import Memory

__all__ = ["main", "play"]

GOLD = "G"
EXIT = "E"
FLOOR = "."


def play(bot: Bot) -> str | None:
    """Play one classic game to a win; the reason it stopped otherwise."""
    client = bot.client
    goal = client.goal or 0
    memory = Memory()
    blocked = False
    while bot.may_move():
        memory.see(client.look())
        if memory.here() == GOLD:
            # Picked up or not (someone was quicker), no gold is left here.
            client.pickup()
            memory.set(memory.position, FLOOR)
            continue
        target = EXIT if client.gold >= goal else GOLD
        path = memory.route_to(target) or memory.route_to_frontier()
        if path is None:
            if memory.here() == EXIT and target == EXIT:
                # Escaping takes a step onto the exit: step off it, then back.
                path = memory.open_neighbours()[:1]
            if not path:
                return "seen everything reachable and cannot win"
        direction = path[0]
        if blocked and bot.rng.random() < 0.5:
            direction = bot.rng.choice(memory.open_neighbours())
        blocked = not client.move(direction)
        if not blocked:
            memory.moved(direction)
            if target == EXIT and memory.here() == EXIT:
                return None
    return "move limit reached"


main = bot_main(
    "explorer",
    play,
    description="A classic-world bot that explores with LOOK, collects the gold it needs "
    "by shortest known paths and walks out of the nearest exit.",
)

if __name__ == "__main__":
    sys.exit(main())
