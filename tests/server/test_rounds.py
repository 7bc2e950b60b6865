"""Worlds with rounds over real sockets: waiting for everyone, time-outs, leaving mid-round."""

from __future__ import annotations

import json
from pathlib import Path

import trio
import trio.testing

from ..helpers import Peer, bound_port
from .conftest import StartGameServer, nothing_received


def replay_records(replay_dir: Path) -> list[dict[str, object]]:
    (path,) = replay_dir.iterdir()
    records: list[dict[str, object]] = [json.loads(line) for line in path.read_text().splitlines()]
    return records


async def test_a_round_waits_for_both_players(start_game_server: StartGameServer) -> None:
    server = await start_game_server(world="ticker", seed=5)
    game = server.games["default"]
    alice, bob = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await alice.ask("EXTEND events") == ["EXTENDED events"]
    assert await alice.ask("HELLO Alice") == ["GOLD 0"]
    assert await bob.ask("HELLO Bob") == ["GOLD 0"]
    assert await alice.read_line() == "JOINED Bob"
    await alice.send("MOVE E\nLOOK\n")
    assert await nothing_received(alice), "the reply waits for the round"
    assert (await bob.ask("LOOK"))[0] == "LOOKREPLY", "LOOK is answered at once"
    assert await bob.ask("MAP") == ["MAP 1 12", "....@P......"]
    assert game.round == 0
    await bob.send("MOVE E\n")
    assert await bob.read_line() == "SUCCESS"
    assert await alice.read_lines(5) == [
        "SUCCESS",
        "SAW Bob: MOVE E SUCCESS",
        "NOTICE tick 1",
        "ROUND 1 acted=2 missed=0",
        "LOOKREPLY",
    ]
    assert game.round == 1
    assert await bob.ask("MAP") == ["MAP 1 12", ".....@P....."], "alice first, then bob"


async def test_join_order_decides_who_moves_first(start_game_server: StartGameServer) -> None:
    server = await start_game_server(world="ticker", seed=5)
    first, second = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await first.ask("MAP") == ["MAP 1 12", ".....@......"]
    assert await second.ask("MAP") == ["MAP 1 12", "....@P......"]
    # The second player acts first, east onto the first player's square; it is free
    # only if the first player moves before, as join order says.
    await second.send("MOVE E\n")
    await trio.testing.wait_all_tasks_blocked()
    await first.send("MOVE E\n")
    assert await first.read_line() == "SUCCESS"
    assert await second.read_line() == "SUCCESS"
    assert await second.ask("MAP") == ["MAP 1 12", ".....@P....."]


async def test_a_round_times_out_and_a_silent_player_is_removed(
    start_game_server: StartGameServer, autojump_clock: trio.testing.MockClock, replay_dir: Path
) -> None:
    server = await start_game_server(world="ticker", seed=5, turn_timeout=5, max_missed_turns=2)
    active, silent = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await active.ask("EXTEND") == ["EXTENDED events chat"]
    assert await active.ask("HELLO") == ["GOLD 0"]
    assert await silent.ask("HELLO") == ["GOLD 0"]
    assert await active.read_line() == "JOINED #2"
    start = trio.current_time()
    assert await active.ask("MOVE E") == ["SUCCESS"]
    assert trio.current_time() - start >= 5, "the round waited for its time limit"
    assert await active.read_lines(3) == [
        "SAW #2: STAY SUCCESS",
        "NOTICE tick 1",
        "ROUND 1 acted=1 missed=1",
    ]
    assert await active.ask("MOVE W") == ["SUCCESS"]
    assert (
        await silent.read_to_end() == b"BYE removed from the game after missing 2 turns in a row\n"
    )
    assert await active.read_lines(4) == [
        "SAW #2: STAY SUCCESS",
        "NOTICE tick 2",
        "ROUND 2 acted=1 missed=1",
        "LEFT #2: removed",
    ]
    start = trio.current_time()
    assert await active.ask("MOVE E") == ["SUCCESS"]
    assert trio.current_time() == start, "alone, a player never waits"
    await active.send("QUIT\n")
    await active.read_to_end()
    await trio.testing.wait_all_tasks_blocked()
    records = replay_records(replay_dir)
    assert records[3] == {"round": 1, "actions": [[1, "MOVE E"], [2, "STAY"]], "missed": [2]}
    assert records[5] == {"round": 2, "leave": 2, "why": "removed"}


async def test_a_disconnect_in_the_middle_of_a_round(
    start_game_server: StartGameServer, replay_dir: Path
) -> None:
    server = await start_game_server(world="ticker", seed=5)
    ada, bob, cy = (
        (await Peer.connect(server.port) for _ in range(3))
        if False
        else [await Peer.connect(bound_port(server)) for _ in range(3)]
    )
    for peer in (ada, bob, cy):
        assert await peer.ask("HELLO") == ["GOLD 0"]
    await ada.send("MOVE W\n")  # ada acts, then vanishes while waiting for the round
    await trio.testing.wait_all_tasks_blocked()
    await ada.aclose()
    await bob.aclose()  # bob vanishes without acting: the round no longer waits for him
    await trio.testing.wait_all_tasks_blocked()
    assert await cy.ask("MOVE E") == ["SUCCESS"]
    await trio.testing.wait_all_tasks_blocked()
    assert await cy.ask("MAP") == ["MAP 1 12", ".......@...."], "both left the world"
    await cy.send("QUIT\n")
    await cy.read_to_end()
    await trio.testing.wait_all_tasks_blocked()
    records = replay_records(replay_dir)[1:]
    assert [r for r in records if "leave" in r or "actions" in r] == [
        {"round": 0, "leave": 2, "why": "disconnected"},
        {"round": 1, "actions": [[1, "MOVE W"], [3, "MOVE E"]]},
        {"round": 1, "leave": 1, "why": "disconnected"},
        {"round": 1, "leave": 3, "why": "quit"},
    ]
    assert records[-1] == {"round": 1, "end": "all players left"}
