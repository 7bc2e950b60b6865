"""The store on a real PostgreSQL server: one schema, several servers sharing one ladder."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import trio

from records.model import GameRecord
from records.store import Store
from server.app import Server
from server.setup.config import ServerConfig

from ..helpers import TIMEOUT, Peer, bound_port
from .test_store import finished

NAMES = [f"bot-{n}" for n in range(6)]


def some_games(count: int, seed: int) -> list[GameRecord]:
    """Games between random pairs of the same six players."""
    chooser = random.Random(seed)
    games = []
    for number in range(count):
        a, b = chooser.sample(NAMES, 2)
        games.append(finished([(a, "win", 1), (b, "lose", 0)], seed=seed * 1000 + number))
    return games


def test_migrations_from_several_servers_at_once_make_one_schema(postgres_url: str) -> None:
    errors: list[BaseException] = []

    def migrate() -> None:
        try:
            Store(postgres_url).migrate()
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=migrate) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Store(postgres_url).revision() == "0004"


def test_the_same_writes_give_the_same_records_as_on_sqlite(
    postgres_url: str, tmp_path: Path
) -> None:
    games = some_games(12, seed=1)
    tables = []
    for url in (postgres_url, f"sqlite:///{tmp_path / 'r.db'}"):
        store = Store(url)
        store.migrate()
        assert store.record(games + games[:3]) == 12
        tables.append(
            [(s.name, round(s.rating.mu, 9), s.rating.games) for s in store.leaderboard()]
        )
        assert (
            store.game(games[0].id[:6]).as_dict()["players"][0]["name"] == games[0].players[0].name
        )
    assert tables[0] == tables[1]


async def test_two_servers_writing_at_once_lose_nothing_and_count_nothing_twice(
    postgres_url: str,
) -> None:
    Store(postgres_url).migrate()
    servers = [Server(ServerConfig(port=0, map="tiny", db=postgres_url)) for _ in range(2)]
    first, second = some_games(40, seed=2), some_games(40, seed=3)
    shared = some_games(10, seed=4)  # each given to both servers, as after a retry
    async with trio.open_nursery() as nursery:
        for server in servers:
            await nursery.start(server.run)
        writers = [w for server in servers if (w := server.ladder.writer) is not None]
        assert len(writers) == len(servers), "a server with a database has a writer"
        for record in first:
            writers[0].submit(record)
        for record in second:
            writers[1].submit(record)
        for record in shared:
            for writer in writers:
                writer.submit(record)
        # And one real game on each server, played over the protocol.
        for server in servers:
            ada = await Peer.connect(bound_port(server))
            bob = await Peer.connect(bound_port(server))
            for peer, name in ((ada, "ada"), (bob, "bob")):
                assert (await peer.ask(f"HELLO {name}"))[0].startswith("GOLD")
            await ada.ask("QUIT")
            await bob.ask("QUIT")
        with trio.fail_after(TIMEOUT):
            for writer, expected in zip(writers, (41, 41), strict=True):
                await writer.ready()
                await writer.wait_written(expected)
            while any(writer.pending for writer in writers):
                await writers[0].drained()
                await writers[1].drained()
        assert sum(writer.written for writer in writers) == 40 + 40 + 10 + 2
        # The other server's LEADERBOARD shows the shared ladder.
        peer = await Peer.connect(bound_port(servers[1]))
        await peer.send("LEADERBOARD classic\n")
        header = await peer.read_line()
        assert header == f"LEADERBOARD classic {len(NAMES) + 2}"
        for server in servers:
            server.shutdown()
    store = Store(postgres_url)
    stored = store.games()
    assert len(stored) == len({r.id for r in first + second + shared}) + 2
    played: dict[str, int] = {}
    for row in stored:
        for player in row.players:
            played[player["name"]] = played.get(player["name"], 0) + 1
    table = {s.name: s.rating for s in store.leaderboard("classic")}
    # Every game moved its players' ratings exactly once: no update lost, none doubled.
    assert {name: rating.games for name, rating in table.items()} == played


def test_lookalike_names_are_one_name_on_postgresql(postgres_url: str) -> None:
    store = Store(postgres_url)
    store.migrate()
    assert store.claim("Alice", "hash-1")
    for lookalike in ("alice", "ALICE", "\u0410lice", "AIice"):
        assert not store.claim(lookalike, "hash-2"), lookalike
        assert store.lookalike(lookalike) == "Alice"
    assert store.claim("Mla", "hash-3") and store.claim("Mia", "hash-4")
    store.close()
