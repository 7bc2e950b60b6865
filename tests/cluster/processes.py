"""What the kernel says about a test's processes: whose children they are, which of them
holds a client's connection, which still live."""

from __future__ import annotations

import contextlib
import os

from bench.cluster import held_sockets, tcp_sockets

from .conftest import Client


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (from /proc), oldest first."""
    found: list[tuple[int, int]] = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rpartition(")")[2].split()
                if int(fields[1]) == pid and fields[0] != "Z":
                    found.append((int(fields[19]), int(entry)))  # its start time, its pid
    return [child for _, child in sorted(found)]


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def holder_of(client: Client, pids: list[int]) -> int | None:
    """Which of ``pids`` holds the server's end of ``client``'s connection."""
    theirs = tcp_sockets(client.socket.getsockname()[1], far=True)
    return next((pid for pid in pids if held_sockets(pid) & theirs), None)
