"""Where people meet every ``dod-*`` command: its reader going away and ``Ctrl-C``.

``dod-knight --compare | head`` closes the pipe early; ``Ctrl-C`` stops a long
``dod-generate``. Neither is a bug of the command, so neither prints a traceback:
:func:`run_command` ends the command quietly with the status a shell gives a tool
stopped that way (141 for a closed pipe, 130 for ``Ctrl-C``). Every command's
``main`` runs its work through it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import Final

__all__ = [
    "BROKEN_PIPE_STATUS",
    "INTERRUPTED_STATUS",
    "run_command",
]

BROKEN_PIPE_STATUS: Final = 141
"""128 + SIGPIPE: what a shell reports for a tool its reader stopped."""
INTERRUPTED_STATUS: Final = 130
"""128 + SIGINT: what a shell reports for a tool stopped with ``Ctrl-C``."""


def run_command(run: Callable[[], int], *, name: str | None = None) -> int:
    """``run()``'s exit status, or, if the reader of standard output went away or the
    user pressed ``Ctrl-C`` (also inside trio's nurseries, as an exception group),
    :data:`BROKEN_PIPE_STATUS` or :data:`INTERRUPTED_STATUS` with no traceback: a
    closed pipe says nothing more (as other tools do), ``Ctrl-C`` says
    ``<name>: interrupted`` on standard error. Any other error is raised as it was.
    """
    try:
        status = run()
        sys.stdout.flush()  # the last lines may still be buffered: fail here, not at exit
        return status
    except BrokenPipeError:
        return _reader_gone()
    except KeyboardInterrupt:
        return _interrupted(name)
    except BaseExceptionGroup as group:
        if _only(group, BrokenPipeError):
            return _reader_gone()
        if _only(group, KeyboardInterrupt, BrokenPipeError):
            return _interrupted(name)
        raise


def _only(group: BaseExceptionGroup[BaseException], *kinds: type[BaseException]) -> bool:
    rest = group.split(kinds)[1]
    return rest is None


def _reader_gone() -> int:
    # Point standard output at /dev/null so that the interpreter's own flush at exit
    # does not fail again (and print "Exception ignored ... BrokenPipeError").
    with contextlib.suppress(OSError, ValueError):  # no standard output to point anywhere
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return BROKEN_PIPE_STATUS


def _interrupted(name: str | None) -> int:
    program = name or os.path.basename(sys.argv[0]) or "python"
    with contextlib.suppress(OSError, ValueError):  # standard error is gone: the status says it
        print(f"\n{program}: interrupted", file=sys.stderr, flush=True)
    return INTERRUPTED_STATUS
