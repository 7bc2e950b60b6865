"""Reading what any Dungeon of Doom server says: the replies of every known dialect.

This is how :class:`~protocol.connection.ClientProtocol` reads when it is ``tolerant``
(the client library's way); a strict one reads our own 2013 replies only.

Servers written between 2013 and 2016 answer the same commands in different words
(``GOLD 2``, ``GOLD: 2``, ``GOAL 2``; ``LOOKREPLY``, ``LOOKREPLY:`` or no header at
all; ``FAIL`` or ``FAIL <reason>``), and some say things nobody asked for (a
greeting on connect, ``STARTTURN``, ``SERVERCHANGE``, ``CHANGE`` views with
``RENDERHINT`` lines). :class:`TolerantReader` turns each line into the typed
reply of :mod:`protocol.replies` that it means, so that the client's commands are
written once whatever the dialect; lines of the dialects that have no 2013
equivalent become the :class:`~protocol.replies.Push` subclasses below, which
never answer a command. No I/O.

What a caller may rely on:

* ``feed(line, asking)`` returns a whole reply, or ``None`` while the lines of a
  multi-line one are gathered; ``asking`` is the command at the head of the
  queue (it settles the few lines whose meaning depends on it: a headerless
  ``LOOK`` row, the ``HELLO`` echo, ``null``, a blank line).
* A line no dialect explains is an :class:`Unasked` push, never an error.
* :attr:`TolerantReader.dialect` names the dialect the server has shown so far
  (``"2013"``, ``"2015"``, ``"2016"``, or ``None`` until there is evidence) and
  :attr:`TolerantReader.evidence` quotes the lines that showed it.
"""

from __future__ import annotations

import re
from typing import Final, TypeVar

from .commands import Command, Hello, Look
from .declared import COMPACT_DIALECTS, DeclaredReader, declared_reader
from .dialects import DIALECTS
from .errors import RemoteProtocolError
from .lines import (
    Blank,
    Changed,
    Chat,
    Congratulated,
    Failed,
    FromSender,
    GoalIs,
    GoldLeft,
    Greeted,
    PlayerView,
    Said,
    ServerChanged,
    TreasureChanged,
    TurnStarted,
    Unasked,
    ViewChanged,
)
from .replies import (
    LOOK_SIZE,
    LOOK_SIZES,
    OWN_REPLIES,
    Fail,
    Gold,
    GoldCoins,
    LookReply,
    Reply,
    ReplyParser,
    Success,
    Win,
)

__all__ = [
    "DECLARED_LINES",
    "Blank",
    "Changed",
    "Chat",
    "Congratulated",
    "Failed",
    "FromSender",
    "GoalIs",
    "GoldLeft",
    "Greeted",
    "PlayerView",
    "Said",
    "ServerChanged",
    "TolerantReader",
    "TreasureChanged",
    "TurnStarted",
    "Unasked",
    "ViewChanged",
    "not_your_turn",
]


_R = TypeVar("_R", bound=Reply)


def _read(kind: type[_R], line: str) -> _R | None:
    """The ``kind`` reply ``line`` holds, read with its declared form, or ``None``."""
    values = kind.form.read(line)
    return None if values is None else kind(**values)


_TOTAL_GOLD: Final = re.compile(r"SUCCESS: \+ \d+ Gold\. Total Gold = (\d+)")
_GOLD_COINS_MAP: Final = re.compile(r"SUCCESS, GOLD COINS: \{.*?(\d+)\}")
_GOLD_COLON: Final = re.compile(r"GOLD:\s*(\d+)")
_TOTAL_AFTER: Final = re.compile(r"Total \w+ = -?\d+")
"""The second line of ldjb's 2013 ``SUCCESS:  +1 HP`` (`` Total HP = 4``)."""
_ERAS: Final = ("2013", "2015", "2016")
_TURN_REFUSALS: Final = ("not your turn", "not users turn")
_ROW_GLYPHS: Final = re.compile(r"[^\s]{5}")


def not_your_turn(reply: Reply) -> bool:
    """True for the ``FAIL`` of a server that takes turns, refusing to act out of turn."""
    return isinstance(reply, Failed) and any(words in reply.reason for words in _TURN_REFUSALS)


class TolerantReader:
    """Lines of any known dialect in, typed replies out; see the module docstring."""

    def __init__(self) -> None:
        self._parser = ReplyParser()
        self._rows: list[str] | None = None
        self._rows_are_push = False
        self._blank_may_follow = False
        self._from: str | None = None  # a 2015 FROM line was read: its MESSAGE comes next
        self._total_may_follow = False  # ldjb's "SUCCESS:  +1 HP" has its total next
        self._updated = False  # ldjb3's UPDATE: the answer of a PICKUP comes next
        self._treasure = 0  # the gold ldjb3's TREASUREMOD lines after UPDATE added up to
        # Dialects of lines all their own (mbk's H2, MS, L5 rows), read by their forms.
        self._compact = {name: declared_reader(name) for name in COMPACT_DIALECTS}
        self._compact_rows: DeclaredReader | None = None  # one whose view is being read
        self.dialect: str | None = None
        self.evidence: list[str] = []

    @property
    def in_reply(self) -> bool:
        """True while the lines of a multi-line reply are being gathered."""
        return self._rows is not None or self._parser.in_reply or self._compact_rows is not None

    def _seen(self, dialect: str, what: str) -> None:
        # Later eras share earlier forms (2016 servers take turns too), never the reverse:
        # the latest era with evidence wins.
        if self.dialect is None or _ERAS.index(dialect) > _ERAS.index(self.dialect):
            self.dialect = dialect
            self.evidence.append(f"{what} ({dialect})")

    def feed(self, line: str, asking: Command | None) -> Reply | None:
        if self._rows is not None:
            return self._row(line)
        if self._compact_rows is not None:
            return self._compact_line(self._compact_rows, self._compact_rows.feed(line, asking))
        if self._parser.in_reply:
            reply = self._parser.feed(line)
            self._blank_may_follow = isinstance(reply, LookReply)
            return reply
        if line == "" and self._blank_may_follow:
            self._blank_may_follow = False  # the blank line some servers put after a view
            return None
        self._blank_may_follow = False
        text = line.rstrip()
        if self._total_may_follow:
            self._total_may_follow = False
            if _TOTAL_AFTER.fullmatch(line.strip()):
                return None
        if text == "UPDATE":
            self._updated = True  # ldjb3: a PICKUP's answer follows (TREASUREMOD, SUCCESS: Got)
            return None
        if self._updated:
            self._updated = False
            if (treasure := _read(TreasureChanged, text)) is not None:
                self._treasure += treasure.amount
                return GoldCoins(self._treasure)
        if text.startswith("RENDERHINT"):
            self._seen("2016", repr(line))
            return None  # drawing hints for graphical clients
        if text == "LOOKREPLY":
            return self._parser.feed(text)
        if line == "CHANGE":  # alone (2015); "CHANGE " with a space has a view after it
            self._seen("2015", repr(line))
            return Changed()
        if text in ("LOOKREPLY:", "CHANGE"):
            self._seen("2013" if text == "LOOKREPLY:" else "2016", repr(line))
            self._rows, self._rows_are_push = [], text == "CHANGE"
            return None
        if isinstance(asking, Look) and _ROW_GLYPHS.fullmatch(line):
            self._seen("2016", f"a LOOK answered without a header: {line!r}")
            self._rows, self._rows_are_push = [], False
            return self._row(line)
        sender, self._from = self._from, None
        if sender is not None and (values := Said.form.read(line)) is not None:
            return Said(sender, **values)
        return self._single(line, text, asking)

    def _row(self, line: str) -> Reply | None:
        assert self._rows is not None
        self._rows.append(line)
        # The first row says how many follow: 5, or 7 where a lantern widens the view.
        size = len(self._rows[0]) if len(self._rows[0]) in LOOK_SIZES else LOOK_SIZE
        if len(self._rows) < size:
            return None
        rows, self._rows = tuple(self._rows), None
        self._blank_may_follow = True
        if len({len(row) for row in rows}) != 1:
            raise RemoteProtocolError(f"malformed view: rows {rows!r}")
        if self._rows_are_push:
            return ViewChanged(rows)
        try:
            return PlayerView(rows)
        except ValueError as error:
            raise RemoteProtocolError(f"malformed LOOK reply: {error}") from None

    def _single(self, line: str, text: str, asking: Command | None) -> Reply | None:
        if text == "FAIL" and line != "FAIL":
            return Fail()  # ``FAIL `` with the reason on the next line (2013 networked)
        if isinstance(asking, Hello):
            if text == "null":
                return Failed("null")
            if (greeted := _read(Greeted, line)) is not None:
                return greeted
        try:  # our own protocol first
            reply = self._parser.feed(line)
        except RemoteProtocolError:
            pass
        else:
            if isinstance(reply, Gold):
                if isinstance(asking, Hello):
                    self._seen("2013", f"{line!r} in answer to HELLO")
                else:
                    self._seen("2015", f"{line!r} sent unasked")
            return reply
        # Then the lines our own dialects write for the other eras, read with the same
        # declarations that write them (protocol.dialects).
        for kind, era in DECLARED_LINES:
            read = _read(kind, line)
            if read is None and text != line:
                read = _read(kind, text)
            if read is not None:
                if era is not None:
                    self._seen(era, repr(line))
                if isinstance(read, FromSender):
                    self._from = read.sender
                return read
        return self._elsewhere(line, text, asking)

    def _elsewhere(self, line: str, text: str, asking: Command | None) -> Reply | None:
        """Lines that other servers of the eras sent and our dialects never write."""
        if text.startswith("SUCCESS: Got "):
            self._seen("2013", repr(line))
            return Success()  # ldjb's 2013 item taken: ``SUCCESS: Got Lantern``
        if text.startswith("FAIL: "):
            self._seen("2013", repr(line))
            return Failed(text.removeprefix("FAIL: "))  # ldjb's ``FAIL: <reason>``
        if text == "ENDGAME":
            return Win(text)
        if match := _GOLD_COLON.fullmatch(text):
            self._seen("2016", repr(line))
            return GoldLeft(int(match[1]))
        if match := _TOTAL_GOLD.fullmatch(text):
            self._seen("2013", repr(line))
            return GoldCoins(int(match[1]))
        if match := _GOLD_COINS_MAP.fullmatch(text):
            self._seen("2016", repr(line))
            return GoldCoins(int(match[1]))
        if text.startswith("SUCCESS:"):
            self._seen("2013", repr(line))
            self._total_may_follow = True
            return Success()  # ldjb's 2013 ``SUCCESS:  +1 HP`` and its `` Total HP = 4``
        if (goal := _read(GoalIs, text)) is not None:
            self._seen("2013", repr(line))
            return goal
        return self._compact_elsewhere(line, asking)

    def _compact_elsewhere(self, line: str, asking: Command | None) -> Reply | None:
        """A line of a dialect of lines all its own (mbk's ``H2`` to ``HELLO``, ``MS`` to
        ``MOVE``, ``L5`` rows), read as its declaration writes it; else :class:`Unasked`."""
        for name, reader in self._compact.items():
            if reader is None:
                continue
            reply = reader.feed(line, asking)
            if reply == Unasked(line) and not reader.in_reply:
                continue  # not a line of this dialect
            self._seen(DIALECTS[name].era, f"{line!r}, a line only {name} writes,")
            return self._compact_line(reader, reply)
        return Unasked(line)

    def _compact_line(self, reader: DeclaredReader, reply: Reply | None) -> Reply | None:
        """``reply``, read by ``reader``; its rows, while a view is read, go to it."""
        self._compact_rows = reader if reader.in_reply else None
        return reply


_CONTEXTUAL: Final = frozenset({Greeted, Said, PlayerView, Unasked})
"""Lines whose meaning depends on what came before (the command asked, a ``FROM``
line): the reader takes them where it knows that, never from the line alone."""


def _declared_lines() -> tuple[tuple[type[Reply], str | None], ...]:
    """Every kind of line the dialects write that our own parser does not read, with the
    era that writes it (``None``: more than one does, so it shows no era)."""
    eras: dict[type[Reply], list[str]] = {}
    for name, dialect in DIALECTS.items():
        if name != dialect.era:
            # One client's own dialect (ch739's): its lines are its era's, or read
            # where the reader knows them (RENDERHINT); they show no era of their own.
            continue
        for kind in sorted(dialect.writes(), key=lambda kind: kind.__name__):
            # Lines our own parser reads (Done is a SUCCESS line) come to it first.
            if kind in _CONTEXTUAL or any(kind.form is own.form for own in OWN_REPLIES):
                continue
            eras.setdefault(kind, []).append(name)
    return tuple((kind, names[0] if len(names) == 1 else None) for kind, names in eras.items())


DECLARED_LINES: Final = _declared_lines()
"""The lines of the other eras the reader knows from the dialects' own declarations."""
