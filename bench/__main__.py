"""``make bench`` / ``python -m bench``: the load scenarios behind the performance targets.

1. throughput-look, throughput-move, throughput-mix: 50 bots in a closed loop on the
   classic world, alternating three times with every baseline (the bare trio line
   servers, and the asyncio ``Protocol`` server on uvloop where uvloop is installed);
   medians (targets: game ≥ 0.75 × the bare poll server's replies per server
   CPU-second, ≥ 0.9 × the uvloop server's throughput);
2. latency: 1,000 bots each sending a command every 100 ms, the generator pinned off
   the server's core (target: p99 < 10 ms);
3. latency-10k: 10,000 bots each sending one command a second (target: p99 < 10 ms,
   with the steal time and the generator's own lateness beside it);
4. capacity: 10,000 connections held at once (target: < 15 KiB of server memory each).

The instructions each command costs, a figure the machine's load cannot move, come
from ``python -m bench.instructions`` (callgrind), not from here.

``--only NAME`` runs one scenario (``--only throughput`` runs the three throughput
ones), ``--json FILE`` writes every figure. Each scenario is also available on its
own through ``python -m bench.load`` with its options.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import load

_THROUGHPUT = [
    *("--connections", "50", "--duration", "10", "--warmup", "2", "--repeat", "3"),
    *("--baseline", "all"),
]
SCENARIOS = {
    "throughput-look": [*_THROUGHPUT, "--commands", "look"],
    "throughput-move": [*_THROUGHPUT, "--commands", "move"],
    "throughput-mix": [*_THROUGHPUT, "--commands", "mix"],
    "latency": [
        "--connections",
        "1000",
        "--interval",
        "0.1",
        "--duration",
        "10",
        "--warmup",
        "3",
        "--baseline",
        "raw",
    ],
    "latency-10k": [
        *("--connections", "10000", "--interval", "1", "--duration", "10", "--warmup", "5"),
        *("--workers", "2", "--no-baseline"),
    ],
    "capacity": [
        "--connections",
        "10000",
        "--interval",
        "5",
        "--duration",
        "5",
        "--warmup",
        "5",
        "--workers",
        "2",
        "--no-baseline",
    ],
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted([*SCENARIOS, "throughput"]), action="append")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    figures = {}
    chosen = args.only or list(SCENARIOS)
    if "throughput" in chosen:
        chosen = [name for name in SCENARIOS if name.startswith("throughput")] + [
            name for name in chosen if not name.startswith("throughput")
        ]
    for name in dict.fromkeys(chosen):
        print(f"== {name}")
        figures[name] = load.run(load.build_parser().parse_args(SCENARIOS[name]))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
