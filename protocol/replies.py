"""Replies a server sends, as typed objects: formatting for servers, parsing for clients.

Every reply knows its exact bytes (``reply.to_bytes()``); the 2013 replies are
byte for byte those of RULES §1, each line ending in a single ``LF``. The
:class:`ReplyParser` is the inverse, for clients: it is fed lines and gives back
whole replies, gathering the lines of a multi-line reply (``LOOKREPLY`` and five
rows, ``HELP <n>`` and n lines, ``MAP <rows> <cols>`` and the rows).

Final lines (``WIN``, ``LOSE``, ``BYE``) are the only lines a classic client may
receive without asking: each says why the server is about to close the
connection. ``ERROR`` answers a line that was not a valid command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from .errors import LocalProtocolError, RemoteProtocolError

__all__ = [
    "LOOK_SIZE",
    "Bye",
    "Error",
    "Fail",
    "FinalReply",
    "Gold",
    "GoldCoins",
    "HelpReply",
    "LookReply",
    "Lose",
    "MapReply",
    "Notice",
    "Push",
    "Reply",
    "ReplyParser",
    "Success",
    "Win",
]

LOOK_SIZE: Final = 5


class Reply:
    """Base class of every reply."""

    __slots__ = ()

    def lines(self) -> list[str]:
        raise NotImplementedError

    def to_bytes(self) -> bytes:
        """The reply on the wire: each line followed by ``LF``."""
        return "".join(line + "\n" for line in self.lines()).encode()


def _single_line(text: str) -> str:
    if "\n" in text or "\r" in text:
        raise LocalProtocolError(f"a reply line cannot hold a line break: {text!r}")
    return text


@dataclass(frozen=True, slots=True)
class Gold(Reply):
    """``GOLD <n>``: the answer to ``HELLO``."""

    amount: int

    def lines(self) -> list[str]:
        return [f"GOLD {self.amount}"]


@dataclass(frozen=True, slots=True)
class Success(Reply):
    def lines(self) -> list[str]:
        return ["SUCCESS"]

    def to_bytes(self) -> bytes:
        return b"SUCCESS\n"


@dataclass(frozen=True, slots=True)
class Fail(Reply):
    def lines(self) -> list[str]:
        return ["FAIL"]

    def to_bytes(self) -> bytes:
        return b"FAIL\n"


@dataclass(frozen=True, slots=True)
class GoldCoins(Reply):
    """``SUCCESS, GOLD COINS: <total>``: a ``PICKUP`` that found gold."""

    total: int

    def lines(self) -> list[str]:
        return [f"SUCCESS, GOLD COINS: {self.total}"]


@dataclass(frozen=True, slots=True)
class LookReply(Reply):
    """``LOOKREPLY`` and five rows of five characters."""

    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.rows) != LOOK_SIZE or any(len(row) != LOOK_SIZE for row in self.rows):
            raise LocalProtocolError(f"a look reply is {LOOK_SIZE} rows of {LOOK_SIZE}")

    def lines(self) -> list[str]:
        return ["LOOKREPLY", *self.rows]


@dataclass(frozen=True, slots=True)
class Error(Reply):
    """``ERROR <message>``: the line received was not a valid command here."""

    message: str

    def lines(self) -> list[str]:
        return [_single_line(f"ERROR {self.message}")]


@dataclass(frozen=True, slots=True)
class HelpReply(Reply):
    """Extension: ``HELP <n>`` followed by n lines of text."""

    text: tuple[str, ...]

    def lines(self) -> list[str]:
        return [f"HELP {len(self.text)}", *map(_single_line, self.text)]


@dataclass(frozen=True, slots=True)
class MapReply(Reply):
    """Extension: ``MAP <rows> <cols>`` followed by the rows of the whole map."""

    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.rows or len({len(row) for row in self.rows}) != 1:
            raise LocalProtocolError("a map reply needs rows of one length")

    def lines(self) -> list[str]:
        return [f"MAP {len(self.rows)} {len(self.rows[0])}", *map(_single_line, self.rows)]


class Push(Reply):
    """Base class of lines the server sends on its own, not in answer to a command.

    Only clients that asked for the extended protocol receive them; a client can
    tell them from replies by type alone.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Notice(Push):
    """Extension: ``NOTICE <text>``, something that happened, for clients that opted in."""

    text: str

    def lines(self) -> list[str]:
        return [_single_line(f"NOTICE {self.text}")]


@dataclass(frozen=True, slots=True)
class FinalReply(Reply):
    """A last line before the server closes the connection; ``keyword`` says why."""

    keyword: ClassVar[str]
    text: str

    def lines(self) -> list[str]:
        return [_single_line(f"{self.keyword} {self.text}")]


@dataclass(frozen=True, slots=True)
class Win(FinalReply):
    """``WIN <text>``: the player escaped the dungeon."""

    keyword: ClassVar[str] = "WIN"


@dataclass(frozen=True, slots=True)
class Lose(FinalReply):
    """``LOSE <text>``: the player died, or the game ended without them."""

    keyword: ClassVar[str] = "LOSE"


@dataclass(frozen=True, slots=True)
class Bye(FinalReply):
    """``BYE <text>``: any other reason for closing (quit, shutdown, time-out, error)."""

    keyword: ClassVar[str] = "BYE"


_FINALS: Final = {cls.keyword: cls for cls in (Win, Lose, Bye)}


def _parse_int(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RemoteProtocolError(f"{what} is not an integer: {text!r}") from None


class ReplyParser:
    """Client side: feed lines with :meth:`feed`, collect whole replies.

    ``feed`` returns the reply that the line completes, or ``None`` while a
    multi-line reply is still being gathered. It raises
    :class:`RemoteProtocolError` for a line that is no reply of this protocol.
    """

    def __init__(self) -> None:
        self._pending: list[str] | None = None
        self._expected = 0
        self._kind = ""

    @property
    def in_reply(self) -> bool:
        """True while the lines of a multi-line reply are being gathered."""
        return self._pending is not None

    def feed(self, line: str) -> Reply | None:
        if self._pending is not None:
            self._pending.append(line)
            if len(self._pending) < self._expected:
                return None
            rows, self._pending = tuple(self._pending), None
            return self._finish(rows)
        keyword, _, rest = line.partition(" ")
        if line == "SUCCESS":
            return Success()
        if line == "FAIL":
            return Fail()
        if line == "LOOKREPLY":
            return self._begin("LOOKREPLY", LOOK_SIZE)
        if line.startswith("SUCCESS, GOLD COINS: "):
            return GoldCoins(_parse_int(line.removeprefix("SUCCESS, GOLD COINS: "), "gold"))
        if keyword == "GOLD":
            return Gold(_parse_int(rest, "gold"))
        if keyword == "ERROR":
            return Error(rest)
        if keyword == "NOTICE":
            return Notice(rest)
        if keyword in _FINALS:
            return _FINALS[keyword](rest)
        if keyword == "HELP":
            count = _parse_int(rest, "help line count")
            return self._begin("HELP", count) if count else HelpReply(())
        if keyword == "MAP":
            size = rest.split()
            if len(size) != 2:
                raise RemoteProtocolError(f"malformed MAP header: {line!r}")
            rows = _parse_int(size[0], "map rows")
            _parse_int(size[1], "map columns")
            if rows < 1:
                raise RemoteProtocolError(f"malformed MAP header: {line!r}")
            return self._begin("MAP", rows)
        raise RemoteProtocolError(f"unexpected line from server: {line[:80]!r}")

    def _begin(self, kind: str, count: int) -> None:
        self._kind, self._expected, self._pending = kind, count, []
        return None

    def _finish(self, rows: tuple[str, ...]) -> Reply:
        try:
            if self._kind == "LOOKREPLY":
                return LookReply(rows)
            if self._kind == "MAP":
                return MapReply(rows)
            return HelpReply(rows)
        except LocalProtocolError as error:
            raise RemoteProtocolError(f"malformed {self._kind} reply: {error}") from None
