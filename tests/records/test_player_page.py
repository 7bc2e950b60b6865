"""What ``/api/players/{name}`` reads: one name's lines of the leaderboard and its best
results, each with the rank the whole table gives it, read through indexes (issue 36:
the page read the whole ladder on the records' one thread, 2.3-2.6 s on 60,000 rows)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from records.bests import bests, player_bests
from records.store import Store

from .test_bests import solo
from .test_store import finished

NAMES = ["Ada", "Bob", "Cy", "Dee", "Eve"]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'records.db'}")
    store.migrate()
    games = []
    for number, (a, b, c) in enumerate(itertools.permutations(NAMES, 3)):
        world = "classic" if number % 3 else "battle"
        outcome = "win" if number % 4 else "quit"  # some games every player only quits: ties
        results: list[tuple[str | None, str, int]] = [
            (a, outcome, number % 5),
            (b, "quit", 0),
            (c, "quit", 0),
        ]
        games.append(finished(results, world=world))
    for number, name in enumerate(NAMES * 3):
        games.append(solo(name, 10 + number % 4, gold=number % 2))  # ties in moves and gold
        games.append(solo(name, 7 + number % 3, map_spec="easy,health=5"))  # another health
        knight = f"example,health={number % 3}"
        games.append(solo(name, 3 + number % 5, world="knight", map_spec=knight))
    store.record(games)
    return store


def test_a_name_s_standings_are_its_lines_of_the_whole_leaderboard(store: Store) -> None:
    whole = store.leaderboard()
    assert len({line.world for line in whole}) == 2
    for name in [*NAMES, "nobody"]:
        assert store.standings_of(name) == [line for line in whole if line.name == name], name


def test_a_name_s_bests_rank_as_the_whole_table_ranks_them(store: Store) -> None:
    tables = [group for world in ("crawler", "knight") for group in bests(store, world, 1 << 30)]
    for name in [*NAMES, "nobody"]:
        expected = [
            (group.world, group.map, [best for best in group.results if best.name == name])
            for group in tables
            if any(best.name == name for best in group.results)
        ]
        mine = player_bests(store, name)
        found = [(group.world, group.map, list(group.results)) for group in mine]
        assert found == expected, name


def test_a_player_s_page_reads_no_table_whole(store: Store) -> None:
    # Every statement the page runs, planned by SQLite: none reads a table from end to end.
    statements: list[tuple[str, Any]] = []

    @sa.event.listens_for(store.engine, "before_cursor_execute")
    def seen(_c: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            statements.append((statement, parameters))

    assert store.standings_of("Ada") and player_bests(store, "Ada") and store.history("Ada")
    sa.event.remove(store.engine, "before_cursor_execute", seen)
    assert len(statements) >= 4
    with store.engine.connect() as connection:
        for statement, parameters in statements:
            plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
            steps = [row[3] for row in plan]
            whole = [step for step in steps if step.split()[:2] in _FULL_SCANS]
            assert not whole, f"{statement}\n{steps}"


_FULL_SCANS = [["SCAN", table] for table in ("ratings", "games", "players", "names")]


def test_the_replays_list_finds_its_games_through_an_index(store: Store) -> None:
    """``/api/replays`` asks for the games of up to 500 replay files (issue 40): through
    the index on ``games.replay`` (0004), never the whole table."""
    statements: list[tuple[str, Any]] = []

    @sa.event.listens_for(store.engine, "before_cursor_execute")
    def seen(_c: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            statements.append((statement, parameters))

    found = store.replay_results(["r.jsonl", "nowhere.jsonl"])
    sa.event.remove(store.engine, "before_cursor_execute", seen)
    assert set(found) == {"r.jsonl"}
    places = [p["place"] for p in found["r.jsonl"]["players"]]
    assert len(places) == 3 and places == sorted(places)
    assert len(statements) == 2
    with store.engine.connect() as connection:
        for statement, parameters in statements:
            plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
            steps = [row[3] for row in plan]
            whole = [step for step in steps if step.split()[:2] in _FULL_SCANS]
            assert not whole, f"{statement}\n{steps}"
