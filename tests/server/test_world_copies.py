"""Every world the server can open is kept as an untouched copy for its restarts.

A game restarts from a copy of the world it first opened (``server.game.builds``): that
is what it falls back on when its map file was edited badly or removed since. The
baddies world once could not be copied (its board's read-only statics are a
``mappingproxy``), so its games logged "world not copied for restarts" and had no
such fallback. These tests copy every installed world on every shipped map, its
default map and a generated one, and restart a baddies game whose map file is gone.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import structlog

from dungeon_of_doom.server.game.builds import copy_world, open_world
from dungeon_of_doom.worlds.registry import load_plugin, world_names

from ..conftest import WriteMap
from ..helpers import Peer, bound_port
from .conftest import StartGameServer

MAX_MAP_BYTES = 1 << 20


def _cases() -> list[tuple[str, str | None]]:
    return [
        (name, spec)
        for name in world_names()
        for spec in [None, "generated:seed=5,width=30,height=12", *load_plugin(name).maps()]
    ]


@pytest.mark.parametrize(("world_name", "spec"), _cases())
def test_every_world_is_kept_for_restarts_and_copies_are_independent(
    world_name: str, spec: str | None
) -> None:
    plugin = load_plugin(world_name)
    with structlog.testing.capture_logs() as logs:
        opened = open_world(plugin, spec, 5, MAX_MAP_BYTES, template=True)
    assert [e["event"] for e in logs if e["log_level"] == "warning"] == []
    template = opened.template
    assert template is not None and template is not opened.world
    untouched = template.render(None)

    restarted = copy_world(opened, MAX_MAP_BYTES)
    assert restarted.world is not template and restarted.template is not None
    assert restarted.world.render(None) == untouched
    assert restarted.view_digest == opened.view_digest

    # Playing on the copy leaves the template as it was: the next restart is fresh too.
    restarted.world.join(1)
    assert restarted.world.render(None) != untouched
    assert template.render(None) == untouched


@pytest.mark.parametrize(("world_name", "spec"), _cases())
def test_every_world_pickles(world_name: str, spec: str | None) -> None:
    """What a worker process would need to hand a world back to the server."""
    world = load_plugin(world_name).open(spec, seed=5)
    again = pickle.loads(pickle.dumps(world))
    assert again.render(None) == world.render(None)
    again.join(1)
    assert again.render(None) != world.render(None)


async def test_a_baddies_game_whose_map_file_is_gone_restarts_on_the_loaded_map(
    start_game_server: StartGameServer, write_map: WriteMap
) -> None:
    board = "name Alley\n..........\nH...m....*\n..........\n"
    path = Path(write_map(board))
    with structlog.testing.capture_logs() as logs:
        server = await start_game_server(world="baddies", map=str(path), seed=1)
    assert [e for e in logs if e["event"] == "world not copied for restarts"] == []
    peer = await Peer.connect(bound_port(server))
    before = await peer.ask("MAP")
    path.unlink()
    with structlog.testing.capture_logs() as logs:
        await peer.send("QUIT\n")
        await peer.read_to_end()
        again = await Peer.connect(bound_port(server))
        assert await again.ask("MAP") == before
    (failure,) = [e for e in logs if e["event"] == "game restart failed"]
    assert failure["log_level"] == "error"
    (fallback,) = [e for e in logs if e["event"] == "game restarted on a fallback"]
    assert fallback["kept"] == "the loaded map"
    await again.send("QUIT\n")
    await again.read_to_end()
