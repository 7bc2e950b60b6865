"""Both ends of a conversation as sans-IO state machines.

:class:`ServerProtocol` is fed the bytes a client sent and yields parsed commands;
it turns replies into bytes. :class:`ClientProtocol` is the mirror image. Neither
touches a socket: the server, the client library, the bots and the conformance
suite each move the bytes themselves, and all of them share this code.
"""

from __future__ import annotations

from collections.abc import Callable

from .commands import CANONICAL_LINES, Command
from .dialects import DEFAULT_DIALECT, Dialect, dialect_named
from .errors import RemoteProtocolError
from .framing import DEFAULT_MAX_LINE_LENGTH, END_OF_INPUT, EndOfInput, LineFramer, NeedData
from .replies import Reply, ReplyParser

__all__ = ["ClientProtocol", "ServerProtocol"]

_WHOLE_LINES: dict[type[Dialect], dict[bytes, Command]] = {}


def _whole_lines(dialect: Dialect) -> dict[bytes, Command]:
    """Every chunk that is one canonical line and its end, and the command the dialect
    reads in it: the fast path of :meth:`ServerProtocol.receive_data`. Commands are
    frozen, so every connection of a dialect shares one table and its commands."""
    table = _WHOLE_LINES.get(type(dialect))
    if table is None:
        table = {}
        for line in CANONICAL_LINES:
            try:
                command = dialect.parse(line)
            except RemoteProtocolError:
                continue  # not a command in this dialect (the 2015 HELLO needs a name)
            if command is not None:
                for end in (b"\n", b"\r\n"):
                    table[line.encode() + end] = command
        _WHOLE_LINES[type(dialect)] = table
    return table


class ServerProtocol:
    """The server's side of one connection.

    ``next_event()`` returns the next :class:`~protocol.commands.Command`,
    ``NEED_DATA`` or ``END_OF_INPUT``; blank lines are skipped (in the 2013
    dialect). A line that is not a command raises
    :class:`~protocol.errors.RemoteProtocolError`; unless the error is ``fatal``
    the caller may answer it and call ``next_event()`` again.

    ``dialect`` (a name of :data:`~protocol.dialects.DIALECTS`, default ``2013``)
    decides how lines are read and how :meth:`send` writes replies.
    """

    def __init__(
        self, *, max_line_length: int | None = None, dialect: str | Dialect = DEFAULT_DIALECT
    ) -> None:
        self._framer = LineFramer(
            strict=True,
            max_line_length=DEFAULT_MAX_LINE_LENGTH if max_line_length is None else max_line_length,
        )
        self.dialect = dialect_named(dialect) if isinstance(dialect, str) else dialect
        self._parse = self.dialect.parse
        self._whole_lines = _whole_lines(self.dialect)
        self._ready: Command | None = None
        """A command taken by the fast path, returned before anything the framer holds."""
        # The dialect's own method, not a method calling it: a call less per reply.
        self.send: Callable[[Reply], bytes] = self.dialect.render
        """The bytes for a reply in this connection's dialect (``b""``: nothing to send)."""

    def receive_data(self, data: bytes) -> None:
        """Bytes from the client; ``b""`` when it closed its side."""
        # Fast path: a bot's chunk is most often one whole canonical line (``LOOK``);
        # between lines the framer would return it unchanged, so it is looked up whole.
        if self._ready is None and type(data) is bytes:
            command = self._whole_lines.get(data)
            if command is not None and self._framer.at_line_start:
                self._ready = command
                return
        self._framer.receive_data(data)

    def next_event(self) -> Command | NeedData | EndOfInput:
        ready = self._ready
        if ready is not None:
            self._ready = None
            return ready
        while True:
            line = self._framer.next_event()
            if not isinstance(line, str):
                return line
            command = self._parse(line)
            if command is not None:
                return command

    def data_to_send(self) -> bytes:
        """Telnet refusals owed to the client (usually ``b""``)."""
        return self._framer.data_to_send()


class ClientProtocol:
    """The client's side of one connection.

    ``next_event()`` returns the next whole :class:`~protocol.replies.Reply`,
    ``NEED_DATA`` or ``END_OF_INPUT``; a line that is no reply raises
    :class:`~protocol.errors.RemoteProtocolError`.
    """

    def __init__(self, *, max_line_length: int = 65536) -> None:
        self._framer = LineFramer(max_line_length=max_line_length, telnet=False)
        self._parser = ReplyParser()

    def send(self, command: Command) -> bytes:
        """The bytes for ``command``."""
        return (command.to_line() + "\n").encode()

    def receive_data(self, data: bytes) -> None:
        """Bytes from the server; ``b""`` when it closed the connection."""
        self._framer.receive_data(data)

    def next_event(self) -> Reply | NeedData | EndOfInput:
        while True:
            line = self._framer.next_event()
            if line is END_OF_INPUT and self._parser.in_reply:
                raise RemoteProtocolError("the server closed the connection inside a reply")
            if not isinstance(line, str):
                return line
            reply = self._parser.feed(line)
            if reply is not None:
                return reply
