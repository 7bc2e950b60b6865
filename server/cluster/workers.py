"""``dod-server --workers N``: N processes on one port, one cluster on one machine.

The parent process chooses the port, or each port of ``--listen`` (binding it, with
``SO_REUSEPORT``, for as long as it runs, so no other program takes it; a port 0 is
chosen once, for every worker), then starts N worker processes that each listen on
every one of them with ``SO_REUSEPORT``, in its dialect: the kernel spreads new
connections over them, and they form a cluster (:mod:`server.cluster`), so a client of
any worker sees and joins every worker's games. A worker that exits is started again;
``SIGTERM`` or ``SIGINT`` to the parent is passed to every worker, and the parent exits
when they have (a worker that has not exited :data:`STOP_GRACE` seconds after its drain
is killed).

The workers end with the parent however it ends, ``kill -9`` included: each holds the
parent's lifeline (:mod:`commandline.lifeline`) and stops once it breaks, so no worker
keeps the port of a parent that is gone.

Without ``--cluster``, the parent keeps the workers' directory itself
(:mod:`server.cluster.hub`) on a Unix socket in a private temporary folder, and
admits only its own workers to it. Should the directory ever fail, the parent stops
its workers and exits with status 1, saying why: it never serves on without it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence

import structlog
import trio

from commandline import lifeline

from ..setup.listening import Listen
from ..setup.logs import announce
from .hub import Hub

log = structlog.get_logger("server.cluster.workers")

RESTART_PAUSE = 1.0
"""Seconds between a worker's exit and its restart, so a worker that cannot start
does not spin."""
STOP_GRACE = 15.0
"""Seconds a worker told to stop has to exit, beyond its drain, before it is killed."""


async def open_shared_listeners(port: int, host: str) -> list[trio.SocketListener]:
    """Listeners on ``host:port`` that other processes may share (``SO_REUSEPORT``)."""
    infos = await trio.socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )
    listeners: list[trio.SocketListener] = []
    try:
        for family, kind, proto, _, address in infos:
            sock = trio.socket.socket(family, kind, proto)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                await sock.bind(address)
                sock.listen(socket.SOMAXCONN)
            except BaseException:
                sock.close()
                raise
            listeners.append(trio.SocketListener(sock))
    except BaseException:
        for listener in listeners:
            await listener.aclose()
        raise
    return listeners


def reserve_port(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (``0``: a free port) with ``SO_REUSEPORT``, not
    listening: it keeps the port for the workers, and takes no connection itself."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    holder = socket.socket(family, socket.SOCK_STREAM)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    holder.bind((host, port))
    return holder


def run_workers(
    count: int,
    host: str,
    listens: Sequence[Listen],
    argv: Sequence[str],
    *,
    http: bool,
    embedded: bool,
    drain_timeout: float = 0.0,
) -> int:
    """Run ``count`` workers of ``dod-server argv`` on the ports of ``listens`` of
    ``host`` until a signal; ``embedded``: with a directory of this process's (no
    ``--cluster`` was given). The exit status: 0, or 1 if the directory failed."""
    holders: list[socket.socket] = []
    try:
        for listen in listens:
            holders.append(reserve_port(host, listen.port))
    except BaseException:
        for holder in holders:
            holder.close()
        raise
    shared = [
        Listen(holder.getsockname()[1], listen.dialect)
        for holder, listen in zip(holders, listens, strict=True)
    ]
    stop = threading.Event()
    failed: list[str] = []

    def directory_failed(why: str) -> None:
        failed.append(why)
        stop.set()

    directory: list[str] = []
    hub: Hub | None = None
    if embedded:
        folder = tempfile.mkdtemp(prefix="dod-workers-")
        path = os.path.join(folder, "directory")
        directory = ["--cluster", f"unix:{path}"]
        hub = Hub()
        _host_directory(hub, path, directory_failed)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    lifeline.hold(on_cut=stop.set)  # this process's own parent ended: stop as if told

    # Every worker on the ports chosen here (the --listen given, port 0 and all, left out).
    argv = _without_listens(argv)

    def start(number: int) -> subprocess.Popen[bytes]:
        own = [
            "--workers",
            "1",
            "--reuse-port",
            "--listen",
            ",".join(map(str, shared)),
            "--worker-number",
            str(number),
        ]
        if number > 0 and http:
            own.append("--no-http")  # the first worker serves the web page
        worker = subprocess.Popen(
            [sys.executable, "-m", "server", *argv, *directory, *own],
            **lifeline.child_options(),
        )
        if hub is not None:
            hub.admit(worker.pid)
        return worker

    ports = ", ".join(listen.on(host) for listen in shared)
    announce(
        "dod-server",
        f"{count} workers share {ports}",
        workers=count,
        port=shared[0].port,
        ports=[listen.port for listen in shared],
    )
    if directory:
        announce(
            "dod-server",
            f"the workers' directory is {directory[1]} "
            f"(dod-server --cluster {directory[1]} --cluster-status lists them)",
        )
    workers = [start(number) for number in range(count)]
    try:
        while not stop.wait(RESTART_PAUSE):
            for number, worker in enumerate(workers):
                if worker.poll() is not None:
                    log.warning("worker exited", worker=number, status=worker.returncode)
                    if hub is not None:
                        hub.forget(worker.pid)
                    workers[number] = start(number)
    finally:
        _stop(workers, drain_timeout + STOP_GRACE)
        for holder in holders:
            holder.close()
        if directory:
            shutil.rmtree(os.path.dirname(directory[1].removeprefix("unix:")), ignore_errors=True)
    if failed:
        announce("dod-server", f"the workers' directory failed: {failed[0]}", level="error")
        return 1
    return 0


def _without_listens(argv: Sequence[str]) -> list[str]:
    """``argv`` without its ``--listen`` flags (and their values; ``--liste``, the
    abbreviation the parser takes, too)."""
    kept: list[str] = []
    value_next = False
    for arg in argv:
        flag = arg.partition("=")[0]
        if value_next:
            value_next = False
        elif flag in ("--liste", "--listen"):
            value_next = "=" not in arg
        else:
            kept.append(arg)
    return kept


def _stop(workers: list[subprocess.Popen[bytes]], grace: float) -> None:
    """SIGTERM every worker, then SIGKILL those still running ``grace`` seconds later."""
    for worker in workers:
        with contextlib.suppress(ProcessLookupError):
            worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(grace)
        except subprocess.TimeoutExpired:
            log.warning("worker did not stop, killed", pid=worker.pid, grace=grace)
            worker.kill()
            worker.wait()


def _host_directory(hub: Hub, path: str, failed: Callable[[str], None]) -> None:
    """Serve the workers' directory ``hub`` from a thread of this process, once it
    listens; ``failed(why)`` is called from that thread should it ever end."""
    ready = threading.Event()
    listening: list[bool] = []

    async def serve() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(hub.serve, path)
            listening.append(True)
            ready.set()

    def run() -> None:
        try:
            trio.run(serve)
            why = "it stopped"
        except BaseException as error:  # reported, then the parent stops: never silently
            log.exception("the workers' directory failed")
            why = repr(error)
        ready.set()
        if listening:
            failed(why)

    threading.Thread(target=run, name="directory", daemon=True).start()
    if not ready.wait(30) or not listening:
        raise OSError(f"the workers' directory did not start on {path}")
