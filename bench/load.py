"""Load benchmark: bot-like clients in separate processes against a real server.

``python -m bench.load`` starts the game server and, for comparison, two bare trio
line servers (:mod:`bench.bare_server`: through ``SocketStream``, and on the raw trio
socket the game's own I/O is built on) as subprocesses on free loopback ports. It
opens N connections from generator processes (:mod:`bench.generator`: asyncio on
uvloop, a few microseconds per reply) and drives them like bots with ``LOOK``,
``MOVE`` or a realistic mix (``--commands``), in a closed loop (one command in
flight per connection, or ``--pipeline K``) or an open loop (``--interval S``: each
bot sends one command every S seconds, latency measured from the moment it was due,
so a slow server cannot hide behind its own slowness). It prints throughput, latency
percentiles, the server's resident memory per connection, the CPU time the server
and each generator process used while measured (with a warning for a generator
above 70 % of a core), and the machine's load average before and after each run,
with progress every second; it can write the results as JSON.

Reading the figures honestly:

* The bare servers answer with the same bytes as the game (``--shaped``: a fixed
  six-line ``LOOKREPLY`` for ``LOOK``, ``SUCCESS`` otherwise), so the generator
  does the same work against each and the ratio compares the servers alone.
  ``--bare-fixed`` answers every line with one ``SUCCESS`` instead.
* A ratio says something only while the server is the bottleneck. The CPU
  columns say whether it is: a server near 100 % of a core is saturated (trio
  runs on one); a generator near 100 % means the figures are the generator's
  ceiling, not the server's. ``--server-cpus``/``--generator-cpus`` pin them apart
  (by default the server gets CPU 0 and the generators the others, where there are
  two or more).
* ``--repeat K`` alternates the servers K times and reports the median of each,
  so that a neighbour's burst of load does not favour one server.
* ``--profile FILE`` samples the game server with py-spy during the measured
  seconds and prints its top functions.

The figures are measurements of this machine, never assertions: nothing here
fails because a machine is slow.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import multiprocessing as mp
import os
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from commandline import lifeline

from . import generator, profile

# A benchmark's figures: a JSON object of mixed numbers, names and nested lists, written
# out with json.dumps and read back with json.loads, whose values each caller knows.
Figures = dict[str, Any]

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
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        **lifeline.child_options(),  # a benchmark killed takes its servers with it
    )
    return attach_server(name, process)


def attach_server(
    name: str, process: subprocess.Popen[bytes], timeout: float = 30.0
) -> ServerProcess:
    """``process`` (its standard error a pipe) once it says where it listens."""
    seen = b""
    deadline = time.monotonic() + timeout
    assert process.stderr is not None
    while (match := LISTENING.search(seen)) is None:
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise RuntimeError(f"{name} server did not start: {seen.decode(errors='replace')}")
        seen += process.stderr.readline()
    # Keep draining its standard error so that a chatty server never blocks on a full pipe.
    threading.Thread(target=_drain, args=(process.stderr,), daemon=True).start()
    return ServerProcess(name, process, int(match.group(1)))


def _drain(pipe: IO[bytes]) -> None:
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


# -- one run ----------------------------------------------------------------------------


def percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return math.nan
    index = min(len(sorted_values) - 1, max(0, math.ceil(fraction * len(sorted_values)) - 1))
    return sorted_values[index]


def _cpu_sets(args: argparse.Namespace) -> tuple[set[int] | None, tuple[int, ...] | None]:
    """The CPUs for the server and for the generators: apart, where the machine allows."""
    available = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    server = _parse_cpus(args.server_cpus)
    generators = _parse_cpus(args.generator_cpus)
    if server is None and generators is None and len(available) >= 2 and not args.no_pinning:
        server, generators = {available[0]}, set(available[1:])
    return server, (tuple(sorted(generators)) if generators is not None else None)


def _parse_cpus(text: str | None) -> set[int] | None:
    if text is None:
        return None
    cpus: set[int] = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


STEAL_WARNING = 0.02
"""A share of steal time on the server's CPUs above which the figures are the host's too."""


def cpu_ticks(cpus: set[int] | None) -> tuple[int, int]:
    """Steal and all ticks so far of ``cpus`` (all CPUs if ``None``), from /proc/stat.

    Steal is time a virtual machine's CPU was ready to run but the hypervisor ran
    something else: the server could not run then, whatever it had to do. (0, 0)
    where /proc/stat is not there."""
    steal = total = 0
    try:
        with open("/proc/stat") as stat:
            for line in stat:
                name, *fields = line.split()
                if not name.startswith("cpu") or name == "cpu":
                    continue
                if cpus is not None and int(name[3:]) not in cpus:
                    continue
                ticks = [int(field) for field in fields]
                total += sum(ticks[:8])  # guest time is counted in user time already
                steal += ticks[7] if len(ticks) > 7 else 0
    except OSError:
        return 0, 0
    return steal, total


def _cpu_set(cpus: tuple[int, ...] | None) -> set[int] | None:
    return set(cpus) if cpus is not None else None


def drive(
    server: ServerProcess,
    args: argparse.Namespace,
    *,
    shaped: bool,
    on_connected: Callable[[], None] | None = None,
) -> Figures:
    """Run the load against one server and return its figures; ``on_connected`` is
    called once every connection is made, before the load starts."""
    context = mp.get_context("spawn")
    workers = max(1, min(args.workers, args.connections))
    shares = [
        args.connections // workers + (i < args.connections % workers) for i in range(workers)
    ]
    server_cpus, generator_cpus = _cpu_sets(args)
    if server_cpus is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(server.process.pid, server_cpus)
    go = context.Event()
    results = context.Queue()
    counters = [context.Value("q", 0, lock=False) for _ in shares]
    slowest = [context.Value("d", 0.0, lock=False) for _ in shares]
    connected = [context.Value("q", 0, lock=False) for _ in shares]
    load_before = os.getloadavg()
    rss_before = server.rss_kib()
    processes = []
    for i, share in enumerate(shares):
        plan = generator.Plan(
            port=server.port,
            connections=share,
            duration=args.duration,
            warmup=args.warmup,
            pipeline=args.pipeline,
            interval=args.interval,
            shaped=shaped,
            commands=generator.MIXES[args.commands],
            seed=args.seed + i,
            cpus=generator_cpus,
        )
        process = context.Process(
            target=generator.worker,
            args=(plan, connected[i], go, counters[i], slowest[i], results),
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
    if on_connected is not None:
        on_connected()
    go.set()
    started = time.monotonic()
    measure_from, stop_at = started + args.warmup, started + args.warmup + args.duration
    cpu_from = cpu_to = None
    ticks_from = ticks_to = generator_ticks_from = generator_ticks_to = (0, 0)
    profiler = None
    last, last_count = started, 0
    total_time = args.warmup + args.duration
    while any(p.is_alive() for p in processes) and results.qsize() < len(processes):
        now = time.monotonic()
        if cpu_from is None and now >= measure_from:
            cpu_from = server.cpu_seconds()
            ticks_from = cpu_ticks(server_cpus)
            generator_ticks_from = cpu_ticks(_cpu_set(generator_cpus))
            if args.profile and server.name == "game":
                profiler = profile.record(
                    server.process.pid,
                    Path(args.profile),
                    args.duration,
                    rate=args.profile_rate,
                    native=args.profile_native,
                )
        if cpu_to is None and now >= stop_at:
            cpu_to = server.cpu_seconds()
            ticks_to = cpu_ticks(server_cpus)
            generator_ticks_to = cpu_ticks(_cpu_set(generator_cpus))
        # Wake at the edges of the measured seconds, and every second to show progress.
        edges = [t for t in (measure_from, stop_at) if t > now]
        time.sleep(max(0.0, min([last + 1.0, *edges]) - now))
        now = time.monotonic()
        if now - last >= 1.0:
            count = sum(c.value for c in counters)
            phase = "warm-up" if now < measure_from else "measuring" if now < stop_at else "closing"
            print(
                f"  {server.name:8} {now - started:5.1f}/{total_time:.0f}s {phase:9} "
                f"{(count - last_count) / (now - last):10,.0f} replies/s, slowest "
                f"{max(v.value for v in slowest) * 1000:8.2f} ms",
                file=sys.stderr,
            )
            last, last_count = now, count
            for value in slowest:
                value.value = 0.0
    if cpu_to is None:
        cpu_to = server.cpu_seconds()
        ticks_to = cpu_ticks(server_cpus)
        generator_ticks_to = cpu_ticks(_cpu_set(generator_cpus))
    steal, ticks = (to - since for to, since in zip(ticks_to, ticks_from, strict=True))
    generator_steal, generator_ticks = (
        to - since for to, since in zip(generator_ticks_to, generator_ticks_from, strict=True)
    )
    collected = [results.get(timeout=60) for _ in processes]
    for process in processes:
        process.join(timeout=10)
    latencies = sorted(x for r in collected for x in r["latencies"])
    send_lags = sorted(x for r in collected for x in r["send_lags"])
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
        "server_cpus": sorted(server_cpus) if server_cpus is not None else None,
        "generator_cpus": list(generator_cpus) if generator_cpus is not None else None,
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "server_cpus_steal": steal / ticks if ticks > 0 else 0.0,
        "generator_cpus_steal": generator_steal / generator_ticks if generator_ticks > 0 else 0.0,
    }
    if send_lags:  # open loop: the generator's own delay, inside the latency from due
        figures["send_lag_p99_ms"] = percentile(send_lags, 0.99) * 1000
    # Replies per CPU-second of the server: what a reply costs, whatever else the
    # machine was doing (the throughput itself moves with the neighbours' load).
    cpu = figures["server_cpu"] * args.duration
    figures["replies_per_cpu_second"] = completed / cpu if cpu else math.nan
    if profiler is not None:
        profiler.wait()
        print(profile.table(Path(args.profile)), file=sys.stderr)
    return figures


def game_argv(args: argparse.Namespace, folder: str) -> list[str]:
    """The arguments after ``python -m server`` that :func:`game_server` runs the game with:
    replays on, in ``folder`` (with the arena map for a classic world)."""
    map_spec = args.map
    if map_spec is None and args.world == "classic":
        map_spec = str(Path(folder) / "arena.map")
        Path(map_spec).write_text(arena_map(args.connections))
    argv = [
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
        "--no-http",  # the benchmark measures the game's TCP face alone
        # Every load connection comes from 127.0.0.1.
        "--max-connections-per-address",
        str(args.connections + 100),
        # A real server writes replays; they go to the scratch folder, not the tree.
        "--replay-dir",
        str(Path(folder) / "replays"),
    ]
    if map_spec is not None:
        argv += ["--map", map_spec]
    return argv


@contextlib.contextmanager
def game_server(
    args: argparse.Namespace, launcher: list[str] | None = None
) -> Iterator[ServerProcess]:
    """The game server, started by ``launcher`` (``python -m server`` unless given: the
    game's own arguments follow it)."""
    with tempfile.TemporaryDirectory() as folder:
        argv = [*(launcher or [sys.executable, "-m", "server"]), *game_argv(args, folder)]
        server = start_server("game", argv)
        try:
            yield server
        finally:
            server.stop()


BASELINES = {
    "stream": ["bench.bare_server"],
    "raw": ["bench.bare_server", "--raw"],
    "fd": ["bench.bare_server", "--fd"],
    "poll": ["bench.bare_server", "--poll"],
    "uvloop": ["bench.uvloop_server"],
}
"""The servers to compare with, as ``python -m`` arguments: the bare trio servers through
``SocketStream`` (as before), on the raw trio socket (the target's yardstick), on the
descriptor by a task per client (``fd``), and by one task for every client, the way the
game's poller serves them (``poll``); and an asyncio ``Protocol`` server on uvloop
(``uvloop``, :mod:`bench.uvloop_server`), what a user might pick instead of trio."""


@contextlib.contextmanager
def bare_server(args: argparse.Namespace, kind: str) -> Iterator[ServerProcess]:
    module, *options = BASELINES[kind]
    argv = [sys.executable, "-m", module, "--port", "0", *options]
    if not args.bare_fixed:
        argv.append("--shaped")
    server = start_server(f"bare-{kind}", argv)
    try:
        yield server
    finally:
        server.stop()


def report(figures: Figures) -> str:
    generator_cpu = figures["generator_cpu"]
    lines = [
        f"{figures['server']:8} {figures['connections']:6,d} conns  "
        f"{figures['throughput']:10,.0f} replies/s  p50 {figures['p50_ms']:7.2f} ms  "
        f"p99 {figures['p99_ms']:7.2f} ms  p99.9 {figures['p999_ms']:7.2f} ms  "
        f"{figures['kib_per_connection']:6.1f} KiB/conn  errors {figures['errors']}",
        f"         CPU while measured: server {figures['server_cpu']:4.0%}, generator "
        + " + ".join(f"{share:.0%}" for share in generator_cpu)
        + f"; {figures['replies_per_cpu_second']:,.0f} replies per server CPU-second; "
        + "load average {:.2f} before, {:.2f} after; steal {:.1%}".format(
            figures["load_before"][0],
            figures["load_after"][0],
            figures.get("server_cpus_steal", 0.0),
        ),
    ]
    if "send_lag_p99_ms" in figures:
        lines.append(
            f"         the generator sent late by up to {figures['send_lag_p99_ms']:.2f} ms "
            f"(p99; inside the latency above); steal on its CPUs "
            f"{figures.get('generator_cpus_steal', 0.0):.1%}"
        )
    steal = figures.get("server_cpus_steal", 0.0)
    if steal > STEAL_WARNING:
        lines.append(
            f"         WARNING: the hypervisor took {steal:.1%} of the server's CPUs (steal "
            "time): the server could not run then, and the latency figures include it"
        )
    for index in generator.overloaded(generator_cpu):
        lines.append(
            f"         WARNING: generator process {index} used {generator_cpu[index]:.0%} of a "
            f"core (over {generator.CPU_WARNING:.0%}): the figures may be the generator's; "
            "add --workers"
        )
    return "\n".join(lines)


def markdown(results: Figures) -> str:
    """Every run of ``results`` as a Markdown table (for docs/performance.md), then the
    medians and ratios: the figures, the CPU shares and the load average around each run."""
    rows = [
        "| round | server | replies/s | replies per server CPU-s | server CPU | generator CPU "
        "| p50 ms | p99 ms | load average before → after | steal |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in results["runs"]:
        rows.append(
            f"| {run['round'] + 1} | {run['server']} | {run['throughput']:,.0f} "
            f"| {run['replies_per_cpu_second']:,.0f} | {run['server_cpu']:.0%} "
            f"| {' + '.join(f'{share:.0%}' for share in run['generator_cpu'])} "
            f"| {run['p50_ms']:.2f} | {run['p99_ms']:.2f} "
            f"| {run['load_before'][0]:.2f} → {run['load_after'][0]:.2f} "
            f"| {run.get('server_cpus_steal', 0.0):.1%} |"
        )
    lines = ["\n".join(rows), ""]
    for name, median in results["median"].items():
        lines.append(
            f"* median {name}: {median['throughput']:,.0f} replies/s, "
            f"{median['replies_per_cpu_second']:,.0f} per server CPU-second"
        )
    for kind in BASELINES:
        if f"ratio_{kind}" in results:
            lines.append(
                f"* game / bare-{kind}: throughput {results[f'ratio_{kind}']:.3f}, "
                f"replies per server CPU-second {results[f'cpu_ratio_{kind}']:.3f}"
            )
    return "\n".join(lines)


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
    parser.add_argument(
        "--commands", choices=sorted(generator.MIXES), default="mix", help="what the bots send"
    )
    parser.add_argument("--workers", type=int, default=1, help="load generator processes")
    parser.add_argument("--world", default="classic")
    parser.add_argument("--map", default=None, help="default: an arena sized for the bots")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--baseline",
        choices=["both", "raw", "stream", "fd", "poll", "uvloop", "all", "none"],
        default="both",
        help="servers to compare with: the bare trio servers raw socket, SocketStream, both "
        "(the two), fd (a task per client on the descriptor), poll (one task for every "
        "client, the game's own I/O path); uvloop (an asyncio Protocol server on uvloop); "
        "all of them, or none",
    )
    parser.add_argument("--no-baseline", action="store_true", help="the same as --baseline none")
    parser.add_argument(
        "--repeat", type=int, default=1, help="alternate the servers this many times; medians"
    )
    parser.add_argument(
        "--bare-fixed",
        action="store_true",
        help="the bare server answers every line with one SUCCESS (default: the game's sizes)",
    )
    parser.add_argument("--server-cpus", help="CPUs for the server under test, e.g. 0")
    parser.add_argument("--generator-cpus", help="CPUs for the generator processes, e.g. 1-3")
    parser.add_argument(
        "--no-pinning", action="store_true", help="let the scheduler place server and generators"
    )
    parser.add_argument(
        "--profile", metavar="FILE", help="sample the game server with py-spy into FILE (raw)"
    )
    parser.add_argument(
        "--profile-native",
        action="store_true",
        help="with --profile: the C functions too (py-spy --native)",
    )
    parser.add_argument(
        "--profile-rate", type=int, default=200, help="with --profile: samples a second"
    )
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument(
        "--markdown", action="store_true", help="print every run as a Markdown table at the end"
    )
    return parser


def _baselines(args: argparse.Namespace) -> list[str]:
    if args.no_baseline or args.baseline == "none":
        return []
    if args.baseline == "all":
        # The poll server needs epoll (Linux); the uvloop one, uvloop (the bench extra).
        return [
            "raw",
            "stream",
            "fd",
            *(["poll"] if hasattr(select, "epoll") else []),
            *(["uvloop"] if importlib.util.find_spec("uvloop") is not None else []),
        ]
    return ["raw", "stream"] if args.baseline == "both" else [args.baseline]


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def run(args: argparse.Namespace) -> Figures:
    mode = (
        f"open loop, one command every {args.interval:g}s per bot"
        if args.interval
        else f"closed loop, pipeline {args.pipeline}"
    )
    print(
        f"load: {args.connections} connections, {args.world} world, {args.commands} commands, "
        f"{mode}, {args.warmup:g}s warm-up + {args.duration:g}s, {args.repeat} round(s)",
        file=sys.stderr,
    )
    results: Figures = {"settings": vars(args).copy(), "cpus": os.cpu_count(), "runs": []}
    baselines = _baselines(args)
    for round_number in range(args.repeat):
        # Alternate which server goes first, so that drifting load favours none.
        order = ["game", *baselines]
        if round_number % 2:
            order.reverse()
        for name in order:
            if name == "game":
                with game_server(args) as server:
                    figures = drive(server, args, shaped=True)
            else:
                with bare_server(args, name) as server:
                    figures = drive(server, args, shaped=not args.bare_fixed)
            figures["round"] = round_number
            results["runs"].append(figures)
            print(report(figures))
    summary: Figures = {}
    for name in ["game", *(f"bare-{kind}" for kind in baselines)]:
        runs = [r for r in results["runs"] if r["server"] == name]
        summary[name] = {
            key: _median([r[key] for r in runs])
            for key in ("throughput", "replies_per_cpu_second", "p50_ms", "p99_ms")
        }
    results["median"] = summary
    # Kept at the top level under the names earlier readers of the JSON used.
    results["game"] = next(r for r in results["runs"] if r["server"] == "game")
    for kind in baselines:
        bare = summary[f"bare-{kind}"]
        ratio = summary["game"]["throughput"] / bare["throughput"]
        cpu_ratio = summary["game"]["replies_per_cpu_second"] / bare["replies_per_cpu_second"]
        results[f"ratio_{kind}"] = ratio
        results[f"cpu_ratio_{kind}"] = cpu_ratio
        print(
            f"ratio game/bare-{kind} (median of {args.repeat}): throughput {ratio:.3f}, "
            f"replies per server CPU-second {cpu_ratio:.3f}"
        )
    return results


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    results = run(args)
    if args.markdown:
        print(markdown(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
