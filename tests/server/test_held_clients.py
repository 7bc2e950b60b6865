"""A client whose command is held (``start=full``, a battle turn, a round) is read all
the same: its end and its ``QUIT`` are acted on at once, not when the hold ends.

Before (found in issue 40), nothing was read from a held client: one that went away
kept its seat, its name and the others waiting until the hold ended, which may be the
whole turn limit. Every game here has a turn limit of 600 s, and every wait a bound of
:data:`tests.helpers.TIMEOUT` (10 s): what the others see, they see long before the
hold would have ended.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
import trio.testing

from server.app import Server
from server.session.client import READ_AHEAD
from server.session.transport import RECEIVE_SIZE

from ..conftest import StartServer
from ..helpers import Peer, bound_port
from ..worlds.battle.test_battle_tcp import ARENA, SEED, lines_until
from .conftest import StartGameServer, nothing_received, replay_transcript

TURN = 600
BYE = b"BYE Thanks for playing.\n"
ENDINGS = ["disconnected", "quit", "line too long"]
"""How the held client goes: it closes its connection, sends ``QUIT``, or sends a line
longer than the limit (a final line too)."""


async def go(peer: Peer, how: str) -> str:
    """``peer``, whose command is held, goes as ``how`` says, and is told its final line
    and nothing else (what it sent before is never answered); why others are told it left."""
    if how == "disconnected":
        await peer.aclose()
        return how
    if how == "quit":
        await peer.send("WHOAMI\nQUIT\n")
        assert await peer.read_to_end() == BYE
        return how
    await peer.send("WHOAMI\n" + "x" * 2000 + "\n")
    assert await peer.read_to_end() == b"BYE line too long (the limit is 1024 bytes)\n"
    return "disconnected"


async def connect(server: Server, *lines: str) -> Peer:
    """A client that has sent ``lines``, each answered with one line."""
    peer = await Peer.connect(bound_port(server))
    for line in lines:
        await peer.ask(line)
    return peer


@pytest.mark.parametrize("how", ENDINGS)
async def test_a_player_held_until_the_game_is_full_leaves_at_once(
    start_server: StartServer, how: str
) -> None:
    server = await start_server()
    bob = await connect(server, "EXTEND events")
    created = await bob.ask(f"CREATE trio classic players=3 turn={TURN} start=full")
    assert created[0].startswith("GAME trio ")
    assert (await bob.ask("JOIN trio"))[0].startswith("GAME trio ")
    ada = await connect(server, "HELLO Ada", "JOIN trio")
    assert await bob.read_line() == "JOINED Ada"
    await ada.send("LOOK\n")
    assert await nothing_received(ada), "the LOOK waits for the game to be full"

    why = await go(ada, how)
    assert await bob.read_line() == f"LEFT Ada: {why}"
    # The game fills with the players who are there, and begins.
    cy = await connect(server, "JOIN trio")
    await cy.send("LOOK\n")
    await trio.testing.wait_all_tasks_blocked()
    assert await nothing_received(cy), "two players of three: the game waits"
    dee = await connect(server, "JOIN trio")
    assert await cy.read_line() == "LOOKREPLY", "three players: the game begins"
    await dee.aclose()


async def start_battle(start_server: StartServer, write_map: Callable[[str], str]) -> Server:
    return await start_server(world="battle", map=write_map(ARENA), seed=SEED, turn_timeout=TURN)


@pytest.mark.parametrize("how", ENDINGS)
async def test_a_player_whose_look_waits_for_its_turn_leaves_at_once(
    start_server: StartServer, write_map: Callable[[str], str], how: str
) -> None:
    server = await start_battle(start_server, write_map)
    alice = await connect(server, "EXTEND events")
    assert await alice.ask("HELLO alice") == ["STARTTURN 6"]
    assert await alice.read_line() == "GOLD 1"
    bob = await connect(server, "HELLO bob")  # a 2013 client: its LOOK waits for its turn
    carol = await connect(server, "EXTEND events", "HELLO carol")
    assert await carol.read_line() == "GOLD 1"
    assert await alice.read_lines(2) == ["JOINED bob", "JOINED carol"]
    await bob.send("LOOK\n")
    assert await nothing_received(bob), "alice's turn: bob's LOOK waits for his"

    why = await go(bob, how)
    assert await lines_until(alice, lambda line: line.startswith("LEFT ")) == [f"LEFT bob: {why}"]
    assert await lines_until(carol, lambda line: line.startswith("LEFT ")) == [f"LEFT bob: {why}"]
    # The turn passes to the players who are there.
    assert await alice.ask("ENDTURN") == ["SUCCESS"]
    assert await alice.read_lines(2) == ["ENDTURN", "TURN carol"]
    assert await lines_until(carol, lambda line: line.startswith("STARTTURN")) == ["STARTTURN 6"]


@pytest.mark.parametrize("how", ENDINGS)
async def test_a_player_whose_action_waits_for_its_round_leaves_at_once(
    start_game_server: StartGameServer, replay_dir: Path, how: str
) -> None:
    server = await start_game_server(
        world="ticker", seed=5, turn_timeout=TURN, max_players_per_game=2
    )
    bob = await connect(server, "EXTEND events", "HELLO Bob")
    ada = await connect(server, "HELLO Ada")
    assert await bob.read_line() == "JOINED Ada"
    await ada.send("MOVE E\n")
    assert await nothing_received(ada), "the MOVE waits for bob's action"

    why = await go(ada, how)
    await trio.testing.wait_all_tasks_blocked()
    # Ada's seat and name are free at once; her action is played with the round.
    cy = await Peer.connect(bound_port(server))
    assert await cy.ask("HELLO Ada") == ["GOLD 0"], "a seat of two, and the name, are free"
    assert await bob.read_line() == "JOINED Ada"
    await cy.send("MOVE E\n")
    assert await bob.ask("STAY") == ["SUCCESS"]
    assert await cy.read_line() == "SUCCESS"
    pushed = await lines_until(bob, lambda line: line.startswith("LEFT "))
    assert pushed[-2:] == ["ROUND 1 acted=3 missed=0", f"LEFT Ada: {why}"]
    (path,) = replay_dir.iterdir()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert {"round": 1, "actions": [[1, "STAY"], [2, "MOVE E"], [3, "MOVE E"]]} in records
    assert records[-1] == {"round": 1, "leave": 2, "why": why}


async def test_what_a_held_client_sends_is_read_within_a_bound_and_answered_in_order(
    start_server: StartServer,
) -> None:
    server = await start_server()
    bob = await connect(
        server, f"CREATE trio classic players=3 turn={TURN} start=full", "JOIN trio"
    )
    ada = await connect(server, "JOIN trio")
    port = ada.stream.socket.getsockname()[1]
    (held,) = [c for c in server.connections if c.peer.endswith(f":{port}")]
    count = 3 * READ_AHEAD // len("WHOAMI\n")
    await ada.send("LOOK\n" + "WHOAMI\n" * count)
    await trio.testing.wait_all_tasks_blocked()
    assert await nothing_received(ada), "the LOOK waits for the game to be full"
    waiting = held.protocol._framer.buffered
    assert READ_AHEAD < waiting <= READ_AHEAD + RECEIVE_SIZE, "read on, within its bound"
    cy = await connect(server, "JOIN trio")  # the game is full, and begins
    assert await ada.read_line() == "LOOKREPLY"
    await ada.read_lines(5)
    assert await ada.read_lines(count) == ["WHOAMI #2 trio"] * count
    await bob.aclose()
    await cy.aclose()


async def test_a_quit_behind_a_held_command_goes_as_docs_protocol_says(
    start_server: StartServer,
) -> None:
    """docs/protocol.md's transcript of a ``QUIT`` behind a ``LOOK`` that waits, replayed."""
    server = await start_server()
    peers = {name: await Peer.connect(bound_port(server)) for name in ("bob", "ada")}
    assert await replay_transcript("held", peers, {"JOINED", "LEFT"}, "bob") == "ada"
    assert await peers["ada"].read_to_end() == b"", "nothing after BYE"


async def test_a_quit_behind_a_command_that_waits_for_the_server_waits_its_turn(
    start_server: StartServer,
) -> None:
    """A ``CREATE`` waits for its world, the server's own work, soon done: what comes
    behind it is answered after it, in order, a ``QUIT`` too (only waits for other
    players, as long as a turn, are overtaken)."""
    server = await start_server()
    peer = await Peer.connect(bound_port(server))
    await peer.send("CREATE w classic\nQUIT\n")
    created, bye = (await peer.read_to_end()).decode().splitlines()
    assert created.startswith("GAME w ") and bye == "BYE Thanks for playing."
