"""The random bot, as its own process and, for its one rule, in the classic world itself."""

from __future__ import annotations

import argparse

import pytest

from dungeon_of_doom.bots import random as random_bot
from dungeon_of_doom.bots.cli import Bot
from dungeon_of_doom.clients import Grid, PickupResult
from dungeon_of_doom.protocol.commands import Move, Pickup
from dungeon_of_doom.protocol.direction import Direction
from dungeon_of_doom.worlds.api import Blocked, PickedUp
from dungeon_of_doom.worlds.registry import load_plugin

from ..conftest import StartServer
from .conftest import run_module


async def test_the_random_bot_plays_the_tiny_map_to_a_win(start_server: StartServer) -> None:
    server = await start_server(map="tiny", seed=2)
    finished = await run_module(
        "dungeon_of_doom.bots.random",
        "--port",
        str(server.port),
        "--seed",
        "3",
        "--max-moves",
        "500",
    )
    assert finished.returncode == 0, finished.stderr
    assert finished.result.outcome == "win" and finished.result.gold == 1


async def test_the_random_bot_stops_at_its_move_limit_and_quits(start_server: StartServer) -> None:
    server = await start_server(map="labyrinth", seed=2)
    finished = await run_module(
        "dungeon_of_doom.bots.random",
        "--port",
        str(server.port),
        "--max-moves",
        "25",
        "--name",
        "wanderer",
    )
    result = finished.result
    assert finished.returncode == 0, finished.stderr
    assert (result.outcome, result.moves, result.name) == ("quit", 25, "wanderer")
    assert result.detail == "move limit reached"


async def test_a_bot_with_no_server_reports_an_error() -> None:
    finished = await run_module("dungeon_of_doom.bots.random", "--port", "1", "--timeout", "2")
    assert finished.returncode == 1
    assert finished.result.outcome == "error" and "cannot connect" in finished.result.detail


class WorldClient:
    """Stands in for clients.Client, straight on a classic world, recording every event."""

    def __init__(self, map_name: str, seed: int) -> None:
        self.world = load_plugin("classic").open(map_name, seed=seed)
        self.world.join(1)
        self.events: list[object] = []
        self.moves = 0
        self.gold = 0

    def look(self) -> Grid:
        return Grid(self.world.look(1))

    def move(self, direction: Direction) -> bool:
        (event,) = self.world.resolve([(1, Move(direction))])
        self.events.append(event)
        self.moves += 1
        return not isinstance(event, Blocked)

    def pickup(self) -> PickupResult:
        (event,) = self.world.resolve([(1, Pickup())])
        self.events.append(event)
        self.moves += 1
        return PickupResult(isinstance(event, PickedUp))


def test_the_random_bot_never_walks_into_a_wall_and_picks_up_what_it_stands_on() -> None:
    client = WorldClient("cavern", seed=4)
    options = argparse.Namespace(seed=9, max_moves=400, progress=False, name=None)
    assert random_bot.play(Bot("random", client, options)) == "move limit reached"  # type: ignore[arg-type]
    assert client.moves == 400
    assert not [event for event in client.events if isinstance(event, Blocked)]
    assert any(isinstance(event, PickedUp) for event in client.events)


def test_the_random_bot_has_a_move_limit_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    # `dod-bots random:2` must end on a map the wanderers never win.
    with pytest.raises(SystemExit):
        random_bot.main(["--help"])
    assert f"(default: {random_bot.DEFAULT_MAX_MOVES})" in " ".join(capsys.readouterr().out.split())


async def test_a_bot_pointed_at_the_wrong_world_ends_with_its_result_line(
    start_server: StartServer,
) -> None:
    server = await start_server(map="tiny", seed=2)
    finished = await run_module("dungeon_of_doom.bots.knight", "--port", str(server.port))
    assert finished.returncode == 1
    assert "Traceback" not in finished.stderr
    result = finished.result
    assert result.outcome == "error", result
    # It says which world it plays and which world the game is of (issue 28).
    assert result.detail.startswith("this bot plays the knight world"), result.detail
    assert "classic world" in result.detail, result.detail
