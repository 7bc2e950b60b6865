"""Reading a replay file (:mod:`server.replay.writer` writes them) and re-running its game.

What a caller may rely on:

* :func:`read_replay` reads a whole file; a last line cut short (the server was
  killed while writing it) is left out, anything else malformed is a
  :class:`~server.replay.format.ReplayError` naming the line.
* :func:`open_world` opens the world the game began with, from the map files the
  header holds, and checks it against the recorded view.
* :func:`rerun` and :func:`replay_steps` feed the recorded calls to that world, one
  :class:`Step` at a time: the same header and records give the same events.
* :func:`bot_logs` lists the bots' logs ``dod-arena`` keeps beside a replay.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from protocol.commands import Command, parse_command
from protocol.errors import RemoteProtocolError
from worlds.api import Action, Event, PlayerKind, World, WorldPlugin
from worlds.turns import TurnBasedWorld

from .format import FORMAT_VERSION, SUFFIX, ReplayError, view_digest

__all__ = [
    "LOG_SUFFIX",
    "Replay",
    "Step",
    "bot_logs",
    "log_name",
    "open_world",
    "read_replay",
    "replay_steps",
    "rerun",
]


@dataclass(frozen=True, slots=True)
class Replay:
    """A replay file, read: its header and every record after it."""

    header: dict[str, Any]
    records: list[dict[str, Any]]


def read_replay(path: str | Path) -> Replay:
    """Read a replay; a last line cut short (the server was killed) is left out."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ReplayError(f"{path}: cannot read the file: {error}") from None
    lines = text.splitlines()
    records = []
    for number, line in enumerate(lines, 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines) and not text.endswith("\n"):
                break
            raise ReplayError(f"{path}:{number}: not a JSON line") from None
        if not isinstance(record, dict):
            raise ReplayError(f"{path}:{number}: not a JSON object")
        records.append(record)
    if not records or records[0].get("replay") != FORMAT_VERSION:
        raise ReplayError(f"{path}: not a replay file of format {FORMAT_VERSION}")
    return Replay(records[0], records[1:])


def open_world(replay: Replay, plugin: WorldPlugin) -> World:
    """A fresh world as the recorded game began, checked against the recorded view."""
    header = replay.header
    if plugin.name != header.get("world"):
        raise ReplayError(f"the replay is of the {header.get('world')} world, not {plugin.name}")
    spec, seed = header.get("map"), int(header.get("seed", 0))
    files = header.get("map_files")
    if spec is not None and not isinstance(spec, str):
        raise ReplayError(f"the replay's map is not a map spec: {spec!r}")
    if files:
        if spec is None:
            raise ReplayError("the replay records map files but no map spec")
        with tempfile.TemporaryDirectory(prefix="dod-replay-") as folder:
            for name, content in files.items():
                (Path(folder) / Path(name).name).write_text(content, "utf-8")
            world = plugin.open(str(Path(folder) / Path(spec).name), seed=seed)
    else:
        world = plugin.open(spec, seed=seed)
    if "view" in header and list(world.render(None)) != header["view"]:
        raise ReplayError("the map differs from the one the game was recorded on")
    if "view_sha256" in header and view_digest(world.render(None)) != header["view_sha256"]:
        raise ReplayError("the map differs from the one the game was recorded on")
    return world


@dataclass(frozen=True, slots=True)
class Step:
    """One record re-played, and the events the world answered with."""

    record: dict[str, Any]
    events: list[Event]


def _action(text: str) -> Action:
    try:
        command: Command | None = parse_command(text)
    except RemoteProtocolError as error:
        raise ReplayError(f"bad action {text!r}: {error}") from None
    if not isinstance(command, Action):
        raise ReplayError(f"bad action {text!r}")
    return command


def rerun(replay: Replay, world: World) -> Iterator[Step]:
    """Feed every record to ``world`` (from :func:`open_world`), one step at a time."""
    return replay_steps(replay.records, world)


def replay_steps(records: Iterable[dict[str, Any]], world: World) -> Iterator[Step]:
    """Feed ``records`` (a replay's, after its header, read as they come) to ``world``."""
    for record in records:
        if "actions" in record:
            actions = [(int(player), _action(text)) for player, text in record["actions"]]
            yield Step(record, world.resolve(actions))
        elif "join" in record:
            yield Step(record, world.join(int(record["join"]), PlayerKind(record["kind"])))
        elif "leave" in record:
            yield Step(record, world.leave(int(record["leave"])))
        elif "timeout" in record:
            if not isinstance(world, TurnBasedWorld):
                raise ReplayError("a turn timed out in a world without turns")
            yield Step(record, world.time_out(int(record["timeout"])))
        else:
            yield Step(record, [])


LOG_SUFFIX: Final = ".log"


def log_name(replay: str, bot: str) -> str:
    """The name of ``bot``'s log of the game whose replay file is called ``replay``: it
    lies beside the replay (``dod-arena`` keeps it there, the web page links it)."""
    return f"{replay.removesuffix(SUFFIX)}.{bot}{LOG_SUFFIX}"


def bot_logs(directory: Path, replay: str) -> list[dict[str, Any]]:
    """The bots' logs beside the replay file ``replay`` (``dod-arena`` keeps each bot's
    output of a game as ``<replay's name without .jsonl>.<bot>.log``), by bot name."""
    stem = replay.removesuffix(SUFFIX) + "."
    found = []
    try:
        entries = sorted(directory.glob(f"{_glob_escape(stem)}*{LOG_SUFFIX}"))
    except OSError:
        return []
    for path in entries:
        bot = path.name[len(stem) : -len(LOG_SUFFIX)]
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if bot:
            found.append({"bot": bot, "file": path.name, "bytes": size})
    return found


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)
