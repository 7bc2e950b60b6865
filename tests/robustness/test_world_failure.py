"""A world plugin that raises ends its own game, with a line to its players and a
logged traceback; the other games on the server play on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NoReturn

import pytest
import structlog

from dungeon_of_doom.protocol.replies import Bye

from ..conftest import StartServer
from ..helpers import Peer, bound_port
from ..server.worlds import TickerPlugin


def _bug(*args: object) -> NoReturn:
    raise RuntimeError("bug in a plugin")


def _stopped(world: str) -> bytes:
    return Bye(
        f"the {world} game stopped because of an internal error; please reconnect"
    ).to_bytes()


def _last_record(replay_dir: Path, game: str) -> dict[str, object]:
    (path,) = replay_dir.glob(f"{game}-*.jsonl")
    record: dict[str, object] = json.loads(path.read_text().splitlines()[-1])
    return record


@pytest.mark.parametrize(("method", "command"), [("resolve", "MOVE N"), ("look", "LOOK")])
async def test_a_world_that_raises_on_a_command_ends_only_its_game(
    start_server: StartServer, tmp_path: Path, method: str, command: str
) -> None:
    server = await start_server(replay_dir=tmp_path)
    alice, bob, carol = [await Peer.connect(bound_port(server)) for _ in range(3)]
    assert (await carol.ask("CREATE side classic"))[0].startswith("GAME side")
    assert (await carol.ask("JOIN side"))[0].startswith("GAME side")
    assert await alice.ask("HELLO") == ["GOLD 3"]
    assert await bob.ask("HELLO") == ["GOLD 3"]
    # LOOK reaches a world through look_bytes where the world draws bytes (issue 19).
    for name in ("look", "look_bytes") if method == "look" else (method,):
        setattr(server.games["default"].world, name, _bug)
    with structlog.testing.capture_logs() as logs:
        await alice.send(f"{command}\n")
        assert await alice.read_to_end() == _stopped("classic")
        assert await bob.read_to_end() == _stopped("classic")
    (failure,) = [e for e in logs if e["event"] == "world failed"]
    assert failure["exc_info"] and failure["game"] == "default"
    assert (
        _last_record(tmp_path, "default")["end"] == f"the world failed during {command.split()[0]}"
    )
    for line in ("MOVE N", "LOOK", "PICKUP"):
        assert (await carol.ask(line))[0].startswith(("SUCCESS", "FAIL", "LOOKREPLY"))
    dave = await Peer.connect(bound_port(server))
    assert (await dave.ask("MOVE N"))[0] in ("SUCCESS", "FAIL"), "the default game restarted"


async def test_a_world_that_raises_in_a_timed_out_round_ends_only_its_game(
    start_server: StartServer, tmp_path: Path
) -> None:
    server = await start_server(replay_dir=tmp_path, worlds=(TickerPlugin(),))
    alice, bob, carol = [await Peer.connect(bound_port(server)) for _ in range(3)]
    for peer in (alice, bob):
        assert (await peer.ask("CREATE arena ticker turn=0.2"))[0].startswith(("GAME", "ERROR"))
        assert (await peer.ask("JOIN arena"))[0].startswith("GAME arena")
    assert await carol.ask("HELLO") == ["GOLD 3"]
    # One world made to fail; mypy compares _bug with the unbound method, self included.
    server.games["arena"].world.resolve = _bug  # type: ignore[method-assign, assignment]
    with structlog.testing.capture_logs() as logs:
        await alice.send("MOVE E\n")  # bob never acts: the game's own task times the round out
        assert await alice.read_to_end() == _stopped("ticker")
        assert await bob.read_to_end() == _stopped("ticker")
    assert any(e["event"] == "world failed" and e["exc_info"] for e in logs)
    assert _last_record(tmp_path, "arena")["end"] == "the world failed during round time-out"
    assert (await carol.ask("MOVE N"))[0] in ("SUCCESS", "FAIL")
    assert await carol.ask("HELLO") == ["GOLD 3"]
