"""``dod-play``: play (or watch) a Dungeon of Doom game on any server, full screen.

::

    dod-play                               # 127.0.0.1:40004, the default game
    dod-play --host dungeon.example --port 40004 --name Ada
    dod-play --game arena                  # JOIN a game first
    dod-play --watch default               # spectate

What a caller may rely on: the exit status is 0 when a game was played to its
end or left, 1 when the server could not be reached, refused the game asked
for, or the connection broke, 2 for bad options or when standard input or
output is not a terminal (it is a full-screen program; bots and scripts use
the client library). Whatever happens on the network, the terminal gets one
plain line saying so (the server's last line, or why there was none), never a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..core import DEFAULT_PORT

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dod-play",
        description="Play Dungeon of Doom in the terminal: the map, keys, a message log, chat.",
        epilog="In the game, press ? for the keys of the world you are in.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="server address (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"server port (default {DEFAULT_PORT})"
    )
    parser.add_argument("--name", help="your name in the game (HELLO <name>)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--game", metavar="GAME", help="join this game first (JOIN GAME)")
    where.add_argument("--watch", metavar="GAME", help="watch this game as a spectator")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dod-play`` with ``argv`` (default: the command line); returns the exit status."""
    parser = _parser()
    options = parser.parse_args(argv)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        parser.error("standard input and output must be a terminal (this is a full-screen game)")
    from .app import PlayApp  # Textual loads for the game, not for --help

    app = PlayApp(
        options.host, options.port, name=options.name, game=options.game, watch=options.watch
    )
    ending = app.run()
    if app.error is not None:
        raise app.error
    if ending is None:
        return 0
    if ending.text:
        print(f"dod-play: {ending.text}", file=sys.stderr if ending.status else sys.stdout)
    return ending.status
