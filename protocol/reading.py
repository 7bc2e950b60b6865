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
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeVar

from .commands import Command, Hello, Look
from .errors import RemoteProtocolError
from .forms import INT, LINE, OPTIONAL_TEXT, TEXT, Field, Form, Rows
from .replies import (
    LOOK_SIZE,
    LOOK_SIZES,
    Fail,
    Gold,
    GoldCoins,
    LookReply,
    Message,
    Push,
    Reply,
    ReplyParser,
    Success,
    Win,
)

__all__ = [
    "Blank",
    "Failed",
    "GoalIs",
    "Greeted",
    "TolerantReader",
    "TreasureChanged",
    "TurnStarted",
    "Unasked",
    "ViewChanged",
    "not_your_turn",
]


@dataclass(frozen=True, slots=True)
class Failed(Fail):
    """``FAIL <reason>`` (2015, 2016) as read: a ``FAIL`` that says why, and writes it."""

    form: ClassVar[Form] = Form("FAIL{reason}", reason=OPTIONAL_TEXT)

    def lines(self) -> list[str]:
        return [self.form.write(self)]

    def to_bytes(self) -> bytes:
        return (self.form.write(self) + "\n").encode()


@dataclass(frozen=True, slots=True)
class Blank(Reply):
    """An empty line where an answer was due (how some 2013 servers refuse a command)."""

    form: ClassVar[Form] = Form("")


@dataclass(frozen=True, slots=True)
class Greeted(Reply):
    """``HELLO <name>``: a server echoing the name it took (2015, 2013 networked, 2016)."""

    form: ClassVar[Form] = Form("HELLO {name}", name=LINE)
    name: str


@dataclass(frozen=True, slots=True)
class GoalIs(Push):
    """``GOAL <n>``: the gold needed to win, as the 2013 networked and 2016 servers say it."""

    form: ClassVar[Form] = Form("GOAL {amount}", amount=INT)
    amount: int


@dataclass(frozen=True, slots=True)
class TurnStarted(Push):
    """``STARTTURN`` (2015, 2016): the player may act now.

    Our own battle world says how many actions it may take
    (:class:`~protocol.replies.TurnBegins`, ``STARTTURN <n>``).
    """

    form: ClassVar[Form] = Form("STARTTURN")


@dataclass(frozen=True, slots=True)
class TreasureChanged(Push):
    """``TREASUREMOD <n>``: the player's gold changed by n."""

    form: ClassVar[Form] = Form("TREASUREMOD {amount}", amount=INT)
    amount: int


@dataclass(frozen=True, slots=True)
class ViewChanged(Push):
    """``CHANGE`` and five rows (2016): a new view, pushed."""

    form: ClassVar[Form] = Form("CHANGE ")
    body: ClassVar[Rows] = Rows(LINE, "rows")
    rows: tuple[str, ...]

    @classmethod
    def count_of(cls, header: dict[str, Any]) -> int | None:
        return None  # the first row says


@dataclass(frozen=True, slots=True)
class Changed(Push):
    """``CHANGE`` alone (2015): someone moved within sight; a client may ``LOOK`` again.
    Not ``CHANGE `` with a space, which a view of five rows follows (:class:`ViewChanged`)."""

    form: ClassVar[Form] = Form("CHANGE")


@dataclass(frozen=True, slots=True)
class ServerChanged(Push):
    """``SERVERCHANGE`` (2016): the map changed; its GUI sends ``LOOK`` again."""

    form: ClassVar[Form] = Form("SERVERCHANGE")


@dataclass(frozen=True, slots=True)
class FromSender(Push):
    """``FROM <sender>`` (2015): the ``MESSAGE`` line after it is ``sender``'s
    (``SERVER``: the server's own words)."""

    form: ClassVar[Form] = Form("FROM {sender}", sender=LINE)
    sender: str


@dataclass(frozen=True, slots=True)
class Said(Message):
    """``MESSAGE <text>`` after a ``FROM <sender>`` line (2015): ``sender``'s text, whole (it
    may hold ``": "``, since the sender is named on the line before, not on this one)."""

    form: ClassVar[Form] = Form("MESSAGE {text}", text=TEXT)

    def __post_init__(self) -> None:
        self.form.check(self)

    def lines(self) -> list[str]:
        return [self.form.write(self)]


@dataclass(frozen=True, slots=True)
class GoldLeft(Gold):
    """``GOLD: <n>`` (2016): the answer to ``HELLO``, the gold still needed (its bot walks
    to the exit at 0)."""

    form: ClassVar[Form] = Form("GOLD: {amount}", amount=INT)


@dataclass(frozen=True, slots=True)
class Chat(Message):
    """``CHAT <sender>: <text>`` (2016): chat."""

    form: ClassVar[Form] = Form(
        "CHAT {sender}: {text}", sender=Field(r"(?:(?!: )[^\r\n])*"), text=TEXT
    )

    def __post_init__(self) -> None:
        self.form.check(self)

    def lines(self) -> list[str]:
        return [self.form.write(self)]


@dataclass(frozen=True, slots=True)
class PlayerView(LookReply):
    """A ``LOOK`` answered without a header, the player shown as ``P`` in the centre (2016)."""

    def lines(self) -> list[str]:
        return list(self.rows)

    def to_bytes(self) -> bytes:
        return ("\n".join(self.rows) + "\n").encode()


@dataclass(frozen=True, slots=True)
class Congratulated(Win):
    """``Congratulations<text>`` (2016): the first line of lib's words to a winner."""

    form: ClassVar[Form] = Form("Congratulations{text}", text=TEXT)


@dataclass(frozen=True, slots=True)
class Unasked(Push):
    """A line no command asked for and no dialect explains (a greeting, a reason, chatter)."""

    form: ClassVar[Form] = Form("{line}", line=TEXT)
    line: str


_R = TypeVar("_R", bound=Reply)


def _read(kind: type[_R], line: str) -> _R | None:
    """The ``kind`` reply ``line`` holds, read with its declared form, or ``None``."""
    values = kind.form.read(line)
    return None if values is None else kind(**values)


_TOTAL_GOLD: Final = re.compile(r"SUCCESS: \+ \d+ Gold\. Total Gold = (\d+)")
_GOLD_COINS_MAP: Final = re.compile(r"SUCCESS, GOLD COINS: \{.*?(\d+)\}")
_GOLD_COLON: Final = re.compile(r"GOLD:\s*(\d+)")
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
        self.dialect: str | None = None
        self.evidence: list[str] = []

    @property
    def in_reply(self) -> bool:
        """True while the lines of a multi-line reply are being gathered."""
        return self._rows is not None or self._parser.in_reply

    def _seen(self, dialect: str, what: str) -> None:
        # Later eras share earlier forms (2016 servers take turns too), never the reverse:
        # the latest era with evidence wins.
        if self.dialect is None or _ERAS.index(dialect) > _ERAS.index(self.dialect):
            self.dialect = dialect
            self.evidence.append(f"{what} ({dialect})")

    def feed(self, line: str, asking: Command | None) -> Reply | None:
        if self._rows is not None:
            return self._row(line)
        if self._parser.in_reply:
            reply = self._parser.feed(line)
            self._blank_may_follow = isinstance(reply, LookReply)
            return reply
        if line == "" and self._blank_may_follow:
            self._blank_may_follow = False  # the blank line some servers put after a view
            return None
        self._blank_may_follow = False
        text = line.rstrip()
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
        if text == "STARTTURN":
            self._seen("2015", repr(line))
            return TurnStarted()
        if text == "ENDGAME":
            return Win(text)
        if text.startswith("Congratulations") and (won := _read(Congratulated, line)):
            return won
        if text == "SERVERCHANGE":
            self._seen("2016", repr(line))
            return ServerChanged()
        if (sender_line := _read(FromSender, line)) is not None:
            self._seen("2015", repr(line))
            self._from = sender_line.sender
            return sender_line
        if (chat := _read(Chat, line)) is not None:
            self._seen("2016", repr(line))
            return chat
        if text == "UPDATE":
            return Success()
        if text == "FAIL" and line != "FAIL":
            return Fail()  # ``FAIL `` with the reason on the next line (2013 networked)
        if text.startswith("SUCCESS: Got "):
            self._seen("2013", repr(line))
            return Success()  # ldjb's 2013 item taken: ``SUCCESS: Got Lantern``
        if text.startswith("FAIL: "):
            self._seen("2013", repr(line))
            return Failed(text.removeprefix("FAIL: "))  # ldjb's ``FAIL: <reason>``
        if text.startswith("FAIL ") and (failed := _read(Failed, line)) is not None:
            self._seen("2015", repr(line))
            return failed
        if (left := _read(GoldLeft, line)) is not None or (match := _GOLD_COLON.fullmatch(text)):
            self._seen("2016", repr(line))
            return left if left is not None else GoldLeft(int(match[1]))  # type: ignore[index]
        if match := _TOTAL_GOLD.fullmatch(text):
            self._seen("2013", repr(line))
            return GoldCoins(int(match[1]))
        if match := _GOLD_COINS_MAP.fullmatch(text):
            self._seen("2016", repr(line))
            return GoldCoins(int(match[1]))
        if (goal := _read(GoalIs, text)) is not None:
            self._seen("2013", repr(line))
            return goal
        if (treasure := _read(TreasureChanged, text)) is not None:
            self._seen("2015", repr(line))
            return treasure
        if isinstance(asking, Hello):
            if text == "null":
                return Failed("null")
            if (greeted := _read(Greeted, line)) is not None:
                return greeted
        if line == "":
            return Blank()
        try:
            reply = self._parser.feed(line)
        except RemoteProtocolError:
            return Unasked(line)
        if isinstance(reply, Gold):
            if isinstance(asking, Hello):
                self._seen("2013", f"{line!r} in answer to HELLO")
            else:
                self._seen("2015", f"{line!r} sent unasked")
        return reply
