"""The battle world in the 2015 dialect, byte for byte against the capture of RULES-battle §7.

The capture (two players' first turns on the 2015 server, t6.log) placed the players
with the debug command ``SETPLAYERPOS``; here the seed does it: seed 1117 puts alice at
(row 3, column 1) and bob at (row 3, column 4), and lands both blows, as in the capture.
Where we follow the 2013 rulebook instead of the 2015 server (RULES-battle §7, last
lines), the bytes are those the rules note predicts: an attack ends the turn at once
(``SUCCESS`` ⏎ ``ENDTURN``, then ``STARTTURN`` for the other), and a pickup costs 1 AP.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ...conftest import StartServer
from ...helpers import Peer, bound_port
from ...server.conftest import nothing_received

pytest.importorskip(
    "dungeon_of_doom.protocol.dialects", reason="the dialects of docs/dialects.md are not here"
)

ARENA = """name Arena
win 1
#########
#.......#
#.SAL.H.#
#.......#
#G.....E#
#########
"""
SEED = 1117


async def exactly(peer: Peer, expected: bytes) -> None:
    assert await peer.read_exactly(len(expected)) == expected


async def test_the_first_turns_of_the_capture(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start_server(world="battle", map=write_map(ARENA), seed=SEED, dialect="2015")
    alice = await Peer.connect(bound_port(server))
    await exactly(alice, b"GOLD 1\nSTARTTURN\n")
    await alice.send("HELLO alice\n")
    await exactly(alice, b"HELLO alice\n")
    bob = await Peer.connect(bound_port(server))
    await exactly(bob, b"GOLD 1\n")  # bob appears out of alice's sight: she is told nothing
    await bob.send("HELLO bob\n")
    await exactly(bob, b"HELLO bob\n")
    assert await nothing_received(alice)

    await alice.send("LOOK\n")
    await exactly(alice, b"LOOKREPLY\nX#..X\n##.SA\n##...\n##G..\nX###X\n\n")
    await alice.send("MOVE E\n")
    await exactly(alice, b"SUCCESS\n")
    await exactly(bob, b"CHANGE\n")
    # The capture shows a CHANGE per move; ours coalesces them until bob next speaks, since
    # a burst of them before its first LOOKREPLY crashed zss's own AI client (issue 27).
    await alice.send("MOVE E\n")
    await exactly(alice, b"SUCCESS\n")
    assert await nothing_received(bob)
    await alice.send("ATTACK E\n")
    await exactly(alice, b"SUCCESS\nENDTURN\n")  # 2015: SUCCESS, and the turn went on
    await exactly(bob, b"HITMOD -1\nSTARTTURN\n")
    await alice.send("ENDTURN\n")
    await exactly(alice, b"FAIL it is not your turn.\n")
    assert await nothing_received(bob)

    await bob.send("LOOK\n")
    await exactly(bob, b"LOOKREPLY\nX...X\nSAL.H\n.P...\n.....\nX###X\n\n")
    await bob.send("ATTACK W\n")
    await exactly(bob, b"SUCCESS\nENDTURN\n")
    await exactly(alice, b"HITMOD -1\nSTARTTURN\n")
    await bob.send("MOVE N\n")
    await exactly(bob, b"FAIL not your turn\n")

    await alice.send("ENDTURN\n")
    await exactly(alice, b"ENDTURN\n")  # no SUCCESS line, as in 2015
    await exactly(bob, b"STARTTURN\n")
    await bob.send("MOVE N\n")
    await exactly(bob, b"SUCCESS\n")
    await exactly(alice, b"CHANGE\n")
    await bob.send("PICKUP\n")
    await exactly(bob, b"SUCCESS\n")  # the lantern
    await bob.send("APGET\n")
    await exactly(bob, b"AP 4\n")  # a move and a pickup (2015: the pickup was free)
    await bob.send("ENDTURN\n")
    await exactly(bob, b"ENDTURN\n")
    await exactly(alice, b"STARTTURN\n")
    assert await nothing_received(alice) and await nothing_received(bob)
