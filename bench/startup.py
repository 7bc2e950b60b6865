"""``python -m bench.startup``: what starting each ``dod-*`` command costs, in CPU seconds.

For every console script the project installs (``[project.scripts]``), it runs
``<command> --help`` ``--repeat`` times and reads the CPU time (user + system) the
process used, from the kernel's accounting of the finished child; then it starts a
plain ``dod-server`` (every default but the ports, which are ``0``, in a scratch
folder) and reads the CPU time the process has used when it prints ``listening on``,
and again when it prints its ``web page at`` line (the store and the web face load
after the server listens). Beside each figure is the one-minute load average while it
was measured: CPU seconds move far less with the machine's load than wall-clock
seconds do, but a busy machine still adds some (caches, frequency).

The targets of issue 38: every ``--help`` under 0.35 s, a plain server listening
within 0.6 s; a figure over its target is marked ``OVER``, and the exit status is 1.

Commands run as a user runs them: with their bytecode caches (the first, unmeasured,
run of each writes them, even where ``PYTHONDONTWRITEBYTECODE`` is set here).
``--code DIR`` runs another source tree (an older commit unpacked with ``git
archive``) for before-and-after figures; ``--json FILE`` writes the figures. Linux
only (``/proc``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from importlib.metadata import distribution
from pathlib import Path
from typing import IO, Final

HELP_TARGET: Final = 0.35
"""CPU seconds every ``--help`` may take (issue 38)."""
LISTEN_TARGET: Final = 0.6
"""CPU seconds a plain server may take before it listens (issue 38)."""
START_LIMIT: Final = 120.0
"""Wall-clock seconds one start may take before the benchmark gives up on it."""


@dataclass(frozen=True)
class Figure:
    """One measured start: its CPU seconds over ``repeat`` runs, and the load meanwhile."""

    what: str
    median: float
    least: float
    load: float
    target: float | None

    @property
    def over(self) -> bool:
        return self.target is not None and self.median > self.target


def commands() -> list[tuple[str, str]]:
    """Every console script of the project: its name and its ``module:function``."""
    scripts = distribution("dungeon-of-doom").entry_points.select(group="console_scripts")
    return sorted((script.name, script.value) for script in scripts)


def _environment(code: Path | None) -> dict[str, str]:
    environment = dict(os.environ)
    environment.pop("PYTHONDONTWRITEBYTECODE", None)  # measured as users run them
    environment.setdefault("DOD_HTTP_PORT", "0")
    if code is not None:
        environment["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(code), environment.get("PYTHONPATH")])
        )
    return environment


def _argv(name: str, target: str) -> list[str]:
    """How to run the script ``name``: its installed file, or the same call in ``-c``."""
    script = Path(sys.executable).with_name(name)
    if script.is_file():
        return [str(script)]
    module, _, function = target.partition(":")
    call = f"import sys; sys.argv[0] = {name!r}; from {module} import {function}; "
    return [sys.executable, "-c", call + f"sys.exit({function}())"]


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_of_run(argv: list[str], environment: dict[str, str], folder: Path) -> float:
    """The CPU seconds of one run of ``argv`` to its end (its output thrown away)."""
    before = _cpu_of_children()
    subprocess.run(
        argv,
        env=environment,
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=START_LIMIT,
        check=False,
    )
    return _cpu_of_children() - before


def cpu_of_process(pid: int) -> float:
    """The CPU seconds process ``pid`` has used so far, every thread of it: nanoseconds
    from ``/proc/PID/task/*/schedstat`` where the kernel keeps them, else clock ticks."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[0])
        return total / 1e9
    except (OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_for(stream: IO[str], marker: str, seen: list[str]) -> None:
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            raise RuntimeError("the server ended before it said " + repr(marker) + "".join(seen))
        seen.append(line)
        if marker in line:
            return
    raise RuntimeError(f"no {marker!r} within {START_LIMIT:g} seconds")


def cpu_of_server(argv: list[str], environment: dict[str, str]) -> tuple[float, float]:
    """CPU seconds of a plain server when it says it listens, and when its web page is up."""
    with tempfile.TemporaryDirectory(prefix="dod-startup-") as folder:
        server = subprocess.Popen(
            [*argv, "--port", "0", "--http-port", "0"],
            env=environment,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert server.stderr is not None
        seen: list[str] = []
        try:
            _wait_for(server.stderr, "listening on", seen)
            listening = cpu_of_process(server.pid)
            _wait_for(server.stderr, "web page at", seen)
            serving = cpu_of_process(server.pid)
        finally:
            server.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.communicate(timeout=START_LIMIT)
            server.kill()
            server.wait()
    return listening, serving


def _figure(what: str, samples: list[float], loads: list[float], target: float | None) -> Figure:
    return Figure(what, statistics.median(samples), min(samples), statistics.mean(loads), target)


def measure(repeat: int, code: Path | None) -> list[Figure]:
    """Every figure: each command's ``--help``, ``dod-server --list-worlds``, and a plain
    server until it listens and until its web page is up."""
    environment = _environment(code)
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="dod-startup-") as scratch:
        folder = Path(scratch)
        runs = [(f"{name} --help", [*_argv(name, target), "--help"]) for name, target in commands()]
        server = _argv("dod-server", "server.cli:main")
        runs.append(("dod-server --list-worlds", [*server, "--list-worlds"]))
        for what, argv in runs:
            cpu_of_run(argv, environment, folder)  # writes the bytecode caches; not counted
            samples, loads = [], []
            for _ in range(repeat):
                loads.append(os.getloadavg()[0])
                samples.append(cpu_of_run(argv, environment, folder))
            target = HELP_TARGET if what.endswith("--help") else None
            figures.append(_figure(what, samples, loads, target))
            _print(figures[-1])
    cpu_of_server(server, environment)  # its caches, and the store's first migration
    listening: list[float] = []
    serving: list[float] = []
    loads = []
    for _ in range(repeat):
        loads.append(os.getloadavg()[0])
        at_listen, at_web = cpu_of_server(server, environment)
        listening.append(at_listen)
        serving.append(at_web)
    for figure in (
        _figure("dod-server, until it listens", listening, loads, LISTEN_TARGET),
        _figure("dod-server, until its web page is up", serving, loads, None),
    ):
        figures.append(figure)
        _print(figure)
    return figures


def _print(figure: Figure) -> None:
    target = "" if figure.target is None else f"  (target {figure.target:.2f})"
    mark = "  OVER" if figure.over else ""
    print(
        f"{figure.what:44} {figure.median:6.3f} s CPU (least {figure.least:.3f})"
        f"  load {figure.load:5.2f}{target}{mark}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.startup", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs of each (median shown)")
    parser.add_argument("--code", type=Path, help="run the commands from this source tree")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    options = parser.parse_args(argv)
    print(f"CPU seconds of each start, median of {options.repeat} ({os.cpu_count()} cores)")
    figures = measure(max(1, options.repeat), options.code)
    if options.json is not None:
        options.json.write_text(json.dumps([asdict(f) for f in figures], indent=2) + "\n")
    return 1 if any(figure.over for figure in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
