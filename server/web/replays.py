"""Replay files for the web page: the list, and one replay re-run into frames to draw.

A frame is what a spectator would have seen after one step of the game: the whole
map as ``world.render(None)`` draws it (the same view ``WATCH`` sends, so nothing a
spectator could not see) and a line saying what happened. Re-running is the world's
own work, so it runs in a worker thread, one replay at a time, and stops at
:data:`MAX_FRAME_BYTES` of maps (a replay of a huge board is told as text only).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from worlds.registry import UnknownWorld, load_plugin

from ..replay import SUFFIX, ReplayError, open_world, read_replay, rerun
from ..replay_cli import describe
from .telling import FrameTeller

MAX_FRAME_BYTES: Final = 32 << 20
"""Bytes of drawn maps one replay's frames may hold; past that, frames carry no map."""
MAX_LISTED: Final = 500
"""Newest replay files listed at most."""


def shown_map(spec: object) -> str:
    """A map spec as the page shows it: a file's name, never the folder it is in."""
    if not spec:
        return "default"
    return Path(str(spec)).name if "/" in str(spec) or "\\" in str(spec) else str(spec)


class NoSuchReplay(LookupError):
    """The name is not a replay file of the server's replay folder."""


def list_replays(directory: Path | None) -> list[dict[str, Any]]:
    """The newest replays first: file name, size, and the header's game, world, map, start."""
    if directory is None or not directory.is_dir():
        return []
    files = sorted(
        (path for path in directory.glob(f"*{SUFFIX}") if path.is_file()),
        key=lambda path: path.stat().st_mtime,
        reverse=True,
    )[:MAX_LISTED]
    listed = []
    for path in files:
        try:
            with path.open(encoding="utf-8") as file:
                header = json.loads(file.readline())
        except (OSError, ValueError):
            continue
        if not isinstance(header, dict):
            continue
        listed.append(
            {
                "file": path.name,
                "bytes": path.stat().st_size,
                "game": header.get("game"),
                "world": header.get("world"),
                "map": shown_map(header.get("map")),
                "seed": header.get("seed"),
                "started": header.get("started"),
            }
        )
    return listed


def replay_path(directory: Path | None, name: str) -> Path:
    """The file ``name`` in ``directory``; anything else (a path, another folder) is refused."""
    if (
        directory is None
        or not name.endswith(SUFFIX)
        or Path(name).name != name
        or name.startswith(".")
    ):
        raise NoSuchReplay(name)
    path = directory / name
    if not path.is_file():
        raise NoSuchReplay(name)
    return path


def frames(path: Path) -> dict[str, Any]:
    """Re-run the replay at ``path`` into frames; raises :class:`ReplayError` if it cannot."""
    replay = read_replay(path)
    header = replay.header
    try:
        plugin = load_plugin(str(header.get("world")))
    except UnknownWorld as error:
        raise ReplayError(str(error)) from None
    world = open_world(replay, plugin)
    names: dict[int, str] = {}
    for record in replay.records:
        if "name" in record:
            names.setdefault(int(record["name"]), str(record["as"]))
    budget = MAX_FRAME_BYTES
    first = list(world.render(None))
    budget -= sum(map(len, first))
    teller = FrameTeller(names)  # the board's fields (server.web.telling)
    result: list[dict[str, Any]] = [
        {
            "round": 0,
            "text": "the game begins",
            "view": first,
            **teller.frame(world, None, draw=True),
        }
    ]
    for step in rerun(replay, world):
        record = step.record
        view = None
        draw = budget > 0 and ("actions" in record or "join" in record or "leave" in record)
        if draw:
            view = list(world.render(None))
            budget -= sum(map(len, view))
        told = teller.frame(world, step, draw=draw)
        budget -= sum(len(row) for level in told.get("levels", ()) for row in level)
        result.append(
            {"round": record.get("round", 0), "text": describe(step, names), "view": view, **told}
        )
    return {
        "file": path.name,
        "game": header.get("game"),
        "world": header.get("world"),
        "map": shown_map(header.get("map")),
        "seed": header.get("seed"),
        "started": header.get("started"),
        "players": {str(player): name for player, name in names.items()},
        "notes": list(world.help_notes),
        "goal": world.goal,
        "frames": result,
        "complete": budget > 0,
    }
