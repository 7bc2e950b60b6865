"""``python -m bench.baddies_bench``: what a baddies round costs, and what it scales with.

It generates boards with :func:`worlds.baddies.generate` (three quarters of the
baddies monsters, a third of those super, a quarter bats) and times
:func:`worlds.baddies.play_round` with the hero staying: each timed round runs
on a fresh copy of the board, so every round moves the full population. It
prints the median over ``--repeat`` rounds

* for the same number of baddies on boards of growing area (the cost should
  stay flat: a round does not look at empty squares),
* for a growing number of baddies on one board (the cost should grow in step),
* and the generation time and a round on the 1,000 × 1,000 board with 10,000
  baddies (and 10,000 abysses) of the performance target.
"""

from __future__ import annotations

import argparse
import statistics
import time

from dungeon_of_doom.worlds.baddies import Board, Parameters, generate, play_round

HERO = 0


def _board(rows: int, columns: int, baddies: int, abysses: int, seed: int) -> Board:
    bats = baddies // 4
    board = generate(Parameters(rows, columns, abysses, baddies - bats, bats), seed)
    board.heroes[HERO] = board.start
    return board


def _round_time(board: Board, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        copy = board.copy()
        start = time.perf_counter()
        play_round(copy, {HERO: (0, 0)})
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds timed per case")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    print("same 10,000 baddies, growing board (median round):")
    for rows, columns in ((200, 200), (1000, 1000), (3000, 3000), (10_000, 10_000)):
        board = _board(rows, columns, 10_000, 0, args.seed)
        seconds = _round_time(board, args.repeat)
        print(
            f"  {rows:>6} x {columns:<6} {rows * columns:>12,} squares  "
            f"{seconds * 1000:8.2f} ms  {seconds / 10_000 * 1e6:6.2f} µs per baddie"
        )

    print("1,000 x 1,000 board, growing number of baddies (median round):")
    for count in (1_000, 10_000, 100_000):
        board = _board(1000, 1000, count, 0, args.seed)
        seconds = _round_time(board, args.repeat)
        print(
            f"  {count:>8,} baddies  {seconds * 1000:8.2f} ms  "
            f"{seconds / count * 1e6:6.2f} µs per baddie"
        )

    start = time.perf_counter()
    board = _board(1000, 1000, 10_000, 10_000, args.seed)
    generated = time.perf_counter() - start
    seconds = _round_time(board, args.repeat)
    print(
        f"target: 1,000 x 1,000 with 10,000 baddies and 10,000 abysses: generated in "
        f"{generated * 1000:.1f} ms, a round in {seconds * 1000:.2f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
