"""Real ``dod-server`` nodes sharing a real PostgreSQL, and clients that speak only bytes.

The PostgreSQL server is the session's (``tests/postgres.py``: started from Debian's
binaries, skipped with the reason where they are absent); each test gets a database of its own.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
import trio

from bench.faults.links import Link
from dungeon_of_doom.commandline import lifeline
from dungeon_of_doom.server.cluster.hub import Hub

from .hosts import Hosts, skip_unless_possible

ROOT = Path(__file__).parents[2]
WAIT = 60.0
"""Seconds any one wait may take before the test fails (a bound, never a pace)."""


class Node:
    """One ``dod-server`` process; its standard error is read all along (never blocks it)."""

    def __init__(
        self,
        *args: str,
        cwd: Path,
        on: Sequence[str] = (),
        host: str = "127.0.0.1",
        listening: bool = True,
    ) -> None:
        """Start it, and (``listening``) wait until it says where it listens."""
        self.host = host
        self.process = subprocess.Popen(
            [
                *on,
                sys.executable,
                "-m",
                "dungeon_of_doom.server",
                "--port",
                "0",
                "--no-http",
                "--no-db",
                *args,
            ],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            # A test run killed takes its servers with it.
            **lifeline.child_options(env={**os.environ, "PYTHONPATH": str(ROOT)}),
        )
        self.output = ""
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.port = 0
        if listening:
            self.port = int(self.wait_for(r"listening on [^\s]+:(\d+)").group(1))

    def _read(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            with self._changed:
                self.output += raw.decode(errors="replace")
                self._changed.notify_all()
        with self._changed:
            self.output += "\n(exited)\n"
            self._changed.notify_all()

    def wait_for(self, pattern: str) -> re.Match[str]:
        """The first match of ``pattern`` in the node's log, once it is there."""
        with self._changed:
            found: re.Match[str] | None = None

            def seen() -> bool:
                nonlocal found
                found = re.search(pattern, self.output)
                return found is not None or "(exited)" in self.output

            self._changed.wait_for(seen, timeout=WAIT)
            assert found is not None, f"never logged {pattern!r}: {self.output[-3000:]}"
            return found

    def client(self) -> Client:
        return Client(self.port, self.host)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=WAIT)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Client:
    """A client of raw bytes: one line out, the reply's lines back."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        self.socket = socket.create_connection((host, port), timeout=WAIT)
        self.file = self.socket.makefile("rb")

    def send(self, line: str) -> None:
        self.socket.sendall(line.encode() + b"\n")

    def line(self) -> str:
        raw = self.file.readline()
        assert raw.endswith(b"\n"), f"connection ended: {raw!r}"
        return raw.decode().rstrip("\n")

    def ask(self, line: str) -> str:
        self.send(line)
        return self.line()

    def games(self) -> list[str]:
        """The names ``GAMES`` lists."""
        head = self.ask("GAMES")
        count = int(head.split()[1])
        return [self.line().split()[1] for _ in range(count)]

    def close(self) -> None:
        self.file.close()
        self.socket.close()


def eventually(check: Callable[[], bool], what: str) -> None:
    """Wait until ``check()`` holds (asked again every few milliseconds), or fail."""
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.01)


class Cluster:
    """Nodes of one cluster on one database; every node started is stopped after the test."""

    def __init__(self, url: str, folder: Path) -> None:
        self.url = url
        self.folder = folder
        self.nodes: list[Node] = []

    def node(self, *args: str, on: Sequence[str] = (), host: str = "127.0.0.1") -> Node:
        node = Node(
            "--no-replays",
            "--cluster",
            self.url,
            "--heartbeat",
            "0.2",
            "--host",
            host,
            *args,
            cwd=self.folder,
            on=on,
            host=host,
        )
        self.nodes.append(node)
        return node


def database_link(cluster: Cluster, host: str = "127.0.0.1") -> tuple[Link, str]:
    """A :class:`Link` on ``host`` to the cluster's PostgreSQL (to be cut), and the
    cluster's URL through it."""
    db_host, port = cluster.url.split("@", 1)[1].split("/", 1)[0].rsplit(":", 1)
    link = Link((db_host, int(port)), host=host)
    return link, cluster.url.replace(f"{db_host}:{port}", f"{host}:{link.port}")


def on_hosts(cluster: Cluster, hosts: Hosts, count: int, *args: str) -> tuple[list[Node], Link]:
    """``count`` nodes (started with ``args``), each on a host of its own, reaching
    PostgreSQL over the switch through one :class:`Link` (cut it after the test)."""
    database, url = database_link(cluster, hosts.own)
    nodes = []
    for number in range(1, count + 1):
        on, address = hosts.host(number)
        nodes.append(cluster.node("--cluster", url, *args, on=on, host=address))
    return nodes, database


@pytest.fixture
def cluster(postgres_url: str, tmp_path: Path) -> Iterator[Cluster]:
    started = Cluster(postgres_url, tmp_path)
    yield started
    for node in started.nodes:
        node.stop()


@pytest.fixture
def hosts() -> Iterator[Hosts]:
    """Hosts of their own (network namespaces) for the test, or a skip saying why not."""
    skip_unless_possible()
    made = Hosts()
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
async def directory(tmp_path: Path, nursery: trio.Nursery) -> tuple[Hub, str]:
    """The hub of a ``--workers`` parent serving on a Unix socket for the test, and the
    socket's path; it takes this process's members in, as a parent takes its workers."""
    path = str(tmp_path / "directory")
    hub = Hub()
    hub.admit(os.getpid())
    await nursery.start(hub.serve, path)
    return hub, path
