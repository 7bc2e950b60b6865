"""Command-line tools whose reader may go away (``dod-records … | head``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

BROKEN_PIPE_STATUS = 141
"""128 + SIGPIPE: what a shell reports for a tool its reader stopped."""


def quiet_on_broken_pipe(run: Callable[[], int]) -> int:
    """``run()``'s exit status; if the reader of standard output went away, say
    nothing more (as other tools do) and return :data:`BROKEN_PIPE_STATUS`."""
    try:
        status = run()
        sys.stdout.flush()  # the last lines may still be buffered: fail here, not at exit
        return status
    except BrokenPipeError:
        # Point standard output at /dev/null so that the interpreter's own flush at
        # exit does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return BROKEN_PIPE_STATUS
