"""The system the campaign breaks: real processes on hosts of their own, real links.

* Three nodes of one cluster (``A``, ``B``, ``C``), each a ``dod-server --cluster`` on a
  network-namespace host of its own (:class:`bench.faults.hosts.Hosts`), recording into
  the cluster's database (``--db auto``) with a records journal of its own that outlives
  it (a node killed and started again finishes writing what it told).
* PostgreSQL on a fourth host (:class:`bench.faults.postgres.PostgresOnHost`). Each node reaches
  it through a forwarder of its own (:class:`bench.faults.links.Link`, in this process,
  on an address of the switch nothing else uses), so that the campaign can slow that one
  link or make it lossy; a cut is a black-hole route (:meth:`Hosts.block`).
* A ``dod-server --workers 2`` on a fifth host (``W``), with the embedded directory of its
  parent and a SQLite file of records.

Every process started is remembered with its children (:meth:`Rig.leftovers` says which
still run after the rig is closed: none should).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path

import psycopg

from .hosts import Hosts
from .links import Link
from .postgres import PostgresOnHost

PORT = 7000
"""Every node's game port (each on its own host's address)."""
HTTP_PORT = 7080
"""Every node's web port: ``/api/games`` says which games it holds itself."""
NODES = ("A", "B", "C")
WORKERS = "W"
DATABASE = "dod"
START_TIMEOUT = 60.0
SERVING = ("listening on ", "also serving ")
"""What a server process says once it serves (each worker of ``--workers``: the first
``listening on``, each other ``also serving``; every one ``listening on`` before issue 38)."""


class Process:
    """One server process on a host; its standard error kept (the last lines) and read
    all along, so that it never blocks on a full pipe."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        *,
        listeners: int = 1,
        log: Path | None = None,
        source: Path | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.argv = argv
        self._log = None if log is None else log.open("a", encoding="utf-8")
        env = None if source is None else {**os.environ, "PYTHONPATH": str(source)}
        self.process = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,  # not a checkout: python -m would take its packages first
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.lines: deque[str] = deque(maxlen=400)
        self._listening = 0
        self._changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        with self._changed:
            self._changed.wait_for(
                lambda: self._listening >= listeners or self.process.poll() is not None,
                timeout=START_TIMEOUT,
            )
        if self._listening < listeners:
            raise RuntimeError(f"{name} did not start: {self.tail()}")

    def _read(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            line = raw.decode(errors="replace").rstrip()
            if self._log is not None:
                self._log.write(line + "\n")
                self._log.flush()
            with self._changed:
                self.lines.append(line)
                if any(said in line for said in SERVING):
                    self._listening += 1
                self._changed.notify_all()

    def tail(self, count: int = 30) -> str:
        return "\n".join(list(self.lines)[-count:])

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signum)

    def kill(self) -> None:
        """``kill -9``, and wait for it to be gone."""
        self.signal(signal.SIGKILL)
        self.process.wait()

    def stop(self, timeout: float = 30.0) -> None:
        """``SIGTERM`` (after ``SIGCONT``, should it be paused), then ``SIGKILL`` if it
        has not ended within ``timeout`` seconds."""
        if not self.alive():
            return
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` now (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as stat:
                if int(stat.read().rpartition(")")[2].split()[1]) == pid:
                    found.append(int(entry))
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


class Rig:
    """The hosts, PostgreSQL, the nodes and the workers server; see the module docstring."""

    def __init__(
        self,
        *,
        heartbeat: float,
        log_level: str = "warning",
        logs: Path | None = None,
        server_from: Path | None = None,
    ) -> None:
        self.heartbeat = heartbeat
        self.server_from = server_from
        """Another checkout whose server the processes run (to see what the campaign
        finds in it), if given."""
        self.log_level = log_level
        self.logs = logs
        """A folder each server's log is written to (``NAME.log``), if given."""
        if logs is not None:
            logs.mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix="dod-faults-"))
        self.hosts = Hosts()
        self.started: set[int] = set()
        """Every process started (and every child seen of one): all must end."""
        self.address: dict[str, str] = {}
        self._on: dict[str, list[str]] = {}
        for number, name in enumerate((*NODES, "PG", WORKERS), start=1):
            self._on[name], self.address[name] = self.hosts.host(number)
        self.forwarders_address = self.hosts.alias(250)
        self.postgres = PostgresOnHost(self._on["PG"], self.address["PG"], self.hosts.subnet)
        self.links: dict[str, Link] = {}
        self.nodes: dict[str, Process] = {}
        self.workers: Process | None = None
        self.workers_directory: str | None = None
        """``unix:PATH`` of the workers' embedded directory, once the parent says it."""

    # -- starting ---------------------------------------------------------------------

    def start(self) -> None:
        self.postgres.start()
        with psycopg.connect(self.postgres.url, autocommit=True) as db:
            db.execute(f"CREATE DATABASE {DATABASE}")
        for name in NODES:
            self.links[name] = Link(
                (self.address["PG"], PostgresOnHost.PORT), host=self.forwarders_address
            )
        # All at once: a Python server takes seconds to start on a busy machine.
        starting = [threading.Thread(target=self.start_node, args=(name,)) for name in NODES]
        starting.append(threading.Thread(target=self.start_workers))
        for thread in starting:
            thread.start()
        for thread in starting:
            thread.join()
        missing = [name for name in NODES if name not in self.nodes]
        if missing or self.workers is None:
            raise RuntimeError(f"servers did not start: {missing or [WORKERS]}")

    @property
    def database(self) -> str:
        """The cluster's database, reached directly (not through a node's link)."""
        return self.postgres.url.rsplit("/", 1)[0] + f"/{DATABASE}"

    def _node_url(self, name: str) -> str:
        return f"postgresql://postgres@{self.forwarders_address}:{self.links[name].port}/{DATABASE}"

    def _server(self, name: str, *args: str) -> list[str]:
        host = self.address[name]
        return [
            *self._on[name],
            sys.executable,
            "-m",
            "dungeon_of_doom.server",
            "--host",
            host,
            "--port",
            str(PORT),
            "--no-replays",
            "--heartbeat",
            str(self.heartbeat),
            # Every client comes from the campaign's one address.
            "--max-connections-per-address",
            "1000",
            "--max-games-per-address",
            "1000",
            "--log-level",
            self.log_level,
            *args,
        ]

    def start_node(self, name: str) -> Process:
        argv = self._server(
            name,
            "--cluster",
            self._node_url(name),
            "--db",
            "auto",
            "--http-host",
            self.address[name],
            "--http-port",
            str(HTTP_PORT),
            # Its own, kept across its restarts: what it told and had not written is
            # written when it starts again.
            "--records-journal",
            str(self.folder / f"journal-{name}"),
        )
        node = self.nodes[name] = Process(
            name, argv, log=self._log_file(name), source=self.server_from, cwd=self.folder
        )
        self.started.add(node.pid)
        return node

    def start_workers(self) -> Process:
        argv = self._server(
            WORKERS,
            "--workers",
            "2",
            "--no-http",
            "--db",
            f"sqlite:///{self.folder / 'workers-records.db'}",
        )
        workers = self.workers = Process(WORKERS, argv, listeners=2, log=self._log_file(WORKERS))
        self.started.add(workers.pid)
        self.started.update(self.worker_pids())
        for line in workers.lines:
            found = re.search(r"the workers' directory is (unix:\S+)", line)
            if found:
                self.workers_directory = found.group(1)
        return workers

    def _log_file(self, name: str) -> Path | None:
        return None if self.logs is None else self.logs / f"{name}.log"

    def worker_pids(self) -> list[int]:
        """The worker processes of the workers server now."""
        if self.workers is None:
            return []
        return children(self.workers.pid)

    # -- faults ----------------------------------------------------------------------

    def cut_database(self, name: str) -> None:
        """Node ``name`` no longer reaches PostgreSQL (its link black-holed); the nodes
        still see each other, and clients still see it."""
        self.hosts.block(self.address[name], self.forwarders_address)

    def heal_database(self, name: str) -> None:
        self.hosts.unblock(self.address[name], self.forwarders_address)

    def cut_peers(self, name: str) -> None:
        """Node ``name`` and the other nodes no longer reach each other, both ways; it
        still reaches PostgreSQL, and clients still reach it."""
        for other in NODES:
            if other != name:
                self.hosts.block(self.address[name], self.address[other])
                self.hosts.block(self.address[other], self.address[name])

    def heal_peers(self, name: str) -> None:
        for other in NODES:
            if other != name:
                self.hosts.unblock(self.address[name], self.address[other])
                self.hosts.unblock(self.address[other], self.address[name])

    def note_children(self) -> None:
        """Remember the workers server's children now (they must end with it)."""
        self.started.update(self.worker_pids())

    # -- ending -----------------------------------------------------------------------

    def stop_servers(self) -> None:
        """Stop every server gently (their records written to the end)."""
        self.note_children()
        for process in [*self.nodes.values(), *([self.workers] if self.workers else [])]:
            process.stop()

    def leftovers(self) -> list[int]:
        """Processes started here (or children of them) that still run."""
        return sorted(pid for pid in self.started if running(pid))

    def close(self) -> list[int]:
        """Stop everything and delete it; the processes that had to be killed (still
        running after their server stopped: none should be)."""
        with contextlib.suppress(Exception):
            self.stop_servers()
        time.sleep(0.5)
        left = self.leftovers()
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for link in self.links.values():
            link.cut()
        self.postgres.close()
        self.hosts.close()
        subprocess.run(["rm", "-rf", str(self.folder)], check=False)
        return left
