"""``/api/replays/<file>`` serves a replay a page of frames at a time: bounded pages,
the same frames as a whole re-run, clear errors for bad bounds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from server.game.story import describe
from server.replay.reader import open_world, read_replay, rerun
from server.web import replays, serve_web
from worlds.registry import load_plugin

from ..conftest import WriteMap
from ..helpers import Peer, bound_port
from ..web.test_operations import _get
from .conftest import StartGameServer
from .test_lobby_limits import room


async def _long_game(port: int, moves: int) -> None:
    peer = await Peer.connect(port)
    await peer.ask("HELLO Ada")
    for step in range(moves):
        await peer.ask("MOVE E" if step % 2 else "MOVE W")
    await peer.send("QUIT\n")
    await peer.read_to_end()


async def _pages(url: str) -> list[dict[str, object]]:
    """Every page of a replay, following ``next``."""
    pages = []
    status, _, body = await _get(url)
    while True:
        assert status == 200, body
        page = json.loads(body)
        pages.append(page)
        if page["next"] is None:
            return pages
        status, _, body = await _get(f"{url}?from={page['next']}&count=500")


async def test_a_replay_is_served_in_pages_with_the_frames_of_a_whole_rerun(
    start_game_server: StartGameServer, replay_dir: Path, nursery: trio.Nursery
) -> None:
    server = await start_game_server(map="tiny", seed=1, http_port=0)
    web = await nursery.start(serve_web, server)
    await _long_game(bound_port(server), 700)
    (path,) = replay_dir.iterdir()
    url = f"{web.url}api/replays/{path.name}"

    pages = await _pages(url)
    # The beginning, the join, the name, 700 moves, the leave and the end: 705 frames.
    assert [len(page["frames"]) for page in pages] == [200, 500, 5]  # type: ignore[arg-type]
    assert [page["from"] for page in pages] == [0, 200, 700]
    assert all(page["players"] == {"1": "Ada"} for page in pages)
    frames = [frame for page in pages for frame in page["frames"]]  # type: ignore[attr-defined]

    replay = read_replay(path)
    world = open_world(replay, load_plugin("classic"))
    names = {1: "Ada"}
    told = ["the game begins"] + [describe(step, names, world) for step in rerun(replay, world)]
    assert [frame["text"] for frame in frames] == told
    assert frames[0]["view"] and frames[-1]["text"].startswith("game over")

    # An earlier page again (the re-run starts over) gives the same frames.
    status, _, body = await _get(f"{url}?from=3&count=5")
    assert status == 200 and json.loads(body)["frames"] == frames[3:8]


async def test_a_page_holds_a_bounded_weight_of_maps(
    start_game_server: StartGameServer,
    replay_dir: Path,
    nursery: trio.Nursery,
    write_map: WriteMap,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replays, "MAX_PAGE_BYTES", 16_384)
    server = await start_game_server(map=write_map(room(40)), seed=1, http_port=0)
    web = await nursery.start(serve_web, server)
    await _long_game(bound_port(server), 60)
    (path,) = replay_dir.iterdir()
    pages = await _pages(f"{web.url}api/replays/{path.name}")
    assert len(pages) > 3, "a 1,640-byte map a frame: 16 KiB holds about ten"
    for page in pages:
        frames = page["frames"]
        assert isinstance(frames, list)
        drawn = sum(len(row) for frame in frames for row in frame["view"] or ())
        assert drawn <= 16_384 + 1640


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("count=0", "count must be a whole number from 1 to 500, not '0'"),
        ("count=501", "count must be a whole number from 1 to 500, not '501'"),
        ("from=-1", "from must be a whole number from 0 to 4611686018427387904, not '-1'"),
        ("from=x", "from must be a whole number from 0 to 4611686018427387904, not 'x'"),
    ],
)
async def test_bad_page_bounds_are_refused_clearly(
    start_game_server: StartGameServer,
    replay_dir: Path,
    nursery: trio.Nursery,
    query: str,
    error: str,
) -> None:
    server = await start_game_server(map="tiny", seed=1, http_port=0)
    web = await nursery.start(serve_web, server)
    await _long_game(bound_port(server), 2)
    (path,) = replay_dir.iterdir()
    status, _, body = await _get(f"{web.url}api/replays/{path.name}?{query}")
    assert (status, json.loads(body)) == (400, {"error": error})
