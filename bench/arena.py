"""``python -m bench.arena``: games per minute of ``dod-arena`` on 1, 2 and all cores.

With ``--db postgresql://...`` it measures 1 and then 2 workers (``dod-arena worker``)
playing the same tournament submitted to that database, in one run.

Otherwise it plays the same short round-robin (``--games``, 20 by default, between two
battle, two random and two explorer bots in the ``battle`` world, or ``--world classic``
on its tiny map) with ``--servers k --parallel k`` for k = 1, 2 and the machine's core count, each
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
        "dungeon_of_doom.arena",
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


def measure_workers(
    workers: int, games: int, folder: Path, world: str, db: str, tag: str
) -> dict[str, float]:
    """The same tournament submitted to ``db`` and played by ``workers`` worker processes
    (``dod-arena worker --exit-when-idle``), from submit to the last worker's exit."""
    bots = (
        ["battle:2", "random:2", "explorer:2"] if world == "battle" else ["random:2", "explorer:2"]
    )
    where = ["--world", "battle"] if world == "battle" else ["--map", "tiny"]
    tournament = f"b{tag}w{workers}"
    arena = [sys.executable, "-m", "dungeon_of_doom.arena"]
    started = time.perf_counter()
    subprocess.run(
        [
            *arena,
            "submit",
            *bots,
            *where,
            "--games",
            str(games),
            "--max-moves",
            "300",
            "--tournament",
            tournament,
            "--db",
            db,
        ],
        check=True,
        capture_output=True,
    )
    running = [
        subprocess.Popen(
            [
                *arena,
                "worker",
                "--db",
                db,
                "--tournament",
                tournament,
                "--exit-when-idle",
                "--dir",
                str(folder / f"worker-{n}"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(workers)
    ]
    for process in running:
        _, err = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"a worker failed: {err[-2000:]}")
    seconds = time.perf_counter() - started
    status = subprocess.run(
        [*arena, "status", "--db", db, "--tournament", tournament, "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    recorded = json.loads(status.stdout)["recorded"]
    return {
        "workers": workers,
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
    parser.add_argument(
        "--db",
        default=None,
        help="postgresql://...: measure 1 and 2 workers (dod-arena worker) sharing it, "
        "instead of one dod-arena with 1, 2 and all servers",
    )
    options = parser.parse_args(argv)
    if options.db:
        tag = f"{int(time.time()) % 100000}"
        with tempfile.TemporaryDirectory(prefix="dod-arena-bench-") as folder:
            figures = [
                measure_workers(k, options.games, Path(folder), options.world, options.db, tag)
                for k in (1, 2)
            ]
        for figure in figures:
            print(
                f"{figure['workers']} worker(s): {figure['games']} games in "
                f"{figure['seconds']:.1f} s, {figure['games_per_minute']:.1f} games per minute",
                flush=True,
            )
        if options.json:
            Path(options.json).write_text(json.dumps(figures, indent=2) + "\n")
        return 0
    counts = sorted({1, 2, os.cpu_count() or 1})
    runs: dict[int, list[dict[str, float]]] = {cores: [] for cores in counts}
    with tempfile.TemporaryDirectory(prefix="dod-arena-bench-") as folder:
        for repetition in range(options.repeat):
            for cores in counts if repetition % 2 == 0 else reversed(counts):
                where = Path(folder) / f"cores-{cores}-{repetition}"
                runs[cores].append(measure(cores, options.games, where, options.world))
    summaries: list[dict[str, object]] = []
    for cores in counts:
        per_run = [run["games_per_minute"] for run in runs[cores]]
        games = runs[cores][0]["games"]
        median = statistics.median(sorted(per_run))
        summaries.append(
            {"cores": cores, "games": games, "runs": per_run, "games_per_minute": median}
        )
        print(
            f"{cores} core(s): {games} games a run, "
            f"{median:.1f} games per minute (median of {len(per_run)}: "
            f"{', '.join(f'{r:.1f}' for r in per_run)})",
            flush=True,
        )
    if options.json:
        Path(options.json).write_text(json.dumps(summaries, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
