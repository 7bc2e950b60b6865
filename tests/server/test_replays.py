"""Replays: every world's game, played over sockets, re-runs to the same events."""

from __future__ import annotations

import importlib
import json
import random
from pathlib import Path

import pytest
import trio
import trio.testing

from server import replay_cli
from server.replay.reader import open_world, read_replay, rerun
from worlds.api import WorldPlugin
from worlds.registry import load_plugin

from ..helpers import Peer, bound_port
from .conftest import StartGameServer
from .worlds import RecordingPlugin, TickerPlugin

FINAL = ("WIN ", "LOSE ", "BYE ")


def plugin_for(name: str) -> WorldPlugin:
    if name == "ticker":
        return TickerPlugin()
    try:
        importlib.import_module(f"worlds.{name}")
    except ImportError:
        pytest.skip(f"the {name} world is not installed here yet")
    return load_plugin(name)


async def play(server_port: int, plugin: WorldPlugin, rounds: int = 12) -> None:
    """Two players act at random for a while; the first vanishes halfway, the other quits."""
    world = plugin.open(None, seed=0)
    choices = [f"MOVE {d.name}" for d in sorted(world.directions, key=lambda d: d.value)]
    choices += ["PICKUP"] + (["STAY"] if world.allows_stay else [])
    rng = random.Random(7)
    peers = [await Peer.connect(server_port) for _ in range(2)]
    done = [False, False]
    for peer in peers:
        assert (await peer.ask("HELLO"))[0].startswith("GOLD ")
    for turn in range(rounds):
        if turn == rounds // 2 and not done[0]:
            await peers[0].aclose()
            done[0] = True
        live = [i for i in range(2) if not done[i]]
        if not live:
            break
        for i in live:
            try:
                await peers[i].send(rng.choice(choices) + "\n")
            except trio.BrokenResourceError:
                done[i] = True
        for i in live:
            try:
                line = await peers[i].read_line()
            except (EOFError, trio.BrokenResourceError):
                line = "BYE closed"
            if line.startswith(FINAL):
                done[i] = True
    if not done[1]:
        await peers[1].send("QUIT\n")
        await peers[1].read_to_end()
    await trio.testing.wait_all_tasks_blocked()


@pytest.mark.parametrize("name", ["classic", "ticker", "crawler", "baddies"])
async def test_a_replay_of_each_world_reruns_to_the_same_events(
    start_game_server: StartGameServer, replay_dir: Path, name: str
) -> None:
    inner = plugin_for(name)
    recording = RecordingPlugin(inner)
    server = await start_game_server(world=name, worlds=(recording,), seed=3, turn_timeout=5)
    await play(bound_port(server), inner)
    (path,) = replay_dir.iterdir()
    replay = read_replay(path)
    assert replay.header["world"] == name and replay.header["seed"] == 3
    assert replay.records[-1]["end"] == "all players left"
    assert any("leave" in record for record in replay.records)
    rerun_events = [e for step in rerun(replay, open_world(replay, inner)) for e in step.events]
    assert rerun_events == recording.logs[0]
    assert len(rerun_events) > 4


async def test_the_console_script_shows_a_replay(
    start_game_server: StartGameServer, replay_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = await start_game_server(map="tiny", seed=1)
    peer = await Peer.connect(bound_port(server))
    await peer.send("HELLO Ada\nPICKUP\nMOVE E\nMOVE E\n")
    assert (await peer.read_to_end()).endswith(
        b"WIN You escaped the dungeon with 1 gold in 3 moves.\n"
    )
    await trio.testing.wait_all_tasks_blocked()
    (path,) = replay_dir.iterdir()
    capsys.readouterr()  # the server's log so far
    assert replay_cli.main([str(path), "--speed", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("default: classic world, map tiny, seed 1, recorded ")
    assert out[1:4] == ["#####", "#G.E#", "#####"]
    assert "Ada joined" in out
    assert "round 1: Ada PICKUP: SUCCESS, GOLD COINS: 1" in out
    # The escape in the words of the one table of tellings (server.game.wording), as the
    # web page's viewer tells it too.
    assert (
        "round 3: Ada MOVE E: SUCCESS; Ada won: You escaped the dungeon with 1 gold in 3 moves."
        in out
    )
    assert out[-1] == "game over: all players left"
    # What dod-arena kept of a bot's output beside the replay is named (issue 40).
    path.with_name(path.name.removesuffix(".jsonl") + ".Ada.log").write_text("thinking\n")
    assert replay_cli.main([str(path), "--speed", "0", "--no-map"]) == 0
    told = capsys.readouterr().out.splitlines()[1]
    assert told == f"bots' output: Ada ({path.with_name(path.stem + '.Ada.log')})"
    header, *rest = path.read_text().splitlines()
    changed = json.loads(header)
    changed["view"] = ["#####", "#GGE#", "#####"]
    tampered = path.with_name("tampered.jsonl")
    tampered.write_text("\n".join([json.dumps(changed), *rest]) + "\n")
    assert replay_cli.main([str(tampered), "--speed", "0"]) == 2
    assert "the map differs" in capsys.readouterr().err


def test_a_replay_cut_short_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text(
        '{"replay":1,"game":"g","world":"classic","map":"tiny","seed":1}\n'
        '{"round":0,"join":1,"kind":"P"}\n{"round":1,"acti'
    )
    replay = read_replay(path)
    assert replay.records == [{"round": 0, "join": 1, "kind": "P"}]
    world = open_world(replay, load_plugin("classic"))
    assert [type(s.events[0]).__name__ for s in rerun(replay, world)] == ["Joined"]
