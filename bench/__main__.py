"""``make bench`` / ``python -m bench``: the load scenarios behind the README's targets.

1. throughput: 50 bots in a closed loop on the classic world, against the bare trio
   line server in the same run (target: ratio ≥ 0.9);
2. latency: 1,000 bots each sending a command every 100 ms (target: p99 < 10 ms);
3. capacity: 10,000 connections held at once (target: < 20 KiB of server memory each).

``--only NAME`` runs one scenario, ``--json FILE`` writes every figure. Each scenario
is also available on its own through ``python -m bench.load`` with its options.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from . import load

SCENARIOS = {
    "throughput": ["--connections", "50", "--duration", "10", "--warmup", "2"],
    "latency": [
        "--connections",
        "1000",
        "--interval",
        "0.1",
        "--duration",
        "10",
        "--warmup",
        "3",
        # One generator process would run at 85-95 % of a core: any hiccup then puts it
        # behind its schedule for hundreds of milliseconds, which shows up as latency.
        "--workers",
        "2",
        "--no-baseline",
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
    parser.add_argument("--only", choices=sorted(SCENARIOS), action="append")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    figures = {}
    for name in args.only or SCENARIOS:
        print(f"== {name}")
        figures[name] = load.run(load.build_parser().parse_args(SCENARIOS[name]))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
