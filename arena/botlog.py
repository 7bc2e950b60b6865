"""What a bot wrote in one game (its standard output and error, interleaved as written),
kept on disk within a bound: the bot can fill no disk through it and never blocks.

A log keeps at most ``limit`` bytes of the bot's output: its first half as written, and
of the rest only the last half, after a line that says how much was left out. The last
lines the bot wrote (what a crash says) are always kept, and :meth:`BotLog.last_lines`
gives them for a report.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Final

import trio

from server.replay.reader import log_name

__all__ = ["BotLog", "beside_replay", "keep_output"]

RECENT: Final = 4096
"""Bytes of the newest output kept in memory for :meth:`BotLog.last_lines`."""


class BotLog:
    """One bot's output in one game, written to ``path`` within ``limit`` bytes."""

    def __init__(self, path: Path, limit: int) -> None:
        self.path = path
        self.head_room = limit - limit // 2
        """Bytes still to be written as they come."""
        self.tail_limit = limit // 2
        self.tail = bytearray()
        """Output past the head, its last ``tail_limit`` bytes."""
        self.left_out = 0
        self.written = 0
        """Bytes the bot wrote in all."""
        self.recent = bytearray()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] | None = path.open("wb")

    def write(self, data: bytes) -> None:
        self.written += len(data)
        self.recent += data
        del self.recent[:-RECENT]
        if self.head_room > 0 and self._file is not None:
            head, data = data[: self.head_room], data[self.head_room :]
            self._file.write(head)
            self.head_room -= len(head)
        if data:
            self.tail += data
            extra = len(self.tail) - self.tail_limit
            if extra > 0:
                del self.tail[:extra]
                self.left_out += extra

    def note(self, text: str) -> None:
        """A line of the arena's own in the log (why it cut the bot off, say)."""
        if self._file is not None:
            self.write(f"\n[dod-arena: {text}]\n".encode())

    def close(self) -> None:
        """Write what is kept of the tail and close the file (again: nothing)."""
        if self._file is None:
            return
        with self._file:
            if self.left_out:
                self._file.write(
                    f"\n[dod-arena: {self.left_out} bytes of this bot's output left out here; "
                    f"the log keeps its first and last {self.tail_limit} bytes]\n".encode()
                )
            self._file.write(bytes(self.tail))
        self._file = None

    def last_lines(self, count: int = 5, width: int = 200) -> list[str]:
        """The last ``count`` lines with something in them, each cut at ``width``."""
        lines = [line.rstrip() for line in bytes(self.recent).decode(errors="replace").splitlines()]
        return [line[:width] for line in lines if line.strip()][-count:]


async def keep_output(stream: trio.abc.ReceiveStream, log: BotLog, done: trio.Event) -> None:
    """Copy ``stream`` into ``log`` until it ends (or this is cancelled), then close it
    and set ``done``."""
    try:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            async for chunk in stream:
                log.write(bytes(chunk))
    finally:
        log.close()
        done.set()


def beside_replay(logs: Mapping[str, Path], replay: Path) -> dict[str, Path]:
    """Move each bot's log (by name) beside its game's replay, as ``<replay's name
    without .jsonl>.<bot>.log``, where the web page's replay view finds them; the logs'
    new paths (a log that cannot be moved stays where it was)."""
    moved = {}
    for name, path in logs.items():
        target = replay.with_name(log_name(replay.name, name))
        try:
            os.replace(path, target)
        except OSError:
            moved[name] = path
            continue
        moved[name] = target
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # (the game's folder of logs, once empty)
    return moved
