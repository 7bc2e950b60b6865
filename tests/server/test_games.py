"""Several games on one server: list, create, join, watch, chat, names, bots, game over."""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog
import trio
import trio.testing

from protocol.replies import GameInfo, GamesReply

from ..conftest import WriteMap
from ..helpers import Peer, bound_port
from .conftest import StartGameServer, games, nothing_received

CORRIDOR = "name Corridor\nwin 1\n#######\n#G...E#\n#######\n"


async def test_two_games_at_once_with_different_worlds(start_game_server: StartGameServer) -> None:
    server = await start_game_server(map="tiny", seed=1)
    alice, bob = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await games(alice) == GamesReply(
        (GameInfo("default", "classic", "tiny", 1, 0, None, 0, None),)
    )
    assert await alice.ask("CREATE arena ticker seed=3 players=2 turn=5") == [
        "GAME arena world=ticker map=default seed=3 players=0 limit=2 watchers=0 turn=5"
    ]
    assert await alice.ask("JOIN arena") == [
        "GAME arena world=ticker map=default seed=3 players=1 limit=2 watchers=0 turn=5"
    ]
    assert await bob.ask("HELLO") == ["GOLD 1"]
    assert await alice.ask("MAP") == ["MAP 1 12", "...@........"]
    assert await bob.ask("MAP") == ["MAP 3 5", "#####", "#@.E#", "#####"]
    assert await alice.ask("MOVE E") == ["SUCCESS"]  # alone: at once, no waiting
    assert await bob.ask("MOVE E") == ["SUCCESS"]
    listed = await games(bob)
    assert [(g.name, g.world, g.players) for g in listed.games] == [
        ("default", "classic", 1),
        ("arena", "ticker", 1),
    ]


async def test_create_and_join_refuse_what_cannot_be(
    start_game_server: StartGameServer, write_map: WriteMap
) -> None:
    server = await start_game_server()
    peer, other = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await peer.ask("JOIN nowhere") == [
        "ERROR there is no game called nowhere; send GAMES for the list"
    ]
    assert (await peer.ask("CREATE x chess"))[0].startswith("ERROR unknown world 'chess'")
    assert (
        "no such classic map" in (await peer.ask(f"CREATE x classic map={write_map(CORRIDOR)}"))[0]
    )
    assert "no such classic map" in (await peer.ask("CREATE x classic map=../etc/passwd"))[0]
    assert (await peer.ask("CREATE bad/name classic"))[0].startswith(
        'ERROR "bad/name" is not a game name'
    )
    assert (await peer.ask("CREATE x classic players=0"))[0] == (
        "ERROR players= takes a number from 1 to 1000"
    )
    assert (await peer.ask("CREATE duo classic map=tiny players=1"))[0].startswith("GAME duo")
    assert (await peer.ask("CREATE duo classic"))[0] == "ERROR there is already a game called duo"
    assert (await peer.ask("JOIN duo"))[0].startswith("GAME duo")
    assert await other.ask("JOIN duo") == ["ERROR the game duo is full (1 players)"]


@pytest.mark.parametrize("world", ["crawler", "battle", "classic"])
async def test_the_map_games_shows_can_be_created_again(
    start_game_server: StartGameServer, world: str
) -> None:
    # Before: GAMES said map=default for the crawler's default game, and CREATE x crawler
    # map=default was refused (the crawler's default is called tutorial).
    server = await start_game_server(world=world, seed=1)
    peer = await Peer.connect(bound_port(server))
    (default,) = (await games(peer)).games
    assert default.map == "default"
    created = await peer.ask(f"CREATE copy {world} map={default.map} seed=1")
    assert created[0].startswith(f"GAME copy world={world} map=default seed=1 "), created
    # The same map: the world's default, whatever the world calls it.
    assert server.games["copy"].world.render(None) == server.games["default"].world.render(None)


async def test_names_are_unique_in_the_game_joined(start_game_server: StartGameServer) -> None:
    server = await start_game_server()
    alice, bob = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await alice.ask("HELLO Ada") == ["GOLD 3"]
    assert await bob.ask("CREATE side classic") == [
        "GAME side world=classic map=default seed=0 players=0 limit=100 watchers=0 turn=none"
    ]
    assert (await bob.ask("JOIN side"))[0].startswith("GAME side")
    assert await bob.ask("HELLO Ada") == ["GOLD 3"]  # another game: the name is free there
    assert await bob.ask("JOIN default") == [
        "ERROR the name 'Ada' is taken in default; choose another first"
    ]
    assert await alice.ask("HELLO #1") == ["ERROR a name may not begin with '#'"]
    assert await alice.ask("HELLO a:b") == ["ERROR a name may not hold ':'"]


async def test_a_legacy_client_next_to_an_extended_one_sees_no_push(
    start_game_server: StartGameServer, write_map: WriteMap
) -> None:
    server = await start_game_server(map=write_map(CORRIDOR), seed=4)
    legacy, modern = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await modern.ask("EXTEND") == ["EXTENDED events chat"]
    assert await modern.ask("HELLO Grace") == ["GOLD 1"]
    assert await legacy.ask("HELLO") == ["GOLD 1"]
    assert await modern.read_line() == "JOINED #2"
    rows = (await legacy.ask("MAP"))[2]
    step = "E" if rows.index("P") > rows.index("@") else "W"
    assert await modern.ask("SHOUT hello, all") == ["MESSAGE Grace: hello, all"]
    assert await modern.read_line() == "SUCCESS"
    legacy_reply = (await legacy.ask(f"MOVE {step}"))[0]
    assert await modern.read_line() == f"SAW #2: MOVE {step} {legacy_reply}"
    assert await modern.ask("MOVE N") == ["FAIL"]
    assert await legacy.ask("SHOUT hi") == ["SUCCESS"]
    assert await modern.read_line() == "MESSAGE #2: hi"
    await legacy.send("QUIT\n")
    assert await legacy.read_to_end() == b"BYE Thanks for playing.\n"
    assert await modern.read_line() == "LEFT #2: quit"


async def test_chat_reaches_the_game_and_refuses_escapes(
    start_game_server: StartGameServer,
) -> None:
    server = await start_game_server()
    ada, bob, elsewhere = [await Peer.connect(bound_port(server)) for _ in range(3)]
    for peer in (ada, bob, elsewhere):
        assert await peer.ask("EXTEND chat") == ["EXTENDED chat"]
    assert (await elsewhere.ask("CREATE other classic"))[0].startswith("GAME other")
    assert (await elsewhere.ask("JOIN other"))[0].startswith("GAME other")
    assert await ada.ask("HELLO Ada") == ["GOLD 3"]
    assert await bob.ask("HELLO") == ["GOLD 3"]
    assert await ada.ask("SHOUT look \x1b[2J\x1b]0;owned\x07") == [
        "ERROR a message may hold only printable characters"
    ]
    assert await ada.ask("SHOUT \u202egnp.exe") == [
        "ERROR a message may hold only printable characters"
    ]
    assert await ada.ask("SHOUT gold  to the east") == ["MESSAGE Ada: gold to the east"]
    assert await ada.read_line() == "SUCCESS"
    assert await bob.read_line() == "MESSAGE Ada: gold to the east"
    assert await nothing_received(bob)
    assert await nothing_received(elsewhere)


async def test_a_spectator_sees_every_change_and_cannot_act(
    start_game_server: StartGameServer,
) -> None:
    server = await start_game_server(map="tiny", seed=1)
    watcher, player = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await watcher.ask("WATCH default") == [
        "GAME default world=classic map=tiny seed=1 players=0 limit=none watchers=1 turn=none"
    ]
    assert await watcher.read_lines(4) == ["VIEW 3 5", "#####", "#G.E#", "#####"]
    assert await player.ask("HELLO") == ["GOLD 1"]
    assert await watcher.read_lines(4) == ["VIEW 3 5", "#####", "#P.E#", "#####"]
    for command in ("MOVE E", "LOOK", "PICKUP", "SHOUT hi"):
        assert (await watcher.ask(command))[0].startswith(
            f"ERROR you are watching default; spectators cannot {command.split()[0]}"
        )
    assert await watcher.ask("MAP") == ["MAP 3 5", "#####", "#P.E#", "#####"]
    assert await player.ask("MOVE W") == ["FAIL"]
    assert await player.ask("PICKUP") == ["SUCCESS, GOLD COINS: 1"]
    assert await nothing_received(watcher), "the map did not change: no view"
    assert await player.ask("MOVE E") == ["SUCCESS"]
    assert await watcher.read_lines(4) == ["VIEW 3 5", "#####", "#.PE#", "#####"]
    await player.send("MOVE E\n")
    assert await player.read_to_end() == (
        b"SUCCESS\nWIN You escaped the dungeon with 1 gold in 4 moves.\n"
    )
    assert await watcher.read_lines(9) == [
        *("VIEW 3 5", "#####", "#..E#", "#####"),
        "GAMEOVER default is over after 4 rounds",
        *("VIEW 3 5", "#####", "#G.E#", "#####"),  # a fresh world, with the gold back
    ]
    parsed = await watcher.reply("JOIN default")
    assert isinstance(parsed, GameInfo) and parsed.players == 1


async def test_a_bot_shows_as_b(start_game_server: StartGameServer, write_map: WriteMap) -> None:
    server = await start_game_server(map=write_map(CORRIDOR), seed=4)
    bot, human = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await bot.ask("EXTEND bot") == ["EXTENDED bot"]
    assert await bot.ask("HELLO") == ["GOLD 1"]
    assert "B" in (await human.ask("MAP"))[2]
    assert await human.ask("EXTEND bot events") == ["EXTENDED events"], "too late to be a bot"
    assert "B" not in (await bot.ask("MAP"))[2]


async def test_an_extended_client_that_never_reads_is_cut_off(
    start_game_server: StartGameServer,
) -> None:
    server = await start_game_server(
        max_pending_output=32 * 1024, send_timeout=60, chat_rate=1e6, chat_burst=10**6
    )
    hog, talker, other = [await Peer.connect(bound_port(server)) for _ in range(3)]
    assert await hog.ask("EXTEND") == ["EXTENDED events chat"]
    assert await hog.ask("HELLO") == ["GOLD 3"]
    assert await talker.ask("HELLO Talker") == ["GOLD 3"]
    shout = "SHOUT " + "x" * 900 + "\n"
    with structlog.testing.capture_logs() as logs:
        with trio.fail_after(30):
            while not any(e.get("reason") == "cut off: not reading its replies" for e in logs):
                await talker.send(shout * 100)
                assert await talker.read_lines(100) == ["SUCCESS"] * 100
                assert await other.ask("HELLO") == ["GOLD 3"]
    assert server.games["default"].info().players == 2
    assert await talker.ask("MOVE N") in (["SUCCESS"], ["FAIL"])


async def test_one_reply_larger_than_the_limit_reaches_a_client_that_reads(
    start_game_server: StartGameServer, tmp_path: Path
) -> None:
    rows = ["." * 200] * 199 + ["." * 199 + "E"]
    board = tmp_path / "wide.map"
    board.write_text("name Wide\nwin 0\n" + "\n".join(rows) + "\n")
    server = await start_game_server(map=str(board), max_pending_output=16 * 1024)
    reader = await Peer.connect(bound_port(server))
    lines = await reader.ask("MAP")  # about 40 KiB in one reply
    assert lines[0] == "MAP 200 200" and len(lines) == 201
    assert await reader.ask("HELLO") == ["GOLD 0"]
