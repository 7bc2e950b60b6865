"""``python -m bench.cluster``: what the cluster (issue 25) gives and costs, in one run.

1. throughput: replies a second of ``dod-server --workers 1`` and ``--workers 2`` on one
   port, ``--connections`` clients in a closed loop of ``LOOK`` (goal: 2 workers at least
   1.8 times 1 on a 2-core machine, when nothing else runs on it);
2. directory: from a ``CREATE`` answered on node A to the first ``GAMES`` of node B
   that lists it (goal: p99 under 250 ms);
3. relay: the latency a cross-node ``JOIN`` adds to each command, the p50 of ``LOOK``
   from a client carried from node B to a game on node A, less that of a client of A
   (goal: under 0.3 ms).

The nodes need a PostgreSQL: ``--cluster URL``, or a temporary one started from
Debian's binaries (``initdb``, ``pg_ctl``; as the ``postgres`` user when run as root).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import glob
import io
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import trio

LOOK_LINES = 6  # LOOKREPLY and a 5x5 view in the classic world


@contextlib.contextmanager
def temporary_postgres() -> Iterator[str]:
    """A throw-away PostgreSQL server; its maintenance database's URL."""
    binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not binaries:
        sys.exit("bench.cluster: no PostgreSQL binaries; give --cluster URL")
    initdb, pg_ctl = f"{binaries[-1]}/initdb", f"{binaries[-1]}/pg_ctl"
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    folder = Path(tempfile.mkdtemp(prefix="dod-bench-pg-"))
    if as_user:
        shutil.chown(folder, "postgres")
    data = folder / "data"
    subprocess.run(
        [*as_user, initdb, "-D", str(data), "-U", "postgres", "-A", "trust"],
        check=True,
        capture_output=True,
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [
            *as_user,
            pg_ctl,
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(folder / "log"),
            "-w",
            "start",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        shutil.rmtree(folder, ignore_errors=True)


class Node:
    """A ``dod-server`` of the cluster, started and waited for."""

    def __init__(self, url: str, *args: str) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server",
                "--port",
                "0",
                "--no-http",
                "--no-replays",
                "--no-db",
                "--cluster",
                url,
                "--log-level",
                "warning",
                *args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        assert isinstance(self.process.stderr, io.BufferedReader)
        seen = b""
        # Every worker says it listens once it is in the cluster.
        workers = int(args[args.index("--workers") + 1]) if "--workers" in args else 1
        while len(found := re.findall(rb"listening on [^\s]+:(\d+)", seen)) < workers:
            chunk = self.process.stderr.read1(4096)
            if not chunk:
                sys.exit(f"bench.cluster: a node did not start: {seen.decode()[-2000:]}")
            seen += chunk
        self.port = int(found[0])
        # Its log is read to the end, so that it never waits on a full pipe.
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=60)


async def _lines(stream: trio.SocketStream, buffer: bytearray, count: int) -> list[bytes]:
    while buffer.count(b"\n") < count:
        data = await stream.receive_some(65536)
        if not data:
            raise ConnectionError("the server closed the connection")
        buffer += data
    lines = []
    for _ in range(count):
        end = buffer.index(b"\n")
        lines.append(bytes(buffer[:end]))
        del buffer[: end + 1]
    return lines


async def _ask(
    stream: trio.SocketStream, buffer: bytearray, line: bytes, count: int = 1
) -> list[bytes]:
    await stream.send_all(line + b"\n")
    return await _lines(stream, buffer, count)


async def _throughput(port: int, connections: int, warmup: float, duration: float) -> float:
    """Replies a second of ``connections`` clients each sending ``LOOK`` in a closed loop."""
    counted = [0]
    measuring = [False]

    async def client() -> None:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        buffer = bytearray()
        while True:
            await _ask(stream, buffer, b"LOOK", LOOK_LINES)
            if measuring[0]:
                counted[0] += 1

    async with trio.open_nursery() as nursery:
        for _ in range(connections):
            nursery.start_soon(client)
        await trio.sleep(warmup)
        measuring[0] = True
        await trio.sleep(duration)
        measuring[0] = False
        nursery.cancel_scope.cancel()
    return counted[0] / duration


def _throughput_in_process(port: int, connections: int, warmup: float, duration: float) -> float:
    return trio.run(_throughput, port, connections, warmup, duration)


async def _latencies(port: int, game: str, samples: int) -> list[float]:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    buffer = bytearray()
    [answer] = await _ask(stream, buffer, f"JOIN {game}".encode())
    assert answer.startswith(b"GAME "), answer
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        await _ask(stream, buffer, b"LOOK", LOOK_LINES)
        times.append(time.perf_counter() - start)
    await stream.aclose()
    return times


async def _listed_after(a_port: int, b_port: int, creates: int) -> list[float]:
    """Seconds from each ``CREATE`` answered on A to the first ``GAMES`` of B listing it."""
    watcher = await trio.open_tcp_stream("127.0.0.1", b_port)
    theirs = bytearray()
    delays = []
    for number in range(creates):
        # A creator each time, gone after (its unjoined game with it): within every limit.
        creator, mine = await trio.open_tcp_stream("127.0.0.1", a_port), bytearray()
        [answer] = await _ask(creator, mine, f"CREATE seen{number} classic".encode())
        assert answer.startswith(b"GAME "), answer
        created = time.perf_counter()
        wanted = f"GAME seen{number} ".encode()
        with trio.fail_after(30):
            while True:
                [head] = await _ask(watcher, theirs, b"GAMES")
                listed = await _lines(watcher, theirs, int(head.split()[1]))
                if any(line.startswith(wanted) for line in listed):
                    break
        delays.append(time.perf_counter() - created)
        await creator.aclose()
    await watcher.aclose()
    return delays


async def _relay(url: str, samples: int) -> tuple[float, float, list[float]]:
    a, b = Node(url), Node(url)
    try:
        stream = await trio.open_tcp_stream("127.0.0.1", a.port)
        buffer = bytearray()
        [answer] = await _ask(stream, buffer, b"CREATE bench classic")
        assert answer.startswith(b"GAME "), answer
        await _ask(stream, buffer, b"JOIN bench")
        with trio.fail_after(30):
            while True:  # until B lists it
                probe = await trio.open_tcp_stream("127.0.0.1", b.port)
                probe_buffer = bytearray()
                [head] = await _ask(probe, probe_buffer, b"GAMES")
                listed = await _lines(probe, probe_buffer, int(head.split()[1]))
                await probe.aclose()
                if any(line.startswith(b"GAME bench ") for line in listed):
                    break
                await trio.sleep(0.05)
        seen = await _listed_after(a.port, b.port, 20)
        direct, carried = [], []
        for _ in range(3):  # alternated, so that the machine's load falls on both alike
            direct += await _latencies(a.port, "bench", samples)
            carried += await _latencies(b.port, "bench", samples)
        return statistics.median(direct), statistics.median(carried), seen
    finally:
        a.stop()
        b.stop()


def run(args: argparse.Namespace, url: str) -> None:
    rates = {}
    for workers in (1, 2):
        node = Node(url, "--workers", str(workers))
        try:
            share = args.connections // args.generators
            jobs = [(node.port, share, args.warmup, args.duration)] * args.generators
            with concurrent.futures.ProcessPoolExecutor(args.generators) as pool:
                rates[workers] = sum(pool.map(_throughput_in_process, *zip(*jobs, strict=True)))
        finally:
            node.stop()
        print(f"throughput, {workers} worker(s): {rates[workers]:,.0f} replies/s", flush=True)
    print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}x (goal: at least 1.8x)")
    direct, carried, seen = trio.run(_relay, url, args.samples)
    seen.sort()
    print(
        f"CREATE on one node to listed by another's GAMES: p50 "
        f"{seen[len(seen) // 2] * 1000:.1f} ms, max of {len(seen)} {seen[-1] * 1000:.1f} ms "
        "(goal: p99 < 250 ms)"
    )
    print(
        f"LOOK p50: {direct * 1000:.3f} ms on the game's node, {carried * 1000:.3f} ms carried "
        f"from another node: the relay adds {(carried - direct) * 1000:.3f} ms (goal: < 0.3 ms)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__)
    parser.add_argument("--cluster", metavar="URL", help="PostgreSQL of the cluster")
    parser.add_argument("--connections", type=int, default=40)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--generators", type=int, default=2, help="client processes")
    parser.add_argument("--samples", type=int, default=500, help="LOOKs per latency round")
    args = parser.parse_args(argv)
    if args.cluster:
        run(args, args.cluster)
    else:
        with temporary_postgres() as url:
            run(args, url)


if __name__ == "__main__":
    main()
