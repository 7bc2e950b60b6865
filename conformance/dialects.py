"""What the suite knows of each dialect it judges, taken from the shared declarations
of :mod:`protocol.dialects` (the tables our own server speaks by), never restated here.

A client's own dialect (ch739's ``2016ch``) belongs to its era: the client library's
reader names the era from what a server says, and :func:`client_dialect` then looks for
the lines that only that client's dialect writes (ch739's ``RENDERHINT``).

A client dialect whose lines no era's reader knows (mbuckley2000's ``2016mbk``: ``H2``,
``L5`` rows, ``MS``) is read by :class:`DeclaredReader`, which learns each line's form by
rendering through the dialect's declaration the replies each command may be owed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from protocol.declared import DeclaredReader, declared_reader, probe_rows, rendered
from protocol.dialects import DIALECTS as DECLARED
from protocol.dialects import Dialect, dialect_named
from protocol.errors import RemoteProtocolError
from protocol.lines import PlayerView, Unasked
from protocol.replies import Error, Push, Reply

__all__ = [
    "JUDGED",
    "DeclaredReader",
    "client_dialect",
    "declared",
    "declared_reader",
    "pushed_only",
    "refusal",
    "resumes_players",
    "shows_player_at_centre",
    "welcome",
]

JUDGED: Final = ("2013", "2015", "2016", "2016ch", "2016mbk")
"""The dialects the suite judges in their own forms."""


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


def welcome(name: str) -> list[str]:
    """The lines a server of dialect ``name`` says as a client connects, as its declaration
    renders them (mbk's ``Welcome to the dungeon! Mwuahaha``); ``[]`` for most."""
    if name not in DECLARED:
        return []
    dialect = declared(name)
    return [line for reply in dialect.welcome for line in rendered(dialect, reply)]


def pushed_only(name: str, lines: list[str]) -> bool:
    """Whether ``lines`` are, whole, lines dialect ``name`` pushes unasked (mbk's view,
    pushed whenever it changes), as its own reader reads them."""
    reader = declared_reader(name)
    if reader is None:
        return not lines
    for line in lines:
        reply = reader.feed(line, None)
        if reply is not None and (not isinstance(reply, Push) or isinstance(reply, Unasked)):
            return False
    return not reader.in_reply


def _own_lines(name: str) -> frozenset[type[Reply]]:
    """The kinds of line dialect ``name`` writes and no other dialect does."""
    others: set[type[Reply]] = set()
    for other, cls in DECLARED.items():
        if other != name:
            others |= cls.writes()
    return DECLARED[name].writes() - others


def client_dialect(era: str | None, lines: Iterable[str]) -> tuple[str, str] | None:
    """The judged client dialect of ``era`` that one of ``lines`` shows (a line only it
    writes), with that line quoted; ``None`` if none does. With ``era`` ``None`` (no era's
    reader knew the server's lines), only a dialect read by its own
    :class:`DeclaredReader` can show itself: by a view row in its own form (mbk's
    ``L5X.G.X``), which no other dialect writes."""
    candidates = [
        name
        for name, cls in DECLARED.items()
        if name in JUDGED and name != cls.era and (cls.era == era or era is None)
    ]
    for line in lines:
        for name in candidates:
            reader = declared_reader(name)
            if reader is not None:
                if reader.row(line) is not None:
                    return name, f"{line!r}, a view row only {name} writes"
            elif era is not None and any(
                kind.form.read(line) is not None for kind in _own_lines(name)
            ):
                return name, f"{line!r} ({name})"
    return None


RESUMED_BY_ADDRESS: Final = frozenset({"2016mbk"})
"""Dialects whose servers keep one player per address, given back to the address's next
connection as it was left (mbuckley2000's ``Server.findClient`` and ``reconnect``): a
fact of its server that no declaration of ours states, as our own port does not do it."""


def resumes_players(name: str) -> bool:
    """Whether a connection in dialect ``name`` may be given a player of the address's
    earlier connections, gold held and all (mbk): nothing it holds is known to be 0."""
    return name in RESUMED_BY_ADDRESS


def shows_player_at_centre(name: str) -> bool:
    """Whether dialect ``name`` shows the looking player as ``P`` at a view's centre
    (2016, mbk), as its declaration renders a view of floor."""
    probe = probe_rows(5)
    lines = rendered(declared(name), PlayerView(probe))
    centred = probe[2][:2] + "P" + probe[2][3:]
    return any(line.endswith(centred) for line in lines)
