"""End to end over real loopback sockets: exact bytes, several players, whole games."""

from __future__ import annotations

from collections import deque

import pytest
import trio
import trio.testing

from ..conftest import StartServer, WriteMap
from ..helpers import Peer, bound_port
from .conftest import replay_transcript

CORRIDOR = "name Corridor\nwin 1\n#######\n#G...E#\n#######\n"


async def test_exact_bytes_of_a_scripted_game(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=1)
    peer = await Peer.connect(bound_port(server))
    await peer.send(
        "HELLO\nLOOK\nMOVE E\nMOVE E\nmove w\r\nMOVE W\r\nPICKUP\r\n"
        "PICKUP\nMOVE N\nMOVE E\nMOVE E\n"
    )
    transcript = await peer.read_to_end()
    assert transcript == (
        b"GOLD 1\n"
        b"LOOKREPLY\nX###X\n#####\n##G.E\n#####\nX###X\n"
        b"SUCCESS\n"
        b"SUCCESS\n"  # onto the exit without the gold: the game goes on
        b"SUCCESS\n"
        b"SUCCESS\n"
        b"SUCCESS, GOLD COINS: 1\n"
        b"FAIL\n"
        b"FAIL\n"
        b"SUCCESS\n"
        b"SUCCESS\n"
        b"WIN You escaped the dungeon with 1 gold in 9 moves.\n"
    )


async def test_two_players_see_each_other_and_cannot_share_a_square(
    start_server: StartServer, write_map: WriteMap
) -> None:
    server = await start_server(map=write_map(CORRIDOR), seed=4)
    alice, bob = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    await alice.ask("MAP")
    await bob.ask("HELLO")
    map_a = (await alice.ask("MAP"))[2]
    mine, theirs = map_a.index("@"), map_a.index("P")
    step = "E" if theirs > mine else "W"
    moves = []
    for _ in range(6):
        moves.append((await alice.ask(f"MOVE {step}"))[0])
        if moves[-1] == "FAIL":
            break
    assert moves[-1] == "FAIL", "alice is stopped by bob"
    assert moves.count("SUCCESS") == abs(theirs - mine) - 1
    look_a = await alice.ask("LOOK")
    look_b = await bob.ask("LOOK")
    assert look_a[3][3 if step == "E" else 1] == "P"
    assert look_b[3][1 if step == "E" else 3] == "P"
    assert "P" not in look_a[3][2] + look_b[3][2]
    assert (await bob.ask("MAP"))[2].count("@") == 1


async def test_a_whole_game_from_spawn_to_win(start_server: StartServer) -> None:
    server = await start_server(map="labyrinth", seed=11)
    peer = await Peer.connect(bound_port(server))
    goal = int((await peer.ask("HELLO"))[0].split()[1])
    rows = (await peer.ask("MAP"))[1:]
    position = next((r, c) for r, row in enumerate(rows) for c, t in enumerate(row) if t == "@")
    grid = [list(row.replace("@", ".")) for row in rows]

    def path_to(targets: set[tuple[int, int]]) -> list[str]:
        steps = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
        came: dict[tuple[int, int], tuple[tuple[int, int], str] | None] = {position: None}
        queue = deque([position])
        while queue:
            here = queue.popleft()
            if here in targets:
                route = []
                while came[here] is not None:
                    here, step = came[here]  # type: ignore[misc]
                    route.append(step)
                return route[::-1]
            for name, (dr, dc) in steps.items():
                there = (here[0] + dr, here[1] + dc)
                if grid[there[0]][there[1]] != "#" and there not in came:
                    came[there] = (here, name)
                    queue.append(there)
        raise AssertionError("unreachable")

    gold = 0
    while gold < goal:
        targets = {(r, c) for r, row in enumerate(grid) for c, t in enumerate(row) if t == "G"}
        for step in path_to(targets):
            assert await peer.ask(f"MOVE {step}") == ["SUCCESS"]
            dr, dc = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}[step]
            position = (position[0] + dr, position[1] + dc)
        gold += 1
        assert await peer.ask("PICKUP") == [f"SUCCESS, GOLD COINS: {gold}"]
        grid[position[0]][position[1]] = "."
        # Exits on the way to gold do not end the game before the target is held.
        for r, row in enumerate(grid):
            for c, t in enumerate(row):
                if t == "E" and gold < goal:
                    grid[r][c] = "#" if (r, c) != position else "E"
    grid = [list(row.replace("@", ".")) for row in rows]
    route = path_to({(r, c) for r, row in enumerate(grid) for c, t in enumerate(row) if t == "E"})
    for step in route[:-1]:
        assert await peer.ask(f"MOVE {step}") == ["SUCCESS"]
    await peer.send(f"MOVE {route[-1]}\n")
    ending = await peer.read_to_end()
    assert ending.startswith(b"SUCCESS\nWIN You escaped the dungeon with 5 gold in ")


async def test_quit_closes_the_connection(start_server: StartServer) -> None:
    server = await start_server()
    peer = await Peer.connect(bound_port(server))
    await peer.send("HELLO\nQUIT\nLOOK\n")
    assert await peer.read_to_end() == b"GOLD 3\nBYE Thanks for playing.\n"


async def test_help_and_errors_keep_the_game_going(start_server: StartServer) -> None:
    server = await start_server()
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("DANCE") == [
        'ERROR unknown command "DANCE"; send HELP for the list of commands'
    ]
    assert (await peer.ask("MOVE NE"))[0].startswith("ERROR MOVE NE is not allowed here")
    assert (await peer.ask("STAY"))[0] == "ERROR STAY is not available in the classic world"
    help_lines = await peer.ask("help")
    assert help_lines[0] == f"HELP {len(help_lines) - 1}"
    assert any(line.startswith("MOVE <dir>") for line in help_lines)
    assert await peer.ask("HELLO") == ["GOLD 3"]


async def test_names_are_unique_per_game(start_server: StartServer) -> None:
    server = await start_server()
    alice, bob = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    assert await alice.ask("HELLO Ada") == ["GOLD 3"]
    assert (await bob.ask("HELLO Ada"))[0].startswith("ERROR the name 'Ada' is taken")
    assert await bob.ask("HELLO Grace") == ["GOLD 3"]
    await alice.send("QUIT\n")
    await alice.read_to_end()
    with trio.fail_after(5):
        while (await bob.ask("HELLO Ada"))[0] != "GOLD 3":
            await trio.testing.wait_all_tasks_blocked()


async def test_a_second_hello_renames_the_player_as_docs_protocol_says(
    start_server: StartServer,
) -> None:
    """docs/protocol.md's transcript of a second ``HELLO``, replayed: a 2013 client's
    ``HELLO`` is always answered ``GOLD <n>``; a second ``HELLO <name>`` renames, and
    those who asked for events are told (before: nothing said what it did; issue 40)."""
    server = await start_server(map="tiny", seed=1)
    peers = {"ada": await Peer.connect(bound_port(server))}
    peers["eve"] = await Peer.connect(bound_port(server))
    # What Eve reads, pushed:
    assert await replay_transcript("rename", peers, {"JOINED", "NOTICE"}, "eve") == "ada"


async def test_help_lists_every_option_of_create(start_server: StartServer) -> None:
    """Before: ``HELP``'s ``CREATE`` line left out ``start=full`` (issue 40)."""
    server = await start_server()
    peer = await Peer.connect(bound_port(server))
    lines = await peer.ask("HELP")
    [create] = [line for line in lines if line.startswith("CREATE ")]
    assert create == (
        "CREATE <game> <world> [map=<m>] [seed=<n>] [players=<n>] [turn=<s>] [start=full]"
    )
    assert (await peer.ask("CREATE g"))[0].endswith("[turn=<seconds>] [start=full]")


async def test_telnet_negotiation_is_refused_and_invisible(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=1)
    peer = await Peer.connect(bound_port(server))
    await peer.send(b"\xff\xfd\x01\xff\xfb\x1fHELLO\r\n\xff\xfd\x01LOOK\r\x00")
    expected = b"\xff\xfc\x01\xff\xfe\x1fGOLD 1\nLOOKREPLY\nX###X\n#####\n##G.E\n#####\nX###X\n"
    assert await peer.read_exactly(len(expected)) == expected


async def test_split_writes_are_one_command(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=1)
    peer = await Peer.connect(bound_port(server))
    for piece in (b"HE", b"LL", b"O\r", b"\nLO", b"OK\n"):
        await peer.send(piece)
    assert await peer.read_lines(2) == ["GOLD 1", "LOOKREPLY"]


@pytest.mark.parametrize("world", ["classic", "crawler", "baddies", "knight"])
async def test_help_explains_the_world_it_is_in(start_server: StartServer, world: str) -> None:
    from worlds.registry import load_plugin

    server = await start_server(world=world)
    peer = await Peer.connect(bound_port(server))
    lines = await peer.ask("HELP")
    notes = load_plugin(world).open(None, seed=0).help_notes
    assert notes, f"{world} says nothing about itself"
    assert lines[-len(notes) - 1 :] == [f"About the {world} world:", *notes]


async def test_what_a_world_says_on_a_join_reaches_the_player(start_server: StartServer) -> None:
    from worlds.api import Event, PlayerId, PlayerKind
    from worlds.api import Notice as WorldNotice

    server = await start_server()
    world = server.lobby.games["default"].world
    original_join = world.join

    def greeting_join(player: PlayerId, kind: PlayerKind = PlayerKind.HUMAN) -> list[Event]:
        return [*original_join(player, kind), WorldNotice(player, "Welcome, brave one.")]

    world.join = greeting_join  # type: ignore[method-assign]
    peer = await Peer.connect(bound_port(server))
    assert (await peer.ask("EXTEND events"))[0].startswith("EXTENDED")
    await peer.send("HELLO\n")
    assert await peer.read_lines(2) == ["NOTICE Welcome, brave one.", "GOLD 3"]
