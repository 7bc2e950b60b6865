"""The journal: finished games kept on local disk until the store has them.

A game's record is appended to the journal the moment the game ends, before any
reply about that end is written to a client, so a server killed a second later
(``kill -9``, a crash, an out-of-memory kill) loses no game it told its players had
ended: the next server to start with the same journal folder writes it to the store.

What a caller may rely on:

* :meth:`Journal.append` is one ``write`` of one line (a few hundred bytes) into the
  page cache: cheap enough for the event loop, and what was appended survives the
  process (not a power cut: see docs/records.md for what a crash may lose).
* The journal is a folder of segment files, ``<owner>-<n>.jsonl``. A server appends
  to one segment at a time; :meth:`Journal.seal` starts a fresh one, and a sealed
  segment is deleted once every record in it was written (:meth:`Journal.written`).
  Each segment is locked (``flock``) by the server that owns it, so several servers
  may share a folder: :meth:`Journal.take_over` adopts only the segments of servers
  that are gone, and two servers never adopt the same one.
* A record is written to the store at least once; the store skips a game it has
  (ids are unique), so a segment adopted after its records were stored costs nothing.
* A line that cannot be read (the last one, cut short by the kill) is skipped and
  logged; anything that fails here is logged and never stops a game.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import structlog

from .model import GameRecord, PlayerResult

__all__ = ["Journal", "Segment", "from_json", "to_json"]

SUFFIX: Final = ".jsonl"
log = structlog.get_logger("dungeon_of_doom.records.journal")


def to_json(record: GameRecord) -> dict[str, Any]:
    """``record`` as plain JSON data (:func:`from_json` reads it back)."""
    data = dataclasses.asdict(record)
    data["started"] = record.started.isoformat()
    data["ended"] = record.ended.isoformat()
    return data


def from_json(data: dict[str, Any]) -> GameRecord:
    """The record :func:`to_json` made; raises ``KeyError``, ``TypeError`` or
    ``ValueError`` for anything else."""
    fields = dict(data)
    fields["started"] = datetime.fromisoformat(fields["started"])
    fields["ended"] = datetime.fromisoformat(fields["ended"])
    fields["players"] = tuple(PlayerResult(**player) for player in fields["players"])
    return GameRecord(**fields)


@dataclass(eq=False, slots=True)
class Segment:
    """One journal file, locked by this process while it is open."""

    path: Path
    fd: int
    waiting: int = 0
    """Records in it that the store does not have yet."""
    sealed: bool = False
    """Whether no more records go into it (it is deleted once ``waiting`` is 0)."""
    ids: set[str] = field(default_factory=set)


class Journal:
    """One server's use of a journal folder; see the module docstring. Its methods
    are called from one thread at a time (the event loop, or the writer's thread
    for :meth:`take_over`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.owner = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._count = 0
        self._current: Segment | None = None
        self._open_segments: set[Segment] = set()  # whose descriptors (and locks) we hold

    def take_over(self) -> list[tuple[GameRecord, Segment]]:
        """The records in segments no running server owns, each with its segment (now
        this server's: it is deleted once they are written). Blocking: call it off the
        event loop, before the first :meth:`append`."""
        self.folder.mkdir(parents=True, exist_ok=True)
        found: list[tuple[GameRecord, Segment]] = []
        for path in sorted(self.folder.glob(f"*{SUFFIX}")):
            segment = self._adopt(path)
            if segment is None:
                continue
            records = self._read(segment)
            if not records:
                self._delete(segment)
                continue
            segment.waiting = len(records)
            found.extend((record, segment) for record in records)
        if found:
            log.warning("unwritten games found in the journal", games=len(found))
        return found

    def _adopt(self, path: Path) -> Segment | None:
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND)
        except OSError:
            return None  # gone meanwhile (another server took and finished it)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None  # a running server's
        if not path.exists():  # deleted between our open and our lock: done by another
            os.close(fd)
            return None
        segment = Segment(path, fd, sealed=True)
        self._open_segments.add(segment)
        return segment

    def _read(self, segment: Segment) -> list[GameRecord]:
        with os.fdopen(os.dup(segment.fd), "rb") as file:
            file.seek(0)
            data = file.read()
        records = []
        for number, line in enumerate(data.splitlines(), 1):
            try:
                record = from_json(json.loads(line))
            except (ValueError, KeyError, TypeError) as error:
                log.error(
                    "journal line not read",
                    path=segment.path.name,
                    line=number,
                    error=f"{type(error).__name__}: {error}",
                )
                continue
            if record.id not in segment.ids:
                segment.ids.add(record.id)
                records.append(record)
        return records

    def append(self, record: GameRecord) -> Segment | None:
        """Keep ``record`` in the current segment; ``None`` (logged) if it could not be."""
        line = (json.dumps(to_json(record), separators=(",", ":")) + "\n").encode()
        try:
            segment = self._current
            if segment is None:
                segment = self._current = self._open()
            written = os.write(segment.fd, line)
            if written != len(line):
                raise OSError(f"only {written} of {len(line)} bytes written")
        except OSError as error:
            log.error("record not journaled", record=record.id, error=str(error))
            return None
        segment.waiting += 1
        return segment

    def _open(self) -> Segment:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._count += 1
        path = self.folder / f"{self.owner}-{self._count}{SUFFIX}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        segment = Segment(path, fd)
        self._open_segments.add(segment)
        return segment

    def seal(self) -> None:
        """New records go to a fresh segment (the current one is deleted once written)."""
        segment, self._current = self._current, None
        if segment is not None:
            segment.sealed = True
            if not segment.waiting:
                self._delete(segment)

    def written(self, segment: Segment) -> None:
        """One record of ``segment`` is in the store."""
        segment.waiting -= 1
        if segment.sealed and segment.waiting <= 0:
            self._delete(segment)

    @property
    def waiting(self) -> int:
        """Records in this server's segments that the store does not have yet."""
        return sum(segment.waiting for segment in self._open_segments)

    def close(self) -> None:
        """Let go of every segment: those holding records the store does not have stay
        for the next server to start; the others are deleted."""
        self._current = None
        for segment in list(self._open_segments):
            if segment.waiting > 0:
                self._open_segments.discard(segment)
                with contextlib.suppress(OSError):
                    os.close(segment.fd)
            else:
                self._delete(segment)

    def _delete(self, segment: Segment) -> None:
        # Deleted while still locked, so that no starting server adopts it meanwhile.
        self._open_segments.discard(segment)
        with contextlib.suppress(OSError):
            segment.path.unlink()
        with contextlib.suppress(OSError):
            os.close(segment.fd)
