"""What the console games share: ending quietly when their terminal or pipe goes away."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def run_console_game(play: Callable[[], int]) -> int:
    """Run ``play`` and return its exit status.

    ``Ctrl-C`` ends the game with status 130 and no traceback; a reader that stops
    reading (``dod-crawler | head``) ends it with status 1, silently.
    """
    try:
        return play()
    except KeyboardInterrupt:
        print(file=sys.stdout, flush=True)
        return 130
    except BrokenPipeError:
        # Python flushes standard output once more at exit; point it somewhere harmless
        # so that the closed pipe is not reported a second time.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
