"""Children that end when the process that started them ends, however it ends.

A parent hands each long-lived child it starts the read end of one pipe of its own
(:func:`child_options`, for ``subprocess.Popen`` and ``trio.lowlevel.open_process``) and
keeps the write end, never writing to it. When the parent ends (it returns, crashes or
is killed with ``kill -9``), the kernel closes the write end and every child reads the
end of the pipe at once. A child that holds its end (:func:`hold`) is then ended: its
own way first (a clean stop that tells its clients), and for certain a grace period
later, so that no child outlives its parent, nor keeps a port.

Why a pipe, not ``prctl(PR_SET_PDEATHSIG)``: the kernel sends that signal when the
*thread* that started the child ends, and trio starts processes from its worker
threads, which end when idle; a child would be killed while its parent lived on.

A program told nothing (no lifeline in its environment, started by hand) holds nothing.
"""

from __future__ import annotations

import os
import signal
import stat
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["ENVIRONMENT", "PARENT_GONE_STATUS", "child_options", "hold"]

ENVIRONMENT: Final = "DOD_LIFELINE_FD"
"""The environment variable that names a child's end of the pipe (a file descriptor)."""
PARENT_GONE_STATUS: Final = 128 + signal.SIGHUP
"""The exit status of a child its lifeline ended after the grace: hung up on."""
GRACE: Final = 20.0
"""Seconds a child has to stop its own way once its parent has ended."""

_lock = threading.Lock()
_pipe: tuple[int, int] | None = None


def _ours() -> int:
    """This process's end to hand its children (the pipe is made once, on first use)."""
    global _pipe
    with _lock:
        if _pipe is None:
            _pipe = os.pipe()  # both ends close on exec: a child gets only what it is passed
        return _pipe[0]


def child_options(
    *, pass_fds: tuple[int, ...] = (), env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """``pass_fds`` and ``env`` for starting a child that holds this process's lifeline:
    the given descriptors and environment (default: this process's) and the lifeline's."""
    end = _ours()
    return {
        "pass_fds": (*pass_fds, end),
        "env": {**(os.environ if env is None else env), ENVIRONMENT: str(end)},
    }


def hold(on_cut: Callable[[], object] | None = None, *, grace: float = GRACE) -> bool:
    """Watch the lifeline this process was given, if any, from a thread of its own: once
    the parent has ended, call ``on_cut()`` there (default: send this process
    ``SIGTERM``), and if the process still runs ``grace`` seconds later, end it with
    :data:`PARENT_GONE_STATUS`. Whether a lifeline was held.

    The variable is taken out of the environment and the descriptor closes on exec, so
    this process's own children do not inherit either."""
    named = os.environ.pop(ENVIRONMENT, None)
    if named is None:
        return False
    try:
        end = int(named)
        if not stat.S_ISFIFO(os.fstat(end).st_mode):
            return False  # not a lifeline (a stale variable): nothing to watch
        os.set_inheritable(end, False)
    except (ValueError, OSError):
        return False
    threading.Thread(target=_watch, args=(end, on_cut, grace), name="lifeline", daemon=True).start()
    return True


def _watch(end: int, on_cut: Callable[[], object] | None, grace: float) -> None:
    try:
        while os.read(end, 4096):  # a parent never writes: only its end comes
            pass
    except OSError:
        pass  # the same: nothing more will come
    try:
        if on_cut is None:
            os.kill(os.getpid(), signal.SIGTERM)
        else:
            on_cut()
    finally:
        time.sleep(grace)
        os._exit(PARENT_GONE_STATUS)
