"""The launcher, as its own process, with three bots against a real server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from bots.launcher import main, parse_kinds

from ..conftest import StartServer, WriteMap
from ..helpers import REPO, Peer, bound_port
from .conftest import bot_limit, run_module

ROOM = """name Gold Room
win 1
############
#G...G....E#
#..G....G..#
#E...G...G.#
############
"""

SEALED = """name Sealed Room
win 0
############
#..........#
#..........#
#..........#
############
#####E######
############
"""
"""The exit is walled in: nobody can ever win, so bots play until they are stopped."""


async def test_three_bots_play_to_a_result_and_are_summed_up(
    start_server: StartServer, write_map: WriteMap
) -> None:
    server = await start_server(map=write_map(ROOM), seed=1)
    finished = await run_module(
        "bots.launcher",
        "--port",
        str(server.port),
        "--seed",
        "1",
        "--max-moves",
        "300",
        "--json",
        "explorer:2",
        "random",
    )
    assert finished.returncode == 0, finished.stderr
    summary = json.loads(finished.stdout)
    results = {result["name"]: result for result in summary["results"]}
    assert sorted(results) == ["explorer-1", "explorer-2", "random-3"]
    assert results["explorer-1"]["outcome"] == results["explorer-2"]["outcome"] == "win"
    assert results["random-3"]["outcome"] in {"win", "quit"}
    assert summary["bots"] == 3 and summary["wins"] >= 2
    assert summary["wins"] + summary["losses"] + summary["other"] == 3
    assert summary["moves"] == sum(result["moves"] for result in results.values())
    # Each bot's end is shown as it happens.
    for name in results:
        assert re.search(rf"^{name}: (win|quit) ", finished.stderr, re.MULTILINE)


async def test_the_launcher_creates_the_game_its_bots_play(
    start_server: StartServer, tmp_path: Path
) -> None:
    # The README's multiplayer flow: a game made for the bots, which then JOIN it.
    server = await start_server(world="crawler", seed=1, replay_dir=str(tmp_path))
    finished = await run_module(
        "bots.launcher",
        *("--port", str(server.port), "--json"),
        *("--game", "arena", "--create", "crawler map=easy seed=7 players=4"),
        "crawler-solver:2",
    )
    assert finished.returncode == 0, finished.stderr
    assert "dod-bots: created game arena: CREATE arena crawler map=easy seed=7 players=4" in (
        finished.stderr
    )
    results = json.loads(finished.stdout)["results"]
    assert [result["outcome"] for result in results] == ["win", "win"], results
    # In the game made for them (a bot that came after the first had won found the
    # game restarted: the launcher watched it, so it stayed).
    replays = [path for path in tmp_path.iterdir() if path.name.startswith("arena")]
    joins = [line for path in replays for line in path.read_text().splitlines() if '"join"' in line]
    assert len(joins) == 2, joins


async def test_bots_join_a_game_whose_creator_has_left(start_server: StartServer) -> None:
    # The README's flow: `printf 'CREATE arena ...' | nc -q1`, then dod-bots --game arena.
    # Before: "ERROR there is no game called arena", the game gone with its creator.
    server = await start_server(world="crawler", seed=1, replay_dir=None)
    creator = await Peer.connect(bound_port(server))
    await creator.send("CREATE arena crawler map=easy seed=7 players=2 start=full\n")
    assert (await creator.read_line()).startswith("GAME arena world=crawler")
    await creator.aclose()
    finished = await run_module(
        "bots.launcher", "--port", str(server.port), "--game", "arena", "--json", "crawler-solver:2"
    )
    assert finished.returncode == 0, finished.stderr
    results = json.loads(finished.stdout)["results"]
    assert [result["outcome"] for result in results] == ["win", "win"], results


async def test_a_game_the_launcher_cannot_create_stops_it(start_server: StartServer) -> None:
    server = await start_server()
    finished = await run_module(
        "bots.launcher",
        *("--port", str(server.port), "--game", "g", "--create", "chess"),
        "random",
    )
    assert finished.returncode == 1
    assert finished.stderr.startswith("dod-bots: cannot create game g: unknown world 'chess'")


async def test_the_summary_table_names_every_bot_and_the_totals(
    start_server: StartServer, write_map: WriteMap
) -> None:
    server = await start_server(map=write_map(ROOM), seed=2)
    finished = await run_module(
        "bots.launcher",
        "--port",
        str(server.port),
        "--seed",
        "4",
        "explorer",
        "random:2",
        "--max-moves",
        "50",
    )
    assert finished.returncode == 0, finished.stderr
    lines = finished.stdout.splitlines()
    assert lines[0].split() == ["bot", "kind", "outcome", "gold", "moves", "seconds", "detail"]
    assert [line.split()[0] for line in lines[1:4]] == ["explorer-1", "random-2", "random-3"]
    assert re.fullmatch(r"3 bots: \d won, \d lost, \d other; \d+ moves in all", lines[4])


async def test_ctrl_c_stops_every_bot_cleanly(
    start_server: StartServer, write_map: WriteMap
) -> None:
    server = await start_server(map=write_map(SEALED), seed=3)
    command = [sys.executable, "-m", "bots.launcher", "--port", str(server.port), "--json"]
    process = await trio.lowlevel.open_process(
        [*command, "--seed", "1", "random:3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert process.stdout is not None and process.stderr is not None
    try:
        with trio.fail_after(bot_limit()):
            # Wait until all three are playing (each has reported from its game, so its
            # signal handling is in place) and have moved, as the progress line says.
            seen = b""
            async for chunk in process.stderr:
                seen += chunk
                if re.search(rb"playing 3/3 +moves [1-9]", seen):
                    break
            process.send_signal(signal.SIGINT)
            output = b"".join([chunk async for chunk in process.stdout])
            await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 130
    summary = json.loads(output)
    assert summary["bots"] == 3
    for result in summary["results"]:
        assert result["outcome"] == "interrupted", result
        assert result["detail"] == "stopped by a signal"
        with pytest.raises(ProcessLookupError):
            os.kill(result["pid"], 0)  # no bot outlives the launcher


def test_bot_kinds_and_counts_are_checked_before_anything_starts() -> None:
    assert parse_kinds(["explorer:3", "random"]) == [("explorer", 3), ("random", 1)]
    for bad in (["dancer:2"], ["random:0"], ["random:x"]):
        with pytest.raises(SystemExit) as caught:
            main(["--port", "1", *bad])
        assert caught.value.code == 2
