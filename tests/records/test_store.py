"""The store on SQLite: migrations, idempotent writes, ratings, reads (no server here)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection

from records.contract import Contract
from records.model import GameRecord, Tally
from records.ranking import Rating
from records.store import Store, StoreError


def finished(
    results: list[tuple[str | None, str, int]], *, world: str = "classic", seed: int = 1
) -> GameRecord:
    """A record of a game whose players left in the order given: (name, outcome, gold)."""
    tally = Tally("default", world, "tiny", seed)
    for number, (name, _, _) in enumerate(results, 1):
        tally.joined(number, name, "bot")
        tally.acted(number)
    for number, (_, outcome, gold) in enumerate(results, 1):
        tally.left(number, outcome, gold)
    record = tally.finish(rounds=7, end="all players left", replay="r.jsonl")
    assert record is not None
    return record


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'deep' / 'records.db'}")
    store.migrate()
    return store


def test_places_put_winners_first_in_order_then_gold_and_share_ties() -> None:
    record = finished(
        [("a", "quit", 3), ("b", "win", 9), ("c", "lose", 0), ("d", "win", 2), ("f", "quit", 3)]
    )
    places = {p.name: p.place for p in record.players}
    assert places == {"b": 1, "d": 2, "a": 3, "f": 3, "c": 5}
    assert record.rated


def test_at_equal_gold_places_go_by_how_the_game_ended() -> None:
    """Still in play at the end (quit, stopped), then died or beaten, then cut off: they
    no longer share a place (issue 40). A player who died holds no gold, whatever it
    carried."""
    record = finished(
        [
            ("cut", "disconnected", 0),
            ("dead", "lose", 4),
            ("quitter", "quit", 0),
            ("removed", "removed", 0),
            ("stopped", "unfinished", 0),
        ]
    )
    places = {p.name: p.place for p in record.players}
    assert places == {"quitter": 1, "stopped": 1, "dead": 3, "cut": 4, "removed": 4}


def test_a_contract_places_winners_by_the_moves_they_took() -> None:
    """The server places winners by when they escaped; a tournament whose contract says
    ``moves`` places them by the fewest moves, equal moves sharing a place."""
    tally = Tally("t-1", "classic", "tiny", 1)
    for number, (name, moves) in enumerate([("fast", 9), ("short", 5), ("same", 5)], 1):
        tally.joined(number, name, "bot")
        tally.left(number, "win", 2, moves)
    record = tally.finish(rounds=9, end="all players left", replay=None)
    assert record is not None
    assert {p.name: p.place for p in record.players} == {"fast": 1, "short": 2, "same": 3}
    by_moves = Contract(places="moves").place(record)
    assert {p.name: p.place for p in by_moves.players} == {"fast": 3, "short": 1, "same": 1}
    assert Contract().place(record) is record


def test_a_game_with_one_named_player_or_an_unfinished_one_is_not_rated() -> None:
    assert not finished([("a", "win", 1), (None, "quit", 0)]).rated
    assert not finished([("a", "win", 1), ("b", "unfinished", 0)]).rated


def test_migrating_twice_is_harmless_and_names_the_revision(store: Store) -> None:
    store.migrate()
    assert store.revision() == "0004"


def test_a_game_is_stored_once_however_often_it_is_written(store: Store) -> None:
    record = finished([("a", "win", 5), ("b", "lose", 0)])
    assert store.record([record, record]) == 1
    assert store.record([record]) == 0
    assert len(store.games()) == 1
    table = store.leaderboard("classic")
    assert [(s.rank, s.name, s.rating.games, s.rating.wins) for s in table] == [
        (1, "a", 1, 1),
        (2, "b", 1, 0),
    ]
    assert table[0].rating.mu > Rating().mu > table[1].rating.mu


def test_ratings_are_per_world(store: Store) -> None:
    store.record([finished([("a", "win", 5), ("b", "lose", 0)], world="classic")])
    store.record([finished([("b", "win", 5), ("a", "lose", 0)], world="baddies")])
    assert [s.name for s in store.leaderboard("classic")] == ["a", "b"]
    assert [s.name for s in store.leaderboard("baddies")] == ["b", "a"]
    assert store.worlds() == ["baddies", "classic"]


def test_history_and_a_game_by_the_start_of_its_id(store: Store) -> None:
    record = finished([("a", "win", 5), ("b", "quit", 2)])
    store.record([record])
    [line] = store.history("b")
    assert (line["outcome"], line["place"], line["gold"], line["moves"]) == ("quit", 2, 2, 1)
    assert line["mu_after"] < line["mu_before"]
    row = store.game(record.id[:8]).as_dict()
    assert row["seed"] == 1 and row["map"] == "tiny" and row["replay"] == "r.jsonl"
    assert row["dialect"] == "2013" and row["rounds"] == 7
    assert [(p["name"], p["kind"]) for p in row["players"]] == [("a", "bot"), ("b", "bot")]
    with pytest.raises(StoreError, match="no game's id begins with"):
        store.game("zzzz")


def test_rerating_in_the_order_written_gives_the_same_table(store: Store) -> None:
    for winner, loser in [("a", "b"), ("b", "c"), ("a", "c"), ("c", "a")]:
        store.record([finished([(winner, "win", 1), (loser, "lose", 0)])])
    before = store.leaderboard("classic")
    assert store.rerate("classic") == 4
    after = store.leaderboard("classic")
    assert [(s.name, round(s.rating.mu, 9)) for s in after] == [
        (s.name, round(s.rating.mu, 9)) for s in before
    ]


def test_a_name_is_claimed_once(store: Store) -> None:
    assert store.claim("Ada", "hash-1")
    assert not store.claim("Ada", "hash-2")
    assert store.token_hash("Ada") == "hash-1"
    assert store.claimed_names() == {"Ada"}


LOOKALIKES = ["alice", "ALICE", "\u0410lice", "\uff21\uff4c\uff49\uff43\uff45", "A1ice", "AIice"]
"""Names that look like ``Alice``: case, Cyrillic A, fullwidth, a digit one, a capital I."""


def test_a_name_that_only_looks_like_a_claimed_one_is_refused(store: Store) -> None:
    # Issue 28: claimed names were protected byte for byte only.
    assert store.claim("Alice", "hash-1")
    for lookalike in LOOKALIKES:
        assert not store.claim(lookalike, "hash-2"), lookalike
        assert store.lookalike(lookalike) == "Alice"
    assert store.lookalike("Alice") == "Alice"
    assert store.lookalike("Alicia") is None
    assert store.claim("Alicia", "hash-3") and store.claim("Mia", "hash-4")
    assert store.claim("Mla", "hash-5"), "names that differ to the eye stay apart"
    assert store.claimed_names() == {"Alice", "Alicia", "Mia", "Mla"}


@contextmanager
def _at_revision(store: Store, revision: str) -> Iterator[Connection]:
    """A connection to ``store`` migrated to ``revision`` only: rows written then."""
    config = Config()
    config.set_main_option("script_location", str(files("records") / "migrations"))
    with store.engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
        yield connection


def test_the_migration_gives_names_claimed_before_it_their_keys(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'records.db'}")
    with _at_revision(store, "0001") as connection:
        for when, name in enumerate(["Alice", "alice", "Bob"]):
            connection.exec_driver_sql(
                "INSERT INTO names (name, token_hash, created_at) VALUES (?, ?, ?)",
                (name, f"hash-{name}", f"2026-01-0{when + 1} 00:00:00"),
            )
    store.migrate()
    assert store.revision() == "0004"
    # Both old claims stand, by their exact spelling; new lookalikes of either are refused.
    assert store.token_hash("alice") == "hash-alice"
    assert store.lookalike("alice") == "alice"
    assert store.lookalike("ALICE") == "Alice"
    assert not store.claim("ALICE", "hash-3")
    assert not store.claim("B0b", "hash-4")
    assert store.claim("Carol", "hash-5")


def test_the_migration_gives_names_the_keys_that_drop_accents_and_end_punctuation(
    tmp_path: Path,
) -> None:
    # Issue 36: keys made before 0003 kept accents and end punctuation, so with Alice
    # claimed, Alicé and Alice. were claimed too. Their keys are made again, oldest first.
    store = Store(f"sqlite:///{tmp_path / 'records.db'}")
    with _at_revision(store, "0002") as connection:
        for when, name in enumerate(["Alice", "Alic\u00e9", "Bob."]):
            connection.exec_driver_sql(
                "INSERT INTO names (name, token_hash, created_at, skeleton, cased_skeleton) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, f"hash-{name}", f"2026-01-0{when + 1} 00:00:00", f"old-{when}", None),
            )
    store.migrate()
    assert store.revision() == "0004"
    assert store.lookalike("Alic\u00e9") == "Alic\u00e9"  # an old claim stands by its spelling
    assert store.lookalike("ALIC\u00c8") == "Alice"  # a new lookalike meets the oldest
    assert store.lookalike("Bob") == "Bob."
    assert not store.claim("Alice.", "hash-4")
    assert not store.claim("bob", "hash-5")
    assert store.claim("Carol", "hash-6")


def test_a_url_of_another_database_is_refused() -> None:
    with pytest.raises(StoreError, match="SQLite or PostgreSQL"):
        Store("mysql://localhost/x")


def _open_at_once(folder: Path, attempts: int, n: int, ready: Any, failures: Any) -> None:
    with Store(f"sqlite:///{folder / f'warm-{n}.db'}").engine.connect():
        pass  # the first connection's set-up, done before
    for attempt in range(attempts):
        store = Store(f"sqlite:///{folder / f'fresh{attempt}.db'}")
        ready.wait()
        try:
            with store.engine.connect():
                pass
        except Exception as error:  # the test reports every one
            failures.put(repr(error))
        finally:
            store.close()


def test_two_processes_opening_a_fresh_database_at_once_both_get_in(tmp_path: Path) -> None:
    # SQLite calls no busy handler for PRAGMA journal_mode=WAL when two connections switch
    # a fresh file at once: the two workers of --workers got "database is locked" at once
    # (one suite run in ten). Two processes open a hundred fresh files, each file by both
    # at once (a start costs a second of imports, so the two go through the files one
    # after the other): without the fix, every run of four met it.
    context = multiprocessing.get_context("spawn")  # a clean child: no lock of a thread copied
    failures = context.Queue()
    ready = context.Barrier(2)
    workers = [
        context.Process(target=_open_at_once, args=(tmp_path, 100, n, ready, failures))
        for n in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    assert failures.empty(), failures.get()
