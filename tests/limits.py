"""Time limits for the processes tests start, derived from what a start costs here, now.

A test that starts a ``dod-server``, a bot or a command waits for it within a limit.
A fixed guess (ten seconds) holds on a quiet machine and fails on a busy one: on two
cores at a load average of 23, a start that takes half a second of CPU takes ten
seconds or more of wall-clock time. So the limits come from two measurements:

* :func:`start_cost`: the CPU seconds of one start, measured once per test run (a fresh
  interpreter importing what ``dod-server`` imports before it listens, the costliest of
  the commands' starts); the run's first process measures it and its workers inherit it
  through :data:`START_COST_VARIABLE`;
* :func:`contention`: how many runnable tasks share each core, from the one-minute load
  average, read when the limit is asked for: a process gets about one core in that many.

:func:`process_limit` is ``SAFETY`` times the CPU the wait covers (``starts`` starts,
plus ``work`` CPU seconds of whatever else the process does before the wait ends), times
the contention. A limit only bounds a failure: a passing test never waits for it, so a
generous one costs nothing, and one derived so holds on a quiet machine and a busy one
alike.
"""

from __future__ import annotations

import functools
import os
import resource
import subprocess
import sys
from typing import Final

__all__ = ["START_COST_VARIABLE", "contention", "measure_start_cost", "process_limit", "start_cost"]

SAFETY: Final = 10.0
"""How many times the expected CPU time a limit allows (scheduling, I/O, the first
run's caches)."""
START_COST_VARIABLE: Final = "DOD_TEST_START_CPU"
"""The environment variable that hands the measured start cost to the suite's workers."""
START: Final = "import server.app, server.cli, worlds.classic"
"""What a start imports: the server and a world, as ``dod-server`` does before it listens."""


def measure_start_cost() -> float:
    """CPU seconds of a fresh interpreter that imports what a server start imports."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = usage.ru_utime + usage.ru_stime
    subprocess.run([sys.executable, "-c", START], check=True, timeout=600)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime - before


@functools.cache
def start_cost() -> float:
    """The CPU seconds of one start: as the run's first process measured it, or measured
    now (a test file run on its own)."""
    inherited = os.environ.get(START_COST_VARIABLE)
    if inherited:
        return float(inherited)
    cost = measure_start_cost()
    os.environ[START_COST_VARIABLE] = f"{cost:.3f}"  # for the processes this one starts
    return cost


def contention() -> float:
    """Runnable tasks per core (at least 1): how many times longer than on an idle
    machine CPU work takes now."""
    cores = os.cpu_count() or 1
    return max(1.0, (os.getloadavg()[0] + 1) / cores)


def process_limit(starts: float = 1.0, *, work: float = 0.0) -> float:
    """Seconds to wait for ``starts`` process starts and ``work`` CPU seconds besides
    (what the process does before the wait ends), scaled by the machine's load now."""
    return SAFETY * (starts * start_cost() + work) * contention()
