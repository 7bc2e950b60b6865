"""``python -m bench.idle_memory``: the server's resident memory per idle connection.

Starts the game server (as :mod:`bench.load` does: ``python -m dungeon_of_doom.server`` on a classic
arena with room for every player, replays on, in a scratch folder) and opens
``--connections`` TCP connections to it from this process (its file limit raised to
the hard limit), then reads the server's resident memory (``VmRSS`` of
``/proc/PID/status``) at three moments:

1. before any connection;
2. once every connection is accepted and silent (the server's sockets, counted
   in ``/proc/PID/fd``, say when), the cost of a connection that never spoke;
3. once each connection has sent ``LOOK`` and read the reply, so that each is a
   player in the world, then idle again: what an idle bot costs.

It prints KiB per connection at 2 and at 3 (the growth over 1, divided by the
connections). The target of issue 19 is below 15 KiB at 10,000 connections.
``--code DIR`` runs the server from another source tree (an older commit unpacked
with ``git archive``), for before-and-after figures. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import resource
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

from . import load
from .load import Figures

LOOK_REPLY_LINES = 6


def _raise_file_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard != resource.RLIM_INFINITY and hard < needed:
        sys.exit(f"the file limit is {hard}; {needed} connections need more (ulimit -Hn)")


def _open_sockets(pid: int) -> int:
    """Sockets the process holds (its other files come and go: the records store's)."""
    count = 0
    for name in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            count += os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:")
    return count


def _wait_for(what: str, ready: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"gave up waiting for {what}")
        time.sleep(0.05)


def _look(sock: socket.socket) -> None:
    sock.sendall(b"LOOK\n")
    received = b""
    while received.count(b"\n") < LOOK_REPLY_LINES:
        chunk = sock.recv(4096)
        if not chunk:
            raise RuntimeError(f"the server closed a connection; it said {received!r}")
        received += chunk
    if not received.startswith(b"LOOKREPLY\n"):
        raise RuntimeError(f"expected a LOOKREPLY, got {received[:60]!r}")


def serve_traced(folder: str, argv: list[str]) -> None:
    """Run the game server with :mod:`tracemalloc` on (one frame a trace): each SIGUSR1
    writes a snapshot to ``folder``, as ``snapshot-N.pickle`` once complete."""
    import signal
    import tracemalloc

    from dungeon_of_doom.server.cli import main as server_main

    tracemalloc.start(1)
    taken = itertools.count()

    def snapshot(signum: int, frame: object) -> None:
        path = Path(folder) / f"snapshot-{next(taken)}.pickle"
        tracemalloc.take_snapshot().dump(str(path) + ".part")
        os.rename(str(path) + ".part", path)

    signal.signal(signal.SIGUSR1, snapshot)
    sys.exit(server_main(argv))


def _snapshot(pid: int, folder: Path, index: int) -> Path:
    os.kill(pid, signal.SIGUSR1)
    path = folder / f"snapshot-{index}.pickle"
    _wait_for(f"tracemalloc snapshot {index}", path.exists, timeout=600)
    return path


def traced_sites(before: Path, after: Path, connections: int, top: int = 25) -> list[Figures]:
    """Where the memory between two snapshots was allocated: bytes and blocks per
    connection at each line of code, the largest first."""
    import tracemalloc

    first = tracemalloc.Snapshot.load(str(before))
    second = tracemalloc.Snapshot.load(str(after))
    rows = []
    for stat in second.compare_to(first, "lineno")[:top]:
        frame = stat.traceback[0]
        rows.append(
            {
                "site": f"{frame.filename}:{frame.lineno}",
                "bytes_per_connection": stat.size_diff / connections,
                "blocks_per_connection": stat.count_diff / connections,
            }
        )
    return rows


def run(connections: int, trace: Path | None = None) -> Figures:
    _raise_file_limit(connections + 100)
    args = load.build_parser().parse_args(["--connections", str(connections)])
    launcher = None
    if trace is not None:
        trace.mkdir(parents=True, exist_ok=True)
        launcher = [sys.executable, "-m", "bench.idle_memory", "--serve-traced", str(trace), "--"]
    with load.game_server(args, launcher) as server:
        pid = server.process.pid
        descriptors = _open_sockets(pid)
        load_before = os.getloadavg()
        rss_empty = server.rss_kib()
        if trace is not None:
            empty = _snapshot(pid, trace, 0)
        sockets: list[socket.socket] = []
        started = time.monotonic()
        try:
            for _ in range(connections):
                sockets.append(socket.create_connection(("127.0.0.1", server.port)))
            _wait_for(
                "the server to accept every connection",
                lambda: _open_sockets(pid) >= descriptors + connections,
            )
            connected = time.monotonic() - started
            rss_silent = server.rss_kib()
            for sock in sockets:
                _look(sock)
            rss_players = server.rss_kib()
            if trace is not None:
                players = _snapshot(pid, trace, 1)
        finally:
            for sock in sockets:
                with contextlib.suppress(OSError):
                    sock.close()
    figures: Figures = {
        "connections": connections,
        "seconds_to_connect": connected,
        "rss_empty_kib": rss_empty,
        "rss_silent_kib": rss_silent,
        "rss_players_kib": rss_players,
        "kib_per_silent_connection": (rss_silent - rss_empty) / connections,
        "kib_per_idle_player": (rss_players - rss_empty) / connections,
        "load_before": load_before,
        "load_after": os.getloadavg(),
    }
    if trace is not None:
        figures["traced"] = traced_sites(empty, players, connections)
        figures["traced_bytes_per_connection"] = sum(
            row["bytes_per_connection"] for row in traced_sites(empty, players, connections, 10**6)
        )
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.idle_memory", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--connections", "-n", type=int, default=10_000)
    parser.add_argument("--code", metavar="DIR", help="run the server from the source tree in DIR")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument(
        "--tracemalloc",
        metavar="DIR",
        help="run the server with tracemalloc and print where each idle player's bytes were "
        "allocated (snapshots kept in DIR; tracing costs memory of its own: the RSS figures "
        "of such a run are not the server's)",
    )
    parser.add_argument("--serve-traced", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_traced:
        serve_traced(args.serve_traced, [a for a in args.rest if a != "--"])
        return
    if args.code:
        # ``python -m dungeon_of_doom.server`` imports from its working directory first,
        # then PYTHONPATH.
        os.chdir(args.code)
        os.environ["PYTHONPATH"] = args.code + os.pathsep + os.environ.get("PYTHONPATH", "")
    figures = run(args.connections, Path(args.tracemalloc) if args.tracemalloc else None)
    print(
        f"{figures['connections']:,} connections (accepted in "
        f"{figures['seconds_to_connect']:.1f} s): server RSS {figures['rss_empty_kib'] / 1024:.1f}"
        f" MiB empty, {figures['rss_silent_kib'] / 1024:.1f} MiB connected and silent, "
        f"{figures['rss_players_kib'] / 1024:.1f} MiB after one LOOK each\n"
        f"  {figures['kib_per_silent_connection']:.1f} KiB per silent connection, "
        f"{figures['kib_per_idle_player']:.1f} KiB per idle player (target: under 15); "
        f"load average {figures['load_before'][0]:.2f} before, {figures['load_after'][0]:.2f} after"
    )
    if "traced" in figures:
        print(
            f"  traced by tracemalloc: {figures['traced_bytes_per_connection']:,.0f} bytes per "
            "idle player, of which:"
        )
        for row in figures["traced"]:
            print(
                f"  {row['bytes_per_connection']:8,.0f} B {row['blocks_per_connection']:6.2f} "
                f"blocks  {row['site']}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
