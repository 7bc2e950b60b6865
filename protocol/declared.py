"""Reading a dialect whose lines are all its own, by the forms its declaration writes them.

mbuckley2000's ``2016mbk`` writes no line of an era (``H2``, ``MS``, ``PF``, ``PS3``,
``L5X.#.X`` rows): :class:`DeclaredReader` learns each line's form by rendering, through
the dialect's own declaration (:mod:`protocol.dialects`), the replies each command may be
owed, so nothing of it is restated here. The client library's tolerant reader
(:mod:`protocol.reading`) reads such lines with it, and so does the conformance suite.
No I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from .commands import Command, Hello, Look, Move, Pickup
from .dialects import DIALECTS, Dialect, dialect_named
from .direction import Direction
from .lines import Compact, PlayerView, Unasked, ViewChanged
from .replies import LOOK_SIZES, Fail, Gold, GoldCoins, Reply, Success

__all__ = ["COMPACT_DIALECTS", "DeclaredReader", "declared_reader", "probe_rows", "rendered"]


_PROBE: Final = 987654321
"""A number no reply of a game says, rendered to find where a line says a number."""


def probe_rows(size: int) -> tuple[str, ...]:
    """A view of ``size`` rows of floor, corners hidden, to render and read back."""
    edge = "X" + "." * (size - 2) + "X"
    return (edge, *(("." * size,) * (size - 2)), edge)


def rendered(dialect: Dialect, reply: Reply) -> list[str]:
    """The lines ``dialect`` writes ``reply`` in."""
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
        dialect = dialect_named(name)
        self._rows_by_prefix: dict[str, int] = {}
        for size in sorted(LOOK_SIZES):
            for line in rendered(dialect, PlayerView(probe_rows(size))):
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
                for line in rendered(dialect, reply)[:1]:
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
    (mbk's), else ``None`` (an era's lines: the tolerant reader reads them)."""
    writes = DIALECTS[name].writes() if name in DIALECTS else frozenset()
    own = {kind for kind in writes if issubclass(kind, Compact)}
    return DeclaredReader(name) if own else None


COMPACT_DIALECTS: Final = tuple(name for name in DIALECTS if declared_reader(name) is not None)
"""The dialects whose lines are all their own (``2016mbk``), read by a :class:`DeclaredReader`."""
