"""Sample bots, each its own process, playing over TCP with the client library.

Every bot is a module here with a ``main`` entry point built by
:func:`bots.cli.bot_main`, so ``python -m dungeon_of_doom.bots.<module> --host H --port P`` runs
it and it ends by printing one JSON result line (:mod:`bots.result`).
:data:`KINDS` names the bots the launcher (``dod-bots``) can start.
"""

from typing import Final

KINDS: Final = {
    "random": "dungeon_of_doom.bots.random",
    "explorer": "dungeon_of_doom.bots.explorer",
    "crawler-solver": "dungeon_of_doom.bots.crawler_solver",
    "baddie-lurer": "dungeon_of_doom.bots.baddie_lurer",
    "ladder": "dungeon_of_doom.bots.ladder",
    "knight": "dungeon_of_doom.bots.knight",
    "battle": "dungeon_of_doom.bots.battle",
}
"""Bot kind, as the launcher takes it, to the module that runs it."""
