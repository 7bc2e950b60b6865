"""The knight bot, as its own process over real sockets, wins by the optimal path."""

from __future__ import annotations

import json

from dungeon_of_doom.worlds.knight.solver import solve
from dungeon_of_doom.worlds.knight.spec import parse_spec

from ..conftest import StartServer
from .conftest import run_module


async def test_the_bot_wins_the_example_with_the_least_health(start_server: StartServer) -> None:
    server = await start_server(world="knight", map="example")
    finished = await run_module("dungeon_of_doom.bots.knight", "--port", str(server.port))
    assert finished.returncode == 0, finished.stderr
    result = finished.result
    assert (result.outcome, result.moves) == ("win", 4)
    assert result.detail.startswith("You reached the bottom-right square with 1 health")


async def test_the_bot_wins_a_generated_grid_by_the_solvers_path(
    start_server: StartServer,
) -> None:
    spec = "12x15,range=-60..40"
    server = await start_server(world="knight", map=spec, seed=5)
    finished = await run_module("dungeon_of_doom.bots.knight", "--port", str(server.port))
    assert finished.result.outcome == "win"
    assert finished.result.moves == 12 + 15 - 2
    least = solve(parse_spec(spec, seed=5).grid).health
    assert f"the least that wins here is {least}" in finished.result.detail


async def test_too_little_health_loses_even_for_the_bot(start_server: StartServer) -> None:
    server = await start_server(world="knight", map="example,health=6")
    finished = await run_module("dungeon_of_doom.bots.knight", "--port", str(server.port))
    assert finished.returncode == 0
    assert finished.result.outcome == "lose"


async def test_the_launcher_starts_knight_bots(start_server: StartServer) -> None:
    server = await start_server(world="knight", map="example")
    finished = await run_module(
        "dungeon_of_doom.bots.launcher", "--port", str(server.port), "--json", "knight:2"
    )
    summary = json.loads(finished.stdout)
    assert (summary["bots"], summary["wins"]) == (2, 2)
