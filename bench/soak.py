"""``python -m bench.soak``: a bot swarm against one server for a long while, and its memory.

For people running long-lived servers; it is not part of the test suite. It starts
the game server as :mod:`bench.load` does, connects ``--bots`` bots that each send
a ``LOOK`` or ``MOVE`` every ``--interval`` seconds for ``--minutes``, and samples the
server's resident memory every ``--every`` seconds. It prints one row per sample
(elapsed time, memory, replies so far) and the growth from the first sample after
connecting to the last; ``--json FILE`` writes the samples.

Memory that keeps growing while the number of bots stays the same is a leak; a
level line is what a healthy server shows.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

from . import generator, load
from .load import Figures


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between commands")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--world", default="classic")
    parser.add_argument("--map", default=None, help="default: an arena sized for the bots")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="write the samples as JSON")
    return parser


def soak(args: argparse.Namespace) -> list[Figures]:
    # The load benchmark's server and bots, with its settings named as it names them.
    settings = argparse.Namespace(connections=args.bots, **vars(args))
    context = mp.get_context("spawn")
    samples: list[Figures] = []
    with load.game_server(settings) as server:
        plan = generator.Plan(
            port=server.port,
            connections=args.bots,
            duration=args.minutes * 60,
            warmup=0.0,
            pipeline=1,
            interval=args.interval,
            shaped=True,
            commands=generator.MIXES["mix"],
            seed=args.seed,
        )
        connected, counter = context.Value("q", 0), context.Value("q", 0)
        slowest, go = context.Value("d", 0.0), context.Event()
        results = context.Queue()
        worker = context.Process(
            target=generator.worker, args=(plan, connected, go, counter, slowest, results)
        )
        worker.start()
        while connected.value < args.bots and worker.is_alive():
            time.sleep(0.1)
        go.set()
        started = time.monotonic()
        print(" elapsed     RSS MiB     replies", file=sys.stderr)
        while worker.is_alive() and results.empty():
            sample = {
                "seconds": round(time.monotonic() - started, 1),
                "rss_kib": server.rss_kib(),
                "replies": counter.value,
            }
            samples.append(sample)
            print(
                f"{sample['seconds']:7.0f}s {sample['rss_kib'] / 1024:10.1f} "
                f"{sample['replies']:11,d}",
                file=sys.stderr,
            )
            time.sleep(args.every)
        worker.join(timeout=generator.CLOSE_GRACE + 30)
    if len(samples) > 1:
        growth = samples[-1]["rss_kib"] - samples[0]["rss_kib"]
        print(
            f"soak: {args.bots} bots for {args.minutes:g} min; server memory "
            f"{samples[0]['rss_kib'] / 1024:.1f} -> {samples[-1]['rss_kib'] / 1024:.1f} MiB "
            f"({growth:+,d} KiB)"
        )
    return samples


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    samples = soak(args)
    if args.json:
        Path(args.json).write_text(json.dumps(samples, indent=2) + "\n")


if __name__ == "__main__":
    main()
