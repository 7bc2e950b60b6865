"""Writing one game's replay as it is played (the format: :mod:`server.replay.format`).

Nothing is written until the game's first action: a
game nobody played in (joined and left, or never joined) leaves no file. Lines go
to a buffer that is handed to the operating system (``flush``, a ``write`` into the
page cache, never ``fsync``) after each round, on every join and leave, after every
batch of commands a connection sends *before its replies are written*, and at
least once a second. So a process killed with ``SIGKILL`` loses no action that a
client was answered; a machine that loses power loses what the kernel had not yet
written. A file that cannot be written is logged and given up, never the game.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from io import TextIOWrapper
from pathlib import Path
from typing import Any

import structlog

from worlds.api import Action, PlayerId, PlayerKind

from .format import TRUNCATED_RESERVE, action_text
from .shelf import ReplayShelf

__all__ = ["ReplayWriter"]

log = structlog.get_logger("server.replay")


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
        """One action of a world without rounds: the same record as :meth:`actions`."""
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
        refusal = shelf.admit(self._name, size)
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
        ``summary`` adds to the ``end`` line (``probe``: only probes played)."""
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
