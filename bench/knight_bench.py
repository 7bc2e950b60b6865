"""The knight's minimum health: each algorithm's time on growing square grids.

Run with ``python -m bench.knight_bench`` (``--help`` for the options). It prints
one row per size, as the study's results table does: the least starting health
(all algorithms must agree, or the run stops) and the seconds each algorithm
took. Plain recursion is stopped once its call count passes ``--recursion-calls``
(by default at 12 × 12, a second or two); a size that ran in under a tenth of a
second is timed again and the best of five kept.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from dungeon_of_doom.worlds.knight.dungeon_master import DEFAULT_HIGH, DEFAULT_LOW, generate
from dungeon_of_doom.worlds.knight.grid import Grid
from dungeon_of_doom.worlds.knight.solver import ALGORITHMS, path_need, recursive_calls

SIZES = (2, 4, 6, 8, 10, 12, 14, 50, 100, 250, 500, 1000, 2000)
QUICK = 0.1
REPEATS = 5


def _seconds(name: str, grid: Grid) -> tuple[int, float]:
    best = None
    health = 0
    for _ in range(REPEATS):
        began = time.perf_counter()
        solution = ALGORITHMS[name](grid)
        took = time.perf_counter() - began
        if path_need(grid, solution.path) != solution.health:
            raise SystemExit(f"{name} returned a path that does not achieve its health")
        health = solution.health
        best = took if best is None else min(best, took)
        if took >= QUICK:
            break
    assert best is not None
    return health, best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.knight_bench", description=__doc__)
    parser.add_argument("--max-size", type=int, default=2000, help="largest side (default 2000)")
    parser.add_argument("--low", type=int, default=DEFAULT_LOW, help="smallest value")
    parser.add_argument("--high", type=int, default=DEFAULT_HIGH, help="largest value")
    parser.add_argument("--seed", type=int, default=0, help="dungeon master's seed")
    parser.add_argument(
        "--recursion-calls",
        type=float,
        default=3e6,
        help="run plain recursion only below this many calls (default 3e6)",
    )
    args = parser.parse_args(argv)

    names = list(ALGORITHMS)
    print(
        f"Seconds per solve (minimum and path), n x n grids of values in "
        f"[{args.low}, {args.high}], seed {args.seed}; '-' not run."
    )
    header = f"{'size':>11} {'health':>8}" + "".join(f"{name:>15}" for name in names)
    print(header)
    print("-" * len(header))
    for size in (n for n in SIZES if n <= args.max_size):
        grid = generate(size, size, low=args.low, high=args.high, seed=args.seed)
        cells = []
        answers = set()
        for name in names:
            if name == "recursive" and recursive_calls(size, size) > args.recursion_calls:
                cells.append(f"{'-':>15}")
                continue
            health, seconds = _seconds(name, grid)
            answers.add(health)
            cells.append(f"{seconds:>15.6f}")
        if len(answers) != 1:
            raise SystemExit(f"the algorithms disagree on the {size} x {size} grid: {answers}")
        print(f"{f'{size} x {size}':>11} {answers.pop():>8}" + "".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
