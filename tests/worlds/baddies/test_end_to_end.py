"""The baddies world over real loopback sockets: a 2013 client, an extended one, two heroes."""

from __future__ import annotations

from collections.abc import Callable

import trio

from ...conftest import StartServer
from ...helpers import Peer, bound_port

LURE = "name Lure\nH.#m..\n......\n.....*\n"
PAIR = "name Pair\n+++.........\nH.+......~.*\n+++.........\n"


async def test_a_2013_client_plays_a_whole_game(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start_server(world="baddies", map=write_map(LURE), seed=0)
    peer = await Peer.connect(bound_port(server))
    await peer.send(
        "HELLO\nLOOK\nMOVE N\nMAP\nmove se\r\nMOVE SE\nPICKUP\nSTAY\nMOVE E\nMOVE E\nMOVE E\n"
    )
    assert await peer.read_to_end() == (
        b"GOLD 0\n"
        b"LOOKREPLY\nX###X\n#####\n##..#\n##...\nX#..X\n"
        b"FAIL\n"  # the edge; the monster, meanwhile, fell into the abyss
        b"MAP 3 6\n@.#...\n......\n.....*\n"
        b"SUCCESS\n"
        b"SUCCESS\n"
        b"FAIL\n"  # PICKUP: nothing to pick up, and a round passes
        b"SUCCESS\n"
        b"SUCCESS\n"
        b"SUCCESS\n"
        b"SUCCESS\n"
        b"WIN Hero Escaped! You reached the ladder in 8 moves.\n"
    )


async def test_an_extended_client_is_told_what_happened(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start_server(world="baddies", map=write_map(LURE), seed=0)
    peer = await Peer.connect(bound_port(server))
    await peer.send("EXTEND events\nHELLO\nSTAY\nMOVE E\nMOVE E\n")
    lines = (await peer.read_to_end()).decode().splitlines()
    assert [line for line in lines if not line.startswith(("ROUND", "EXTENDED"))] == [
        "GOLD 0",
        "SUCCESS",
        "NOTICE A monster fell into the abyss at row 0, column 2.",
        "SUCCESS",
        "SUCCESS",
        "LOSE Hero did not escape... You fell into the abyss.",
    ]


async def test_a_generated_board_is_the_originals(start_server: StartServer) -> None:
    server = await start_server(world="baddies", map="random:seed=1", seed=0)
    peer = await Peer.connect(bound_port(server))
    rows = await peer.ask("MAP")
    assert rows[0] == "MAP 15 40"
    assert rows[14] == ".@....+...........................#....."
    assert rows[13] == ".....#+......#m......#................*."


async def test_two_heroes_share_rounds_and_the_bat_takes_the_nearest(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start_server(world="baddies", map=write_map(PAIR), seed=0)
    first = await Peer.connect(bound_port(server))
    second = await Peer.connect(bound_port(server))
    assert await first.ask("HELLO") == ["GOLD 0"]
    assert await second.ask("HELLO") == ["GOLD 0"]
    # The only empty square of the three leftmost columns was (1, 1).
    assert await first.ask("LOOK") == ["LOOKREPLY", "X###X", "##+++", "##.P+", "##+++", "X###X"]
    assert await first.ask("EXTEND events") == ["EXTENDED events"]
    with trio.fail_after(10):
        await first.send("MOVE E\n")  # waits for the round: the second hero has not acted
        await second.send("MOVE NE\n")
        assert await second.read_to_end() == (
            b"FAIL\nLOSE Hero did not escape... A bat caught you.\n"
        )
        lines = [await first.read_line()]
        while not lines[-1].startswith("ROUND"):
            lines.append(await first.read_line())
    assert lines[0] == "FAIL"  # blocked by the other hero
    assert "NOTICE A bat caught a hero at row 1, column 1." in lines
    assert await first.ask("MAP") == ["MAP 3 12", "+++.........", "@~+........*", "+++........."]


async def test_look_with_the_view_inside_the_board_answers(start_server: StartServer) -> None:
    """Issue 20: this ``LOOK`` stopped the game for everyone with an internal error."""
    server = await start_server(world="baddies", map="lure", seed=0)
    peer = await Peer.connect(bound_port(server))
    await peer.send("MOVE E\nMOVE E\n")
    assert await peer.read_lines(2) == ["SUCCESS", "SUCCESS"]
    assert await peer.ask("LOOK") == ["LOOKREPLY", "X...X", ".....", "....#", ".....", "X..#X"]
