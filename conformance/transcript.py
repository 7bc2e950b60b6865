"""The bytes of a check's exchange with the server, kept for the reports.

A :class:`Transcript` belongs to one check: every session of the check records into it
what it connected, sent, received and closed, each with the time since the check began.
What it keeps is bounded whatever the server sends: the first :data:`HEAD` bytes and the
last :data:`TAIL` bytes of the exchange, with one ``left out`` entry saying how many
bytes between them were dropped. The end is where a check is decided, the beginning
shows how the conversation began.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Final

from .results import Event, Exchanged

__all__ = ["HEAD", "TAIL", "Transcript"]

HEAD: Final = 4096
"""Bytes kept from the beginning of an exchange."""
TAIL: Final = 16384
"""Bytes kept from its end."""


class Transcript:
    """One check's exchange, bounded; see the module docstring."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._started = clock()
        self._head: list[Exchanged] = []
        self._head_bytes = 0
        self._tail: deque[Exchanged] = deque()
        self._tail_bytes = 0
        self._left_out = 0

    def record(self, connection: str, event: Event, data: bytes = b"") -> None:
        """Note ``event`` on ``connection`` now, with the bytes it carried."""
        entry = Exchanged(round(self._clock() - self._started, 3), connection, event, data)
        if not self._tail and self._head_bytes + len(data) <= HEAD:
            self._head.append(entry)
            self._head_bytes += len(data)
            return
        if len(data) > TAIL:
            self._left_out += len(data) - TAIL
            entry = Exchanged(entry.at, connection, event, data[-TAIL:])
        self._tail.append(entry)
        self._tail_bytes += len(entry.data)
        while self._tail_bytes > TAIL:
            dropped = self._tail.popleft()
            self._tail_bytes -= len(dropped.data)
            self._left_out += len(dropped.data)

    def entries(self) -> tuple[Exchanged, ...]:
        """What was kept, in order; a ``left out`` entry stands where bytes were dropped."""
        if not self._left_out:
            return (*self._head, *self._tail)
        at = self._tail[0].at if self._tail else self._head[-1].at
        gap = Exchanged(at, "", Event.LEFT_OUT, f"{self._left_out} bytes".encode())
        return (*self._head, gap, *self._tail)


def exchange_lines(entries: tuple[Exchanged, ...]) -> list[str]:
    """The exchange as text, one event a line: the time since the check began, the
    connection, what happened, and the bytes as a Python literal (so every byte shows,
    ``\\r`` and ``\\x00`` among them)."""
    width = max((len(entry.connection) for entry in entries), default=0)
    lines = []
    for entry in entries:
        data = entry.data.decode() if entry.event is Event.LEFT_OUT else repr(entry.data)
        shown = "" if not entry.data and entry.event is not Event.RECEIVED else f"  {data}"
        lines.append(f"{entry.at:7.3f} s  {entry.connection:<{width}}  {entry.event.value}{shown}")
    return lines
