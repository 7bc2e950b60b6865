"""The battle world over real sockets: three players, turns, a fight, a death, a drop, a win.

The map and seed are fixed, so where players appear and which blows land are too:
seed 203 puts alice at (1, 2), bob on the gold at (1, 1) and carol at (2, 7).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import trio

from dungeon_of_doom.server.app import Server

from ...conftest import StartServer
from ...helpers import Peer, bound_port

ARENA = """name Arena
win 1
#########
#G.....E#
#.......#
#########
"""
SEED = 203


async def lines_until(peer: Peer, stop: Callable[[str], bool]) -> list[str]:
    """Read lines up to and including the first for which ``stop`` is true."""
    seen = []
    while True:
        line = await peer.read_line()
        seen.append(line)
        if stop(line):
            return seen


async def start(
    start_server: StartServer, write_map: Callable[[str], str], **settings: object
) -> Server:
    return await start_server(world="battle", map=write_map(ARENA), seed=SEED, **settings)


async def join(server: Server, name: str, *, events: bool = True) -> Peer:
    peer = await Peer.connect(bound_port(server))
    if events:
        assert await peer.ask("EXTEND events") == ["EXTENDED events"]
    await peer.send(f"HELLO {name}\n")
    return peer


async def test_three_players_fight_until_one_wins(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start(start_server, write_map)
    alice = await join(server, "alice")
    assert await alice.read_lines(2) == ["STARTTURN 6", "GOLD 1"]
    bob = await join(server, "bob")
    assert await bob.read_lines(2) == ["TURN alice", "GOLD 1"]
    carol = await join(server, "carol")
    assert await carol.read_lines(2) == ["TURN alice", "GOLD 1"]
    assert await alice.read_lines(2) == ["JOINED bob", "JOINED carol"]
    assert await bob.read_line() == "JOINED carol"

    # Out of turn: a clear error, and nothing changes.
    assert await bob.ask("MOVE E") == [
        "ERROR it is not your turn: alice is playing; wait for STARTTURN"
    ]
    assert await bob.ask("APGET") == ["AP 0"]
    # Alice sees bob (P, standing on the gold) to her west; an attack uses all her AP.
    assert await alice.ask("LOOK") == ["LOOKREPLY", "X###X", "#####", "#P...", "#....", "X###X"]
    assert await alice.ask("ATTACK W") == ["SUCCESS"]
    assert await alice.read_lines(2) == ["ENDTURN", "TURN bob"]
    assert await bob.read_lines(3) == ["SAW alice: ATTACK W SUCCESS", "HITMOD -1", "STARTTURN 6"]
    assert await bob.ask("HPGET") == ["HP 2"]
    assert await bob.ask("PICKUP") == ["SUCCESS, GOLD COINS: 1"]
    assert await bob.ask("APGET") == ["AP 5"]
    assert await bob.ask("ENDTURN") == ["SUCCESS"]
    assert await bob.read_lines(2) == ["ENDTURN", "TURN carol"]
    assert await carol.read_lines(2) == ["TURN bob", "STARTTURN 6"]

    # From here each player plays on STARTTURN: alice strikes until bob falls,
    # bob and carol pass.
    peers = {"alice": alice, "bob": bob, "carol": carol}
    log: dict[str, list[str]] = {name: [] for name in peers}
    turn = "carol"
    bob_dead = False
    for _ in range(30):
        peer = peers[turn]
        reply = await peer.ask("ATTACK W" if turn == "alice" else "ENDTURN")
        assert reply == (["SUCCESS"] if turn != "alice" else reply)
        following = await lines_until(peer, lambda line: line.startswith("TURN "))
        log[turn] += reply + following
        bob_dead = bob_dead or "LEFT bob: died" in following
        turn = following[-1].removeprefix("TURN ")
        assert not (bob_dead and turn == "bob"), "bob was given a turn after he died"
        log[turn] += await lines_until(peers[turn], lambda line: line.startswith("STARTTURN"))
        if turn == "alice" and bob_dead:
            break
    else:
        pytest.fail(f"bob never died: {log}")

    # Bob was slain: LOSE, then the server closed his connection; the blow that
    # killed him answered SUCCESS, and the others were told.
    bob_end = (await bob.read_to_end()).decode()
    assert bob_end.endswith("HITMOD -1\nLOSE You were slain: your hit points reached 0.\n")
    # Six attacks in all (three hits, three misses) and eight steps: 14 actions.
    assert log["alice"].count("SUCCESS") == 2 and log["alice"].count("FAIL") == 3
    assert "LEFT bob: died" in log["carol"]
    assert "NOTICE 1 gold fell to the floor at row 1, column 1" in log["alice"]
    # Alice takes the dropped gold and walks to the exit: 6 AP this turn, 2 more next.
    assert await alice.ask("MOVE W") == ["SUCCESS"]
    assert await alice.ask("PICKUP") == ["SUCCESS, GOLD COINS: 1"]
    for _ in range(4):
        assert await alice.ask("MOVE E") == ["SUCCESS"]
    assert await lines_until(alice, lambda line: line.startswith("TURN ")) == [
        "ENDTURN",
        "TURN carol",
    ]
    await lines_until(carol, lambda line: line.startswith("STARTTURN"))
    assert await carol.ask("ENDTURN") == ["SUCCESS"]
    await lines_until(alice, lambda line: line.startswith("STARTTURN"))
    assert await alice.ask("MOVE E") == ["SUCCESS"]
    await alice.send("MOVE E\n")
    won = (await alice.read_to_end()).decode()
    assert won.endswith("SUCCESS\nWIN You won the battle: you escaped with 1 gold in 14 moves.\n")
    lost = (await carol.read_to_end()).decode().splitlines()
    assert lost[-2:] == ["NOTICE alice has won the game", "LOSE alice won the game."]
    await trio.testing.wait_all_tasks_blocked()
    # The default game starts anew once everyone has left.
    assert server.lobby.default.world.turn is None  # type: ignore[attr-defined]
