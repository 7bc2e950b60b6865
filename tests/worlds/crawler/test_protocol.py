"""The crawler world over real loopback sockets: exact bytes, whole dungeons, two players."""

from __future__ import annotations

from pathlib import Path

from ...conftest import StartServer, WriteMap
from ...helpers import Peer, bound_port

CORRIDOR = "1 4\n0 0\n- $ - !"


async def test_exact_bytes_of_a_game_alone(start_server: StartServer, write_map: WriteMap) -> None:
    server = await start_server(world="crawler", map=write_map(CORRIDOR, ".txt"), seed=5)
    peer = await Peer.connect(bound_port(server))
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
    peer = await Peer.connect(bound_port(server))
    moves = "SSE" + "ENEE" + "SSE" + "SSSEEN"
    await peer.send("".join(f"MOVE {direction}\n" for direction in moves))
    lines = (await peer.read_to_end()).decode().splitlines()
    assert lines[:-1] == ["SUCCESS"] * 16
    assert lines[-1].startswith("WIN ") and lines[-1].endswith("in 16 total moves.")


async def test_two_players_block_each_other_and_one_is_caught(
    start_server: StartServer, write_map: WriteMap
) -> None:
    level = "2 4\n0 0\n- - M -\n? - - -"
    server = await start_server(world="crawler", map=write_map(level, ".txt"))
    alice = await Peer.connect(bound_port(server))
    assert await alice.ask("HELLO") == ["GOLD 1"]
    bob = await Peer.connect(bound_port(server))
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
    start_server: StartServer, write_map: WriteMap
) -> None:
    server = await start_server(world="crawler", map=write_map("1 3\n0 0\n- $ !", ".txt"))
    peer = await Peer.connect(bound_port(server))
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
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("HELLO") == ["GOLD 1"]
    assert await peer.ask("LOOK") == ["LOOKREPLY", "X###X", "##---", "##---", "##---", "X###X"]
    assert "STAY" in "\n".join(await peer.ask("HELP"))


async def test_saw_reaches_only_players_on_the_same_level(
    start_server: StartServer, tmp_path: Path
) -> None:
    """Issue 18 defect 1: ``SAW`` about level 1 reached a player on level 2."""
    (tmp_path / "two1.txt").write_text("2 3\n0 0\n- ? -\n- - -\n")
    (tmp_path / "two2.txt").write_text("2 3\n0 0\n- - -\n- - !\n")
    server = await start_server(world="crawler", map=f"{tmp_path / 'two'}:2")
    below, above = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    for peer in (below, above):
        assert await peer.ask("EXTEND events") == ["EXTENDED events"]
    assert await below.ask("HELLO Below") == ["GOLD 1"]
    assert await above.ask("HELLO Above") == ["GOLD 1"]
    assert await below.read_line() == "JOINED Above"

    async def round_of(peer: Peer, number: int) -> list[str]:
        lines = [await peer.read_line()]
        while not lines[-1].startswith(f"ROUND {number}"):
            lines.append(await peer.read_line())
        return lines

    await below.send("MOVE E\n")
    await above.send("STAY\n")
    assert "SAW Below: MOVE E SUCCESS" in await round_of(above, 1), "both were on level 1"
    await round_of(below, 1)
    # Below went through the door to level 2, at (0, 0); Above stays on level 1 at (1, 0).
    await below.send("STAY\n")
    await above.send("MOVE E\n")
    await round_of(above, 2)
    seen = await round_of(below, 2)
    assert seen[0] == "SUCCESS"
    assert not [line for line in seen if line.startswith("SAW")], seen
