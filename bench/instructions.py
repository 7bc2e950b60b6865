"""``python -m bench.instructions``: instructions per command, counted by callgrind.

Wall-clock figures move with whatever else the machine runs; the number of
instructions a command executes does not. This runs each server under
``valgrind --tool=callgrind`` and drives it with a fixed script of commands from
one connection, one command at a time (each reply read in full before the next
command), and prints the instructions the server executed per command:

* the game (``python -m server``, a classic world on :func:`bench.load.arena_map`,
  replays and records on, as :mod:`bench.load` runs it): ``LOOK``, ``MOVE``, the
  mix of :data:`bench.generator.MIXES`, ``GAMES``, and a ``MOVE`` into a wall (the
  answer a bot gets about as often as ``SUCCESS`` in :mod:`bench.load`'s arena);
* the game in the battle world: a turn (``LOOK``, two moves, ``ENDTURN``);
* the bare poll server (:mod:`bench.bare_server` ``--poll --shaped``), the same I/O
  design with a fixed reply: the floor the game's own work is measured from.

How the figure is made exact and repeatable:

* the servers run on a frozen trio clock (:class:`trio.testing.MockClock`, rate 0):
  no timer (the watchdog, a game's replay flush, a turn time-out) fires, however
  long valgrind takes, so the only work counted is the commands';
* ``PYTHONHASHSEED=0`` and the fixed seed make every hash and every map the same;
* the server's environment and working folder are the same on every run, and what its
  start left to threads (the records store opening) is done before the first command, so
  that the commands meet the same heap;
* every phase is warmed up first (imports, caches, the interpreter's specialised
  instructions), then counted between two ``callgrind_control --dump`` calls, made
  while the server waits in ``epoll_wait``; what two dumps with no command between them
  hold (the wake-up they cause, a few hundred instructions) is taken from each phase.

Five runs agreed within 0.7 % a phase, three more (after the wait before the first
command) within 0.5 %, whatever else the machine ran: see docs/performance.md.

The per-command figure is the whole command as the server sees it: the wake-up
from ``epoll_wait``, the read, the parsing, the world, the reply, the replay, the
metrics and the write, and trio's scheduling around them. Nothing here asserts a
speed; ``valgrind`` must be installed (Debian: ``valgrind``).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from commandline import lifeline

from . import generator, load
from .load import Figures


@dataclass(frozen=True)
class Phase:
    """Commands sent in turn, ``count`` times one unit of ``len(unit)`` commands."""

    name: str
    unit: tuple[bytes, ...]
    unit_name: str | None = None  # a unit worth its own figure ("turn"), else None
    warmed_last: bool = False
    """Warmed up just before it is counted, after every other phase is counted: its
    warm-up leaves the game in a state the other phases must not meet."""

    def commands(self, units: int) -> Iterator[bytes]:
        return itertools.islice(itertools.cycle(self.unit), units * len(self.unit))


LOOK = Phase("LOOK", (b"LOOK\n",))
MOVE = Phase("MOVE", generator.MIXES["move"])
MIX = Phase("mix", generator.MIXES["mix"])
GAMES = Phase("GAMES", (b"GAMES\n",))
# Bots walk into walls and each other about as often as they move (bench.load's arena):
# the player walks north to the arena's wall in the warm-up, then every MOVE N fails.
BLOCKED = Phase("blocked", (b"MOVE N\n",), warmed_last=True)
BATTLE_TURN = Phase(
    "battle turn", (b"LOOK\n", b"MOVE N\n", b"MOVE S\n", b"ENDTURN\n"), unit_name="turn"
)


@dataclass(frozen=True)
class Target:
    """A server to count, and the phases to count on it."""

    name: str
    phases: tuple[Phase, ...]
    world: str | None  # None: the bare poll server


TARGETS = (
    Target("game", (LOOK, MOVE, MIX, GAMES, BLOCKED), "classic"),
    Target("game", (BATTLE_TURN,), "battle"),
    Target("bare-poll", (LOOK, MOVE, MIX, GAMES, BLOCKED), None),
)


# -- run inside valgrind: the server on a frozen clock ------------------------------------


def serve_on_frozen_clock(kind: str, argv: list[str]) -> None:
    """Run the game (``kind`` "game") or the bare poll server with trio's clock frozen."""
    import trio
    import trio.testing

    real_run = trio.run

    def run_frozen(*args: object, **kwargs: object) -> object:
        # Rate 0: trio.current_time() never moves, so no deadline is ever reached.
        kwargs.setdefault("clock", trio.testing.MockClock())
        return real_run(*args, **kwargs)  # type: ignore[arg-type]

    trio.run = run_frozen  # type: ignore[assignment]
    # trio's idle worker threads (the records store's) end after ten seconds of real
    # time, whenever that falls: kept waiting instead, they run no instruction.
    from trio._core import _thread_cache

    _thread_cache.IDLE_TIMEOUT = int(threading.TIMEOUT_MAX)
    if kind == "game":
        from server.cli import main as server_main

        if os.environ.get("DOD_BENCH_PLAIN_PATH"):
            from server.app import Server

            Server.fast_path = False  # the plain path the fast path is measured against

        sys.exit(server_main(argv))
    from . import bare_server

    sys.argv = ["bench.bare_server", *argv]
    bare_server.main()


# -- the driver ---------------------------------------------------------------------------

PLAIN_PATH = False
"""Serve every connection through the plain path, not the fast path
(:mod:`server.session.fast_path`): what the fast path saves is the difference."""


def read_reply(sock: socket.socket, pending: bytearray, command: bytes) -> bytes:
    """Read one whole reply to ``command`` (the game's or the shaped bare server's).

    ``LOOK`` is answered by ``LOOKREPLY`` and a square of rows, ``GAMES n`` by n more
    lines, anything else by one line."""
    lines: list[bytes] = []
    needed = 1
    while len(lines) < needed:
        while b"\n" not in pending:
            chunk = sock.recv(65536)
            if not chunk:
                raise RuntimeError(f"the server closed the connection after {command!r}")
            pending += chunk
        end = pending.index(b"\n")
        line = bytes(pending[:end])
        del pending[: end + 1]
        lines.append(line)
        if len(lines) == 1 and line == b"LOOKREPLY":
            needed = 2  # the first row says how many rows there are
        elif len(lines) == 2 and lines[0] == b"LOOKREPLY":
            needed = 1 + len(line)
        elif len(lines) == 1 and line.startswith(b"GAMES "):
            needed = 1 + int(line.split()[1])
    if command == b"LOOK\n" and lines[0] != b"LOOKREPLY":
        raise RuntimeError(f"LOOK was answered {lines[0]!r}")
    if lines[0].startswith((b"ERROR", b"FAIL invalid")):
        raise RuntimeError(f"{command!r} was answered {lines[0]!r}")
    return b"\n".join(lines)


def _drive(sock: socket.socket, pending: bytearray, commands: Iterator[bytes]) -> int:
    sent = 0
    for command in commands:
        sock.sendall(command)
        read_reply(sock, pending, command)
        sent += 1
    return sent


class Callgrind:
    """One process under callgrind, told what to do through ``callgrind_control``."""

    def __init__(self, pid: int, output: Path) -> None:
        self.pid = pid
        self.output = output
        self.dumps = 0

    def control(self, *options: str) -> None:
        subprocess.run(
            ["callgrind_control", *options, str(self.pid)],
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=600,
        )

    def dump(self, keep: Path | None = None) -> int:
        """Instructions executed since the last dump, then zero; the dump is copied to
        ``keep`` (for ``callgrind_annotate``) when given."""
        self.dumps += 1
        self.control(f"--dump=phase-{self.dumps}")
        found = [
            path
            for path in self.output.parent.glob(self.output.name + ".*")
            if path.name.rsplit(".", 1)[-1].isdigit()
            and int(path.name.rsplit(".", 1)[-1]) == self.dumps
        ]
        if len(found) != 1:
            raise RuntimeError(f"callgrind's dump {self.dumps} is not where expected: {found}")
        if keep is not None:
            shutil.copyfile(found[0], keep)
        return totals(found[0].read_text(errors="replace"))


_TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.MULTILINE)


def totals(dump: str) -> int:
    """The instructions (Ir) counted in one callgrind output file."""
    match = _TOTALS.search(dump)
    if match is None:
        raise RuntimeError("a callgrind dump without totals")
    return int(match.group(1))


@contextlib.contextmanager
def under_callgrind(
    target: Target, folder: Path, seed: int
) -> Iterator[tuple[load.ServerProcess, Callgrind]]:
    if target.world is not None:
        args = load.build_parser().parse_args(
            ["--connections", "1", "--world", target.world, "--seed", str(seed)]
        )
        # Paths relative to the server's working folder: the same bytes on every run
        # (a random scratch name would hash differently and move the count).
        kind, argv = (
            "game",
            [
                os.path.relpath(arg, folder) if arg.startswith(str(folder)) else arg
                for arg in load.game_argv(args, str(folder))
            ],
        )
    else:
        kind, argv = "bare", ["--port", "0", "--poll", "--shaped"]
    output = folder / "callgrind.out"
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",  # starting Python at full instrumentation takes minutes
        f"--callgrind-out-file={output.resolve()}",
        sys.executable,
        "-m",
        "bench.instructions",
        "--serve",
        kind,
        "--",
        *argv,
    ]
    # The same environment on every run, whatever the caller's holds: its size and
    # contents move the process's stack and the interpreter's first allocations.
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
    }
    if PLAIN_PATH:
        env["DOD_BENCH_PLAIN_PATH"] = "1"
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=folder,
        **lifeline.child_options(env=env),
    )
    try:
        server = load.attach_server(f"{target.name}", process, timeout=600)
        yield server, Callgrind(process.pid, output)
    finally:
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def cpu_ticks(pid: int) -> int:
    """User and system time of every thread of ``pid`` so far, in clock ticks (Linux)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


def wait_until_quiet(pid: int, still: float = 1.0, timeout: float = 600.0) -> None:
    """Return once ``pid`` has used no CPU for ``still`` seconds: its threads (the records
    store opening in a worker thread, say) are done with what the start gave them."""
    deadline = time.monotonic() + timeout
    last = cpu_ticks(pid)
    while time.monotonic() < deadline:
        time.sleep(still)
        now = cpu_ticks(pid)
        if now == last:
            return
        last = now
    raise RuntimeError(f"the server under callgrind was still busy after {timeout:g} s")


def count(
    target: Target, units: int, warmup: int, seed: int, keep: Path | None = None
) -> list[Figures]:
    """Instructions per command of each of ``target``'s phases; with ``keep``, each
    phase's callgrind output is kept in that folder."""

    def kept(phase: str) -> Path | None:
        if keep is None:
            return None
        label = f"{target.name}-{target.world or 'bare'}-{phase}".replace(" ", "-")
        return keep / f"callgrind.{label}.out"

    with (
        tempfile.TemporaryDirectory() as scratch,
        under_callgrind(target, Path(scratch), seed) as (server, callgrind),
        socket.create_connection(("127.0.0.1", server.port)) as sock,
    ):
        pending = bytearray()
        # What the start left to threads (the records store opening) is done before the
        # first command, so that the commands always meet the same heap.
        wait_until_quiet(server.process.pid)
        for phase in target.phases:
            if not phase.warmed_last:
                _drive(sock, pending, phase.commands(warmup))
        wait_until_quiet(server.process.pid)
        callgrind.control("--instr=on")
        callgrind.dump()  # from here on, each dump holds one phase alone
        idle = callgrind.dump(kept("idle"))
        rows = []
        for phase in target.phases:
            if phase.warmed_last:
                _drive(sock, pending, phase.commands(warmup))
                callgrind.dump()  # the warm-up's instructions, not counted
            sent = _drive(sock, pending, phase.commands(units))
            # Each dump also holds what a dump with no command holds (callgrind_control's
            # wake-up of the server): taken away, what is left is the commands' alone.
            instructions = callgrind.dump(kept(phase.name)) - idle
            rows.append(
                {
                    "server": target.name,
                    "world": target.world,
                    "phase": phase.name,
                    "commands": sent,
                    "instructions": instructions,
                    "per_command": instructions / sent,
                    "per_unit": instructions / units,
                    "unit": phase.unit_name,
                    "idle": idle,
                }
            )
    return rows


def report(rows: Sequence[Figures]) -> str:
    lines = [
        f"{'server':9} {'world':8} {'phase':12} {'commands':>8} {'instructions':>14} "
        f"{'per command':>12} {'per unit':>12}"
    ]
    for row in rows:
        per_unit = f"{row['per_unit']:12,.0f} per {row['unit']}" if row["unit"] else ""
        lines.append(
            f"{row['server']:9} {row['world'] or '-':8} {row['phase']:12} {row['commands']:8,d} "
            f"{row['instructions']:14,d} {row['per_command']:12,.0f} {per_unit}".rstrip()
        )
    lines.append(f"total instructions: {sum(row['instructions'] for row in rows):,d}")
    idle = sorted({row["idle"] for row in rows})
    lines.append(
        "instructions between two dumps with no command (taken from each phase): "
        + ", ".join(f"{value:,d}" for value in idle)
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.instructions", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--units", type=int, default=200, help="commands (or turns) per phase")
    parser.add_argument("--warmup", type=int, default=50, help="uncounted units per phase first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--only",
        choices=["game", "battle", "bare-poll"],
        action="append",
        help="count only these servers (repeatable)",
    )
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument(
        "--plain-path",
        action="store_true",
        help="serve through the plain path, not the fast path (what the fast path saves)",
    )
    parser.add_argument(
        "--keep", metavar="DIR", help="keep each phase's callgrind output in DIR (annotate it)"
    )
    parser.add_argument("--serve", choices=["game", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve_on_frozen_clock(args.serve, [a for a in args.rest if a != "--"])
        return
    global PLAIN_PATH
    PLAIN_PATH = args.plain_path
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    rows: list[Figures] = []
    for target in TARGETS:
        label = "battle" if target.world == "battle" else target.name
        if args.only and label not in args.only:
            continue
        print(f"counting {label} under callgrind...", file=sys.stderr, flush=True)
        keep = None
        if args.keep:
            keep = Path(args.keep)
            keep.mkdir(parents=True, exist_ok=True)
        rows += count(target, args.units, args.warmup, args.seed, keep)
    print(report(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
