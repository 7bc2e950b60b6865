"""Best results per map: solo wins ranked as puzzle sites rank them, over the store and
over the protocol (``LEADERBOARD <world> best``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dungeon_of_doom.records.bests import bests, player_bests, split_map
from dungeon_of_doom.records.model import GameRecord, Tally
from dungeon_of_doom.records.store import Store

from ..conftest import StartServer
from ..helpers import Peer, bound_port
from .test_server_records import played


def solo(
    name: str,
    moves: int,
    *,
    world: str = "crawler",
    map_spec: str = "easy",
    gold: int = 1,
    outcome: str = "win",
) -> GameRecord:
    """A game of one player who won (or not) in ``moves`` moves with ``gold``."""
    tally = Tally("default", world, map_spec, 0)
    tally.joined(1, name, "person")
    for _ in range(moves):
        tally.acted(1)
    tally.left(1, outcome, gold)
    record = tally.finish(rounds=moves, end="all players left", replay=None)
    assert record is not None and not record.rated
    return record


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store(f"sqlite:///{tmp_path / 'records.db'}")
    store.migrate()
    return store


def test_fewest_moves_first_each_name_once_per_map(store: Store) -> None:
    store.record(
        [
            solo("Ada", 30),
            solo("Bob", 12),
            solo("Ada", 20),  # Ada's better try
            solo("Cy", 5, outcome="lose"),  # a loss is no result
            solo("Bob", 9, map_spec="hard"),
            solo("Dee", 4, world="baddies"),
        ]
    )
    [easy, hard] = bests(store, "crawler")
    assert (easy.map, hard.map) == ("easy", "hard")
    assert [(b.rank, b.name, b.moves, b.wins) for b in easy.results] == [
        (1, "Bob", 12, 1),
        (2, "Ada", 20, 2),
    ]
    assert [(b.name, b.moves) for b in hard.results] == [("Bob", 9)]
    assert [g.map for g in bests(store, "baddies")] == ["easy"]
    assert bests(store, "knight") == []
    [mine] = player_bests(store, "Ada")
    assert (mine.world, mine.map, [b.rank for b in mine.results]) == ("crawler", "easy", [2])


def test_knight_ranks_the_least_starting_health_first(store: Store) -> None:
    store.record(
        [
            solo("Ada", 8, world="knight", map_spec="example,health=12", gold=0),
            solo("Bob", 10, world="knight", map_spec="example,health=7", gold=0),
            solo("Cy", 12, world="knight", map_spec="example", gold=0),  # the least that wins
        ]
    )
    [example] = bests(store, "knight")
    assert example.map == "example"
    assert [(b.name, b.health) for b in example.results] == [
        ("Cy", None),
        ("Bob", 7),
        ("Ada", 12),
    ]


def test_a_map_is_shown_by_its_name_not_its_folder() -> None:
    assert split_map("/srv/maps/my maze.map") == ("my maze.map", None)
    assert split_map("20x30,health=5,seed=7") == ("20x30,seed=7", 5)
    assert split_map(None) == ("default", None)


async def test_leaderboard_best_answers_over_the_protocol(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}")
    writer = server.ladder.writer
    assert writer is not None
    writer.submit(solo("Ada Lovelace", 14, map_spec="my maze"))
    writer.submit(solo("Bob", 9, map_spec="my maze"))
    await played(server, 2)
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("LEADERBOARD crawler best") == ["BESTS crawler 2"]
    assert [await peer.read_line() for _ in range(2)] == [
        "1 9 1 0 my%20maze Bob",
        "2 14 1 0 my%20maze Ada Lovelace",
    ]
    # The reply of old is unchanged: solo wins move no rating.
    assert await peer.ask("LEADERBOARD crawler") == ["LEADERBOARD crawler 0"]
    assert await peer.ask("LEADERBOARD knight best") == ["BESTS knight 0"]
    assert (await peer.ask("LEADERBOARD a b best"))[0].startswith("ERROR LEADERBOARD takes")
