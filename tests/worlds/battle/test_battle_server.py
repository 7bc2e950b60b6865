"""The server's side of turns: the turn clock, classic clients, leaving, replays, HELP."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import trio
import trio.testing

from protocol.replies import LookReply, ReplyParser
from server import replay_cli
from server.replay.reader import open_world, read_replay, rerun
from worlds.battle import BattleWorld
from worlds.turns import plays_in_turns

from ...conftest import StartServer
from ...helpers import Peer, bound_port, status_of
from ...server.conftest import nothing_received
from ...server.worlds import RecordingPlugin

CORRIDOR = """name Corridor
win 1
##########
#G..L...E#
##########
"""


def records(replay_dir: Path) -> list[dict[str, object]]:
    (path,) = replay_dir.iterdir()
    lines = path.read_text().splitlines()[1:]
    found: list[dict[str, object]] = [json.loads(line) for line in lines]
    return found


async def test_a_turn_not_played_in_time_ends_and_a_silent_player_is_removed(
    start_server: StartServer,
    write_map: Callable[[str], str],
    autojump_clock: trio.testing.MockClock,
    tmp_path: Path,
) -> None:
    server = await start_server(
        world="battle",
        map=write_map(CORRIDOR),
        turn_timeout=5,
        max_missed_turns=2,
        replay_dir=tmp_path / "replays",
    )
    active, silent = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await active.ask("EXTEND events") == ["EXTENDED events"]
    assert await active.ask("HELLO") == ["STARTTURN 6", "GOLD 1"][:1]
    assert await active.read_line() == "GOLD 1"
    assert await silent.ask("HELLO") == ["GOLD 1"]
    assert await active.read_line() == "JOINED #2"
    assert await active.ask("ENDTURN") == ["SUCCESS"]
    assert await active.read_lines(2) == ["ENDTURN", "TURN #2"]
    start = trio.current_time()
    assert await active.read_line() == "STARTTURN 6"
    assert trio.current_time() - start >= 5, "the silent player's turn ran its time"
    # Our own turn is timed too, now that someone waits for it.
    start = trio.current_time()
    assert await active.read_lines(3) == ["ENDTURN timeout", "TURN #2", "STARTTURN 6"]
    assert trio.current_time() - start >= 10
    assert (
        await silent.read_to_end() == b"BYE removed from the game after missing 2 turns in a row\n"
    )
    assert await active.read_line() == "LEFT #2: removed"
    # Alone, a turn never times out: the player always has it back at once.
    assert await active.ask("ENDTURN") == ["SUCCESS"]
    assert await active.read_lines(2) == ["ENDTURN", "STARTTURN 6"]
    start = trio.current_time()
    assert await active.ask("APGET") == ["AP 6"]
    await trio.sleep(60)  # the mock clock jumps: nothing may have happened meanwhile
    assert await nothing_received(active)
    await active.send("QUIT\n")
    await active.read_to_end()
    await trio.testing.wait_all_tasks_blocked()
    recorded = records(tmp_path / "replays")
    assert {"round": 1, "timeout": 2} in recorded
    assert {"round": 1, "timeout": 1} in recorded


async def test_a_classic_client_waits_for_its_turn_and_plays_without_endturn(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start_server(world="battle", map=write_map(CORRIDOR), seed=1)
    first, second = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await first.ask("HELLO") == ["GOLD 1"]
    assert await second.ask("HELLO") == ["GOLD 1"]
    world = server.lobby.default.world
    assert isinstance(world, BattleWorld)
    # Not its turn: its LOOK waits too (it sees the board as its turn begins), then PICKUP.
    await second.send("LOOK\nPICKUP\n")
    assert await nothing_received(second)
    assert world.turn == 1
    # The first player never sends ENDTURN: its action points end its turn.
    for moves in range(6):
        assert world.turn == 1, f"the turn ended after {moves} moves"
        me, other = status_of(world, 1).position, status_of(world, 2).position
        direction = next(
            d
            for d, step in (("E", 1), ("W", -1))
            if (1, me[1] + step) != other and world.tile((1, me[1] + step)) != "#"
        )
        assert await first.ask(f"MOVE {direction}") == ["SUCCESS"]
    assert world.turn == 2
    # Then the waiting LOOK is answered with the board as it is now, and PICKUP played.
    look = await second.read_lines(6)
    assert look == ["LOOKREPLY", *world.look(2)]
    assert (await second.read_line()) in ("FAIL", "SUCCESS", "SUCCESS, GOLD COINS: 1")
    assert world.action_points(2) in (5, 6)


async def test_a_player_who_leaves_on_its_turn_hands_it_on_at_once(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start_server(world="battle", map=write_map(CORRIDOR), seed=1)
    first, second = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await first.ask("HELLO ada") == ["GOLD 1"]
    assert await second.ask("EXTEND events") == ["EXTENDED events"]
    assert await second.ask("HELLO bob") == ["TURN ada", "GOLD 1"][:1]
    assert await second.read_line() == "GOLD 1"
    await first.aclose()
    assert await second.read_lines(2) == ["LEFT ada: disconnected", "STARTTURN 6"]
    assert await second.ask("APGET") == ["AP 6"]


async def test_turn_commands_elsewhere_are_refused_clearly(start_server: StartServer) -> None:
    server = await start_server(map="tiny")
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("ATTACK N") == ["ERROR ATTACK is not available in the classic world"]
    assert await peer.ask("APGET") == ["ERROR APGET is not available in the classic world"]
    assert await peer.ask("ATTACK") == [
        "ERROR ATTACK takes one direction, N, S, E or W (for example ATTACK N); "
        "send HELP for the list of commands"
    ]


async def test_help_and_a_lantern_look_over_the_wire(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    server = await start_server(world="battle", map=write_map(CORRIDOR), seed=1)
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("HELLO") == ["GOLD 1"]
    assert await peer.ask("GAMES") == ["GAMES 1"]
    game = await peer.read_line()
    assert " world=battle " in game and game.endswith(" turn=30")  # the turn time limit
    help_lines = await peer.ask("HELP")
    assert any(line.startswith("ATTACK <dir>") for line in help_lines)
    assert any(line.startswith("APGET") for line in help_lines)
    world = server.lobby.default.world
    (row, column) = status_of(world, 1).position
    while (row, column) != (1, 4):  # walk to the lantern, turn after turn
        step = "E" if column < 4 else "W"
        assert await peer.ask(f"MOVE {step}") == ["SUCCESS"]
        row, column = status_of(world, 1).position
    assert await peer.ask("PICKUP") == ["SUCCESS"]
    await peer.send("LOOK\n")
    lines = [await peer.read_line() for _ in range(8)]
    assert lines == [
        "LOOKREPLY",
        "XX###XX",
        "X#####X",
        "#######",
        "G......",
        "#######",
        "X#####X",
        "XX###XX",
    ]
    parser = ReplyParser()
    replies = [parser.feed(line) for line in lines]
    assert replies[-1] == LookReply(tuple(lines[1:]))


async def test_a_battle_replay_reruns_to_the_same_events(
    start_server: StartServer,
    write_map: Callable[[str], str],
    autojump_clock: trio.testing.MockClock,
    tmp_path: Path,
) -> None:
    from worlds.battle import plugin

    recording = RecordingPlugin(plugin)
    server = await start_server(
        world="battle",
        worlds=(recording,),
        map=write_map(CORRIDOR),
        seed=4,
        turn_timeout=3,
        replay_dir=tmp_path / "replays",
    )
    peers = [await Peer.connect(bound_port(server)) for _ in range(3)]
    for peer in peers:
        assert await peer.ask("EXTEND events") == ["EXTENDED events"]
        await peer.send("HELLO\n")
    world = server.lobby.default.world  # the recording wrapper of a battle world
    assert plays_in_turns(world)
    script = ["MOVE E", "ATTACK E", "ATTACK W", "PICKUP", "MOVE W", "ENDTURN", None]
    for step in range(40):
        holder = world.turn
        if holder is None:
            break
        command = script[step % len(script)]
        if command is None:  # let the clock end this turn
            await trio.sleep(4)
            continue
        await peers[holder - 1].send(command + "\n")
        await trio.testing.wait_all_tasks_blocked()
    await peers[2].aclose()
    for peer in peers[:2]:
        await peer.send("QUIT\n")
    await trio.testing.wait_all_tasks_blocked()
    (path,) = (tmp_path / "replays").iterdir()
    replay = read_replay(path)
    assert any("timeout" in record for record in replay.records)
    assert any(
        text.startswith("ATTACK") for r in replay.records for _, text in r.get("actions", [])
    )
    events = [e for step in rerun(replay, open_world(replay, plugin)) for e in step.events]
    assert events == recording.logs[0]
    # dod-replay tells the battle: turns, attacks, time-outs.
    shown = io.StringIO()
    assert replay_cli.show(str(path), step=False, speed=0, draw_map=False, out=shown) == 0
    told = shown.getvalue()
    assert "#1's turn (6 AP)" in told and "ATTACK" in told and "'s turn timed out" in told


async def test_a_player_who_disconnects_with_gold_drops_it(
    start_server: StartServer, write_map: Callable[[str], str]
) -> None:
    arena = "name Arena\nwin 1\n#########\n#G.....E#\n#.......#\n#########\n"
    # Seed 203: alice at (1, 2), bob on the gold at (1, 1).
    server = await start_server(world="battle", map=write_map(arena), seed=203)
    alice, bob = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await alice.ask("EXTEND events") == ["EXTENDED events"]
    assert await alice.ask("HELLO alice") == ["STARTTURN 6"]
    assert await alice.read_line() == "GOLD 1"
    assert await bob.ask("HELLO bob") == ["GOLD 1"]
    assert await alice.read_line() == "JOINED bob"
    assert await alice.ask("ENDTURN") == ["SUCCESS"]
    assert await alice.read_lines(2) == ["ENDTURN", "TURN bob"]
    assert await bob.ask("PICKUP") == ["SUCCESS, GOLD COINS: 1"]
    assert await alice.read_line() == "SAW bob: PICKUP SUCCESS, GOLD COINS: 1"
    await bob.aclose()  # on his turn, holding the gold
    assert await alice.read_lines(3) == [
        "LEFT bob: disconnected",
        "NOTICE 1 gold fell to the floor at row 1, column 1",
        "STARTTURN 6",
    ]
    assert await alice.ask("MOVE W") == ["SUCCESS"]
    assert await alice.ask("PICKUP") == ["SUCCESS, GOLD COINS: 1"]


async def test_a_player_who_acts_but_never_ends_its_turn_is_removed_as_a_staller(
    start_server: StartServer,
    write_map: Callable[[str], str],
    autojump_clock: trio.testing.MockClock,
) -> None:
    # A turn counts as played only when it ends before its time (ENDTURN, its points
    # spent, an attack): a PICKUP that changes nothing each turn, then silence until
    # the clock runs out, must not hold every turn to its limit for ever (issue 28).
    server = await start_server(
        world="battle", map=write_map(CORRIDOR), seed=1, turn_timeout=5, max_missed_turns=2
    )
    active, staller = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await active.ask("EXTEND events") == ["EXTENDED events"]
    assert await active.ask("HELLO ada") == ["STARTTURN 6"]
    assert await active.read_line() == "GOLD 1"
    assert await staller.ask("HELLO bob") == ["GOLD 1"]
    assert await active.read_line() == "JOINED bob"
    for turn in range(2):
        assert await active.ask("ENDTURN") == ["SUCCESS"]
        assert await active.read_lines(2) == ["ENDTURN", "TURN bob"]
        # Off its turn a classic client's action waits for the turn, then is played.
        assert (await staller.ask("PICKUP"))[0].startswith(("FAIL", "SUCCESS"))
        if turn == 0:
            line = await active.read_line()
            while line != "STARTTURN 6":  # what ada saw of bob's turn, then hers again
                line = await active.read_line()
    assert (
        await staller.read_to_end() == b"BYE removed from the game after missing 2 turns in a row\n"
    )
    world = server.lobby.default.world
    assert isinstance(world, BattleWorld) and world.turn is not None


async def test_a_player_who_ends_each_turn_in_time_is_never_removed(
    start_server: StartServer,
    write_map: Callable[[str], str],
    autojump_clock: trio.testing.MockClock,
) -> None:
    server = await start_server(
        world="battle", map=write_map(CORRIDOR), seed=1, turn_timeout=5, max_missed_turns=2
    )
    first, second = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    for peer, name in ((first, "ada"), (second, "bob")):
        assert await peer.ask("EXTEND events") == ["EXTENDED events"]
        await peer.send(f"HELLO {name}\n")

    async def read_until(peer: Peer, wanted: str) -> None:
        while await peer.read_line() != wanted:
            pass

    # Turns alternate; each player lets every other one of its turns run out, so it
    # never misses two in a row, and each turn it ends in time clears the count.
    for turn in range(8):
        peer = (first, second)[turn % 2]
        await read_until(peer, "STARTTURN 6")
        if turn % 4 < 2:
            await peer.send("ENDTURN\n")
            await read_until(peer, "SUCCESS")
    await read_until(first, "STARTTURN 6")
    assert set(server.lobby.default.players) == {1, 2}
