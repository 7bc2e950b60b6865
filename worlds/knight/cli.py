"""``dod-knight``: solve a knight grid from the command line.

::

    dod-knight example                      a shipped grid
    dod-knight path/to/grid.txt             a grid file
    dod-knight 30x40,range=-50..50 --seed 7 a generated grid
    dod-knight 12x12 --compare              time the four algorithms side by side
    dod-knight 500x500 --save big.txt       keep a generated grid as a file

It prints the grid's size, the least starting health, the optimal path as
``MOVE`` letters (``E`` east, ``S`` south), the lowest health met on the way, and
the grid with the path's squares marked ``[v]`` (by default only for grids of at
most :data:`SHOW_LIMIT` squares; ``--grid`` and ``--no-grid`` decide). Exit
status: 0 solved, 2 a bad spec or option.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from dungeon_of_doom.commandline import run_command

from ..errors import MapError
from .grid import Grid, format_grid
from .render import YOU, number_rows
from .solver import (
    ALGORITHMS,
    MAX_RECURSIVE_PATH,
    Solution,
    health_along,
    path_need,
    recursive_calls,
)
from .spec import DEFAULT_GRID, parse_spec, shipped_grids

__all__ = ["MAX_RECURSIVE_CALLS", "SHOW_LIMIT", "build_parser", "main"]

SHOW_LIMIT: Final = 10_000
"""Grids of at most this many squares are drawn unless ``--no-grid`` is given."""
MAX_RECURSIVE_CALLS: Final = 3_000_000
"""``--compare`` skips plain recursion on grids that would take more calls (a few seconds)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dod-knight",
        description="The knight's minimum health: the least starting health that crosses a "
        "grid of traps and potions moving only east or south, and the path.",
    )
    parser.add_argument(
        "spec",
        nargs="?",
        default=DEFAULT_GRID,
        help="a grid file, a shipped grid's name, or a size such as 20x30 to generate one "
        "(options: ,range=LOW..HIGH ,seed=N); default: %(default)s",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed for a generated grid without seed= (default 0)"
    )
    parser.add_argument(
        "--algorithm",
        choices=list(ALGORITHMS),
        default="bottom-up",
        help="the solver to use (default: %(default)s)",
    )
    parser.add_argument(
        "--compare", action="store_true", help="run every algorithm and time them side by side"
    )
    parser.add_argument(
        "--grid",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=f"draw the grid with the path marked (default: for at most {SHOW_LIMIT} squares)",
    )
    parser.add_argument("--save", metavar="FILE", help="also write the grid to FILE")
    parser.add_argument("--list", action="store_true", help="list the shipped grids and exit")
    return parser


def _timed(name: str, grid: Grid) -> tuple[Solution, float]:
    began = time.perf_counter()
    solution = ALGORITHMS[name](grid)
    return solution, time.perf_counter() - began


def _recursion_skipped(grid: Grid) -> str | None:
    """Why plain recursion is not run on ``grid``, or ``None`` if it is."""
    if grid.height + grid.width - 1 > MAX_RECURSIVE_PATH:
        return f"its path is longer than {MAX_RECURSIVE_PATH} squares"
    calls = recursive_calls(grid.height, grid.width)
    if calls > MAX_RECURSIVE_CALLS:
        return f"it would take {calls:.1e} calls"
    return None


def _compare(grid: Grid) -> list[str]:
    lines = [f"{'algorithm':<14} {'health':>10}  {'path':<6} {'seconds':>10}"]
    for name in ALGORITHMS:
        reason = _recursion_skipped(grid) if name == "recursive" else None
        if reason is not None:
            lines.append(f"{name:<14} skipped: {reason}")
            continue
        solution, seconds = _timed(name, grid)
        verdict = "ok" if path_need(grid, solution.path) == solution.health else "WRONG"
        lines.append(f"{name:<14} {solution.health:>10}  {verdict:<6} {seconds:>10.6f}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; the exit status (141 if the reader went away, 130 on Ctrl-C)."""
    return run_command(lambda: _main(argv), name="dod-knight")


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(shipped_grids()))
        return 0
    try:
        spec = parse_spec(args.spec, seed=args.seed)
    except MapError as error:
        print(f"dod-knight: error: {error}", file=sys.stderr)
        return 2
    if spec.health is not None:
        print(
            "dod-knight: error: health= is an option of the knight world (dod-server), "
            "not of dod-knight",
            file=sys.stderr,
        )
        return 2
    grid = spec.grid
    if args.algorithm == "recursive" and (reason := _recursion_skipped(grid)) is not None:
        print(f"dod-knight: error: plain recursion is too slow here: {reason}", file=sys.stderr)
        return 2
    if args.save:
        Path(args.save).write_text(format_grid(grid, f"{grid.height} x {grid.width}: {spec.name}"))

    solution, seconds = _timed(args.algorithm, grid)
    healths = health_along(grid, solution.path, solution.health)
    lowest = min(healths)
    print(f"grid: {spec.name}, {grid.height} x {grid.width}")
    print(f"least starting health: {solution.health}")
    print(f"path ({args.algorithm}, {seconds:.6f} s): {solution.moves or '(none: 1 x 1)'}")
    print(
        f"lowest health on the way: {lowest} at {solution.path[healths.index(lowest)]}; "
        f"health at the end: {healths[-1]}"
    )
    show = args.grid if args.grid is not None else grid.height * grid.width <= SHOW_LIMIT
    if show:
        print()
        print("\n".join(number_rows(grid, dict.fromkeys(solution.path, YOU))))
    if args.compare:
        print()
        print("\n".join(_compare(grid)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
