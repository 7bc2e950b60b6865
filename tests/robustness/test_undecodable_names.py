"""File names that are not UTF-8 never reach the wire, the web page or the records
(issue 28 item 14): the operator's is refused at start-up, a client's is written with
``\\xNN`` for each byte that is not UTF-8."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from protocol.errors import LocalProtocolError
from protocol.replies import GameInfo
from server.replay.reader import open_world, read_replay, rerun
from worlds.registry import load_plugin

from ..conftest import StartServer
from ..helpers import Peer, bound_port
from ..limits import process_limit
from ..server.test_cli import SCRIPT

LATIN1_NAME = "café.map".encode("latin-1")
"""``café.map`` as a Latin-1 system names it: byte 0xe9 is not UTF-8."""
TINY = "name Tiny\nwin 1\n#####\n#G.E#\n#####\n"


def _latin1_file(folder: Path, text: str) -> Path:
    path = Path(os.fsdecode(os.fsencode(folder) + b"/" + LATIN1_NAME))
    path.write_text(text)
    return path


def test_the_operators_map_with_a_latin1_name_is_refused_at_start_up(tmp_path: Path) -> None:
    path = _latin1_file(tmp_path, TINY)
    finished = subprocess.run(
        [SCRIPT, "--port", "0", "--no-http", "--no-replays", "--map", str(path)],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=process_limit(),
        check=False,
    )
    assert finished.returncode == 2
    lines = finished.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("dod-server: error: --map: ")
    assert "caf\\xe9.map is not UTF-8 text (byte 0xe9" in lines[0]
    # The whole sentence, with what to do (before: "...a link to it whose name is").
    shown = os.fsencode(path).decode("utf-8", "backslashreplace")
    assert lines[0].endswith(
        f"; rename the file, or name a link to it whose name is UTF-8 (ln -s '{shown}' café.map)"
    )


def test_a_map_name_no_utf8_can_carry_is_refused_when_built() -> None:
    with pytest.raises(LocalProtocolError, match="cannot be written"):
        GameInfo("g", "classic", "caf\udce9.map", 0, 0, None, 0, None)


async def test_a_link_to_a_latin1_file_names_it_with_escapes(
    start_server: StartServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("maps")
    target = _latin1_file(folder, "name Broken\nwin 1\n#####\n#G?E#\n#####\n")
    (folder / "link.map").symlink_to(target.name)
    server = await start_server(maps_dir=str(folder))
    peer = await Peer.connect(bound_port(server))
    [refusal] = await peer.ask("CREATE g classic map=link.map")
    assert refusal.startswith("ERROR the game cannot be opened: caf\\xe9.map:"), refusal
    assert (await peer.ask("GAMES"))[0] == "GAMES 1"


async def test_a_game_on_a_linked_latin1_file_is_listed_recorded_and_replayed(
    start_server: StartServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("maps")
    replays = tmp_path_factory.mktemp("replays")
    target = _latin1_file(folder, TINY)
    (folder / "link.map").symlink_to(target.name)
    server = await start_server(maps_dir=str(folder), replay_dir=str(replays))
    peer = await Peer.connect(bound_port(server))
    assert (await peer.ask("CREATE g classic map=link.map"))[0].startswith("GAME g")
    assert (await peer.ask("JOIN g"))[0].startswith("GAME g world=classic map=link.map")
    assert await peer.ask("MOVE E") == ["SUCCESS"]
    assert (await peer.ask("GAMES"))[0] == "GAMES 2"
    server.shutdown()
    await peer.read_to_end()
    [path] = [path for path in replays.iterdir() if path.name.startswith("g-")]
    path.read_bytes().decode("utf-8")  # every byte of the file is UTF-8 text
    replay = read_replay(path)
    assert replay.header["map_files"] == {"link.map": TINY}
    world = open_world(replay, load_plugin("classic"))
    assert any(step.events for step in rerun(replay, world))  # the move re-ran
