"""The crawler world over real loopback sockets: exact bytes, whole dungeons, two players."""

from __future__ import annotations

from pathlib import Path

from ...conftest import StartServer
from ...helpers import Peer

CORRIDOR = "1 4\n0 0\n- $ - !"


async def test_exact_bytes_of_a_game_alone(start_server: StartServer, write_map) -> None:
    server = await start_server(world="crawler", map=write_map(CORRIDOR, ".txt"), seed=5)
    peer = await Peer.connect(server.port)
    await peer.send("HELLO\nLOOK\nMOVE W\nSTAY\nPICKUP\nmove e\r\nMAP\nMOVE E\nMOVE E\n")
    assert await peer.read_to_end() == (
        b"GOLD 1\n"
        b"LOOKREPLY\nX###X\n#####\n##-$-\n#####\nX###X\n"
        b"FAIL\n"  # a bump: it still counts as a move
        b"SUCCESS\n"  # STAY
        b"FAIL\n"  # PICKUP: treasure is taken on entry; not a move
        b"SUCCESS\n"  # onto the treasure
        b"MAP 1 4\n-o-!\n"
        b"SUCCESS\n"
        b"SUCCESS\n"
        b"WIN Congratulations, adventurer! You have escaped the dungeon! "
        b"You escaped with 1 treasure and in 5 total moves.\n"
    )


async def test_the_sample_tutorial_dungeon_over_the_protocol(
    start_server: StartServer, compat: Path
) -> None:
    dungeon = compat / "crawler-levels" / "tutorial"
    server = await start_server(world="crawler", map=f"{dungeon}:4")
    peer = await Peer.connect(server.port)
    moves = "SSE" + "ENEE" + "SSE" + "SSSEEN"
    await peer.send("".join(f"MOVE {direction}\n" for direction in moves))
    lines = (await peer.read_to_end()).decode().splitlines()
    assert lines[:-1] == ["SUCCESS"] * 16
    assert lines[-1].startswith("WIN ") and lines[-1].endswith("in 16 total moves.")


async def test_two_players_block_each_other_and_one_is_caught(
    start_server: StartServer, write_map
) -> None:
    level = "2 4\n0 0\n- - M -\n? - - -"
    server = await start_server(world="crawler", map=write_map(level, ".txt"))
    alice = await Peer.connect(server.port)
    assert await alice.ask("HELLO") == ["GOLD 1"]
    bob = await Peer.connect(server.port)
    assert await bob.ask("MAP") == ["MAP 2 4", "PoM-", "?---"]  # bob appears next to alice
    # One round: alice bumps into bob, then the monster hunting her takes bob.
    await alice.send("MOVE E\n")
    await bob.send("STAY\n")
    assert await alice.read_line() == "FAIL"
    assert await bob.read_to_end() == b"LOSE You died, adventurer! Better luck next time!\n"
    assert await alice.ask("MAP") == ["MAP 2 4", "oM--", "?---"]
    assert await alice.ask("MOVE S") == ["SUCCESS"]  # through the door of the only level
    assert (await alice.read_to_end()).startswith(b"LOSE The last door")


async def test_clients_that_ask_for_events_are_told_what_happened(
    start_server: StartServer, write_map
) -> None:
    server = await start_server(world="crawler", map=write_map("1 3\n0 0\n- $ !", ".txt"))
    peer = await Peer.connect(server.port)
    assert await peer.ask("EXTEND events") == ["EXTENDED events"]
    await peer.send("MOVE E\nMOVE E\n")
    lines = (await peer.read_to_end()).decode().splitlines()
    notices = [line for line in lines if line.startswith(("NOTICE", "SUCCESS", "WIN"))]
    assert notices == [
        "SUCCESS",
        "NOTICE Well done, adventurer! You found some treasure.",
        "NOTICE You now have 1 treasure.",
        "SUCCESS",
        "WIN Congratulations, adventurer! You have escaped the dungeon! "
        "You escaped with 1 treasure and in 2 total moves.",
    ]


async def test_the_shipped_default_dungeon_starts_with_help_for_stay(
    start_server: StartServer,
) -> None:
    server = await start_server(world="crawler")
    peer = await Peer.connect(server.port)
    assert await peer.ask("HELLO") == ["GOLD 1"]
    assert await peer.ask("LOOK") == ["LOOKREPLY", "X###X", "##---", "##---", "##---", "X###X"]
    assert "STAY" in "\n".join(await peer.ask("HELP"))
