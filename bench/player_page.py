"""``python -m bench.player_page``: what one name's page (``/api/players/{name}``) costs
the records' thread on a large ladder.

Fills a temporary SQLite store with ``--rows`` rated names in one world and as many
solo wins on one map (one per name: every name ranks on that map), then times, median of
``--repeat``, the three reads the page makes for a name in the middle of the table,
beside the whole leaderboard the page used to read (issue 36).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from records.bests import player_bests
from records.schema import games, players, ratings
from records.store import Store


def fill(store: Store, rows: int) -> None:
    now = datetime.now(UTC)
    ids = [str(uuid.uuid4()) for _ in range(rows)]
    with store.engine.begin() as connection:
        connection.execute(
            ratings.insert(),
            [
                {
                    "world": "classic",
                    "name": f"p{n}",
                    "mu": 25.0 + n % 50,
                    "sigma": 8.0,
                    "games": 1,
                    "wins": 1,
                    "updated_at": now,
                }
                for n in range(rows)
            ],
        )
        connection.execute(
            games.insert(),
            [
                {
                    "id": id_,
                    "game": f"g{n}",
                    "world": "crawler",
                    "map": "easy",
                    "seed": 0,
                    "dialect": "2013",
                    "started_at": now,
                    "ended_at": now,
                    "rounds": 1,
                    "end_reason": "all players left",
                    "replay": None,
                    "server": "",
                    "rated": False,
                    "recorded_at": now,
                }
                for n, id_ in enumerate(ids)
            ],
        )
        connection.execute(
            players.insert(),
            [
                {
                    "game_id": id_,
                    "player": 1,
                    "name": f"p{n}",
                    "kind": "person",
                    "claimed": False,
                    "outcome": "win",
                    "gold": n % 7,
                    "moves": 10 + n % 100,
                    "place": 1,
                }
                for n, id_ in enumerate(ids)
            ],
        )


def median_seconds(read: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        read()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.player_page", description=__doc__)
    parser.add_argument("--rows", type=int, default=60_000, help="names on the ladder")
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{Path(folder) / 'records.db'}")
        store.migrate()
        fill(store, options.rows)
        name = f"p{options.rows // 2}"
        reads: list[tuple[str, Callable[[], object]]] = [
            ("its ratings and ranks (Store.standings_of)", lambda: store.standings_of(name)),
            ("its bests and ranks (player_bests)", lambda: player_bests(store, name)),
            ("its last 100 games (Store.history)", lambda: store.history(name, None, 100)),
            ("before: the whole leaderboard (Store.leaderboard)", lambda: store.leaderboard()),
        ]
        for label, read in reads:
            print(f"{label}: {median_seconds(read, options.repeat) * 1000:.1f} ms")
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
