"""What the console games share: ending quietly when their terminal or pipe goes away."""

from __future__ import annotations

from collections.abc import Callable

from commandline import run_command


def run_console_game(play: Callable[[], int]) -> int:
    """Run ``play`` and return its exit status.

    ``Ctrl-C`` ends the game with status 130 and no traceback; a reader that stops
    reading (``dod-crawler | head``) ends it with status 141, silently
    (:func:`commandline.run_command`, as every command).
    """
    return run_command(play)
