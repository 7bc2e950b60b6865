"""The lines of the other eras' dialects, each a reply with its declared form.

Servers of 2015 and 2016 say some things in lines of their own (``FAIL <reason>``,
``GOLD: n``, ``STARTTURN``, ``FROM``/``MESSAGE`` chat...). Each is a reply class here
with its :class:`~protocol.forms.Form`, so that the same declaration writes it (the
server's dialects, :mod:`protocol.dialects`) and reads it (the client's
:class:`~protocol.reading.TolerantReader`). Lines of the dialects that have no 2013
equivalent are :class:`~protocol.replies.Push` subclasses, which never answer a command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .forms import INT, LINE, OPTIONAL_TEXT, TEXT, WORD, Field, Form, Rows
from .replies import Fail, Gold, LookReply, Message, Push, Reply, Win

__all__ = [
    "Blank",
    "Changed",
    "Chat",
    "Compact",
    "Congratulated",
    "Failed",
    "FromSender",
    "GoalIs",
    "GoldLeft",
    "Greeted",
    "HintsEnd",
    "PlayerView",
    "RenderHint",
    "Said",
    "ServerChanged",
    "TreasureChanged",
    "TurnStarted",
    "Unasked",
    "ViewChanged",
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
class RenderHint(Push):
    """``RENDERHINT <col> <row> TILETYPE <tile>`` (ch739, 2016): what lies under one square
    of the view just sent (``#``, ``E`` or ``.``), for a graphical client to draw."""

    form: ClassVar[Form] = Form(
        "RENDERHINT {col} {row} TILETYPE {tile}", col=INT, row=INT, tile=WORD
    )
    col: int
    row: int
    tile: str


@dataclass(frozen=True, slots=True)
class HintsEnd(Push):
    """``RENDERHINT END`` (ch739, 2016): the last line of a view and its hints."""

    form: ClassVar[Form] = Form("RENDERHINT END")


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


@dataclass(frozen=True, slots=True)
class Compact(Unasked):
    """A line of mbuckley2000's private protocol (``H2``, ``MS``, ``PF``, ``L5X..#X``):
    our clients do not speak it, and read its lines as unasked ones."""
