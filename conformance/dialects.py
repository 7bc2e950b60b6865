"""What the suite knows of each dialect it judges, taken from the shared declarations
of :mod:`protocol.dialects` (the tables our own server speaks by), never restated here.

A client's own dialect (ch739's ``2016ch``) belongs to its era: the client library's
reader names the era from what a server says, and :func:`client_dialect` then looks for
the lines that only that client's dialect writes (ch739's ``RENDERHINT``).

A client dialect whose lines no era's reader knows (mbuckley2000's ``2016mbk``: ``H2``,
``L5`` rows, ``MS``) is read by :class:`DeclaredReader`, which learns each line's form by
rendering through the dialect's declaration the replies each command may be owed."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final

from protocol.commands import Command, Hello, Look, Move, Pickup
from protocol.dialects import DIALECTS as DECLARED
from protocol.dialects import Dialect, dialect_named
from protocol.direction import Direction
from protocol.errors import RemoteProtocolError
from protocol.lines import Compact, PlayerView, Unasked, ViewChanged
from protocol.replies import LOOK_SIZES, Error, Fail, Gold, GoldCoins, Push, Reply, Success

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
    return [line for reply in dialect.welcome for line in _lines(dialect, reply)]


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


_PROBE: Final = 987654321
"""A number no reply of a game says, rendered to find where a line says a number."""


def _probe_rows(size: int) -> tuple[str, ...]:
    """A view of ``size`` rows of floor, corners hidden, to render and read back."""
    edge = "X" + "." * (size - 2) + "X"
    return (edge, *(("." * size,) * (size - 2)), edge)


def _lines(dialect: Dialect, reply: Reply) -> list[str]:
    return dialect.render(reply).decode().splitlines()


class DeclaredReader:
    """Reads the lines of a client dialect that writes only lines of its own
    (:class:`~protocol.lines.Compact`: mbk's ``H2``, ``MS``, ``L5`` rows), by their forms
    as the dialect's declaration renders them, never restated here.

    ``feed(line, asking)`` answers as :class:`~protocol.reading.TolerantReader` does: a
    whole reply, or ``None`` while a view's rows are gathered. A line is an answer only
    if it is one the command ``asking`` may be owed (``MS`` to a ``MOVE``, ``PS<n>`` to a
    ``PICKUP``); a view is the answer only to ``LOOK``, and every other view is pushed
    (:class:`~protocol.lines.ViewChanged`). The dialect pushes the view whenever it
    changes (:attr:`~protocol.dialects.Dialect.pushes_view`), in the same form as a
    ``LOOK`` answer: a session tells them apart by what precedes the ``LOOK`` (see
    :meth:`conformance.session.Session.send_command`). Lines it does not know are
    :class:`~protocol.lines.Unasked`."""

    def __init__(self, name: str) -> None:
        dialect = declared(name)
        self._rows_by_prefix: dict[str, int] = {}
        for size in sorted(LOOK_SIZES):
            for line in _lines(dialect, PlayerView(_probe_rows(size))):
                # Each row in the dialect's own form: a prefix (mbk's "L5"), the row.
                self._rows_by_prefix[line[: len(line) - size]] = size
        self._answers: list[tuple[type[Command], re.Pattern[str], Callable[[int], Reply]]] = []
        for command, replies in (
            (Hello(), (Gold(_PROBE, held=0),)),
            (Move(Direction.N), (Success(), Fail())),
            (Pickup(), (GoldCoins(_PROBE), Fail())),
        ):
            for reply in replies:
                dialect.heard(command)
                for line in _lines(dialect, reply)[:1]:
                    # Signed: mbk's own server says 'H-1' once its player holds more
                    # than the goal, where ours says 0.
                    pattern = re.compile(re.escape(line).replace(str(_PROBE), r"(-?\d+)"))
                    self._answers.append((type(command), pattern, _maker(reply)))
        self._rows: list[str] | None = None
        self._rows_answer = False

    @property
    def in_reply(self) -> bool:
        """True while the rows of a view are being gathered."""
        return self._rows is not None

    def row(self, line: str) -> str | None:
        """The row of a view that ``line`` holds in the dialect's form, or ``None``."""
        for prefix, size in self._rows_by_prefix.items():
            if line.startswith(prefix) and len(line) == len(prefix) + size:
                return line[len(prefix) :]
        return None

    def feed(self, line: str, asking: Command | None) -> Reply | None:
        row = self.row(line)
        if row is None:
            self._rows = None  # a view cut short: what follows is read afresh
            reply = self._answer(line, asking)
            return Unasked(line) if reply is None else reply
        if self._rows is None:
            self._rows = []
            self._rows_answer = isinstance(asking, Look)
        self._rows.append(row)
        if len(self._rows) < len(self._rows[0]):
            return None
        rows, self._rows = tuple(self._rows), None
        return PlayerView(rows) if self._rows_answer else ViewChanged(rows)

    def unfinished(self, lines: list[str]) -> bool:
        """Whether ``lines`` end inside a view: fewer of its rows than the first says."""
        count = 0
        for line in reversed(lines):
            if self.row(line) is None:
                break
            count += 1
        first = self.row(lines[-count]) if count else None
        return first is not None and count % len(first) != 0

    def rows(self, lines: list[str]) -> list[str]:
        """The rows of the views among ``lines``, in the dialect's form read back."""
        return [row for line in lines if (row := self.row(line)) is not None]

    def succeeded(self, lines: list[str], asking: Command) -> bool:
        """Whether one of ``lines`` is the answer that says ``asking`` succeeded."""
        return any(isinstance(self._answer(line, asking), (Success, GoldCoins)) for line in lines)

    def _answer(self, line: str, asking: Command | None) -> Reply | None:
        """The reply ``line`` is if it is one that ``asking`` may be owed."""
        for kind, pattern, make in self._answers:
            if isinstance(asking, kind) and (match := pattern.fullmatch(line)):
                return make(int(match[1]) if pattern.groups else 0)
        return None


def _maker(reply: Reply) -> Callable[[int], Reply]:
    """The reply of ``reply``'s kind with the number a line said in place of the probe."""
    if isinstance(reply, Gold):
        return lambda amount: Gold(amount)
    if isinstance(reply, GoldCoins):
        return lambda total: GoldCoins(total)
    return lambda _: reply


def declared_reader(name: str) -> DeclaredReader | None:
    """A :class:`DeclaredReader` for dialect ``name`` if it writes only lines of its own
    (mbk's), else ``None`` (the client library's tolerant reader reads it)."""
    writes = DECLARED[name].writes() if name in DECLARED else frozenset()
    own = {kind for kind in writes if issubclass(kind, Compact)}
    return DeclaredReader(name) if own else None


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
    probe = _probe_rows(5)
    rendered = _lines(declared(name), PlayerView(probe))
    centred = probe[2][:2] + "P" + probe[2][3:]
    return any(line.endswith(centred) for line in rendered)
