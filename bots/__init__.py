"""Sample bots, each its own process, playing over TCP with the client library.

Every bot is a module here with a ``main`` entry point built by
:func:`bots.cli.bot_main`, so ``python -m bots.<module> --host H --port P`` runs
it and it ends by printing one JSON result line (:mod:`bots.result`).
:data:`KINDS` names the bots the launcher (``dod-bots``) can start.
"""

from typing import Final

KINDS: Final = {
    "random": "bots.random",
    "explorer": "bots.explorer",
    "crawler-solver": "bots.crawler_solver",
    "baddie-lurer": "bots.baddie_lurer",
    "ladder": "bots.ladder",
    "knight": "bots.knight",
    "battle": "bots.battle",
}
"""Bot kind, as the launcher takes it, to the module that runs it."""
