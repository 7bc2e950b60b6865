"""``python -m bench.arena``: games per minute of ``dod-arena`` on 1, 2 and all cores.

Plays the same short round-robin (``--games``, 20 by default, between random and
explorer bots on the tiny classic map) with ``--servers k --parallel k`` for k = 1, 2
and the machine's core count, each into a fresh store, and prints one line per k: the
wall time and games per minute. ``--json FILE`` writes the figures too.

It measures the whole arena as a user runs it: server processes, a bot process per
player per game, records written. On a machine others use the figures are noise; say
so when quoting them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def measure(cores: int, games: int, folder: Path) -> dict[str, float]:
    command = [
        sys.executable,
        "-m",
        "records.arena",
        "random:2",
        "explorer:2",
        "--map",
        "tiny",
        "--games",
        str(games),
        "--servers",
        str(cores),
        "--parallel",
        str(cores),
        "--max-moves",
        "300",
        "--dir",
        str(folder / f"cores-{cores}"),
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
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    options = parser.parse_args(argv)
    counts = sorted({1, 2, os.cpu_count() or 1})
    figures = []
    with tempfile.TemporaryDirectory(prefix="dod-arena-bench-") as folder:
        for cores in counts:
            figure = measure(cores, options.games, Path(folder))
            figures.append(figure)
            print(
                f"{cores} core(s): {figure['games']} games in {figure['seconds']:.1f} s, "
                f"{figure['games_per_minute']:.1f} games per minute",
                flush=True,
            )
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
