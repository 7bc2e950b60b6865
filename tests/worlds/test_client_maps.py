"""What a client's ``CREATE`` may make the server read and build (issue 20 items 2 and 4).

A client may name shipped maps, generated specs, and files under the operator's
``--maps-dir`` only; nothing it asks for passes the clients' limits, and errors
never quote a file it may not read, nor say whether one exists.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from dungeon_of_doom.worlds.classic import ClassicWorld
from dungeon_of_doom.worlds.errors import MapError
from dungeon_of_doom.worlds.limits import CLIENT_LIMITS, Limits, MapFiles
from dungeon_of_doom.worlds.registry import load_plugin, world_names

from ..conftest import StartServer
from ..helpers import Peer, bound_port

SECRET = "name hunter2\nwin 0\n#####\n#.E.#\n#####\n"
"""A valid classic map, so that only the rules about files can refuse it."""


@pytest.fixture
def in_folder(tmp_path: Path) -> Iterator[Path]:
    """Run in a folder holding ``app.conf`` (a file the server must not show to clients)."""
    before = Path.cwd()
    (tmp_path / "app.conf").write_text(SECRET)
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(before)


@pytest.mark.parametrize("world", world_names())
@pytest.mark.parametrize("spec", ["app.conf", "./app.conf", "../app.conf", "/etc/passwd"])
def test_a_client_cannot_name_files_without_a_maps_folder(
    in_folder: Path, world: str, spec: str
) -> None:
    with pytest.raises(MapError) as caught:
        load_plugin(world).open(spec, seed=1, limits=CLIENT_LIMITS)
    message = str(caught.value)
    assert "hunter2" not in message and str(in_folder) not in message
    assert "the server allows no map files" in message


@pytest.mark.parametrize("world", world_names())
def test_limits_refuse_large_generated_maps_of_every_world(world: str) -> None:
    with pytest.raises(MapError, match=r"at most 250000 cells; 4000000 asked"):
        load_plugin(world).open("generated:1,width=2000,height=2000", seed=1, limits=CLIENT_LIMITS)


def test_files_under_the_maps_folder_are_allowed_and_nothing_above(tmp_path: Path) -> None:
    folder = tmp_path / "maps"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "mine.map").write_text(SECRET.replace("hunter2", "Mine"))
    (tmp_path / "secret.map").write_text(SECRET)
    (folder / "link.map").symlink_to(tmp_path / "secret.map")
    limits = Limits(files=MapFiles(folder=folder))
    classic = load_plugin("classic")
    mine = classic.open("sub/mine.map", seed=1, limits=limits)
    assert isinstance(mine, ClassicWorld) and mine.map.name == "Mine"
    for spec in ("../secret.map", str(tmp_path / "secret.map"), "link.map"):
        with pytest.raises(MapError) as caught:
            classic.open(spec, seed=1, limits=limits)
        # The client's own spec is all the message quotes.
        assert str(caught.value).startswith(f"{spec}: no such classic map; ")
        assert "hunter2" not in str(caught.value)


@pytest.mark.parametrize(
    ("world", "spec", "message"),
    [
        ("knight", "100000x100000", "the knight grid may have at most 1000000 cells; 10000000000"),
        ("baddies", "random:rows=10000,cols=10000", "at most 1000000 cells; 100000000 asked"),
        ("crawler", "generated:1,levels=50", "at most 20 levels; 50 asked"),
        # Each level is generated and searched: the levels' squares count together.
        (
            "crawler",
            "generated:1,levels=20,width=500,height=500",
            "at most 250000 cells in all its levels; 20 levels of 500 x 500 ask 5000000",
        ),
        (
            "crawler",
            "generated:1,width=400,height=400",
            "at most 250000 cells in all its levels; 3 levels of 400 x 400 ask 480000",
        ),
        ("crawler", "tutorial:100000", "at most 20 levels; 100000 asked"),
    ],
)
def test_sizes_past_the_limits_are_refused_before_anything_is_made(
    world: str, spec: str, message: str
) -> None:
    with pytest.raises(MapError, match=message):
        load_plugin(world).open(spec, seed=1, limits=CLIENT_LIMITS)


def test_map_files_past_the_byte_limit_are_not_read(tmp_path: Path) -> None:
    (tmp_path / "big.map").write_text(SECRET + "#" * 2000)
    limits = Limits(file_bytes=1000, files=MapFiles(folder=tmp_path))
    with pytest.raises(MapError, match="at most 1000 bytes"):
        load_plugin("classic").open("big.map", seed=1, limits=limits)


async def test_create_never_reads_or_quotes_a_file_outside_the_maps_folder(
    start_server: StartServer, in_folder: Path
) -> None:
    server = await start_server()
    peer = await Peer.connect(bound_port(server))
    for world in ("knight", "classic", "crawler", "baddies"):
        reply = await peer.ask(f"CREATE g{world} {world} map=app.conf")
        assert reply[0].startswith("ERROR the game cannot be opened: app.conf: no such"), reply
        assert "hunter2" not in reply[0] and str(in_folder) not in reply[0]


async def test_create_of_a_huge_knight_grid_is_refused_at_once(start_server: StartServer) -> None:
    server = await start_server()
    peer = await Peer.connect(bound_port(server))
    assert await peer.ask("CREATE k knight map=100000x100000") == [
        "ERROR the game cannot be opened: 100000x100000: the knight grid may have at most "
        "1000000 cells; 10000000000 asked"
    ]


async def test_create_may_name_a_file_under_the_maps_dir(
    start_server: StartServer, tmp_path: Path
) -> None:
    (tmp_path / "mine.map").write_text(SECRET.replace("hunter2", "Mine"))
    server = await start_server(maps_dir=str(tmp_path), max_map_cells=100)
    peer = await Peer.connect(bound_port(server))
    assert (await peer.ask("CREATE m classic map=mine.map"))[0].startswith("GAME m")
    refused = await peer.ask("CREATE big knight map=11x10")
    assert refused == [
        "ERROR the game cannot be opened: 11x10: the knight grid may have at most 100 cells; "
        "110 asked"
    ]


async def test_the_knight_world_takes_generated_maps_too(start_server: StartServer) -> None:
    """Issue 20 item 12: ``--map generated:7`` is documented for every world."""
    server = await start_server(world="knight", map="generated:7")
    peer = await Peer.connect(bound_port(server))
    assert (await peer.ask("MAP"))[0].split()[:2] == ["MAP", "21"]
    assert (await peer.ask("CREATE g knight map=generated:8,width=30,health=99999"))[0].startswith(
        "GAME g"
    )


async def test_a_replay_keeps_the_file_the_game_was_opened_on(
    start_server: StartServer, in_folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The replay names the maps folder's ``app.conf``, never the working directory's."""
    folder = tmp_path_factory.mktemp("maps")
    replays = tmp_path_factory.mktemp("replays")
    (folder / "app.conf").write_text(SECRET.replace("hunter2", "Mine"))
    server = await start_server(maps_dir=str(folder), replay_dir=str(replays))
    peer = await Peer.connect(bound_port(server))
    assert (await peer.ask("CREATE m classic map=app.conf"))[0].startswith("GAME m")
    assert (await peer.ask("JOIN m"))[0].startswith("GAME m")
    assert (await peer.ask("MOVE E"))[0] in ("SUCCESS", "FAIL")
    server.shutdown()
    await peer.read_to_end()
    written = "".join(path.read_text() for path in replays.iterdir())
    assert "Mine" in written and "hunter2" not in written


@pytest.mark.parametrize("world", world_names())
def test_a_name_too_long_for_the_system_is_no_such_map(world: str, tmp_path: Path) -> None:
    for limits in (CLIENT_LIMITS, Limits(files=MapFiles(folder=tmp_path)), None):
        with pytest.raises(MapError, match="no such"):
            if limits is None:
                load_plugin(world).open("a" * 300, seed=1)
            else:
                load_plugin(world).open("a" * 300, seed=1, limits=limits)
