"""``python -m bench.scaling``: what one server process per core gives, side by side.

A trio server runs on one core. To use more, run one server process per core, each
with its own games (``dod-server --port P``, ``--port P+1``, …: see
``docs/performance.md``). This starts k = 1, 2, … up to ``--max-servers`` (by default
the machine's cores) game servers at once, the i-th pinned to CPU i, and drives each
with its own load generator process (:mod:`bench.load`'s, unpinned: on a machine
with as many cores as servers they share the cores with the servers), all measured
over the same seconds. It prints, for each k, the replies per second of all servers
together, their CPU, and the replies per server CPU-second (what a reply costs: if it
stays level as k grows, servers do not slow one another down, and the total grows
with the cores that are free for them).

Linux only (CPU pinning, ``/proc``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
from pathlib import Path

from . import generator, load
from .load import Figures


def run_servers(count: int, base: list[str]) -> Figures:
    """``count`` servers measured at once; their summed and individual figures."""
    args = load.build_parser().parse_args([*base, "--no-pinning", "--no-baseline"])
    cpus = sorted(os.sched_getaffinity(0))
    results: list[Figures | BaseException] = [RuntimeError("not run")] * count
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(load.game_server(args)) for _ in range(count)]
        for index, server in enumerate(servers):
            os.sched_setaffinity(server.process.pid, {cpus[index % len(cpus)]})

        def drive(index: int) -> None:
            try:
                results[index] = load.drive(servers[index], args, shaped=True)
            except BaseException as error:  # reported below, with the others' figures
                results[index] = error

        threads = [threading.Thread(target=drive, args=(i,)) for i in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    failed = [r for r in results if isinstance(r, BaseException)]
    if failed:
        raise RuntimeError(f"a server's run failed: {failed[0]!r}") from failed[0]
    runs = [r for r in results if isinstance(r, dict)]
    throughput = sum(r["throughput"] for r in runs)
    cpu = sum(r["server_cpu"] for r in runs)
    return {
        "servers": count,
        "connections_each": args.connections,
        "throughput": throughput,
        "server_cpu": cpu,
        "replies_per_cpu_second": throughput / cpu if cpu else float("nan"),
        "generator_cpu": [share for r in runs for share in r["generator_cpu"]],
        "p99_ms": max(r["p99_ms"] for r in runs),
        "load_before": min(r["load_before"][0] for r in runs),
        "load_after": max(r["load_after"][0] for r in runs),
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.scaling", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--max-servers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--connections", "-n", type=int, default=50, help="per server")
    parser.add_argument("--commands", default="mix", choices=sorted(generator.MIXES))
    parser.add_argument("--duration", type=float, default=8.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = parser.parse_args(argv)
    base = [
        "--connections",
        str(args.connections),
        "--commands",
        args.commands,
        "--duration",
        str(args.duration),
        "--warmup",
        str(args.warmup),
    ]
    figures = []
    for count in range(1, args.max_servers + 1):
        print(f"== {count} server(s)", file=sys.stderr)
        result = run_servers(count, base)
        figures.append(result)
        print(
            f"{count} server(s) × {args.connections} connections: "
            f"{result['throughput']:10,.0f} replies/s in all, servers at "
            f"{result['server_cpu']:.0%} of a core in all, "
            f"{result['replies_per_cpu_second']:,.0f} replies per server CPU-second, generators "
            + " + ".join(f"{share:.0%}" for share in result["generator_cpu"])
            + f"; load average {result['load_before']:.2f} → {result['load_after']:.2f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
