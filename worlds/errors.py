"""Errors in map files, with the place they were found."""

from __future__ import annotations


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
