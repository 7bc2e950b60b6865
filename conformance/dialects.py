"""What the suite knows of each dialect it judges, taken from the shared declarations
of :mod:`protocol.dialects` (the tables our own server speaks by), never restated here.

A client's own dialect (ch739's ``2016ch``) belongs to its era: the client library's
reader names the era from what a server says, and :func:`client_dialect` then looks for
the lines that only that client's dialect writes (ch739's ``RENDERHINT``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from protocol.dialects import DIALECTS as DECLARED
from protocol.dialects import Dialect, dialect_named
from protocol.errors import RemoteProtocolError
from protocol.replies import Error, Reply

__all__ = ["JUDGED", "client_dialect", "declared", "refusal"]

JUDGED: Final = ("2013", "2015", "2016", "2016ch")
"""The dialects the suite judges in their own forms. mbuckley2000's ``2016mbk`` is not
among them yet: its replies (``H2``, ``L5`` rows, ``MS``) are a protocol of its own that
the checks cannot read."""


def declared(name: str) -> Dialect:
    """The shared declaration of dialect ``name`` (a fresh one: some keep state)."""
    return dialect_named(name)


def refusal(name: str, line: str) -> str | None:
    """The line dialect ``name`` answers ``line`` with when it refuses it (its error in
    that dialect's words, ``FAIL invalid command.``), ``""`` when it refuses it without
    a word, or ``None`` when it takes the line (a command, or a blank line skipped)."""
    dialect = declared(name)
    try:
        dialect.parse(line)
    except RemoteProtocolError as error:
        said = dialect.render(Error(str(error))).decode()
        return said.splitlines()[0] if said else ""
    return None


def _own_lines(name: str) -> frozenset[type[Reply]]:
    """The kinds of line dialect ``name`` writes and no other dialect does."""
    others: set[type[Reply]] = set()
    for other, cls in DECLARED.items():
        if other != name:
            others |= cls.writes()
    return DECLARED[name].writes() - others


def client_dialect(era: str, lines: Iterable[str]) -> tuple[str, str] | None:
    """The judged client dialect of ``era`` that one of ``lines`` shows (a line only it
    writes), with that line quoted; ``None`` if none does."""
    candidates = [
        name
        for name, cls in DECLARED.items()
        if name in JUDGED and name != cls.era and cls.era == era
    ]
    for line in lines:
        for name in candidates:
            if any(kind.form.read(line) is not None for kind in _own_lines(name)):
                return name, f"{line!r} ({name})"
    return None
