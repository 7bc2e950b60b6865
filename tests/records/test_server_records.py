"""A real server with a store: every finished game recorded, LEADERBOARD, claimed names."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import trio

from records.model import GameRecord
from records.store import Store
from records.writer import RecordWriter
from server.app import Server

from ..conftest import StartServer
from ..helpers import TIMEOUT, Peer, bound_port


async def named(port: int, name: str, *extra: str) -> Peer:
    peer = await Peer.connect(port)
    for line in extra:
        await peer.ask(line)
    assert (await peer.ask(f"HELLO {name}"))[0].startswith("GOLD ")
    return peer


async def played(server: Server, count: int) -> Store:
    """The server's store once it holds ``count`` games."""
    writer = server.ladder.writer
    assert writer is not None
    with trio.fail_after(TIMEOUT):
        await writer.ready()
        await writer.wait_written(count)
        await writer.drained()
    assert writer.written == count
    assert writer.store is not None
    return writer.store


async def test_a_finished_game_is_recorded_with_its_players(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(
        map="tiny", seed=4, db=f"sqlite:///{tmp_path / 'r.db'}", replay_dir=str(tmp_path)
    )
    ada = await named(bound_port(server), "Ada")
    bob = await named(bound_port(server), "Bob", "EXTEND bot")
    await ada.ask("LOOK")
    # An action: the game's replay file is made. Not PICKUP: Ada quitting with the only
    # coin would leave Bob a game nobody can win, ended at once (issue 29).
    await ada.ask("MOVE N")
    assert await ada.ask("QUIT") == ["BYE Thanks for playing."]
    await bob.aclose()  # a lost connection
    store = await played(server, 1)
    [row] = store.games()
    game = row.game
    assert (game["game"], game["world"], game["map"], game["seed"]) == (
        "default",
        "classic",
        "tiny",
        4,
    )
    assert game["dialect"] == "2013" and game["end_reason"] == "all players left"
    assert game["rounds"] == 1  # classic: each action is its own round (one MOVE)
    assert game["rated"] and Path(game["replay"]).parent == tmp_path
    assert game["ended_at"] >= game["started_at"]
    assert game["server"] == f"127.0.0.1:{server.port}"  # the bound port, not 0
    players = [(p["name"], p["kind"], p["outcome"], p["moves"]) for p in row.players]
    assert players == [("Ada", "person", "quit", 1), ("Bob", "bot", "disconnected", 0)]
    ada_row, bob_row = row.players
    # Neither won, neither holds gold: who quit is ahead of who was cut off.
    assert (ada_row["gold"], bob_row["gold"]) == (0, 0)
    assert (ada_row["place"], bob_row["place"]) == (1, 2)


async def test_a_game_nobody_acted_in_records_no_replay(
    start_server: StartServer, tmp_path: Path
) -> None:
    """A replay file is made with the first action; a game left before any has none, and
    its record says so (before: the text 'None', a file that never was; issue 40)."""
    server = await start_server(
        map="tiny", seed=4, db=f"sqlite:///{tmp_path / 'r.db'}", replay_dir=str(tmp_path)
    )
    ada = await named(bound_port(server), "Ada")
    assert await ada.ask("QUIT") == ["BYE Thanks for playing."]
    store = await played(server, 1)
    [row] = store.games()
    assert row.game["replay"] is None
    assert list(tmp_path.glob("*.jsonl")) == []


async def test_leaderboard_answers_over_the_protocol_in_order(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}")
    writer = server.ladder.writer
    assert writer is not None
    from .test_store import finished

    writer.submit(finished([("Ada Lovelace", "win", 3), ("Bob", "lose", 0)]))
    await played(server, 1)
    peer = await Peer.connect(bound_port(server))
    await peer.send("LEADERBOARD\n")
    lines = [await peer.read_line() for _ in range(3)]
    assert lines[0] == "LEADERBOARD classic 2"
    assert lines[1].startswith("1 ") and lines[1].endswith(" 1 1 Ada Lovelace")
    assert lines[2].startswith("2 ") and lines[2].endswith(" 1 0 Bob")
    assert await peer.ask("LEADERBOARD baddies") == ["LEADERBOARD baddies 0"]
    # A world nothing plays or recorded is an error, not an empty table (before:
    # "LEADERBOARD nosuch 0").
    worlds = "baddies, battle, classic, crawler, knight"
    assert await peer.ask("LEADERBOARD nosuch") == [
        f"ERROR unknown world 'nosuch'; worlds: {worlds}"
    ]
    assert await peer.ask("LEADERBOARD nosuch best") == [
        f"ERROR unknown world 'nosuch'; worlds: {worlds}"
    ]
    assert await peer.ask("LOOK") != []  # the connection goes on after the answer


class SlowToOpenStore(Store):
    """A store that takes its time to migrate, like a database still starting."""

    opened = threading.Event()

    def migrate(self) -> None:
        SlowToOpenStore.opened.wait(60)
        super().migrate()


async def test_leaderboard_right_after_start_waits_for_the_store(tmp_path: Path) -> None:
    from server.setup.config import ServerConfig

    url = f"sqlite:///{tmp_path / 'r.db'}"
    server = Server(ServerConfig(port=0, map="tiny", db=url))
    server.ladder.writer = server.lobby.records = RecordWriter(url, open_store=SlowToOpenStore)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            peer = await Peer.connect(bound_port(server))
            await peer.send("LEADERBOARD classic\n")
            SlowToOpenStore.opened.set()  # the store is reached while the request waits
            with trio.fail_after(TIMEOUT):
                assert await peer.read_line() == "LEADERBOARD classic 0"
            server.shutdown()
    finally:
        SlowToOpenStore.opened.set()


async def test_a_server_without_a_store_says_so(start_server: StartServer) -> None:
    server = await start_server(map="tiny")
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("LEADERBOARD") == [
        "ERROR LEADERBOARD needs a server that keeps records (--db)"
    ]


async def test_a_claimed_name_belongs_to_its_owner(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}")
    await played(server, 0)
    owner = await Peer.connect(bound_port(server))
    [answer] = await owner.ask("REGISTER Ada")
    keyword, name, token = answer.split(" ")
    assert (keyword, name) == ("REGISTERED", "Ada") and len(token) >= 40
    assert await owner.ask("REGISTER Ada") == ["ERROR the name 'Ada' is claimed already"]
    assert (await owner.ask("HELLO Ada"))[0].startswith("GOLD")  # the owner may play as it

    stranger = await Peer.connect(bound_port(server))
    assert await stranger.ask("HELLO Ada") == [
        "ERROR the name 'Ada' is claimed; LOGIN Ada <token> first, or choose another"
    ]
    assert await stranger.ask("LOGIN Ada wrong") == ["ERROR wrong token for 'Ada'"]
    assert await stranger.ask("LOGIN Bob x") == [
        "ERROR the name 'Bob' is not claimed; REGISTER Bob claims it"
    ]
    assert (await stranger.ask("HELLO Eve"))[0].startswith("GOLD")  # free names stay free
    assert await stranger.ask("HELLO") == ["GOLD 1"]  # and a classic HELLO is untouched

    await owner.ask("QUIT")
    again = await Peer.connect(bound_port(server))
    assert await again.ask(f"LOGIN Ada {token}") == ["LOGGEDIN Ada"]
    assert (await again.ask("HELLO Ada"))[0].startswith("GOLD")
    assert server.ladder.writer is not None, "a server with a database has a writer"
    assert server.ladder.writer.store is not None
    stored = server.ladder.writer.store.token_hash("Ada")
    assert stored is not None, "a logged-in name has its token's hash stored"
    assert stored.startswith("$argon2id$") and token not in stored


async def test_a_name_with_games_on_the_ladder_is_claimed_only_by_who_plays_as_it(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}")
    ada = await named(bound_port(server), "Ada")
    await ada.ask("MOVE N")
    await ada.ask("QUIT")
    await played(server, 1)  # Ada has a history now, and no claim

    stranger = await Peer.connect(bound_port(server))
    assert await stranger.ask("REGISTER Ada") == [
        "ERROR the name 'Ada' has games on the ladder: only a player playing as 'Ada' "
        "now may REGISTER it (HELLO Ada, then REGISTER Ada)"
    ]
    assert (await stranger.ask("HELLO Eve"))[0].startswith("GOLD")
    assert (await stranger.ask("REGISTER Ada"))[0].startswith("ERROR the name 'Ada' has games")
    # A name without games may still be claimed by anyone.
    assert (await stranger.ask("REGISTER Zed"))[0].startswith("REGISTERED Zed ")

    owner = await named(bound_port(server), "Ada")  # plays as it now: may claim it
    [answer] = await owner.ask("REGISTER Ada")
    assert answer.startswith("REGISTERED Ada ")
    again = await Peer.connect(bound_port(server))
    assert (await again.ask("HELLO Ada"))[0].startswith("ERROR the name 'Ada' is claimed")


async def test_the_record_says_claimed_when_the_player_proved_the_name_during_the_game(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}")
    await played(server, 0)
    ada = await named(bound_port(server), "Ada")  # plays first, claims the name mid-game
    bob = await named(bound_port(server), "Bob")  # never claims it
    [answer] = await ada.ask("REGISTER Ada")
    assert answer.startswith("REGISTERED Ada ")
    await ada.ask("QUIT")
    await bob.ask("QUIT")
    store = await played(server, 1)
    [row] = store.games()
    assert [(p["name"], p["claimed"]) for p in row.players] == [("Ada", True), ("Bob", False)]


class FlakyStore(Store):
    """A store that fails its first ``failures`` writes, like a database being restarted."""

    failures = 0

    def record(self, records):  # type: ignore[no-untyped-def]
        if FlakyStore.failures:
            FlakyStore.failures -= 1
            raise OSError("connection refused")
        return super().record(records)


async def test_records_wait_in_memory_while_the_store_fails_then_are_written(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    from .test_store import finished

    FlakyStore.failures = 3
    writer = RecordWriter(
        f"sqlite:///{tmp_path / 'r.db'}", retry_min=0.01, retry_max=0.02, open_store=FlakyStore
    )
    await nursery.start(writer.run)
    records = [finished([("a", "win", 1), ("b", "lose", 0)], seed=n) for n in range(5)]
    for record in records:
        writer.submit(record)  # never blocks, whatever the store does
    await writer.drained()
    assert writer.failures >= 3 and writer.written == 5
    assert {row.game["seed"] for row in writer.store.games()} == set(range(5))  # type: ignore[union-attr]


class StuckStore(Store):
    """A store whose writes hang until the test lets them go, like a database that stalls."""

    entered = threading.Event()
    release = threading.Event()

    def record(self, records):  # type: ignore[no-untyped-def]
        StuckStore.entered.set()
        StuckStore.release.wait(60)
        return super().record(records)


async def test_a_stalled_store_never_stalls_the_games(tmp_path: Path) -> None:
    """Writes happen in a worker thread: while one hangs, the server plays on, and the
    game is written once the store answers."""
    from server.setup.config import ServerConfig

    url = f"sqlite:///{tmp_path / 'r.db'}"
    server = Server(ServerConfig(port=0, map="tiny", db=url))
    server.ladder.writer = server.lobby.records = RecordWriter(url, open_store=StuckStore)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            ada, bob = (
                await named(bound_port(server), "Ada"),
                await named(bound_port(server), "Bob"),
            )
            await ada.ask("QUIT")
            await bob.ask("QUIT")  # the game is over: its record goes to the stuck store
            with trio.fail_after(TIMEOUT):
                await trio.to_thread.run_sync(StuckStore.entered.wait, abandon_on_cancel=True)
                cy = await named(bound_port(server), "Cy")  # the loop is free: a new game plays
                assert (await cy.ask("LOOK"))[0] == "LOOKREPLY"
                assert (await cy.ask("QUIT"))[0].startswith("BYE")
            assert server.ladder.writer.written == 0
            StuckStore.release.set()
            await played(server, 2)
            server.shutdown()
    finally:
        StuckStore.release.set()


async def test_a_clean_shutdown_writes_what_is_queued(tmp_path: Path) -> None:
    from .test_store import finished

    url = f"sqlite:///{tmp_path / 'r.db'}"
    writer = RecordWriter(url)
    record: GameRecord = finished([("a", "win", 1), ("b", "lose", 0)])
    async with trio.open_nursery() as nursery:
        await nursery.start(writer.run)
        writer.submit(record)
        writer.close()
    store = Store(url)
    assert [row.game["id"] for row in store.games()] == [record.id]


@pytest.mark.parametrize("players", [1])
async def test_a_game_stopped_by_shutdown_is_recorded_unfinished(
    tmp_path: Path, players: int
) -> None:
    from server.setup.config import ServerConfig

    url = f"sqlite:///{tmp_path / 'r.db'}"
    server = Server(ServerConfig(port=0, map="tiny", db=url))
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        peer = await named(bound_port(server), "Ada")
        server.shutdown()
        await peer.read_to_end()
    [row] = Store(url).games()
    assert row.game["end_reason"] == "server stopped" and not row.game["rated"]
    assert [(p["name"], p["outcome"]) for p in row.players] == [("Ada", "unfinished")]


async def test_a_name_that_only_looks_like_a_claimed_one_is_refused_by_name(
    start_server: StartServer, tmp_path: Path
) -> None:
    # Issue 28: with Alice claimed, alice, ALICE, Аlice (Cyrillic А) and fullwidth
    # Ａｌｉｃｅ were taken by HELLO and REGISTER, and then the owner's HELLO was refused.
    # Eleven REGISTERs and LOGINs come from one address here: a burst of 10 would let
    # the last through only if a second had passed, so the burst holds them all.
    server = await start_server(map="tiny", db=f"sqlite:///{tmp_path / 'r.db'}", login_burst=20)
    await played(server, 0)
    owner = await Peer.connect(bound_port(server))
    [answer] = await owner.ask("REGISTER Alice")
    token = answer.split(" ")[2]
    stranger = await Peer.connect(bound_port(server))
    lookalikes = ["alice", "ALICE", "\u0410lice", "\uff21\uff4c\uff49\uff43\uff45", "A1ice"]
    lookalikes += ["Alic\u00e9", "Alice.", "Alic\u0435\u0301"]  # issue 36: marks, punctuation
    for lookalike in lookalikes:
        assert await stranger.ask(f"REGISTER {lookalike}") == [
            f"ERROR the name {lookalike!r} looks too much like 'Alice', which is claimed; "
            "choose another"
        ]
        assert await stranger.ask(f"HELLO {lookalike}") == [
            f"ERROR the name {lookalike!r} looks too much like 'Alice', which is claimed; "
            "choose another"
        ]
    assert await stranger.ask("LOGIN alice x") == [
        "ERROR the name 'alice' looks too much like 'Alice', which is claimed; LOGIN Alice <token>"
    ]
    assert (await stranger.ask("HELLO Alicia"))[0].startswith("GOLD")
    await owner.aclose()
    again = await Peer.connect(bound_port(server))
    assert await again.ask(f"LOGIN Alice {token}") == ["LOGGEDIN Alice"]
    assert (await again.ask("HELLO Alice"))[0].startswith("GOLD")


async def test_live_names_that_look_alike_are_one_name_in_a_game(
    start_server: StartServer,
) -> None:
    server = await start_server(map="tiny")
    first, second = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert (await first.ask("HELLO Bob"))[0].startswith("GOLD")
    assert await second.ask("HELLO B0B") == [
        "ERROR the name 'B0B' is taken in this game (it looks too much like 'Bob'); choose another"
    ]
    assert (await second.ask("HELLO Rob"))[0].startswith("GOLD")
    assert await second.ask("HELLO bob") == [
        "ERROR the name 'bob' is taken in this game (it looks too much like 'Bob'); choose another"
    ]
    assert (await first.ask("HELLO BOB"))[0].startswith("GOLD"), "one's own name, recased"
