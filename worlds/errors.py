"""Errors in map files, with the place they were found."""

from __future__ import annotations

from pathlib import Path


class MapError(Exception):
    """A map that cannot be used, with where and why.

    ``str(error)`` reads ``file:line:column: reason`` (the way compilers report),
    leaving out the line and column when the fault has no single place, such as
    a map with no exit.
    """

    def __init__(
        self, source: str, reason: str, line: int | None = None, column: int | None = None
    ) -> None:
        self.source = source
        self.reason = reason
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.reason}"


def read_text(path: str | Path) -> str:
    """The text of a map file, or a :class:`MapError` that says why it cannot be had.

    Every world reads its files through here, so an unreadable file and bytes that
    are not UTF-8 (reported at their line and column) read the same in every world.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise MapError(str(path), f"cannot read the file: {error.strerror}") from None
    return decode_text(data, str(path))


def decode_text(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text, or a :class:`MapError` at the place of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start]
        line = before.count(b"\n") + 1
        column = error.start - (before.rfind(b"\n") + 1) + 1
        raise MapError(source, "bytes that are not UTF-8 text", line, column) from None
