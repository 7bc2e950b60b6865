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
    {"round": 1, "end": "all players left", "players": [{"name": "Ada", "outcome": "win",
     "place": 1, "gold": 2, "moves": 9}, ...]}       or "probe": true (no record)
    {"round": 9, "truncated": "the replay reached its limit of 16777216 bytes; ..."}

A ``truncated`` line is the last of a file whose game went on unrecorded: the
replay reached ``max_bytes`` (its own cap) or the live replays together reached
``keep_bytes``. Everything before it is whole; nothing after it was recorded, so a
reader shows the game up to there and says it was cut short.

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

**How many files, how large.** A :class:`ReplayShelf` keeps the folder within
``keep`` files and ``keep_bytes`` bytes (deleting the oldest finished replays first)
and starts at most ``burst`` files at once and ``rate`` a second on average; a game
beyond that rate is played unrecorded, and the log says so. A replay being written
counts too: one file holds at most ``max_bytes`` (its header aside, if the header
alone is larger), and the files being written together at most ``keep_bytes``; the
oldest finished files are deleted to make room as live ones grow. A replay that
reaches either limit gets a ``truncated`` line, one ``replay truncated`` log event,
and nothing more; its game plays on. A re-run
(:func:`server.replay.reader.rerun`) feeds the same calls to a fresh world from the
same plugin, so the same header and records give the same events.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from io import TextIOWrapper
from pathlib import Path
from typing import Any, Final

import structlog

from protocol.commands import Move
from protocol.direction import Direction
from worlds.api import Action, PlayerId, PlayerKind, World, WorldPlugin
from worlds.limits import OPERATOR_LIMITS

from ..ratelimit import TokenBucket

__all__ = [
    "FORMAT_VERSION",
    "ReplayError",
    "ReplayShelf",
    "ReplayWriter",
    "header_for",
    "view_digest",
]

FORMAT_VERSION: Final = 1
SUFFIX: Final = ".jsonl"
MAX_REPLAY_BYTES: Final = 16 << 20
"""The default cap on one replay file (``--max-replay-bytes``)."""
TRUNCATED_RESERVE: Final = 256
"""Bytes of a file's cap kept for its ``truncated`` line (which is shorter)."""


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
        max_bytes: int | None = MAX_REPLAY_BYTES,
    ) -> None:
        self.directory = directory
        self.keep = keep
        self.keep_bytes = keep_bytes
        self.max_bytes = (
            max_bytes if keep_bytes is None or max_bytes is None else min(max_bytes, keep_bytes)
        )
        """Bytes one replay file may hold (never more than ``keep_bytes``)."""
        self._cap_name = (
            "--replay-keep-bytes"
            if self.max_bytes is not None and self.max_bytes == keep_bytes
            else "--max-replay-bytes"
        )
        self._bucket = TokenBucket(rate, burst) if rate is not None else None
        self._open: dict[str, int] = {}  # the files being written (by name), their bytes
        self.live_bytes = 0
        """Bytes of the files being written, together."""
        self._finished_bytes = 0  # of the files not being written, at the last count
        self._file_cap: float = (
            math.inf if self.max_bytes is None else self.max_bytes - TRUNCATED_RESERVE
        )
        """Bytes a live file may reach without any limit refusing it."""
        self._ceiling: float | None = None
        """:attr:`live_bytes` may reach this without any ``keep_bytes`` check failing or
        pruning (``None``: to be worked out again, after a file opened, closed or was
        deleted): :meth:`admit`'s common case is two comparisons."""
        self.dirty: set[ReplayWriter] = set()
        """The writers holding records not yet handed to the operating system: what
        :meth:`flush` writes. A server's settle step asks this one set, not each game."""
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
                line = json.dumps(header, separators=(",", ":")) + "\n"
                try:
                    file.write(line)
                    file.flush()
                except OSError:
                    file.close()
                    raise
                self._open[path.name] = size = len(line.encode())
                self.live_bytes += size
                self._ceiling = None
                return file, path
            raise OSError(f"no free replay file name for {header['game']} in {directory}")
        except OSError as error:
            log.error("replay not written", game=header["game"], error=str(error))
            return None

    def flush(self) -> None:
        """Hand every writer's unwritten records to the operating system
        (:meth:`ReplayWriter.flush` of each in :attr:`dirty`); :attr:`dirty` is then empty.
        It is the server's settle step itself (:attr:`server.session.connection.Connection.settle`),
        after every command: with nothing unwritten it returns at its first test."""
        dirty = self.dirty
        while dirty:  # a writer's flush never queues records: each is taken once
            dirty.pop().flush()

    def closed(self, path: Path) -> None:
        size = self._open.pop(path.name, None)
        if size is not None:
            self.live_bytes -= size
            self._finished_bytes += size
            self._ceiling = None

    def refusal(self, path: Path, size: int) -> str | None:
        """Why the live file ``path`` may not grow by ``size`` bytes (``None``: it may).
        Finished files are deleted, oldest first, to make room for it under ``keep_bytes``."""
        return self.admit(path.name, size, grow=False)

    def admit(self, name: str, size: int, *, grow: bool = True) -> str | None:
        """:meth:`refusal` of the live file called ``name`` (in :attr:`directory`); when
        it may grow and ``grow``, its ``size`` more bytes are counted as written. One call
        a flush: keyed by the name, not the :class:`~pathlib.Path`, whose hash is a Python
        call."""
        files = self._open
        written = files.get(name)
        live_bytes = self.live_bytes
        ceiling = self._ceiling
        if ceiling is None:
            ceiling = self._ceiling = self._live_ceiling()
        if (
            written is not None
            and written + size <= self._file_cap
            and live_bytes + size <= ceiling
        ):
            if grow:  # the common case: within every limit, nothing to prune
                files[name] = written + size
                self.live_bytes = live_bytes + size
            return None
        if written is None:
            return "the replay is not being written"
        max_bytes = self.max_bytes
        if max_bytes is not None and written + size > max_bytes - TRUNCATED_RESERVE:
            return f"the replay reached its limit of {max_bytes} bytes ({self._cap_name})"
        keep_bytes = self.keep_bytes
        if keep_bytes is not None:
            if live_bytes + size > keep_bytes - TRUNCATED_RESERVE * len(files):
                return (
                    f"the replays being written reached {keep_bytes} bytes together "
                    "(--replay-keep-bytes)"
                )
            if self._finished_bytes + live_bytes + size > keep_bytes:
                with contextlib.suppress(OSError):
                    self._prune(reserve=size, files=0)
        if grow:
            files[name] = written + size
            self.live_bytes = live_bytes + size
        return None

    def _live_ceiling(self) -> float:
        """What :attr:`live_bytes` may reach before a ``keep_bytes`` check refuses or prunes."""
        keep = self.keep_bytes
        if keep is None:
            return math.inf
        return min(keep - TRUNCATED_RESERVE * len(self._open), keep - self._finished_bytes)

    def grew(self, path: Path, size: int) -> None:
        """The live file ``path`` took ``size`` more bytes."""
        name = path.name
        if name in self._open:
            self._open[name] += size
            self.live_bytes += size

    def _prune(self, *, reserve: int = 0, files: int = 1) -> None:
        """Delete the oldest finished replays until ``files`` more files and ``reserve``
        more bytes fit within the limits (the live files count, and are never deleted)."""
        if self.keep is None and self.keep_bytes is None:
            return
        found = []
        for entry in os.scandir(self.directory):
            if entry.name.endswith(SUFFIX) and entry.is_file():
                with contextlib.suppress(OSError):
                    stat = entry.stat()
                    found.append((stat.st_mtime, entry.name, stat.st_size))
        found.sort()
        count = len(found)
        finished = sum(size for _, name, size in found if name not in self._open)
        for _, name, size in found:
            over_count = self.keep is not None and count + files > self.keep
            over_bytes = (
                self.keep_bytes is not None
                and finished + self.live_bytes + reserve > self.keep_bytes
            )
            if not (over_count or over_bytes):
                break
            if name in self._open:
                continue
            path = self.directory / name
            try:
                path.unlink()
            except OSError as error:
                log.warning("old replay not deleted", path=name, error=str(error))
                continue
            log.info("old replay deleted", path=name)
            count -= 1
            finished -= size
        self._finished_bytes = finished
        self._ceiling = None


class ReplayWriter:
    """The records of one game; its file is made at the first action (module docstring)."""

    def __init__(self, shelf: ReplayShelf, header: dict[str, Any]) -> None:
        self._shelf = shelf
        self._header: dict[str, Any] | None = header
        self._early: list[str] = []  # records before the first action
        self._file: TextIOWrapper | None = None
        self.path: Path | None = None
        self._name = ""  # the file's name, as the shelf counts it
        self._fd = -1  # the file's descriptor, while it is open
        self.unwritten: list[str] = []
        """Records not yet handed to the operating system (empty: :meth:`flush` has
        nothing to do, which its callers may check first); :meth:`flush` writes them
        with one ``os.write`` (the file object's own buffers are not used after the
        header: they cost a reply more than the write itself)."""
        self._early_bytes = 0
        self.truncated: str | None = None
        """Why the replay stopped before its game did (``None``: it did not)."""

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
        self._name, self._fd = self.path.name, self._file.fileno()
        early, self._early = self._early, []
        self._write("".join(early))

    def _write(self, line: str) -> None:
        if self._file is None:
            if self._header is not None:
                # Before the first action the file does not exist yet: joins and
                # leaves wait here, held to the same cap as the file.
                cap = self._shelf.max_bytes
                if cap is not None and self._early_bytes + len(line) > cap - TRUNCATED_RESERVE:
                    self._early.clear()
                    self._header = None
                    log.warning("replay not recorded", reason="records before the first action")
                    return
                self._early_bytes += len(line)
                self._early.append(line)
            return
        self.unwritten.append(line)
        self._shelf.dirty.add(self)

    def _give_up(self, error: OSError) -> None:
        log.error("replay abandoned", path=self.path and self.path.name, error=str(error))
        file, self._file = self._file, None
        self.unwritten.clear()
        self._shelf.dirty.discard(self)
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
        text = _MOVES[action.direction] if type(action) is Move else action.to_line()
        line = f'{{"round":{round_number},"actions":[[{player},"{text}"]]}}\n'
        if self._file is not None:  # what _write does once the file is made
            self.unwritten.append(line)
            self._shelf.dirty.add(self)
        else:
            self._write(line)

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

    def flush(self) -> None:
        """Hand buffered lines to the operating system (one short, non-blocking write).
        Lines past the replay's limits are not written: a ``truncated`` line is, the
        file is closed, and the game's later records are dropped."""
        unwritten = self.unwritten
        if not unwritten:
            return
        shelf = self._shelf
        shelf.dirty.discard(self)
        if self._file is None:
            return
        data = "".join(unwritten).encode()  # one line: join gives it back as it is
        unwritten.clear()
        size = len(data)
        # ReplayShelf.admit's common case, inline (its first test, on the same figures):
        # one frame fewer on every flush, that is after every round of actions.
        name = self._name
        files = shelf._open
        written = files.get(name)
        live_bytes = shelf.live_bytes
        ceiling = shelf._ceiling
        if (
            written is not None
            and ceiling is not None
            and written + size <= shelf._file_cap
            and live_bytes + size <= ceiling
        ):
            files[name] = written + size
            shelf.live_bytes = live_bytes + size
        else:
            refusal = shelf.admit(name, size)
            if refusal is not None:
                self._truncate(data, refusal)
                return
        try:
            fd = self._fd
            written = os.write(fd, data)
            while written < size:  # a regular file takes it all, but if not
                written += os.write(fd, data[written:])
        except OSError as error:
            self._give_up(error)

    def _truncate(self, data: bytes, why: str) -> None:
        """Write the whole lines of ``data`` that fit, then the ``truncated`` line, and
        stop: the file is closed and the game plays on unrecorded."""
        path, file = self.path, self._file
        assert path is not None and file is not None
        lines = data.splitlines(keepends=True)
        fit = 0
        size = 0
        while fit < len(lines) and self._shelf.refusal(path, size + len(lines[fit])) is None:
            size += len(lines[fit])
            fit += 1
        first_lost = json.loads(lines[fit]) if fit < len(lines) else {}
        round_number = first_lost.get("round", 0) if isinstance(first_lost, dict) else 0
        marker = json.dumps({"round": round_number, "truncated": why}, separators=(",", ":"))
        tail = b"".join(lines[:fit]) + marker.encode() + b"\n"
        self._shelf.grew(path, len(tail))
        self.truncated = why
        self._file = None
        try:
            os.write(file.fileno(), tail)
        except OSError as error:
            log.error("replay abandoned", path=path.name, error=str(error))
        finally:
            with contextlib.suppress(OSError):
                file.close()
            self._shelf.closed(path)
        log.warning("replay truncated", path=path.name, reason=why, round=round_number)

    def close(
        self, round_number: int, reason: str, summary: Mapping[str, Any] | None = None
    ) -> None:
        """Write the last record and close the file (none was made if nobody acted);
        ``summary`` adds to the ``end`` line (who played, how each did)."""
        self._header = None
        self._early.clear()
        ending = {"round": round_number, "end": reason, **(summary or {})}
        self._write(json.dumps(ending, separators=(",", ":")) + "\n")
        self.flush()
        if self._file is not None:
            try:
                self._file.close()
            except OSError as error:
                self._give_up(error)
            self._file = None
        if self.path is not None:
            self._shelf.closed(self.path)
