"""Replays: every game's record as a JSON-lines file, and re-running one exactly.

A replay file holds one JSON object per line. The first line is the header::

    {"replay": 1, "game": "default", "world": "classic", "map": "tiny",
     "map_files": {"tiny.map": "name ..."}, "seed": 1, "turn": null,
     "rules": {"server": "0.1.0", "world": null}, "view": ["#####", ...],
     "started": "2024-05-01T12:00:00Z"}

``map`` is the map spec the game was opened with (``null``: the world's
default), ``map_files`` the content of the map file when the spec named one on
disk (so that the replay does not depend on the file staying as it was),
``view`` the whole map as a spectator saw it when the game began (a re-run
checks it). A map larger than the server's ``max_map_bytes`` is not copied into
the header: ``view_sha256`` (the SHA-256 of the rows joined by LF) stands for
``view``, and ``map_files`` is left out, so a game on a huge board costs its replay
a few hundred bytes, not the board. Then, in the order they happened::

    {"round": 0, "join": 1, "kind": "P"}            a player entered the world
    {"round": 0, "name": 1, "as": "Ada"}            a player took a name
    {"round": 1, "actions": [[1, "MOVE N"], [2, "STAY"]], "missed": [2]}
    {"round": 1, "leave": 2, "why": "disconnected"}
    {"round": 1, "timeout": 2}                      a turn-based world's turn ran out
    {"round": 1, "end": "all players left"}

``actions`` is one call of ``world.resolve`` in the order it was made (worlds
without rounds have one action per round); ``missed`` lists the players whose
action was a stay because the turn time ran out. ``round`` on other lines is the
number of the last round resolved before them.

**When a file is written.** Nothing is written until the game's first action: a
game nobody played in (joined and left, or never joined) leaves no file. Lines go
to a buffer that is handed to the operating system (``flush``, a ``write`` into the
page cache, never ``fsync``) after each round, on every join and leave, after every
batch of commands a connection sends *before its replies are written*, and at
least once a second. So a process killed with ``SIGKILL`` loses no action that a
client was answered; a machine that loses power loses what the kernel had not yet
written. A file that cannot be written is logged and given up, never the game.

**How many files.** A :class:`ReplayShelf` keeps the folder within ``keep`` files
and ``keep_bytes`` bytes (deleting the oldest finished replays first) and starts at
most ``burst`` files at once and ``rate`` a second on average; a game beyond that
rate is played unrecorded, and the log says so. A re-run
(:func:`rerun`) feeds the same calls to a fresh world from the same plugin, so
the same header and records give the same events.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from io import TextIOWrapper
from pathlib import Path
from typing import Any, Final

import structlog

from protocol.commands import Command, Move, parse_command
from protocol.direction import Direction
from protocol.errors import RemoteProtocolError
from worlds.api import Action, Event, PlayerId, PlayerKind, World, WorldPlugin
from worlds.limits import OPERATOR_LIMITS
from worlds.turns import TurnBasedWorld

from .ratelimit import TokenBucket

__all__ = [
    "FORMAT_VERSION",
    "Replay",
    "ReplayError",
    "ReplayShelf",
    "ReplayWriter",
    "Step",
    "header_for",
    "open_world",
    "read_replay",
    "rerun",
]

FORMAT_VERSION: Final = 1
SUFFIX: Final = ".jsonl"


def _server_version() -> str:
    try:
        return version("dungeon-of-doom")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


SERVER_VERSION: Final = _server_version()
_MOVES: Final = {direction: f"MOVE {direction.name}" for direction in Direction}

log = structlog.get_logger("server.replay")


class ReplayError(Exception):
    """A replay that cannot be read or re-run; ``str()`` says why."""


def action_text(action: Action) -> str:
    """The action as a command line (``MOVE N``, ``PICKUP``, ``STAY``)."""
    if type(action) is Move:
        return _MOVES[action.direction]
    return action.to_line()


def header_for(
    game: str,
    plugin: WorldPlugin,
    map_spec: str | None,
    seed: int,
    view: World | Sequence[str] | None,
    turn: float | None,
    *,
    view_digest: str | None = None,
    max_bytes: int = 1 << 20,
) -> dict[str, Any]:
    """The header of a replay of a game that begins with ``view`` (the spectator's
    whole map, or the world to draw it from); a map over ``max_bytes`` is recorded
    by ``view_digest`` alone (see the module docstring)."""
    header: dict[str, Any] = {
        "replay": FORMAT_VERSION,
        "game": game,
        "world": plugin.name,
        "map": map_spec,
    }
    # The file the spec names for this game: a client's game reads only under the
    # maps folder (worlds.limits), never a file of the same name elsewhere.
    files = getattr(plugin, "limits", OPERATOR_LIMITS).files
    path = None if map_spec is None else files.find(map_spec)
    if map_spec is not None and path is not None:
        with contextlib.suppress(OSError):
            if path.stat().st_size <= max_bytes:
                # Keyed by the name the spec gives it (what a re-run opens), not the
                # name a link leads to, which need not even be UTF-8.
                header["map_files"] = {
                    Path(map_spec).name: path.read_text("utf-8", errors="replace")
                }
    if isinstance(view, World):
        view = view.render(None)
    header.update(
        seed=seed,
        turn=turn,
        rules={"server": SERVER_VERSION, "world": getattr(plugin, "version", None)},
    )
    if view is not None:
        header["view"] = list(view)
    else:
        header["view_sha256"] = view_digest
    header["started"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return header


def view_digest(rows: Sequence[str]) -> str:
    """The SHA-256 a header records for a map too large to copy (rows joined by LF)."""
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


class ReplayShelf:
    """The folder replays go to, kept within its limits; see the module docstring."""

    def __init__(
        self,
        directory: Path,
        *,
        keep: int | None = None,
        keep_bytes: int | None = None,
        rate: float | None = None,
        burst: int = 1,
    ) -> None:
        self.directory = directory
        self.keep = keep
        self.keep_bytes = keep_bytes
        self._bucket = TokenBucket(rate, burst) if rate is not None else None
        self._open: set[Path] = set()
        self._skipped = 0  # games not recorded since the last warning

    def start(self, header: dict[str, Any]) -> tuple[TextIOWrapper, Path] | None:
        """A new file for a game, its header written; ``None`` if over the rate or it fails."""
        if self._bucket is not None and not self._bucket.take():
            if not self._skipped:
                log.warning(
                    "replay not recorded: too many games start",
                    game=header["game"],
                    rate=self._bucket.rate,
                    burst=self._bucket.burst,
                )
            self._skipped += 1
            return None
        if self._skipped:
            log.warning("replays not recorded", games=self._skipped, reason="replay_rate")
            self._skipped = 0
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        directory = self.directory
        try:
            directory.mkdir(parents=True, exist_ok=True)
            self._prune()
            for attempt in range(1000):
                suffix = f"-{attempt}" if attempt else ""
                path = directory / f"{header['game']}-{stamp}{suffix}{SUFFIX}"
                try:
                    file = path.open("x", encoding="utf-8", buffering=65536)
                except FileExistsError:
                    continue
                try:
                    file.write(json.dumps(header, separators=(",", ":")) + "\n")
                    file.flush()
                except OSError:
                    file.close()
                    raise
                self._open.add(path)
                return file, path
            raise OSError(f"no free replay file name for {header['game']} in {directory}")
        except OSError as error:
            log.error("replay not written", game=header["game"], error=str(error))
            return None

    def closed(self, path: Path) -> None:
        self._open.discard(path)

    def _prune(self) -> None:
        """Delete the oldest finished replays until one more fits within the limits."""
        if self.keep is None and self.keep_bytes is None:
            return
        files = []
        for entry in os.scandir(self.directory):
            if entry.name.endswith(SUFFIX) and entry.is_file():
                with contextlib.suppress(OSError):
                    stat = entry.stat()
                    files.append((stat.st_mtime, entry.name, stat.st_size))
        files.sort()
        count = len(files)
        total = sum(size for _, _, size in files)
        for _, name, size in files:
            over_count = self.keep is not None and count + 1 > self.keep
            over_bytes = self.keep_bytes is not None and total > self.keep_bytes
            if not (over_count or over_bytes):
                break
            path = self.directory / name
            if path in self._open:
                continue
            try:
                path.unlink()
            except OSError as error:
                log.warning("old replay not deleted", path=name, error=str(error))
                continue
            log.info("old replay deleted", path=name)
            count -= 1
            total -= size


class ReplayWriter:
    """The records of one game; its file is made at the first action (module docstring)."""

    def __init__(self, shelf: ReplayShelf, header: dict[str, Any]) -> None:
        self._shelf = shelf
        self._header: dict[str, Any] | None = header
        self._early: list[str] = []  # records before the first action
        self._file: TextIOWrapper | None = None
        self.path: Path | None = None
        self._unwritten: list[str] = []
        """Records not yet handed to the operating system; :meth:`flush` writes them
        with one ``os.write`` (the file object's own buffers are not used after the
        header: they cost a reply more than the write itself)."""

    def begin(self) -> None:
        """Make the file now, even before any action (the world failed: worth keeping)."""
        if self._header is not None:
            self._begin()

    def _begin(self) -> None:
        header, self._header = self._header, None
        if header is None:
            return
        started = self._shelf.start(header)
        if started is None:
            self._early.clear()
            return
        self._file, self.path = started
        early, self._early = self._early, []
        self._write("".join(early))

    def _write(self, line: str) -> None:
        if self._file is None:
            if self._header is not None:
                self._early.append(line)
            return
        self._unwritten.append(line)

    def _give_up(self, error: OSError) -> None:
        log.error("replay abandoned", path=self.path and self.path.name, error=str(error))
        file, self._file = self._file, None
        self._unwritten.clear()
        if self.path is not None:
            self._shelf.closed(self.path)
        if file is not None:
            with contextlib.suppress(OSError):
                file.close()

    def actions(
        self,
        round_number: int,
        actions: Sequence[tuple[PlayerId, Action]],
        missed: Sequence[PlayerId] = (),
    ) -> None:
        if self._header is not None:
            self._begin()
        listed = ",".join(f'[{player},"{action_text(action)}"]' for player, action in actions)
        extra = f',"missed":{json.dumps(list(missed))}' if missed else ""
        self._write(f'{{"round":{round_number},"actions":[{listed}]{extra}}}\n')

    def action(self, round_number: int, player: PlayerId, action: Action) -> None:
        """One action of a world without rounds: the same record as :meth:`actions`, cheaper."""
        if self._header is not None:
            self._begin()
        self._write(f'{{"round":{round_number},"actions":[[{player},"{action_text(action)}"]]}}\n')

    def join(self, round_number: int, player: PlayerId, kind: PlayerKind) -> None:
        self._write(f'{{"round":{round_number},"join":{player},"kind":"{kind.value}"}}\n')

    def name(self, round_number: int, player: PlayerId, name: str) -> None:
        self._write(f'{{"round":{round_number},"name":{player},"as":{json.dumps(name)}}}\n')

    def timeout(self, round_number: int, player: PlayerId) -> None:
        """A turn-based world's turn ran out (:meth:`worlds.turns.TurnBasedWorld.time_out`)."""
        if self._header is not None:
            self._begin()
        self._write(f'{{"round":{round_number},"timeout":{player}}}\n')

    def leave(self, round_number: int, player: PlayerId, why: str) -> None:
        self._write(f'{{"round":{round_number},"leave":{player},"why":{json.dumps(why)}}}\n')

    @property
    def dirty(self) -> bool:
        """Whether records wait for :meth:`flush`."""
        return bool(self._unwritten)

    def flush(self) -> None:
        """Hand buffered lines to the operating system (one short, non-blocking write)."""
        if self._unwritten and self._file is not None:
            data = "".join(self._unwritten).encode()
            self._unwritten.clear()
            try:
                fd = self._file.fileno()
                written = os.write(fd, data)
                while written < len(data):  # a regular file takes it all, but if not
                    written += os.write(fd, data[written:])
            except OSError as error:
                self._give_up(error)

    def close(self, round_number: int, reason: str) -> None:
        """Write the last record and close the file (none was made if nobody acted)."""
        self._header = None
        self._early.clear()
        self._write(f'{{"round":{round_number},"end":{json.dumps(reason)}}}\n')
        self.flush()
        if self._file is not None:
            try:
                self._file.close()
            except OSError as error:
                self._give_up(error)
            self._file = None
        if self.path is not None:
            self._shelf.closed(self.path)


# -- reading and re-running -------------------------------------------------------------


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
    for record in replay.records:
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
