"""Line framing: a byte stream in, text lines out. No I/O.

:class:`LineFramer` is fed whatever bytes arrived, in chunks of any size, and hands
back complete lines one at a time, in the manner of ``h11``::

    framer = LineFramer()
    framer.receive_data(b"HEL")
    framer.next_event()            # NEED_DATA
    framer.receive_data(b"LO\\r\\nLOOK\\n")
    framer.next_event()            # 'HELLO'
    framer.next_event()            # 'LOOK'
    framer.next_event()            # NEED_DATA
    framer.receive_data(b"")       # end of input
    framer.next_event()            # END_OF_INPUT

What callers may rely on:

* ``LF``, ``CRLF``, ``CR NUL`` and a bare ``CR`` each end exactly one line, however
  the bytes were split between chunks.
* Telnet negotiation (``IAC`` sequences, RFC 854) never reaches the lines. Each
  option request (``DO``/``WILL``) is refused once (``WONT``/``DONT``), queued in
  :meth:`LineFramer.data_to_send`; refusals and repeated requests are not
  answered again, so two polite peers can never loop. ``IAC IAC`` is a literal
  0xFF byte, and so is an ``IAC`` followed by a byte that starts no telnet command
  (below 240): that byte is kept, never swallowed.
* Lines are UTF-8. With ``strict`` (servers reading what people typed), a line that
  is not raises a non-fatal :class:`RemoteProtocolError` naming the first bad byte,
  and the next line is read normally; without it (clients reading servers of any
  era), bad bytes decode as U+FFFD.
* Memory is bounded: a line longer than ``max_line_length`` bytes, or a telnet
  subnegotiation (``IAC SB`` ... ``IAC SE``) longer than that, raises a fatal
  :class:`RemoteProtocolError`, after every complete line before it has been
  returned; the framer then refuses further input.
* At end of input a last line with no terminator is still returned.
* A reader may look ahead (:meth:`LineFramer.lines_ahead`): the complete lines held are
  shown, each once, and still returned by :meth:`LineFramer.next_event` in their turn.
"""

from __future__ import annotations

from typing import Final, NoReturn

from .errors import LocalProtocolError, RemoteProtocolError

__all__ = ["END_OF_INPUT", "NEED_DATA", "EndOfInput", "LineFramer", "NeedData"]

DEFAULT_MAX_LINE_LENGTH: Final = 1024
LONGEST_MAX_LINE_LENGTH: Final = 1 << 20
"""The longest ``max_line_length`` a server may be set to (``--max-line-length``)."""

# Telnet bytes (RFC 854).
IAC: Final = 255
DONT: Final = 254
DO: Final = 253
WONT: Final = 252
WILL: Final = 251
SB: Final = 250
SE: Final = 240
_REFUSAL: Final = {DO: WONT, WILL: DONT}
_NONE_ANSWERED: Final[frozenset[tuple[int, int]]] = frozenset()
"""Every framer's answered options until telnet speaks: one object, not one a connection
(``frozenset()`` makes a new one each time in Python 3.11)."""

# Telnet parser states.
_DATA, _IAC, _OPTION, _SUB, _SUB_IAC = range(5)


def _lenient_decode(line: bytes) -> str:
    return line.decode("utf-8", "replace")


def _strict_decode(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = line[error.start]
        raise RemoteProtocolError(
            f"the line is not UTF-8 text (byte 0x{bad:02x} at {error.start}); send UTF-8",
            line=line,
        ) from None


class NeedData:
    """Sentinel: no complete line yet; feed more bytes."""

    def __repr__(self) -> str:
        return "NEED_DATA"


class EndOfInput:
    """Sentinel: the peer closed its side and every line has been returned."""

    def __repr__(self) -> str:
        return "END_OF_INPUT"


NEED_DATA: Final = NeedData()
END_OF_INPUT: Final = EndOfInput()


class LineFramer:
    """Splits a byte stream into lines; see the module docstring for the contract.

    ``telnet=False`` turns off IAC processing, for clients reading a server's
    replies (a server never negotiates, and 0xFF is then just an invalid byte).
    ``strict=True`` refuses lines that are not UTF-8 (see the module docstring).
    """

    # One per connection, on every command's path: one compact object, no __dict__
    # (issue 31: at 1,000 connections the cache, not the work, sets the cost).
    __slots__ = (
        "_after_cr",
        "_answered",
        "_broken",
        "_broken_reason",
        "_buffer",
        "_decode",
        "_eof",
        "_lines",
        "_looked",
        "_outgoing",
        "_sub_length",
        "_telnet",
        "_telnet_state",
        "_telnet_verb",
        "max_line_length",
    )

    def __init__(
        self,
        *,
        max_line_length: int = DEFAULT_MAX_LINE_LENGTH,
        telnet: bool = True,
        strict: bool = False,
    ) -> None:
        if max_line_length < 1:
            raise LocalProtocolError("max_line_length must be at least 1")
        self.max_line_length = max_line_length
        self._telnet = telnet
        self._decode = _strict_decode if strict else _lenient_decode
        self._buffer = bytearray()
        # Complete lines, the next one last (a list costs 56 bytes where a deque costs
        # 760: issue 19 counts the memory of every idle connection).
        self._lines: list[bytes] = []
        self._looked = 0  # of the oldest lines in _lines, how many lines_ahead has shown
        self._after_cr = False
        self._telnet_state = _DATA
        self._telnet_verb = 0
        self._answered = _NONE_ANSWERED  # shared until telnet speaks
        self._outgoing = bytearray()
        self._eof = False
        self._broken = False
        self._sub_length = 0  # bytes of the telnet subnegotiation being skipped
        self._broken_reason: str | None = None

    # -- input -------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Add bytes that arrived; ``b""`` means the peer closed its side."""
        if self._eof:
            raise LocalProtocolError("receive_data() called after end of input")
        if not data:
            self._eof = True
            return
        if self._broken:
            return
        if self._telnet and (self._telnet_state != _DATA or IAC in data):
            data = self._strip_telnet(data)
            if not data:
                return
        if self._after_cr:
            self._after_cr = False
            if data[0] in (0x0A, 0x00):
                data = data[1:]
        if 0x0D in data:
            # CRLF and CR NUL become LF; a CR at the very end might be the first
            # half of a CRLF split across chunks: end the line now, eat the LF later.
            data = data.replace(b"\r\n", b"\n").replace(b"\r\x00", b"\n")
            if data.endswith(b"\r"):
                self._after_cr = True
            data = data.replace(b"\r", b"\n")
        buffer = self._buffer
        if 0x0A not in data:
            buffer += data
            return
        if buffer:
            buffer += data
            data = bytes(buffer)
            buffer.clear()
        # The usual case, whole lines in one chunk, costs one split and no copies.
        *complete, rest = data.split(b"\n")
        complete.reverse()
        complete += self._lines  # lines still unread come out first
        self._lines = complete
        if rest:
            buffer += rest

    def _strip_telnet(self, data: bytes) -> bytes:
        """Remove telnet commands from ``data``, queueing refusals; keeps state across calls."""
        out = bytearray()
        state = self._telnet_state
        for byte in data:
            if state == _DATA:
                if byte == IAC:
                    state = _IAC
                else:
                    out.append(byte)
            elif state == _IAC:
                if byte == IAC:
                    out.append(IAC)
                    state = _DATA
                elif byte in (DO, DONT, WILL, WONT):
                    self._telnet_verb = byte
                    state = _OPTION
                elif byte == SB:
                    state = _SUB
                    self._sub_length = 0
                elif byte < SE:
                    # No telnet command starts so: a stray 0xFF, kept with the byte after it.
                    out.append(IAC)
                    out.append(byte)
                    state = _DATA
                else:  # NOP, GA, AYT, IP and the other two-byte commands
                    state = _DATA
            elif state == _OPTION:
                refusal = _REFUSAL.get(self._telnet_verb)
                key = (self._telnet_verb, byte)
                if refusal is not None and key not in self._answered:
                    self._answered |= {key}
                    self._outgoing += bytes((IAC, refusal, byte))
                state = _DATA
            elif state == _SUB:
                if byte == IAC:
                    state = _SUB_IAC
                self._sub_length += 1
                if self._sub_length > self.max_line_length:
                    # Bounded like a line: an SB that never ends must not eat the input.
                    self._broken = True
                    self._broken_reason = (
                        f"telnet subnegotiation too long (the limit is {self.max_line_length}"
                        " bytes)"
                    )
                    break
            else:  # _SUB_IAC
                state = _DATA if byte == SE else _SUB
        self._telnet_state = state
        return bytes(out)

    @property
    def at_line_start(self) -> bool:
        """Whether the framer holds nothing unreturned and is between lines, outside
        any telnet command and not just after a ``CR``: a chunk that is exactly one line
        of printable text and its ``LF`` (or ``CRLF``) would come out as that line. A
        caller may then take such a chunk itself, without feeding it (the fast path of
        :class:`~protocol.connection.ServerProtocol`).
        """
        return not (
            self._lines
            or self._buffer
            or self._eof
            or self._broken
            or self._after_cr
            or self._telnet_state != _DATA
        )

    # -- output ------------------------------------------------------------

    def next_event(self) -> str | NeedData | EndOfInput:
        """The next complete line (without its terminator), or a sentinel.

        Raises a fatal :class:`RemoteProtocolError` once the line at the head of the
        input is longer than ``max_line_length``.
        """
        if self._lines:
            line = self._lines.pop()
            if self._looked:
                self._looked -= 1
            if len(line) > self.max_line_length:
                self._fail(self._too_long())
            return self._decode(line)
        # The unfinished line's bytes all came before the point where a telnet
        # subnegotiation broke the framer, so its overflow is the error to report first
        # (as it is when a chunk ends between the two).
        if len(self._buffer) > self.max_line_length:
            self._fail(self._too_long())
        if self._broken:
            self._fail()
        if self._eof:
            if self._buffer:
                line = bytes(self._buffer)
                self._buffer.clear()
                return self._decode(line)
            return END_OF_INPUT
        return NEED_DATA

    @property
    def ended(self) -> bool:
        """Whether the peer has closed its side (``END_OF_INPUT`` follows what is held)."""
        return self._eof

    def lines_ahead(self) -> list[bytes]:
        """The complete lines held that this has not shown yet, oldest first, each as
        received, without returning them: :meth:`next_event` still returns (or refuses)
        each in its turn. A reader looks ahead so, for a line it must act on before its
        turn.

        Raises the fatal :class:`RemoteProtocolError` :meth:`next_event` would raise in
        its turn (a line too long, held or unfinished, a telnet subnegotiation too long)
        at once, when no line before it is left to show: the framer refuses all input
        from then on, as after :meth:`next_event` raised it.
        """
        lines = self._lines
        buffer = self._buffer
        if self._eof and buffer and len(buffer) <= self.max_line_length and not self._broken:
            lines.insert(0, bytes(buffer))  # the last line, as next_event will return it
            buffer.clear()
        fresh = lines[: len(lines) - self._looked]
        fresh.reverse()
        limit = self.max_line_length
        for index, line in enumerate(fresh):
            if len(line) > limit:
                if index:
                    del fresh[index:]  # shown first; the error at the next look
                    break
                self._fail(self._too_long())
        else:
            if (len(buffer) > limit or self._broken) and not fresh:
                self._fail(self._too_long() if len(buffer) > limit else None)
        self._looked += len(fresh)
        return fresh

    def _too_long(self) -> str:
        return f"line too long (the limit is {self.max_line_length} bytes)"

    def _fail(self, reason: str | None = None) -> NoReturn:
        self._broken = True
        self._lines.clear()
        self._looked = 0
        self._buffer.clear()
        reason = reason or self._broken_reason or self._too_long()
        self._broken_reason = reason  # what every later call repeats
        raise RemoteProtocolError(reason, fatal=True)

    def data_to_send(self) -> bytes:
        """Telnet refusals owed to the peer since the last call (often ``b""``)."""
        if not self._outgoing:  # the usual case, after every batch of lines: no copy
            return b""
        out = bytes(self._outgoing)
        self._outgoing.clear()
        return out

    @property
    def buffered(self) -> int:
        """Bytes held that are not yet returned as lines (bounded by the line limit)."""
        return len(self._buffer) + sum(map(len, self._lines))
