"""What the console games share: ending quietly when their terminal or pipe goes away."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

from commandline import INTERRUPTED_STATUS, run_command


def run_console_game(play: Callable[[], int], *, name: str | None = None) -> int:
    """Run ``play`` and return its exit status.

    ``Ctrl-C`` ends the game at once with status 130, ``<name>: interrupted`` on
    standard error and no traceback; a reader that stops reading (``dod-crawler |
    head``) ends it with status 141, silently (:func:`commandline.run_command`, as
    every command). ``play`` must flush what it writes as it writes it (a prompt is
    seen before its answer is read): ``Ctrl-C`` ends the process where it stands.
    """
    program = name or os.path.basename(sys.argv[0]) or "python"
    # A SIGINT ignored from the start (a game run in the background of a script) stays
    # ignored, as a shell expects of every program; one handled by its caller (a game
    # played in a thread, or in a test) is the caller's.
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler or (
        threading.current_thread() is not threading.main_thread()
    ):
        return run_command(play, name=program)
    signal.signal(signal.SIGINT, lambda signum, frame: _leave(program, frame))
    try:
        return run_command(play, name=program)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _leave(program: str, _frame: FrameType | None) -> None:
    """``Ctrl-C`` in a console game: say so and end the process, now.

    Not by raising ``KeyboardInterrupt``, as Python's own handler does: Python runs a
    signal's handler wherever the main thread is, and an exception raised while it runs
    a finalizer or a weak reference's callback (a garbage collection between a
    prompt's write and the read of its answer) is printed as "Exception ignored" and
    dropped, and the game then waited for its next key for ever. Everything the game
    wrote is flushed already, and it holds nothing to clean up.
    """
    with contextlib.suppress(Exception):  # standard error is gone: the status says it
        print(f"\n{program}: interrupted", file=sys.stderr, flush=True)
    os._exit(INTERRUPTED_STATUS)
