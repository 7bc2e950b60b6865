"""``python -m bench.crawler_bench``: what loading a crawler level and a monster turn cost.

It prints, as medians over ``--repeat`` runs:

* the time to read and check a 1,000 × 1,000 level, written with spaces between
  tiles (as the sample levels are) and glued together (the target: under a second);
* a monster turn (:meth:`worlds.crawler.Grid.hunt`) on levels of growing area where
  pillars four squares away close every line of sight: the cost should stay flat,
  since only the squares on the four lines are scanned;
* the same on open levels, where the lines grow with the side: the cost should
  grow with the side, not with the area;
* a whole turn (:meth:`worlds.crawler.State.step`) and an amulet's doubling on the
  1,000 × 1,000 level.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from dungeon_of_doom.worlds.crawler import Command, Grid, Level, State, parse_level, read_level


def _median(
    action: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None
) -> float:
    times: list[float] = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def level_text(
    side: int, seed: int, spaced: bool, walled_at: int | None = None, pillars: int = 6
) -> str:
    """A random level: mostly open, some monsters, treasure and pillars; the player centred.

    With ``walled_at``, pillars ring the player at that distance on every line;
    ``pillars`` is their share in percent elsewhere.
    """
    rng = random.Random(seed)
    tiles = rng.choices("-M$+@", weights=(86 - pillars, 8, 4, pillars, 2), k=side * side)
    middle = side // 2
    tiles[middle * side + middle] = "-"
    tiles[0] = "?"
    if walled_at is not None:
        for d_row, d_col in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            row, col = middle + d_row * walled_at, middle + d_col * walled_at
            tiles[row * side + col] = "+"
    separator = " " if spaced else ""
    rows = [separator.join(tiles[i : i + side]) for i in range(0, len(tiles), side)]
    return f"{side} {side}\n{middle} {middle}\n" + "\n".join(rows)


def bench_load(side: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for spaced in (True, False):
            path = Path(folder) / f"big{int(spaced)}.txt"
            path.write_text(level_text(side, 1, spaced))
            seconds = _median(partial(read_level, path), repeat)
            size = path.stat().st_size / 1e6
            style = "spaced" if spaced else "glued "
            print(f"load {side:,} x {side:,} ({style}, {size:.1f} MB): {seconds * 1e3:8.1f} ms")


def bench_hunt(sides: list[int], repeat: int, walled: bool) -> None:
    label = "pillars at distance 4" if walled else "no pillars at all    "
    for side in sides:
        level = parse_level(level_text(side, 2, False, 4 if walled else None, 6 if walled else 0))
        grid = Grid.from_level(level)

        def fresh(grid: Grid = grid, level: Level = level) -> None:
            grid.cells[:] = level.tiles

        def hunt(grid: Grid = grid, middle: int = side // 2) -> None:
            grid.hunt(middle, middle, set())

        seconds = _median(hunt, repeat, fresh)
        print(f"monster turn, {label}, {side:>5,} x {side:<5,}: {seconds * 1e6:9.1f} µs")


def bench_turn(side: int, repeat: int) -> None:
    level = parse_level(level_text(side, 3, False))
    state = State((level,))
    seconds = _median(lambda: state.copy().step(Command.STAY), repeat)
    copy = _median(state.copy, repeat)
    print(f"whole turn on {side:,} x {side:,} (with a copy of the state): {seconds * 1e3:.2f} ms")
    print(f"  of which the copy (a search's cost per state):         {copy * 1e3:.2f} ms")
    grid = Grid.from_level(level)
    doubling = _median(lambda: Grid(grid.rows, grid.cols, grid.cells[:]).double(), repeat)
    grown = f"{2 * side:,} x {2 * side:,}"
    print(f"amulet doubling {side:,} x {side:,} -> {grown}: {doubling * 1e3:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--side", type=int, default=1000, help="side of the big level")
    args = parser.parse_args()
    bench_load(args.side, args.repeat)
    sides = [10, 100, 1000, 3000]
    bench_hunt(sides, max(args.repeat, 21), walled=True)
    bench_hunt(sides, max(args.repeat, 21), walled=False)
    bench_turn(args.side, args.repeat)


if __name__ == "__main__":
    main()
