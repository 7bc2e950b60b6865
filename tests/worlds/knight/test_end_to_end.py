"""The knight world over real loopback sockets: won by the solver's path, lost by a bad one."""

from __future__ import annotations

from dungeon_of_doom.worlds.knight.render import read_numbers
from dungeon_of_doom.worlds.knight.solver import health_along, solve
from dungeon_of_doom.worlds.knight.spec import parse_spec

from ...conftest import StartServer
from ...helpers import Peer, bound_port


async def play_optimal_path(peer: Peer) -> tuple[str, str]:
    """Read the grid with MAP, solve it, and make every move; the last reply and final line."""
    header, *rows = await peer.ask("MAP")
    assert header.startswith(f"MAP {len(rows)} ")
    seen = read_numbers(rows)
    assert seen.you == (0, 0)
    moves = solve(seen.grid).moves
    for move in moves[:-1]:
        assert await peer.ask(f"MOVE {move}") == ["SUCCESS"]
    return (await peer.ask(f"MOVE {moves[-1]}"))[0], await peer.read_line()


async def test_the_example_transcript_byte_for_byte(start_server: StartServer) -> None:
    server = await start_server(world="knight", map="example")
    peer = await Peer.connect(bound_port(server))
    await peer.send("HELLO\nLOOK\nMAP\nmove e\r\nMOVE E\nMOVE S\nMOVE E\nMOVE S\n")
    assert await peer.read_to_end() == (
        b"GOLD 0\n"
        b"LOOKREPLY\nX###X\n#####\n##--+\n##--+\nX#++X\n"
        b"MAP 3 15\n [-2]  -3    3 \n  -5  -10    1 \n  10   30   -5 \n"
        b"SUCCESS\n"
        b"SUCCESS\n"
        b"SUCCESS\n"
        b"FAIL\n"  # east of the last column is off the grid
        b"SUCCESS\n"
        b"WIN You reached the bottom-right square with 1 health in 5 moves; "
        b"you set out with 7 (the least that wins here is 7).\n"
    )


async def test_a_bad_path_loses(start_server: StartServer) -> None:
    server = await start_server(world="knight", map="example")
    peer = await Peer.connect(bound_port(server))
    await peer.send("HELLO\nMOVE S\nMOVE E\n")
    assert await peer.read_to_end() == (
        b"GOLD 0\n"
        b"SUCCESS\n"
        b"LOSE A trap of -5 at (1, 0) took your last 5 health after 1 move. "
        b"The least starting health that wins here is 7.\n"
    )


async def test_the_solvers_path_wins_a_generated_grid(start_server: StartServer) -> None:
    server = await start_server(world="knight", map="30x40,range=-60..40", seed=12)
    grid = parse_spec("30x40,range=-60..40", seed=12).grid
    solution = solve(grid)
    left = health_along(grid, solution.path, solution.health)[-1]
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("HELLO") == ["GOLD 0"]
    assert await play_optimal_path(peer) == (
        "SUCCESS",
        f"WIN You reached the bottom-right square with {left} health in 68 moves; "
        f"you set out with {solution.health} (the least that wins here is {solution.health}).",
    )
    assert await peer.read_to_end() == b""


async def test_too_little_health_loses_even_on_the_best_path(start_server: StartServer) -> None:
    server = await start_server(world="knight", map="example,health=6")
    peer = await Peer.connect(bound_port(server))
    last, final = await play_optimal_path(peer)
    assert last == "SUCCESS"
    assert final == (
        "LOSE A trap of -5 at (2, 2) took your last 5 health after 4 moves. "
        "The least starting health that wins here is 7."
    )


async def test_knights_cross_the_same_grid_independently(start_server: StartServer) -> None:
    server = await start_server(world="knight", map="greedy,health=40")
    alice, bob = await Peer.connect(bound_port(server)), await Peer.connect(bound_port(server))
    await alice.ask("HELLO")
    await bob.ask("HELLO")
    assert await alice.ask("MOVE E") == ["SUCCESS"]
    assert (await bob.ask("LOOK"))[3] == "##+P+"
    seen = read_numbers((await bob.ask("MAP"))[1:])
    assert (seen.you, seen.knights) == ((0, 0), frozenset({(0, 1)}))
    last, final = await play_optimal_path(bob)
    assert (last, final.split()[0]) == ("SUCCESS", "WIN")
    for move in "SEE":
        assert await alice.ask(f"MOVE {move}") == ["SUCCESS"]
    assert await alice.ask("MOVE S") == ["SUCCESS"]
    assert (await alice.read_line()).startswith("WIN You reached the bottom-right square with 5")


async def test_north_and_west_are_not_moves_here(start_server: StartServer) -> None:
    server = await start_server(world="knight", map="example")
    peer = await Peer.connect(bound_port(server))
    for line in ("MOVE N", "MOVE W", "MOVE NE"):
        reply = await peer.ask(line)
        assert reply[0].startswith("ERROR"), reply
    assert await peer.ask("PICKUP") == ["FAIL"]
    assert (await peer.ask("MAP"))[1] == " [-2]  -3    3 ", "nothing moved"
