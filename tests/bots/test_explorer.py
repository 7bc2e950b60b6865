"""The explorer, as its own process, wins every shipped classic map."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clients import AsyncClient

from ..conftest import StartServer
from ..helpers import bound_port
from .conftest import run_module

GOALS = {"tiny": 1, "default": 3, "labyrinth": 5, "cavern": 4}


@pytest.mark.parametrize("name", sorted(GOALS))
async def test_the_explorer_wins_every_shipped_classic_map(
    start_server: StartServer, name: str
) -> None:
    server = await start_server(map=name, seed=11)
    finished = await run_module("bots.explorer", "--port", str(server.port), "--seed", "5")
    result = finished.result
    assert finished.returncode == 0, finished.stderr
    assert result.outcome == "win", result
    assert result.gold >= GOALS[name]
    # The bot's own count of moves is the server's.
    counted = re.fullmatch(
        r"You escaped the dungeon with (\d+) gold in (\d+) moves\.", result.detail
    )
    assert counted is not None
    assert (int(counted[1]), int(counted[2])) == (result.gold, result.moves)


async def test_a_bot_joins_the_game_it_is_told_to(start_server: StartServer) -> None:
    server = await start_server(map="labyrinth", seed=1)
    async with AsyncClient.connect(port=bound_port(server)) as host:
        await host.create("vault", "classic", map="tiny", seed=1)
        finished = await run_module(
            "bots.explorer", "--port", str(server.port), "--game", "vault", "--name", "Ex"
        )
        assert finished.result.outcome == "win" and finished.result.gold == 1
        assert finished.result.name == "Ex"


async def test_a_bot_plays_under_the_name_it_reports(
    start_server: StartServer, tmp_path: Path
) -> None:
    # Before: the result said "explorer-<pid>" but the bot sent a bare HELLO, so its win
    # was recorded without a name, unrated, missing from LEADERBOARD.
    server = await start_server(map="tiny", seed=1, replay_dir=str(tmp_path))
    finished = await run_module("bots.explorer", "--port", str(server.port))
    name = finished.result.name
    assert re.fullmatch(r"explorer-\d+", name), name
    (replay,) = tmp_path.glob("default*.jsonl")
    named = [json.loads(line) for line in replay.read_text().splitlines() if '"as"' in line]
    assert [record["as"] for record in named] == [name]
