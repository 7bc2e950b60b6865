"""Load benchmark: bot-like clients in separate processes against a real server.

``python -m bench.load`` starts the game server (and, for comparison, the bare trio
line server of :mod:`bench.bare_server`) as subprocesses on free loopback ports,
opens N connections from worker processes, and drives them like bots: a mix of
``LOOK`` and ``MOVE`` in a closed loop (one command in flight per connection, or
``--pipeline K``), or in an open loop (``--interval S``: each bot sends one
command every S seconds, latency measured from the moment it was due, so a slow
server cannot hide behind its own slowness). It prints throughput, latency
percentiles, the server's resident memory per connection, and the CPU time the
server and the load generator each used while measured, with progress every
second; it can write the results as JSON.

Reading the figures honestly:

* The bare server answers with the same bytes as the game (``--shaped``: a fixed
  six-line ``LOOKREPLY`` for ``LOOK``, ``SUCCESS`` otherwise), so the generator
  does the same work against both and the ratio compares the servers alone.
  ``--bare-fixed`` answers every line with one ``SUCCESS`` instead, as the
  issue's yardstick does; the game then writes five times the bytes for a LOOK.
* A ratio says something only while the server is the bottleneck. The CPU
  columns say whether it is: a server near 100 % of a core is saturated (trio
  runs on one); a generator near 100 % per worker process means the figures are
  the generator's ceiling, not the server's.
* ``--profile FILE`` samples the game server with py-spy during the measured
  seconds and prints its top functions.

The figures are measurements of this machine, never assertions: nothing here
fails because a machine is slow.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing as mp
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import trio

from . import profile

CLOSE_GRACE = 2.0
"""Seconds bots stay connected after the measured seconds, so that closing 10,000
connections is not counted in the server's CPU time or profile."""
COMMANDS = (b"LOOK\n", b"MOVE N\n", b"MOVE S\n", b"MOVE E\n", b"MOVE W\n", b"LOOK\n")
LISTENING = re.compile(rb"listening on [\d.]+:(\d+)")


# -- servers under test -------------------------------------------------------------


@dataclass
class ServerProcess:
    name: str
    process: subprocess.Popen[bytes]
    port: int

    def cpu_seconds(self) -> float:
        """User and system CPU time of the server process so far, from /proc (Linux)."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        # Fields 14 and 15 of stat(5), counted from the state field (the 3rd) here.
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self) -> int:
        """Resident memory of the server process, from /proc (Linux)."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_server(name: str, argv: list[str]) -> ServerProcess:
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    seen = b""
    deadline = time.monotonic() + 30
    assert process.stderr is not None
    while (match := LISTENING.search(seen)) is None:
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"{name} server did not start: {seen.decode(errors='replace')}")
        seen += process.stderr.readline()
    # Keep draining its standard error so that a chatty server never blocks on a full pipe.
    threading.Thread(target=_drain, args=(process.stderr,), daemon=True).start()
    return ServerProcess(name, process, int(match.group(1)))


def _drain(pipe) -> None:
    for _ in iter(pipe.readline, b""):
        pass


def arena_map(connections: int) -> str:
    """A classic map roomy enough for every bot: walls, pillars, gold and exits."""
    side = max(20, math.ceil(math.sqrt(connections * 6)) + 2)
    rows = []
    for r in range(side):
        row = []
        for c in range(side):
            if r in (0, side - 1) or c in (0, side - 1) or (r % 6 == 3 and c % 6 == 3):
                row.append("#")
            elif r % 7 == 1 and c % 9 == 4:
                row.append("G")
            else:
                row.append(".")
        rows.append("".join(row))
    rows[side // 2] = rows[side // 2][:-2] + "E#"
    return "name Load Arena\nwin 1\n" + "\n".join(rows) + "\n"


# -- the load generator (runs in worker processes) -------------------------------------


@dataclass
class WorkerResult:
    completed: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    cpu_seconds: float = 0.0
    """CPU time of the worker process during the measured seconds."""


@dataclass(frozen=True)
class Plan:
    port: int
    connections: int
    duration: float
    warmup: float
    pipeline: int
    interval: float | None
    game: bool
    seed: int


def _raise_file_limit() -> None:
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _reply_lines(command: bytes) -> int:
    # Both servers answer LOOK with six lines (the bare one when shaped) and the rest
    # with one; the fixed bare server answers everything with one.
    return 6 if command == b"LOOK\n" else 1


class _Lines:
    """Counts reply lines without keeping them: the generator must cost far less
    than the server it loads, and a bot here never needs to read what it is told."""

    __slots__ = ("credit", "stream")

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.credit = 0  # lines received ahead of those asked for

    async def wait(self, count: int) -> None:
        credit = self.credit - count
        receive = self.stream.receive_some
        while credit < 0:
            data = await receive(65536)
            if not data:
                raise EOFError("server closed the connection")
            credit += data.count(b"\n")
        self.credit = credit


async def _bot(
    plan: Plan, index: int, shared: dict, result: WorkerResult, counter, slowest
) -> None:
    rng = random.Random(plan.seed * 100_003 + index)
    stream = await trio.open_tcp_stream("127.0.0.1", plan.port)
    lines = _Lines(stream)
    count_of = _reply_lines if plan.game or shared["shaped"] else lambda command: 1
    await stream.send_all(b"HELLO\n")
    await lines.wait(1)
    shared["connected"] += 1
    await shared["go"].wait()
    measure_from = shared["start"] + plan.warmup
    stop_at = measure_from + plan.duration
    latencies = result.latencies
    clock = trio.current_time
    if plan.interval is None:
        while (now := clock()) < stop_at:
            batch = [rng.choice(COMMANDS) for _ in range(plan.pipeline)]
            await stream.send_all(b"".join(batch))
            await lines.wait(sum(map(count_of, batch)))
            if now >= measure_from:
                result.completed += len(batch)
                latency = clock() - now
                latencies.append(latency)
                counter.value += len(batch)
                if latency > slowest.value:
                    slowest.value = latency
    else:
        due = shared["start"] + rng.random() * plan.interval
        while due < stop_at:
            await trio.sleep_until(due)
            command = rng.choice(COMMANDS)
            await stream.send_all(command)
            await lines.wait(count_of(command))
            if due >= measure_from:
                result.completed += 1
                latency = clock() - due
                latencies.append(latency)
                counter.value += 1
                if latency > slowest.value:
                    slowest.value = latency
            due += plan.interval
    await trio.sleep_until(stop_at + CLOSE_GRACE)
    await stream.aclose()


async def _time_cpu(plan: Plan, shared: dict, result: WorkerResult) -> None:
    await trio.sleep_until(shared["start"] + plan.warmup)
    before = time.process_time()
    await trio.sleep(plan.duration)
    result.cpu_seconds = time.process_time() - before


async def _worker_main(plan: Plan, shaped: bool, connected, go, counter, slowest) -> WorkerResult:
    result = WorkerResult()
    shared = {"connected": 0, "go": trio.Event(), "start": 0.0, "shaped": shaped}

    async def bot(index: int) -> None:
        try:
            await _bot(plan, index, shared, result, counter, slowest)
        except (OSError, EOFError, trio.BrokenResourceError):
            result.errors += 1

    async with trio.open_nursery() as nursery:
        for index in range(plan.connections):
            nursery.start_soon(bot, index)
            if index % 200 == 199:
                await trio.sleep(0)  # let the accept queue breathe while connecting
        while shared["connected"] + result.errors < plan.connections:
            await trio.sleep(0.01)
        connected.value = shared["connected"]
        await trio.to_thread.run_sync(go.wait)
        shared["start"] = trio.current_time()
        shared["go"].set()
        nursery.start_soon(_time_cpu, plan, shared, result)
    return result


def _worker(plan: Plan, shaped: bool, connected, go, counter, slowest, results) -> None:
    _raise_file_limit()
    result = trio.run(_worker_main, plan, shaped, connected, go, counter, slowest)
    results.put(asdict(result))


# -- one run ----------------------------------------------------------------------------


def percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return math.nan
    index = min(len(sorted_values) - 1, max(0, math.ceil(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


def drive(server: ServerProcess, args: argparse.Namespace, game: bool) -> dict:
    """Run the load against one server and return its figures."""
    context = mp.get_context("spawn")
    workers = max(1, min(args.workers, args.connections))
    shares = [
        args.connections // workers + (i < args.connections % workers) for i in range(workers)
    ]
    shaped = not args.bare_fixed
    go = context.Event()
    results = context.Queue()
    counters = [context.Value("q", 0) for _ in shares]
    slowest = [context.Value("d", 0.0) for _ in shares]
    connected = [context.Value("q", 0) for _ in shares]
    rss_before = server.rss_kib()
    processes = []
    for i, share in enumerate(shares):
        plan = Plan(
            server.port,
            share,
            args.duration,
            args.warmup,
            args.pipeline,
            args.interval,
            game,
            args.seed + i,
        )
        process = context.Process(
            target=_worker,
            args=(plan, shaped, connected[i], go, counters[i], slowest[i], results),
        )
        process.start()
        processes.append(process)
    deadline = time.monotonic() + 120
    while sum(c.value for c in connected) < args.connections and time.monotonic() < deadline:
        if any(not p.is_alive() for p in processes):
            break
        time.sleep(0.05)
    held = sum(c.value for c in connected)
    rss_connected = server.rss_kib()
    go.set()
    started = time.monotonic()
    measure_from, stop_at = started + args.warmup, started + args.warmup + args.duration
    cpu_from = cpu_to = None
    profiler = None
    last, last_count = started, 0
    total_time = args.warmup + args.duration
    while any(p.is_alive() for p in processes) and results.qsize() < len(processes):
        now = time.monotonic()
        if cpu_from is None and now >= measure_from:
            cpu_from = server.cpu_seconds()
            if args.profile and game:
                profiler = profile.record(server.process.pid, Path(args.profile), args.duration)
        if cpu_to is None and now >= stop_at:
            cpu_to = server.cpu_seconds()
        # Wake at the edges of the measured seconds, and every second to show progress.
        edges = [t for t in (measure_from, stop_at) if t > now]
        time.sleep(max(0.0, min([last + 1.0, *edges]) - now))
        now = time.monotonic()
        if now - last >= 1.0:
            count = sum(c.value for c in counters)
            phase = "warm-up" if now < measure_from else "measuring" if now < stop_at else "closing"
            print(
                f"  {server.name:5} {now - started:5.1f}/{total_time:.0f}s {phase:9} "
                f"{(count - last_count) / (now - last):10,.0f} replies/s, slowest "
                f"{max(v.value for v in slowest) * 1000:8.2f} ms",
                file=sys.stderr,
            )
            last, last_count = now, count
            for value in slowest:
                value.value = 0.0
    if cpu_to is None:
        cpu_to = server.cpu_seconds()
    collected = [results.get(timeout=60) for _ in processes]
    for process in processes:
        process.join(timeout=10)
    latencies = sorted(x for r in collected for x in r["latencies"])
    completed = sum(r["completed"] for r in collected)
    per_command = args.pipeline if args.interval is None else 1
    figures = {
        "server": server.name,
        "connections": held,
        "errors": sum(r["errors"] for r in collected),
        "throughput": completed / args.duration,
        "p50_ms": percentile(latencies, 0.50) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "p999_ms": percentile(latencies, 0.999) * 1000,
        "latency_is_per": "batch" if per_command > 1 else "command",
        "rss_before_kib": rss_before,
        "rss_connected_kib": rss_connected,
        "kib_per_connection": (rss_connected - rss_before) / held if held else math.nan,
        "server_cpu": (cpu_to - (cpu_from if cpu_from is not None else cpu_to)) / args.duration,
        "generator_cpu": [r["cpu_seconds"] / args.duration for r in collected],
    }
    # Replies per CPU-second of the server: what a reply costs, whatever else the
    # machine was doing (the throughput itself moves with the neighbours' load).
    cpu = figures["server_cpu"] * args.duration
    figures["replies_per_cpu_second"] = completed / cpu if cpu else math.nan
    if profiler is not None:
        profiler.wait()
        print(profile.table(Path(args.profile)), file=sys.stderr)
    return figures


@contextlib.contextmanager
def game_server(args: argparse.Namespace) -> Iterator[ServerProcess]:
    with tempfile.TemporaryDirectory() as folder:
        map_spec = args.map
        if map_spec is None and args.world == "classic":
            map_spec = str(Path(folder) / "arena.map")
            Path(map_spec).write_text(arena_map(args.connections))
        argv = [
            sys.executable,
            "-m",
            "server",
            "--port",
            "0",
            "--world",
            args.world,
            "--seed",
            str(args.seed),
            "--log-level",
            "warning",
            "--idle-timeout",
            "0",
            "--max-connections",
            str(args.connections + 100),
            # Every load connection comes from 127.0.0.1.
            "--max-connections-per-address",
            str(args.connections + 100),
            # A real server writes replays; they go to the scratch folder, not the tree.
            "--replay-dir",
            str(Path(folder) / "replays"),
        ]
        if map_spec is not None:
            argv += ["--map", map_spec]
        server = start_server("game", argv)
        try:
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def bare_server(args: argparse.Namespace) -> Iterator[ServerProcess]:
    argv = [sys.executable, "-m", "bench.bare_server", "--port", "0"]
    if not args.bare_fixed:
        argv.append("--shaped")
    server = start_server("bare", argv)
    try:
        yield server
    finally:
        server.stop()


def report(figures: dict) -> str:
    return (
        f"{figures['server']:5} {figures['connections']:6,d} conns  "
        f"{figures['throughput']:10,.0f} replies/s  p50 {figures['p50_ms']:7.2f} ms  "
        f"p99 {figures['p99_ms']:7.2f} ms  p99.9 {figures['p999_ms']:7.2f} ms  "
        f"{figures['kib_per_connection']:6.1f} KiB/conn  errors {figures['errors']}\n"
        f"      CPU while measured: server {figures['server_cpu']:4.0%}, generator "
        + " + ".join(f"{share:.0%}" for share in figures["generator_cpu"])
        + f"; {figures['replies_per_cpu_second']:,.0f} replies per server CPU-second"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--connections", "-n", type=int, default=50)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before measuring")
    parser.add_argument("--pipeline", type=int, default=1, help="commands in flight per connection")
    parser.add_argument(
        "--interval",
        type=float,
        default=None,
        help="open loop: each bot sends a command every INTERVAL seconds",
    )
    parser.add_argument("--workers", type=int, default=1, help="load generator processes")
    parser.add_argument("--world", default="classic")
    parser.add_argument("--map", default=None, help="default: an arena sized for the bots")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-baseline", action="store_true", help="skip the bare trio server run")
    parser.add_argument(
        "--bare-fixed",
        action="store_true",
        help="the bare server answers every line with one SUCCESS (default: the game's sizes)",
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="sample the game server with py-spy into FILE (raw)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    return parser


def run(args: argparse.Namespace) -> dict:
    mode = (
        f"open loop, one command every {args.interval:g}s per bot"
        if args.interval
        else f"closed loop, pipeline {args.pipeline}"
    )
    print(
        f"load: {args.connections} connections, {args.world} world, {mode}, "
        f"{args.warmup:g}s warm-up + {args.duration:g}s",
        file=sys.stderr,
    )
    results: dict = {"settings": vars(args).copy(), "cpus": os.cpu_count()}
    with game_server(args) as server:
        results["game"] = drive(server, args, game=True)
    print(report(results["game"]))
    if not args.no_baseline:
        with bare_server(args) as server:
            results["bare"] = drive(server, args, game=False)
        print(report(results["bare"]))
        game, bare = results["game"], results["bare"]
        results["ratio"] = game["throughput"] / bare["throughput"]
        results["cpu_ratio"] = game["replies_per_cpu_second"] / bare["replies_per_cpu_second"]
        print(
            f"ratio game/bare: throughput {results['ratio']:.3f}, "
            f"replies per server CPU-second {results['cpu_ratio']:.3f}"
        )
    return results


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    results = run(args)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
