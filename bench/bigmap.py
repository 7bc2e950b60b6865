"""``python -m bench.bigmap``: what a large classic map costs a world, in memory and load time.

It writes one map file (by default an open 2000 × 2000 arena: floor with a pillar
every sixth square, the worst case for anything kept per open square; or, with
``--generated SEED``, a dungeon from :mod:`mapgen`, which takes about a minute to
generate at that size), then for each world that plays classic maps (classic,
battle) starts a fresh Python process that reads and checks the file, opens the
world on it, and prints:

* ``parse``: seconds to read and check the file (:func:`worlds.classic.read_map`),
* ``open``: seconds to build the world from the checked map,
* ``map MiB`` and ``world MiB``: the growth of resident memory over each step,
* ``RSS`` and ``peak``: the process's resident memory after opening, and its
  high-water mark (``VmRSS``, ``VmHWM`` of ``/proc/self/status``),
* ``LOOK µs``: one ``look`` of a player on that map, best of 5 batches.

A fresh process per world keeps one world's garbage out of the next one's figures.
``--code DIR`` runs the same measurement on the source tree in ``DIR`` (an older
commit checked out with ``git worktree add``), for before-and-after figures.
Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

# One measurement: a JSON object of mixed numbers and names, passed from the child
# process to the parent through json.dumps and json.loads.
Figures = dict[str, Any]

WORLDS = ("classic", "battle")


def arena(side: int) -> str:
    """An open classic map: a wall border, a pillar every sixth square, gold and an exit."""
    pillars = "".join("#" if c % 6 == 3 else "." for c in range(side - 2))
    plain = "." * (side - 2)
    rows = ["#" * side]
    for r in range(1, side - 1):
        inner = pillars if r % 6 == 3 else plain
        if r == 1:
            inner = "GG" + inner[2:]
        if r == side // 2:
            inner = inner[:-1] + "E"
        rows.append("#" + inner + "#")
    rows.append("#" * side)
    return f"name Open arena {side}\nwin 2\n" + "\n".join(rows) + "\n"


def generated(side: int, seed: int) -> str:
    from dungeon_of_doom.mapgen import Settings, generate
    from dungeon_of_doom.worlds.classic.generated import to_classic

    return to_classic(generate(seed, Settings(width=side, height=side)), seed=seed).to_text()


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def measure(world_name: str, path: str) -> Figures:
    """Run in a fresh process: load ``path`` into ``world_name`` and measure."""
    import gc

    from dungeon_of_doom.worlds.classic import read_map

    if world_name == "classic":
        from dungeon_of_doom.worlds.classic import ClassicWorld as World
    else:
        from dungeon_of_doom.worlds.battle.world import BattleWorld as World  # type: ignore[assignment]

    gc.collect()
    rss_start = _status_kib("VmRSS")
    started = time.perf_counter()
    classic_map = read_map(path)
    parsed = time.perf_counter()
    gc.collect()
    rss_parsed = _status_kib("VmRSS")
    opened_from = time.perf_counter()
    world = World(classic_map, seed=1)
    opened = time.perf_counter()
    gc.collect()
    rss_opened = _status_kib("VmRSS")
    world.join(1)
    number = 20_000
    best = min(timeit.repeat(lambda: world.look(1), number=number, repeat=5))
    return {
        "world": world_name,
        "rows": classic_map.height,
        "columns": classic_map.width,
        "parse_s": parsed - started,
        "open_s": opened - opened_from,
        "map_mib": (rss_parsed - rss_start) / 1024,
        "world_mib": (rss_opened - rss_parsed) / 1024,
        "rss_mib": rss_opened / 1024,
        "peak_mib": _status_kib("VmHWM") / 1024,
        "look_us": best / number * 1e6,
    }


def run_child(world_name: str, path: str, code: str | None) -> Figures:
    env = dict(os.environ)
    if code is not None:
        # The other tree's packages come first on the path; this file runs as a script.
        env["PYTHONPATH"] = code + os.pathsep + env.get("PYTHONPATH", "")
    output = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", world_name, path],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    figures: Figures = json.loads(output)
    return figures


def table(results: list[Figures]) -> str:
    lines = [
        f"{'world':8} {'size':>11} {'parse s':>8} {'open s':>7} {'map MiB':>8} "
        f"{'world MiB':>9} {'RSS MiB':>8} {'peak MiB':>9} {'LOOK µs':>8}"
    ]
    for r in results:
        lines.append(
            f"{r['world']:8} {r['rows']:>5}×{r['columns']:<5} {r['parse_s']:8.2f} "
            f"{r['open_s']:7.2f} {r['map_mib']:8.1f} {r['world_mib']:9.1f} "
            f"{r['rss_mib']:8.1f} {r['peak_mib']:9.1f} {r['look_us']:8.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.bigmap", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--side", type=int, default=2000, help="rows and columns of the map")
    parser.add_argument("--generated", type=int, metavar="SEED", help="a mapgen dungeon instead")
    parser.add_argument("--map", help="measure this classic map file instead of writing one")
    parser.add_argument("--world", action="append", choices=WORLDS, help="default: all")
    parser.add_argument("--code", metavar="DIR", help="measure the source tree in DIR")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(*args.child)))
        return
    with tempfile.TemporaryDirectory() as folder:
        path = args.map
        if path is None:
            path = str(Path(folder) / "big.map")
            started = time.perf_counter()
            text = (
                arena(args.side) if args.generated is None else generated(args.side, args.generated)
            )
            Path(path).write_text(text)
            print(f"map written in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        results = [run_child(name, path, args.code) for name in args.world or WORLDS]
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
