"""The web page's API beyond games and replays: leaderboards (ratings and best results per
map), a player's page, and replay files to download. Each builder returns a Starlette
endpoint for :func:`server.web.asgi.create_app` to route."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from records.bests import bests, player_bests
from records.store import Store
from records.writer import StoreUnavailable
from worlds.registry import world_names

from ..replay.reader import LOG_SUFFIX
from . import replays
from .site import Site

__all__ = ["add_results", "download_route", "leaderboard_route", "player_route"]

LEADERBOARD_LINES: Final = 100
"""Standings the leaderboard page shows per world."""
BESTS_PER_MAP: Final = 10
"""Best results the leaderboard page shows per map."""
HISTORY_LINES: Final = 100
"""Games a player's page lists, newest first."""
NAME_LENGTH: Final = 64
"""The longest name a player's page is asked about (the records' column)."""


def _unkept() -> JSONResponse:
    return JSONResponse({"error": "this server keeps no records (--db)", "standings": []}, 404)


def leaderboard_route(server: Site) -> Callable[[Request], Awaitable[Response]]:
    """``/api/leaderboard?world=W``: the world's ratings and its best results per map,
    and the worlds there are (installed, or with records)."""

    async def leaderboard(request: Request) -> Response:
        writer = server.ladder.writer
        if writer is None:
            return _unkept()
        world = request.query_params.get("world") or server.lobby.default.world_name
        try:  # (a store still opening is waited for: RecordWriter.call)
            table = await writer.call(Store.leaderboard, world, LEADERBOARD_LINES)
            solo = await writer.call(bests, world, BESTS_PER_MAP)
            recorded = await writer.call(Store.worlds)
        except StoreUnavailable as error:
            return JSONResponse({"error": f"the records are not reachable: {error}"}, 503)
        return JSONResponse(
            {
                "world": world,
                "worlds": sorted({*world_names(), *recorded, world}),
                "standings": [line.as_dict() for line in table],
                "bests": [group.as_dict() for group in solo],
            }
        )

    return leaderboard


def player_route(server: Site) -> Callable[[Request], Awaitable[Response]]:
    """``/api/players/{name}``: a name's ratings (with its rank), best results and games
    (each with its place, and its replay's file name where this server holds it)."""
    directory = None if server.config.replay_dir is None else Path(server.config.replay_dir)

    async def player(request: Request) -> Response:
        writer = server.ladder.writer
        if writer is None:
            return _unkept()
        name = request.path_params["name"]
        if not name or len(name) > NAME_LENGTH:
            return JSONResponse({"error": f"a name is 1 to {NAME_LENGTH} characters"}, 400)
        try:
            # Each read goes through indexes: the records' one thread is never held
            # by the whole ladder for one name (issue 36).
            standings = await writer.call(Store.standings_of, name)
            solo = await writer.call(player_bests, name)
            games = await writer.call(Store.history, name, None, HISTORY_LINES)
        except StoreUnavailable as error:
            return JSONResponse({"error": f"the records are not reachable: {error}"}, 503)
        ratings = [line.as_dict() for line in standings]
        for game in games:  # a map named by a path is shown by its file name, never its folder
            game["map"] = replays.shown_map(game.get("map"))
            game["replay"] = _replay_here(directory, game.get("replay"))
        if not ratings and not solo and not games:
            return JSONResponse({"error": f"no games recorded for {name!r}"}, 404)
        return JSONResponse(
            {
                "name": name,
                "ratings": ratings,
                "bests": [group.as_dict() for group in solo],
                "games": games,
            }
        )

    return player


def _replay_here(directory: Path | None, recorded: object) -> str | None:
    """A recorded replay path as the file name this server serves, if it holds it."""
    if directory is None or not recorded:
        return None
    name = Path(str(recorded)).name
    try:
        return name if (directory / name).is_file() else None
    except OSError:  # (a name too long for the file system)
        return None


async def add_results(server: Site, directory: Path | None, listed: list[dict[str, Any]]) -> None:
    """Each listed replay with its game's players and results (``players``: by place,
    with outcome and gold; ``rounds``), where the records hold its game; ``None`` where
    they do not (no records kept, the game not recorded, the records unreachable)."""
    writer = server.ladder.writer
    for entry in listed:
        entry["players"] = entry["rounds"] = None
    if writer is None or directory is None or not listed:
        return
    paths = {
        path: entry for entry in listed for path in replays.recorded_as(directory, entry["file"])
    }
    try:
        results = await writer.call(Store.replay_results, list(paths))
    except StoreUnavailable:
        return
    for path, result in results.items():
        entry = paths[path]
        entry["players"], entry["rounds"] = result["players"], result["rounds"]


def download_route(server: Site) -> Callable[[Request], Awaitable[Response]]:
    """``/replays/{name}``: a replay file as it is, to save (``dod-replay`` re-runs it);
    or a bot's log beside one (``NAME.log``, what ``dod-arena`` kept of a bot's output in
    that game), as plain text to read."""
    directory = None if server.config.replay_dir is None else Path(server.config.replay_dir)

    async def download(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            if name.endswith(LOG_SUFFIX):
                path = replays.log_path(directory, name)
                return FileResponse(path, media_type="text/plain; charset=utf-8")
            path = replays.replay_path(directory, name)
        except replays.NoSuchReplay:
            return JSONResponse({"error": f"no replay called {name}"}, status_code=404)
        return FileResponse(path, media_type="application/x-ndjson", filename=name)

    return download
