"""``python -m bench.cluster``: what the cluster (issue 25) gives and costs, in one run.

1. throughput: replies a second of ``dod-server --workers 1`` (the plain server) and
   ``--workers 2`` (two processes on one port, their embedded directory), ``--repeat``
   rounds in alternating order, medians. ``--connections`` bots of the load generator
   (:mod:`bench.generator`: asyncio on uvloop, one process) each send ``--pipeline``
   commands at once and count the reply lines, so the generator's cost per reply is a
   small share of the servers'. The scenario: every player plays in the ``default`` game
   of the worker the kernel gave its connection, as at a LAN party where everyone
   connects and plays (docs/cluster.md, *What `default` means*), so each worker owns the
   games of its own players and nothing is carried between workers. Each run prints the
   connections each worker held (the kernel's ``SO_REUSEPORT`` spread, read from
   ``/proc``), the CPU of the servers and of the generator while measured, the load
   average and the steal time; then the ratios of 2 workers to 1 in replies a second
   (goal: at least 1.8) and in replies per server CPU-second (what a reply costs, which
   the neighbours' load does not move), and the most this machine could show with
   this generator on it.
2. directory: from a ``CREATE`` answered on node A to the first ``GAMES`` of node B
   that lists it (goal: p99 under 250 ms);
3. relay: what a cross-node ``JOIN`` adds to each command: ``LOOK`` by a client of A
   and by a client carried from node B to A's game, in turns, the same run; p50 and
   p99 of each and their difference (goal: under 0.3 ms at p50), and the CPU each node
   spent per command.

The nodes of 2 and 3 need a PostgreSQL: ``--cluster URL``, or a temporary one started
from Debian's binaries (``initdb``, ``pg_ctl``; as the ``postgres`` user when run as root).
The figures are measurements, never assertions: nothing here fails because a machine is
slow or busy.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import io
import math
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

from commandline import lifeline

from . import generator, load

LOOK_LINES = 6  # LOOKREPLY and a 5x5 view in the classic world

READY = rb"(?:listening on|also serving) [^\s]+:(\d+)"
"""What each worker of ``--workers`` says once it serves: the first ``listening on``, the
others ``also serving``."""


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
            **lifeline.child_options(),
        )
        assert isinstance(self.process.stderr, io.BufferedReader)
        seen = b""
        # The first worker says where it listens, each other that it serves there too.
        workers = int(args[args.index("--workers") + 1]) if "--workers" in args else 1
        while len(found := re.findall(READY, seen)) < workers:
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


# -- throughput: 1 and 2 workers on one port ------------------------------------------


class Workers(load.ServerProcess):
    """``dod-server --workers N``: its CPU and memory are its workers' and its own."""

    def pids(self) -> list[int]:
        """The parent and its worker processes (children, from /proc)."""
        found = [self.process.pid]
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError):
                    with open(f"/proc/{entry}/stat") as stat:
                        parent = int(stat.read().rpartition(")")[2].split()[1])
                    if parent == self.process.pid:
                        found.append(int(entry))
        return found

    def cpu_seconds(self) -> float:
        return sum(_cpu_seconds(pid) for pid in self.pids())

    def rss_kib(self) -> int:
        return sum(_rss_kib(pid) for pid in self.pids())


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of ``pid`` so far (0 once it is gone), from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kib(pid: int) -> int:
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def connections_per_process(pids: list[int], port: int) -> dict[int, int]:
    """Established TCP connections to local ``port`` that each of ``pids`` holds
    (from /proc/net/tcp and the processes' descriptors): how the kernel spread them."""
    inodes = tcp_sockets(port)
    return {pid: len(held_sockets(pid) & inodes) for pid in pids}


def tcp_sockets(port: int, *, far: bool = False) -> set[str]:
    """The inodes of the established TCP sockets whose own end (``far``: whose other
    end) is on ``port``, from /proc/net/tcp and tcp6."""
    wanted, column = f":{port:04X}", 2 if far else 1
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as rows:
            next(rows)
            for row in rows:
                fields = row.split()
                if fields[column].endswith(wanted) and fields[3] == "01":  # 01: ESTABLISHED
                    inodes.add(fields[9])
    return inodes


def held_sockets(pid: int) -> set[str]:
    """The inodes of the sockets process ``pid`` holds (none if it is gone)."""
    held: set[str] = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    held.add(target[8:-1])
    return held


def start_workers(count: int, folder: str, connections: int) -> Workers:
    """``dod-server --workers count`` with nothing else given (one worker: the plain
    server; more: the embedded directory), once every worker listens."""
    arena = Path(folder) / "arena.map"
    arena.write_text(load.arena_map(connections))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server",
            "--port",
            "0",
            "--workers",
            str(count),
            "--map",
            str(arena),
            "--no-http",
            "--no-replays",
            "--no-db",
            "--idle-timeout",
            "0",
            "--max-connections",
            str(connections + 100),
            "--max-connections-per-address",
            str(connections + 100),
            "--log-level",
            "warning",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        **lifeline.child_options(),
    )
    assert isinstance(process.stderr, io.BufferedReader)
    seen = b""
    deadline = time.monotonic() + 60
    # Connections made before every worker listens would all go to the first (which says
    # where they listen; each other says it serves there too).
    while len(found := re.findall(READY, seen)) < count:
        chunk = process.stderr.read1(4096)
        if not chunk or time.monotonic() > deadline:
            process.kill()
            sys.exit(f"bench.cluster: the workers did not start: {seen.decode()[-2000:]}")
        seen += chunk
    threading.Thread(target=process.stderr.read, daemon=True).start()
    return Workers(f"{count} worker(s)", process, int(found[0]))


def throughput(args: argparse.Namespace, count: int) -> load.Figures:
    """Drive ``--workers count`` with the load generator; its figures, with how many
    connections each worker held (``per_worker``)."""
    plan = argparse.Namespace(
        workers=args.generators,
        connections=args.connections,
        duration=args.duration,
        warmup=args.warmup,
        pipeline=args.pipeline,
        interval=None,
        commands=args.commands,
        seed=1,
        server_cpus=None,
        generator_cpus=None,
        no_pinning=True,  # the workers need both cores; the scheduler places everyone
        profile=None,
    )
    with tempfile.TemporaryDirectory() as folder:
        server = start_workers(count, folder, args.connections)
        spread: dict[int, int] = {}

        def count_connections() -> None:
            spread.update(
                connections_per_process(server.pids()[1:] or [server.process.pid], server.port)
            )

        try:
            figures = load.drive(server, plan, shaped=True, on_connected=count_connections)
        finally:
            server.stop()
    figures["per_worker"] = sorted(spread.values(), reverse=True)
    return figures


def describe(figures: load.Figures) -> str:
    """One run's figures on two lines."""
    generator_cpu = sum(figures["generator_cpu"])
    relative = generator_cpu / figures["server_cpu"] if figures["server_cpu"] else math.inf
    return (
        f"{figures['server']}: {figures['throughput']:,.0f} replies/s, "
        f"{figures['replies_per_cpu_second']:,.0f} per server CPU-second; "
        f"connections per worker {'/'.join(map(str, figures['per_worker']))}; errors "
        f"{figures['errors']}\n"
        f"    CPU while measured: servers {figures['server_cpu']:.0%} of a core, generator "
        f"{generator_cpu:.0%} ({relative:.1%} of the servers'); "
        f"load average {figures['load_before'][0]:.2f} before, {figures['load_after'][0]:.2f} "
        f"after; steal {figures['server_cpus_steal']:.1%}"
    )


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


class Player:
    """A blocking client socket (no event loop of the benchmark's between the bytes and
    the clock): what it costs is the same for a client of either node."""

    def __init__(self, port: int) -> None:
        self.socket = socket.create_connection(("127.0.0.1", port))
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def ask(self, line: bytes, count: int = 1) -> list[bytes]:
        self.socket.sendall(line + b"\n")
        while self.buffer.count(b"\n") < count:
            data = self.socket.recv(65536)
            if not data:
                raise ConnectionError("the server closed the connection")
            self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n", count)
        return lines

    def timed(self, line: bytes, count: int) -> float:
        start = time.perf_counter()
        self.ask(line, count)
        return time.perf_counter() - start

    def close(self) -> None:
        self.socket.close()


def paired_latencies(
    direct: Player, carried: Player, samples: int
) -> tuple[list[float], list[float]]:
    """Seconds of ``samples`` ``LOOK``s by each player, taken in turns (the first of
    each pair alternating), so that the machine's load falls on both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for sample in range(samples):
        order = (0, 1) if sample % 2 else (1, 0)
        for which in order:
            player = (direct, carried)[which]
            times[which].append(player.timed(b"LOOK", LOOK_LINES))
    return times


async def _listed_after(a_port: int, b_port: int, creates: int) -> list[float]:
    """Seconds from each ``CREATE`` answered on A to the first ``GAMES`` of B listing it."""
    watcher = await trio.open_tcp_stream("127.0.0.1", b_port)
    theirs = bytearray()
    delays = []
    for number in range(creates):
        # A creator each time, which then joins its game and leaves, the game with it (a
        # game nobody joined would outlive it): within every limit.
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
        [joined] = await _ask(creator, mine, f"JOIN seen{number}".encode())
        assert joined.startswith(b"GAME "), joined
        await creator.aclose()
    await watcher.aclose()
    return delays


async def _directory_delays(a: Node, b: Node) -> list[float]:
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
    return await _listed_after(a.port, b.port, 20)


def percentiles(times: list[float]) -> tuple[float, float]:
    """p50 and p99 of ``times``, in milliseconds."""
    ordered = sorted(times)
    return load.percentile(ordered, 0.50) * 1000, load.percentile(ordered, 0.99) * 1000


def relay_figures(url: str, samples: int) -> None:
    """Print how soon B lists A's game, and what carrying a client from B to A adds per
    command: p50 and p99 of ``LOOK`` of a client of A against one carried from B."""
    a, b = Node(url), Node(url)
    try:
        # The game's first player stays: a game nobody plays in goes.
        direct = Player(a.port)
        [answer] = direct.ask(b"CREATE bench classic")
        assert answer.startswith(b"GAME "), answer
        seen = trio.run(_directory_delays, a, b)
        seen.sort()
        print(
            f"CREATE on one node to listed by another's GAMES: p50 "
            f"{seen[len(seen) // 2] * 1000:.1f} ms, max of {len(seen)} "
            f"{seen[-1] * 1000:.1f} ms (goal: p99 < 250 ms)",
            flush=True,
        )
        carried = Player(b.port)
        for player in (direct, carried):
            [answer] = player.ask(b"JOIN bench")
            assert answer.startswith(b"GAME "), answer
        paired_latencies(direct, carried, samples // 10)  # warm-up
        load_before, steal_before = os.getloadavg()[0], load.cpu_ticks(None)
        cpu_before = [_cpu_seconds(node.process.pid) for node in (a, b)]
        times = paired_latencies(direct, carried, samples)
        a_cpu, b_cpu = (
            _cpu_seconds(node.process.pid) - before
            for node, before in zip((a, b), cpu_before, strict=True)
        )
        steal, ticks = (
            after - before for after, before in zip(load.cpu_ticks(None), steal_before, strict=True)
        )
        direct.close()
        carried.close()
    finally:
        a.stop()
        b.stop()
    (d50, d99), (c50, c99) = percentiles(times[0]), percentiles(times[1])
    # Each pair was taken within a millisecond: a pair's difference is the least touched
    # by the machine's load, where a stall in one of two p99s decides their difference.
    paired = statistics.median(c - d for d, c in zip(*times, strict=True)) * 1000
    print(
        f"LOOK on the game's node: p50 {d50:.3f} ms, p99 {d99:.3f} ms; carried from another "
        f"node: p50 {c50:.3f} ms, p99 {c99:.3f} ms ({samples} each, in turns)\n"
        f"the relay adds {c50 - d50:.3f} ms at p50 (goal: < 0.3 ms), {c99 - d99:.3f} ms at p99, "
        f"{paired:.3f} ms in the median pair; "
        f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after; steal "
        f"{steal / ticks if ticks else 0.0:.1%}\n"
        f"CPU per command: {a_cpu / (2 * samples) * 1e6:.0f} µs on the game's node, "
        f"{b_cpu / samples * 1e6:.0f} µs more on the carrying node (the relay's own cost)"
    )


def spread(runs: list[load.Figures], key: str) -> str:
    """The lowest and highest ``key`` of ``runs``: how far the rounds of one run differ."""
    values = [figures[key] for figures in runs]
    return f"{min(values):,.0f} to {max(values):,.0f}"


def ceiling(generator_share: float, one_worker_cpu: float) -> str:
    """What the figures can show on this machine: the generator costs ``generator_share``
    of the servers' CPU, so on C free cores 2 busy workers get at most C / (1 + share)."""
    cores = len(os.sched_getaffinity(0))
    reach = min(2.0, cores / (1 + generator_share))
    lines = [
        f"the generator costs {generator_share:.1%} of the servers' CPU: on {cores} idle "
        f"cores, 2 saturated workers could have at most {reach:.2f} cores, so this machine "
        f"can show at most {reach:.2f}x"
    ]
    if one_worker_cpu < 0.9:
        lines.append(
            f"1 worker had {one_worker_cpu:.0%} of a core, not 100%: neither it nor the "
            "generator set the pace but the machine's other load, and the replies/s ratio says "
            "how much CPU the neighbours left; replies per server CPU-second depend on it far "
            "less (but not at all only on a quiet machine: compare the rounds)"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace, url: str) -> None:
    print(
        f"throughput: {args.connections} connections, {args.commands} commands, pipeline "
        f"{args.pipeline}, {args.generators} generator process(es), {args.warmup:g}s warm-up "
        f"+ {args.duration:g}s, {args.repeat} round(s); each player in the default game of "
        "the worker the kernel gave it",
        flush=True,
    )
    runs: dict[int, list[load.Figures]] = {1: [], 2: []}
    for round_number in range(args.repeat):
        # Alternated, so that a neighbour's burst of load favours neither.
        for count in (1, 2) if round_number % 2 == 0 else (2, 1):
            figures = throughput(args, count)
            runs[count].append(figures)
            print(describe(figures), flush=True)
    keys = ("throughput", "replies_per_cpu_second", "server_cpu", "generator_share")
    for figures in (*runs[1], *runs[2]):
        figures["generator_share"] = sum(figures["generator_cpu"]) / (
            figures["server_cpu"] or math.nan
        )
    median = {
        count: {key: statistics.median(f[key] for f in figures) for key in keys}
        for count, figures in runs.items()
    }
    for count in (1, 2):
        print(
            f"throughput, {count} worker(s): {median[count]['throughput']:,.0f} replies/s "
            f"(median of {args.repeat}), {median[count]['replies_per_cpu_second']:,.0f} per "
            f"server CPU-second (rounds: {spread(runs[count], 'replies_per_cpu_second')}), "
            f"servers at {median[count]['server_cpu']:.0%} of a core"
        )
    print(
        f"2 workers / 1 worker: {median[2]['throughput'] / median[1]['throughput']:.2f}x "
        "replies/s (goal: at least 1.8x); "
        f"{median[2]['replies_per_cpu_second'] / median[1]['replies_per_cpu_second']:.2f}x "
        "replies per server CPU-second (1.00x: a worker costs no more per reply than one "
        "process alone)"
    )
    print(ceiling(median[2]["generator_share"], median[1]["server_cpu"]), flush=True)
    relay_figures(url, args.samples)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__)
    parser.add_argument("--cluster", metavar="URL", help="PostgreSQL of the cluster")
    parser.add_argument("--connections", type=int, default=40)
    parser.add_argument("--duration", type=float, default=5.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of 1 and 2 workers")
    parser.add_argument(
        "--pipeline", type=int, default=64, help="commands each connection sends at once"
    )
    parser.add_argument("--commands", choices=sorted(generator.MIXES), default="look")
    parser.add_argument("--generators", type=int, default=1, help="load generator processes")
    parser.add_argument("--samples", type=int, default=2000, help="LOOKs of each client")
    args = parser.parse_args(argv)
    if args.cluster:
        run(args, args.cluster)
    else:
        with temporary_postgres() as url:
            run(args, url)


if __name__ == "__main__":
    main()
