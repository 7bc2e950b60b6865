"""Where replays are kept: one folder, within its limits of files, bytes and rate.

A :class:`ReplayShelf` keeps the folder within
``keep`` files and ``keep_bytes`` bytes (deleting the oldest finished replays first)
and starts at most ``burst`` files at once and ``rate`` a second on average; a game
beyond that rate is played unrecorded, and the log says so. A replay being written
counts too: one file holds at most ``max_bytes`` (its header aside, if the header
alone is larger), and the files being written together at most ``keep_bytes``; the
oldest finished files are deleted to make room as live ones grow. A replay that
reaches either limit gets a ``truncated`` line, one ``replay truncated`` log event,
and nothing more; its game plays on.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from datetime import UTC, datetime
from io import TextIOWrapper
from pathlib import Path
from typing import Any, Protocol

import structlog

from ..ratelimit import TokenBucket
from .format import MAX_REPLAY_BYTES, SUFFIX, TRUNCATED_RESERVE

__all__ = ["Flushes", "ReplayShelf"]

log = structlog.get_logger("server.replay")


class Flushes(Protocol):
    """A replay with records not yet handed to the operating system."""

    def flush(self) -> None: ...


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
        self.dirty: set[Flushes] = set()
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
        It is the server's settle step (what :meth:`server.lobby.lobby.Lobby.settle` does),
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
