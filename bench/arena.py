"""``python -m bench.arena``: games per minute of ``dod-arena`` on 1, 2 and all cores.

Plays the same short round-robin (``--games``, 20 by default, between two battle, two
random and two explorer bots in the ``battle`` world, or ``--world classic`` on its tiny
map) with ``--servers k --parallel k`` for k = 1, 2 and the machine's core count, each
into a fresh store, and prints one line per k: the wall time and games per minute.
``--repeat N`` measures each k N times, alternating the order of the k's from one
repetition to the next, and reports the median. ``--json FILE`` writes the figures too.

It measures the whole arena as a user runs it: server processes, a bot process per
player per game, records written. On a machine others use the figures are noise; say
so when quoting them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def measure(cores: int, games: int, folder: Path, world: str) -> dict[str, float]:
    bots = (
        ["battle:2", "random:2", "explorer:2"] if world == "battle" else ["random:2", "explorer:2"]
    )
    where = ["--world", "battle"] if world == "battle" else ["--map", "tiny"]
    command = [
        sys.executable,
        "-m",
        "arena",
        *bots,
        *where,
        "--games",
        str(games),
        "--servers",
        str(cores),
        "--parallel",
        str(cores),
        "--max-moves",
        "300",
        "--dir",
        str(folder),
        "--tournament",
        f"bench{cores}",
        "--json",
    ]
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"dod-arena failed with {cores} cores: {result.stderr[-2000:]}")
    recorded = json.loads(result.stdout)["recorded"]
    return {
        "cores": cores,
        "games": recorded,
        "seconds": round(seconds, 2),
        "games_per_minute": round(recorded * 60 / seconds, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.arena", description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--world", choices=("battle", "classic"), default="battle")
    parser.add_argument("--repeat", type=int, default=1, help="measurements per core count")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    options = parser.parse_args(argv)
    counts = sorted({1, 2, os.cpu_count() or 1})
    runs: dict[int, list[dict[str, float]]] = {cores: [] for cores in counts}
    with tempfile.TemporaryDirectory(prefix="dod-arena-bench-") as folder:
        for repetition in range(options.repeat):
            for cores in counts if repetition % 2 == 0 else reversed(counts):
                where = Path(folder) / f"cores-{cores}-{repetition}"
                runs[cores].append(measure(cores, options.games, where, options.world))
    figures = []
    for cores in counts:
        rates = sorted(run["games_per_minute"] for run in runs[cores])
        figure = {
            "cores": cores,
            "games": runs[cores][0]["games"],
            "runs": [run["games_per_minute"] for run in runs[cores]],
            "games_per_minute": statistics.median(rates),
        }
        figures.append(figure)
        print(
            f"{cores} core(s): {figure['games']} games a run, "
            f"{figure['games_per_minute']:.1f} games per minute (median of {len(rates)}: "
            f"{', '.join(f'{r:.1f}' for r in figure['runs'])})",
            flush=True,
        )
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
