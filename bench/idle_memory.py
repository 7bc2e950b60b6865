"""``python -m bench.idle_memory``: the server's resident memory per idle connection.

Starts the game server (as :mod:`bench.load` does: ``python -m server`` on a classic
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
import json
import os
import resource
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


def run(connections: int) -> Figures:
    _raise_file_limit(connections + 100)
    args = load.build_parser().parse_args(["--connections", str(connections)])
    with load.game_server(args) as server:
        pid = server.process.pid
        descriptors = _open_sockets(pid)
        load_before = os.getloadavg()
        rss_empty = server.rss_kib()
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
        finally:
            for sock in sockets:
                with contextlib.suppress(OSError):
                    sock.close()
    return {
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.idle_memory", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--connections", "-n", type=int, default=10_000)
    parser.add_argument("--code", metavar="DIR", help="run the server from the source tree in DIR")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = parser.parse_args(argv)
    if args.code:
        # ``python -m server`` imports from its working directory first, then PYTHONPATH.
        os.chdir(args.code)
        os.environ["PYTHONPATH"] = args.code + os.pathsep + os.environ.get("PYTHONPATH", "")
    figures = run(args.connections)
    print(
        f"{figures['connections']:,} connections (accepted in "
        f"{figures['seconds_to_connect']:.1f} s): server RSS {figures['rss_empty_kib'] / 1024:.1f}"
        f" MiB empty, {figures['rss_silent_kib'] / 1024:.1f} MiB connected and silent, "
        f"{figures['rss_players_kib'] / 1024:.1f} MiB after one LOOK each\n"
        f"  {figures['kib_per_silent_connection']:.1f} KiB per silent connection, "
        f"{figures['kib_per_idle_player']:.1f} KiB per idle player (target: under 15); "
        f"load average {figures['load_before'][0]:.2f} before, {figures['load_after'][0]:.2f} after"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
