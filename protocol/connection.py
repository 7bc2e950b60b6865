"""Both ends of a conversation as sans-IO state machines.

:class:`ServerProtocol` is fed the bytes a client sent and yields parsed commands;
it turns replies into bytes. :class:`ClientProtocol` is the mirror image. Neither
touches a socket: the server, the client library, the bots and the conformance
suite each move the bytes themselves, and all of them share this code.

The server's side keeps the invariants of the conversation, as ``h11`` does, and
refuses with :class:`~protocol.errors.LocalProtocolError` a reply that would break
them (a bug in the server, never the client's fault):

* **Capabilities.** A client gets pushed lines only if it asked for them: ``EXTEND``
  turns on ``events`` (lines about its game), ``chat`` (``MESSAGE`` lines) and the
  others :data:`DECLARED_CAPABILITIES` declares; a dialect's clients may have some on
  from the start
  (:attr:`~protocol.dialects.Dialect.capabilities`). What is on changes only when
  the server sends ``EXTENDED`` in answer to ``EXTEND``, and it may turn on only what
  that ``EXTEND`` asked for. A spectator asked for the views of the game it watches
  (``VIEW``, ``GAMEOVER``) by its ``WATCH``, answered with ``GAME``.
* **The final line.** ``BYE``, and in a dialect that closes after it ``WIN`` and
  ``LOSE``, is the last thing the server sends: anything after it is refused.

:meth:`ServerProtocol.wants` tells a server, before it builds a push, whether the
client asked for it; :meth:`ServerProtocol.send` checks the same and raises.
"""

from __future__ import annotations

import enum
import functools
import operator
from collections.abc import Callable
from typing import Final, cast

from .capabilities import (
    CAPABILITIES,
    DECLARED_CAPABILITIES,
    DEFAULT_CAPABILITIES,
    Capability,
)
from .commands import CANONICAL_LINES, Command, Create, Extend, Join, Quit, Watch
from .dialects import DEFAULT_DIALECT, Dialect, dialect_named
from .errors import LocalProtocolError, RemoteProtocolError
from .framing import (
    DEFAULT_MAX_LINE_LENGTH,
    END_OF_INPUT,
    NEED_DATA,
    EndOfInput,
    LineFramer,
    NeedData,
)
from .reading import TolerantReader
from .replies import (
    Board,
    Bye,
    Extended,
    FinalReply,
    GameInfo,
    GameOver,
    LevelView,
    Message,
    Push,
    Reply,
    ReplyParser,
    View,
)

__all__ = [
    "CAPABILITIES",
    "DECLARED_CAPABILITIES",
    "DEFAULT_CAPABILITIES",
    "Capability",
    "ClientProtocol",
    "ServerProtocol",
    "ServerState",
]


class ServerState(enum.Enum):
    """Where the server's side of a conversation is."""

    SERVING = "serving"
    """Replies and the pushes the client asked for may be sent."""
    CLOSED = "closed"
    """The final line was sent: nothing more may be."""


_SERVING: Final = ServerState.SERVING
"""For the hot path: a member looked up on its enum class costs a call of
``EnumType.__getattr__``'s slot (Python 3.11)."""


class _Kind(enum.IntEnum):
    """What sending a reply of some class does to the conversation (see ``_kind_of``)."""

    PLAIN = 0
    PUSH = 1
    CHAT = 2
    SPECTATOR = 3
    EXTENDED = 4
    GAME = 5
    FINAL = 6
    BOARD = 7


def _kind_of(cls: type[Reply]) -> _Kind:
    if issubclass(cls, FinalReply):
        return _Kind.FINAL
    if issubclass(cls, Message):
        return _Kind.CHAT
    if issubclass(cls, Board | LevelView):
        return _Kind.BOARD
    if issubclass(cls, View | GameOver):
        return _Kind.SPECTATOR
    if issubclass(cls, Push):
        return _Kind.PUSH
    if issubclass(cls, Extended):
        return _Kind.EXTENDED
    if issubclass(cls, GameInfo):
        return _Kind.GAME
    return _Kind.PLAIN


@functools.cache
def _frozen(capabilities: tuple[str, ...]) -> frozenset[str]:
    """``capabilities`` as one frozenset shared by every connection that starts with them."""
    return frozenset(capabilities)


_KINDS: Final[dict[type[Reply], _Kind]] = {}
"""``_kind_of`` by class, filled as classes are first sent (a look-up per reply)."""


def _kind(cls: type[Reply]) -> _Kind:
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = _kind_of(cls)
    return kind


_TO_BYTES = cast(Callable[[Reply], bytes], operator.methodcaller("to_bytes"))
"""``Dialect.render`` of the 2013 dialect, without its frame."""

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
    """The server's side of one connection; see the module docstring for its invariants.

    ``next_event()`` returns the next :class:`~protocol.commands.Command`,
    ``NEED_DATA`` or ``END_OF_INPUT``; blank lines are skipped (in the 2013
    dialect). A line that is not a command raises
    :class:`~protocol.errors.RemoteProtocolError`; unless the error is ``fatal``
    the caller may answer it and call ``next_event()`` again.

    ``dialect`` (a name of :data:`~protocol.dialects.DIALECTS`, default ``2013``)
    decides how lines are read and how :meth:`send` writes replies. The server
    answers one command at a time (a reply answers the last command
    ``next_event()`` returned); pushes and final lines may come at any time.
    """

    # One per connection, on every command's path: one compact object, no __dict__
    # (issue 31: at 1,000 connections the cache, not the work, sets the cost).
    __slots__ = (
        "_answering",
        "_framer",
        "_framer_empty",
        "_heard",
        "_parse",
        "_ready",
        "_render",
        "_whole_lines",
        "capabilities",
        "dialect",
        "drained",
        "owed",
        "state",
        "watching",
    )

    def __init__(
        self, *, max_line_length: int | None = None, dialect: str | Dialect = DEFAULT_DIALECT
    ) -> None:
        self._framer = LineFramer(
            strict=True,
            max_line_length=DEFAULT_MAX_LINE_LENGTH if max_line_length is None else max_line_length,
        )
        self.dialect = dialect_named(dialect) if isinstance(dialect, str) else dialect
        self._parse = self.dialect.parse
        # Only a dialect whose words depend on the command answered is told of each one.
        heard = self.dialect.heard
        self._heard = None if type(self.dialect).heard is Dialect.heard else heard
        # A dialect that writes every reply as it is (2013) is not called per reply:
        # ``reply.to_bytes()`` straight from C spares a Python frame a reply.
        self._render: Callable[[Reply], bytes] = (
            _TO_BYTES if type(self.dialect).render is Dialect.render else self.dialect.render
        )
        self.state = ServerState.SERVING
        self.capabilities: frozenset[str] = _frozen(self.dialect.capabilities)
        """What the client gets without asking by a command: ``events``, ``chat``, ``bot``."""
        self.watching = False
        """Whether the client asked, by ``WATCH``, for the views of a game."""
        self._answering: Command | None = None
        self._whole_lines = _whole_lines(self.dialect)
        self._ready: Command | None = None
        """A command taken by the fast path, returned before anything the framer holds."""
        self.owed = False
        """Whether the framer was fed since :meth:`data_to_send` last asked it (only
        feeding it queues telnet refusals): when ``False`` nothing is owed, and a caller
        need not call :meth:`data_to_send`."""
        self.drained = False
        """Whether :meth:`next_event` would answer ``NEED_DATA`` without looking at
        anything: the last command it returned was a fast-path chunk's, and nothing was
        received since. A caller may then stop asking (``False`` says nothing)."""
        self._framer_empty = False
        """The framer was empty at the fast path's last chunk and has been fed nothing
        since: ``next_event`` may answer ``NEED_DATA`` without asking it."""

    # -- input ------------------------------------------------------------------------

    @property
    def max_line_length(self) -> int:
        """The longest line read, in bytes: a longer one is a fatal error."""
        return self._framer.max_line_length

    def receive_data(self, data: bytes) -> None:
        """Bytes from the client; ``b""`` when it closed its side."""
        self.drained = False
        # Fast path: a bot's chunk is most often one whole canonical line (``LOOK``);
        # between lines the framer would return it unchanged, so it is looked up whole.
        if self._ready is None and type(data) is bytes:
            command = self._whole_lines.get(data)
            # A framer fed nothing since the last fast-path chunk is still between lines
            # (it was then): its at_line_start, a property call, need not be asked again.
            if command is not None and (self._framer_empty or self._framer.at_line_start):
                self._ready = command
                self._framer_empty = True
                return
        self._framer_empty = False
        self.owed = True
        self._framer.receive_data(data)

    def next_event(self) -> Command | NeedData | EndOfInput:
        ready = self._ready
        if ready is not None:
            self._ready = None
            # A fast-path chunk is one line: nothing after it, unless the framer was fed since.
            self.drained = self._framer_empty
            self._answering = ready
            if self._heard is not None:
                self._heard(ready)
            return ready
        if self._framer_empty:
            return NEED_DATA
        while True:
            line = self._framer.next_event()
            if not isinstance(line, str):
                return line
            try:
                command = self._parse(line)
            except RemoteProtocolError as error:
                error.line = line.encode()
                if self._heard is not None:
                    self._heard(None)  # the replies now answer no command
                raise
            if command is not None:
                self._answering = command
                if self._heard is not None:
                    self._heard(command)
                return command

    def read_ahead(self, limit: int) -> Quit | EndOfInput | NeedData | None:
        """Look at what the client sent after the command last returned, while that
        command waits for its answer, without taking it: :meth:`next_event` still
        returns every command in its turn. Returns what may not wait for that answer,
        because it ends the conversation:

        * a ``QUIT`` (the first received): from then on it is the command answered,
          and its ``BYE`` the last line (nothing sent before it is answered);
        * ``END_OF_INPUT``: the client closed its side;

        else ``NEED_DATA`` (more may be received) or ``None`` once more than ``limit``
        bytes wait unreturned: receive no more until :meth:`next_event` has taken some.
        Raises at once the fatal :class:`RemoteProtocolError` a line received would
        raise in its turn (too long): it ends the conversation too. Each line is looked
        at once, however often this is called.
        """
        ready = self._ready
        if isinstance(ready, Quit):
            self._ready = None
            return self._overtaking(ready)
        framer = self._framer
        while fresh := framer.lines_ahead():
            for line in fresh:
                try:
                    command = self._parse(line.decode())
                except (UnicodeDecodeError, RemoteProtocolError):
                    continue  # refused in its turn
                if isinstance(command, Quit):
                    return self._overtaking(command)
        if framer.ended:
            return END_OF_INPUT
        return NEED_DATA if framer.buffered <= limit else None

    def _overtaking(self, command: Quit) -> Quit:
        self._answering = command
        if self._heard is not None:
            self._heard(command)
        return command

    def data_to_send(self) -> bytes:
        """Telnet refusals owed to the client (usually ``b""``)."""
        if not self.owed:
            return b""
        self.owed = False
        return self._framer.data_to_send()

    # -- output -----------------------------------------------------------------------

    @property
    def events(self) -> bool:
        """Whether the client gets pushed lines about its game."""
        return "events" in self.capabilities

    @property
    def chat(self) -> bool:
        """Whether the client gets ``MESSAGE`` lines."""
        return "chat" in self.capabilities

    @property
    def bot(self) -> bool:
        """Whether the client said it is a bot."""
        return "bot" in self.capabilities

    def wants(self, push: Push | type[Push]) -> bool:
        """Whether the client asked for pushes like ``push`` (:meth:`send` refuses the others).

        The answer is ``False`` once the final line is sent."""
        if self.state is not _SERVING:
            return False
        kind = _kind(push if isinstance(push, type) else type(push))
        if kind is _Kind.PUSH:
            return "events" in self.capabilities
        if kind is _Kind.CHAT:
            return "chat" in self.capabilities
        if kind is _Kind.SPECTATOR:
            return self.watching
        if kind is _Kind.BOARD:
            return self.watching and "board" in self.capabilities
        return True

    def extend(self, command: Extend, *, bot_allowed: bool = True) -> Extended:
        """The answer to ``command``: what is on once it is sent (a bare ``EXTEND``
        asks for :data:`DEFAULT_CAPABILITIES`; names the server does not know are left
        out). ``bot`` is left out unless ``bot_allowed`` (a player's kind is fixed once
        it is in a world)."""
        wanted = set(command.capabilities or DEFAULT_CAPABILITIES)
        if not bot_allowed:
            wanted.discard("bot")
        on = self.capabilities | wanted
        return Extended(tuple(name for name in CAPABILITIES if name in on))

    def send(self, reply: Reply) -> bytes:
        """The bytes for ``reply`` in this connection's dialect (``b""``: nothing to send).

        Raises :class:`LocalProtocolError` for a reply the conversation does not allow
        (module docstring); the state changes only when the reply is allowed."""
        if self.state is not _SERVING:
            raise LocalProtocolError(
                f"cannot send {type(reply).__name__}: the final line was already sent"
            )
        kind = _KINDS.get(type(reply))
        if kind is None:
            kind = _kind(type(reply))
        if kind:  # anything but a plain reply, the hot path's kind
            self._check(reply)
        return self._render(reply)

    def _check(self, reply: Reply) -> None:
        kind = _kind(type(reply))
        if kind is _Kind.FINAL:
            if isinstance(reply, Bye) or self.dialect.closes_after_final:
                self.state = ServerState.CLOSED
        elif kind is _Kind.EXTENDED:
            assert isinstance(reply, Extended)
            self._granted(reply)
        elif kind is _Kind.GAME:
            if isinstance(self._answering, Watch):
                self.watching = True
            elif isinstance(self._answering, Join | Create):
                self.watching = False
        else:
            self._pushable(kind, reply)

    def _pushable(self, kind: _Kind, push: Reply) -> None:
        """Raise unless the client asked for ``push``, a push of ``kind``."""
        if kind is _Kind.PUSH:
            asked, needs = "events" in self.capabilities, "EXTEND events"
        elif kind is _Kind.CHAT:
            asked, needs = "chat" in self.capabilities, "EXTEND chat"
        elif kind is _Kind.BOARD:
            asked = self.watching and "board" in self.capabilities
            needs = "EXTEND board and WATCH"
        else:
            asked, needs = self.watching, "WATCH"
        if not asked:
            raise LocalProtocolError(
                f"the client did not ask for {type(push).__name__} (it needs {needs})"
            )

    def _granted(self, reply: Extended) -> None:
        command = self._answering
        if not isinstance(command, Extend):
            raise LocalProtocolError("EXTENDED answers only EXTEND")
        granted = frozenset(reply.capabilities)
        unknown = granted - set(CAPABILITIES)
        asked = set(command.capabilities or DEFAULT_CAPABILITIES) | self.capabilities
        if unknown or not granted <= asked:
            raise LocalProtocolError(
                f"EXTENDED {' '.join(reply.capabilities)} turns on what EXTEND did not ask for"
            )
        if not self.capabilities <= granted:
            raise LocalProtocolError("EXTENDED cannot turn a capability off")
        self.capabilities = granted
        self._answering = None


class ClientProtocol:
    """The client's side of one connection.

    ``send(command)`` gives the bytes of a command. ``next_event()`` returns the next
    whole :class:`~protocol.replies.Reply`, ``NEED_DATA`` or ``END_OF_INPUT``, and
    raises :class:`~protocol.errors.RemoteProtocolError` for a line that breaks the
    protocol, or for the end of input inside a multi-line reply.

    A strict client (the default) reads our own 2013 replies only, and a line that is
    none is an error. A ``tolerant`` one reads every dialect of ``docs/dialects.md``
    (:class:`~protocol.reading.TolerantReader`): a line no dialect explains is then an
    :class:`~protocol.reading.Unasked` push, and ``next_event(asking)`` takes the
    command the next reply would answer, which settles the few lines whose meaning
    depends on it (a ``LOOK`` answered without a header, say); :attr:`dialect` and
    :attr:`dialect_evidence` say which dialect the server has shown.
    """

    def __init__(self, *, max_line_length: int = 65536, tolerant: bool = False) -> None:
        self._framer = LineFramer(max_line_length=max_line_length, telnet=False)
        self._parser = ReplyParser()
        self._reader = TolerantReader() if tolerant else None

    @property
    def dialect(self) -> str | None:
        """The dialect the server has shown so far (``None``: no evidence, or strict)."""
        return None if self._reader is None else self._reader.dialect

    @property
    def dialect_evidence(self) -> tuple[str, ...]:
        """What the server said that showed its dialect (one entry per step up)."""
        return () if self._reader is None else tuple(self._reader.evidence)

    @property
    def in_reply(self) -> bool:
        """True while the lines of a multi-line reply are being gathered."""
        reader = self._reader
        return self._parser.in_reply if reader is None else reader.in_reply

    def send(self, command: Command) -> bytes:
        """The bytes for ``command``."""
        return (command.to_line() + "\n").encode()

    def receive_data(self, data: bytes) -> None:
        """Bytes from the server; ``b""`` when it closed the connection."""
        self._framer.receive_data(data)

    def next_event(self, asking: Command | None = None) -> Reply | NeedData | EndOfInput:
        while True:
            line = self._framer.next_event()
            if line is END_OF_INPUT and self.in_reply:
                raise RemoteProtocolError("the server closed the connection inside a reply")
            if not isinstance(line, str):
                return line
            reader = self._reader
            if reader is None:
                reply = self._parser.feed(line)
            else:
                try:
                    reply = reader.feed(line, asking)
                except RemoteProtocolError as error:
                    raise RemoteProtocolError(
                        f"unexpected line from the server: {line[:80]!r} ({error})"
                    ) from None
            if reply is not None:
                return reply
