"""One client connection as the checks see it: every read has a time limit.

A :class:`Session` wraps any trio stream. It never waits longer than its
``timeout`` for a line, and it turns what goes wrong into :class:`CheckFailed`
subclasses whose message says what was awaited: :class:`NoReply` (silence),
:class:`ServerClosed` (end of stream) and :class:`BadReply` (a line that is no
reply of the protocol, or not byte for byte the 2013 form).

Replies are assembled by the shared :class:`~protocol.replies.ReplyParser`
and then compared with the parsed reply's own canonical lines, so ``GOLD 02``
or ``GOLD  2`` are caught although they parse. Known drift (see
:mod:`conformance.levels`) is normalised first and reported through the
``drift`` callback, which raises when the level does not allow it. Judging a
2015 or 2016 server (``dialect``), replies are read in that era's forms by the
client library's :class:`~clients.dialect.TolerantReader`, and the lines it
calls pushes (``STARTTURN``, ``TREASUREMOD``, ``SERVERCHANGE``...) are kept in
``pushed`` instead of answering anything. A dialect that writes only lines of its own
(mbk's ``H2``, ``L5`` rows, ``MS``) is read by its
:class:`~conformance.dialects.DeclaredReader` instead, one per connection; where it
pushes views in the form of a ``LOOK`` answer, each ``LOOK`` sent by
:meth:`Session.send_command` is fenced by a ``HELLO`` (:meth:`Session._fence`).

Every conversation stays matched: a connection first reads the greeting the
server sends on connect (:meth:`Session.take_greeting`), and a command is never
sent while unread bytes wait: those would be read as its reply, so they fail
the check as a shifted conversation, quoting them.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, NoReturn, Protocol, TypeVar

import trio

from clients.dialect import Blank, TolerantReader, TurnStarted, Unasked, not_your_turn
from protocol.commands import Command, Hello, Look, parse_command
from protocol.errors import RemoteProtocolError
from protocol.replies import Lose, Push, Reply, ReplyParser

from .dialects import declared, declared_reader
from .results import CheckFailed, Event, NotJudged

__all__ = [
    "NAMES",
    "QUIET",
    "BadReply",
    "Drift",
    "NoReply",
    "ServerClosed",
    "Session",
    "Stalls",
    "describe",
]

QUIET = 0.15
"""Seconds of silence that end an answer whose length the protocol does not say."""
REFUSED_CLOSE = 1.0
"""Seconds a connection that refused the command may still take to close."""
STALLED_NAMING_WAIT = 1.0
"""Seconds a naming ``HELLO`` is given once one has gone unanswered in the run, instead
of the whole timeout."""
STALLED_TURN_WAIT = 0.25
"""Seconds a refusal for want of a turn waits for ``STARTTURN`` once such a wait has gone
unanswered in the run. A server passes the turn of a connection that left at once; one
that does not (zss) will not pass it later either."""
NAMES: Final = ("conformance", "confor")
"""The names ``HELLO`` gives, the shorter where the longer is refused (ch739 takes 8
characters at most)."""

Drift = Callable[[str, str], None]
"""``drift(tolerance, detail)``: reports drift; raises :class:`CheckFailed` if not allowed."""
Record = Callable[[Event, bytes], None]
"""``record(event, data)``: notes what a connection sent, received or closed (the reports'
exchange, :class:`~conformance.transcript.Transcript`)."""

R = TypeVar("R", bound=Reply)

RECEIVE_SIZE = 65536
# A server can always send a line longer than we care to hold; this bounds memory.
MAX_LINE = 65536

_KEYWORDS = ("SUCCESS", "FAIL", "LOOKREPLY")
_PREFIXES = ("GOLD ", "GOLD:", "SUCCESS, GOLD COINS:")
_GOLD_COLON = re.compile(r"GOLD:\s*(-?\d+)")


# Lines that end in a space in the 2015/2016 forms themselves (``CHANGE `` and the
# rows that follow it, ``FAIL `` and the reason on the next line).
_SPACED = frozenset({"CHANGE", "FAIL"})
# Pushes that tell of another connection's move or departure (2015, 2016).
_DEPARTURES = frozenset({"CHANGE", "LOSE", "SERVERCHANGE"})


class _Reader(Protocol):
    """How a session reads a dialect's lines: :class:`~clients.dialect.TolerantReader`,
    or a :class:`~conformance.dialects.DeclaredReader` for a dialect of its own lines."""

    @property
    def in_reply(self) -> bool: ...

    def feed(self, line: str, asking: Command | None) -> Reply | None: ...


@dataclass(slots=True)
class Stalls:
    """What the server has already left unanswered in this run, shared by every session
    of the run, so that a stall seen once is not waited out in full by each later check
    (zss stops answering ``HELLO <name>`` once a connection has left, and its departed
    players keep their turns; issue 27). Empty strings: nothing stalled yet."""

    naming: str = ""
    """The first naming ``HELLO`` left unanswered, and by which connection."""
    turn: str = ""
    """The first refusal for want of a turn that no ``STARTTURN`` followed."""


class NoReply(CheckFailed):
    """Nothing (or not enough) arrived within the time limit."""


class _SilentAfterPushes(NotJudged):
    """Nothing arrived, after the server had told of another connection's departure."""


class ServerClosed(CheckFailed):
    """The server closed the connection where a reply was due."""


class BadReply(CheckFailed):
    """A line arrived that is not the reply the protocol prescribes."""


def describe(lines: list[str]) -> str:
    """Lines as one readable string for a failure message."""
    return " / ".join(repr(line) for line in lines) if lines else "nothing"


def _upper_keyword(line: str) -> str:
    upper = line.upper()
    return upper if upper in _KEYWORDS or upper.startswith(_PREFIXES) else line


def _gold_colon(line: str) -> str:
    match = _GOLD_COLON.fullmatch(line)
    return f"GOLD {match[1]}" if match else line


# Tried in this order on a first line that the strict parser refuses.
_REWRITES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("reply-case", _upper_keyword),
    ("gold-colon", _gold_colon),
)


class Session:
    """A timed client connection; see the module docstring."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        *,
        name: str,
        timeout: float,
        drift: Drift,
        dialect: str = "2013",
        turn_wait: float | None = None,
        stalls: Stalls | None = None,
        record: Record | None = None,
    ) -> None:
        self.stream = stream
        self._record: Record = record or _unrecorded
        self.stalls = Stalls() if stalls is None else stalls
        """Shared with the run's other sessions: see :class:`Stalls`."""
        self.unnamed = False
        """Whether a naming ``HELLO`` of this connection went unanswered."""
        self.name = name
        self.timeout = timeout
        self.turn_wait = timeout if turn_wait is None else turn_wait
        """Seconds a refusal for want of a turn waits for ``STARTTURN`` (default: the timeout)."""
        self.dialect = dialect
        self._drift = drift
        self._declared = declared_reader(dialect) if dialect != "2013" else None
        """The reader of a dialect whose lines no era's reader knows (mbk's ``H2``,
        ``L5`` rows): kept for the connection, as it knows which view is owed as a push."""
        self._tolerant: _Reader = self._declared or TolerantReader()
        self._fences = self._declared is not None and declared(dialect).pushes_view
        """Whether a ``LOOK`` is fenced (:meth:`_fence`): the dialect pushes views that
        look like its answer."""
        self.greeting: list[str] = []
        """The lines the server sent on connect, before any command."""
        self.pushed: list[Reply] = []
        """Lines of the dialect's own that answered no command (2015, 2016)."""
        self.unasked: list[str] = []
        """Every line set aside as sent unasked, as it came (for the evidence)."""
        self.last_command = ""
        self._buffer = bytearray()
        self._eof = False
        self._released = False
        self._parser = ReplyParser()
        self.received_any = False
        """Whether the server has sent this session at least one byte."""
        self.last_lines: list[str] = []
        """The lines of the last reply read (after normalisation), for messages."""
        self.heard: list[tuple[str, str]] = []
        """Every whole line read, in the order it came (pushes set aside among them),
        with the command sent last before it was read ("" before any)."""

    # -- writing --------------------------------------------------------------

    async def send(self, data: bytes | str) -> None:
        """Write ``data`` as it is; a server that stops reading cannot block us for long."""
        payload = data.encode() if isinstance(data, str) else data
        with trio.move_on_after(self.timeout) as scope:
            try:
                await self.stream.send_all(payload)
                self._record(Event.SENT, payload)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as error:
                raise ServerClosed(
                    f"{self.name}: the connection broke while sending: {error}"
                ) from error
        if scope.cancelled_caught:
            raise NoReply(f"{self.name}: the server did not read {payload[:40]!r} in time")

    async def send_command(self, command: Command | str, ending: bytes = b"\n") -> None:
        line = command if isinstance(command, str) else command.to_line()
        if self.dialect != "2013":
            self._take_pushes()
            # A push still arriving (ch739 writes one byte at a time): its line is
            # awaited, then set aside too.
            with trio.move_on_after(self.timeout):
                while self._buffer and b"\n" not in self._buffer and not self._eof:
                    await self._fill("the rest of a line sent unasked")
                    self._take_pushes()
        elif self._buffer and not self._buffer.strip(b"\r\n"):
            # Only blank lines wait: the known drift of servers that end replies with one.
            self._drift("blank-lines", f"blank lines after the reply to {self.last_command}")
            self._buffer.clear()
        if self._buffer:
            after = f"after the reply to {self.last_command}" if self.last_command else "unasked"
            raise BadReply(
                f"{self.name}: the conversation shifted: before {line.strip()!r} the server had "
                f"already sent {bytes(self._buffer)[:80]!r} ({after}), which would be read as "
                "its reply"
            )
        if self._fences and isinstance(_command(line), Look):
            await self._fence()
        self.last_command = line.strip()
        await self.send(line.encode() + ending)

    def _silence(self, what: str, detail: str | None = None) -> NoReturn:
        """Raise for a silence: :class:`NotJudged` where the server had told this
        connection of another player's move or departure (``CHANGE``, ``LOSE``) before
        falling silent, as the 2015 skeleton does once another connection has left (the
        suite's own among them), else :class:`NoReply`."""
        detail = detail or f"waited {self.timeout:g} s for {what}, in vain"
        others = [line for line in self.greeting + self.unasked if line.strip() in _DEPARTURES]
        if self.dialect != "2013" and others:
            raise _SilentAfterPushes(
                f"{self.name}: could not judge: {detail}, after the server had pushed "
                f"{describe(others[-2:])} about another connection"
            )
        raise NoReply(f"{self.name}: {detail}")

    def _heard(self, line: str) -> None:
        self.heard.append((line, self.last_command))

    def _take_pushes(self) -> None:
        """Move the whole lines waiting unread that a 2015 or 2016 server sends unasked
        (``STARTTURN``, ``CHANGE`` views, ``SERVERCHANGE``, ``LOSE``, the blank line and
        ``RENDERHINT`` block after a view, a reason line) into :attr:`pushed`: other
        players, the suite's own among them, cause them. A reply to a command (a
        ``SUCCESS``, a view) stays, and shifts the conversation."""
        while b"\n" in self._buffer:
            raw, _, rest = bytes(self._buffer).partition(b"\n")
            text = raw.rstrip(b"\r").decode("utf-8", "replace")
            try:
                reply = self._tolerant.feed(text, None)
            except RemoteProtocolError:
                return
            if reply is not None and not isinstance(reply, (Push, Blank, Lose)):
                return
            self._buffer = bytearray(rest)
            self._heard(text)
            self.unasked.append(text)
            if reply is not None and not isinstance(reply, Blank):
                self.pushed.append(reply)

    # -- greetings and answers of unknown length ------------------------------------

    async def lines_within(self, window: float) -> list[str]:
        """Every line that arrives before ``window`` seconds pass without a byte (CR and
        LF removed). What is plainly unfinished is waited for up to the timeout: a line
        already begun, and a ``RENDERHINT`` block until its ``RENDERHINT END``."""
        lines: list[str] = []
        while True:
            if b"\n" in self._buffer:
                line, _, rest = bytes(self._buffer).partition(b"\n")
                self._buffer = bytearray(rest)
                lines.append(line.rstrip(b"\r").decode("utf-8", "replace"))
                self._heard(lines[-1])
                continue
            if self._eof:
                return lines
            unfinished = (
                bool(self._buffer)
                or (
                    bool(lines)
                    and lines[-1].startswith("RENDERHINT")
                    and lines[-1] != "RENDERHINT END"
                )
                or (self._declared is not None and self._declared.unfinished(lines))
            )
            with trio.move_on_after(self.timeout if unfinished else window):
                try:
                    await self._fill("anything")
                except ServerClosed:
                    return lines
                continue
            return lines

    async def take_greeting(self, known: list[str] | None, window: float) -> list[str]:
        """Read what the server says on connect, before the first command.

        ``known`` is the greeting of an earlier connection of the same run: when it
        had lines, the first is awaited up to the timeout, the rest until :data:`QUIET`
        seconds pass without a byte (a 2015 server tells only one player at a time
        ``STARTTURN``; one that comes later is set aside as a push); ``None`` waits
        ``window`` seconds for whatever comes.
        """
        if known is None:
            self.greeting = await self.lines_within(window)
        elif known:
            try:
                raw = await self.read_raw_line("the greeting")
            except (NoReply, ServerClosed):
                return self.greeting
            self.greeting.append(raw.rstrip(b"\r").decode("utf-8", "replace"))
            self.greeting += await self.lines_within(min(window, QUIET))
        return self.greeting

    @property
    def told_of_others(self) -> bool:
        """Whether the greeting held a push about another connection (``CHANGE``,
        ``LOSE``): one that left, the suite's own among them, after this one joined."""
        return any(line.strip() in _DEPARTURES for line in self.greeting)

    @property
    def closed(self) -> bool:
        """Whether the server has closed this connection (its end of the stream read)."""
        return self._released or (self._eof and not self._buffer)

    async def answer(
        self, data: bytes, what: str, timeout: float | None = None, *, turns: bool = True
    ) -> list[str]:
        """Send ``data`` as it is; the lines that answer it (the first within the timeout,
        then all that follow before :data:`QUIET` seconds of silence). In a 2015 or 2016
        dialect the lines sent unasked are left out, and, with ``turns``, a refusal for
        want of a turn is waited out as :meth:`ask` does. ``timeout`` bounds the wait for
        the first line (by default the session's)."""
        limit = self.timeout if timeout is None else timeout
        while True:
            lines = await self._answer_once(data, what, limit)
            if (
                not turns
                or self.dialect == "2013"
                or not any(_turn_refusal(line) for line in lines[:1])
            ):
                return lines
            if why := await self._await_turn(f"{data!r} was answered {describe(lines)}"):
                raise NotJudged(
                    f"{self.name}: could not judge: {data!r} was answered {describe(lines)}, "
                    f"and {why}"
                )

    async def _answer_once(self, data: bytes, what: str, timeout: float) -> list[str]:
        line = data.decode("utf-8", "replace")
        if self.dialect != "2013":
            self._take_pushes()
        if self._buffer:
            await self.send_command(line.strip())  # raises: the conversation shifted
        self.last_command = line.strip()
        await self.send(data)
        if self.dialect != "2013":
            return await self._dialect_answer(what, timeout)
        lines = [(await self.read_raw_line(what, timeout)).rstrip(b"\r").decode("utf-8", "replace")]
        # A whole 2013 reply says where it ends: no need to wait for silence.
        parser = ReplyParser()
        try:
            reply = parser.feed(lines[0])
            while reply is None or isinstance(reply, Push):
                raw = await self.read_raw_line(what)
                lines.append(raw.rstrip(b"\r").decode("utf-8", "replace"))
                reply = parser.feed(lines[-1])
        except RemoteProtocolError:
            pass
        else:
            return lines
        return [*lines, *await self.lines_within(QUIET)]

    async def _dialect_answer(self, what: str, timeout: float) -> list[str]:
        """The lines answering a command in a 2015 or 2016 dialect, those sent unasked
        (views pushed, ``RENDERHINT`` blocks, ``STARTTURN``...) set aside."""
        # A declared reader is the connection's own: it knows which view is owed as a push.
        reader: _Reader = self._declared or TolerantReader()
        asking = _command(self.last_command)
        answer: list[str] = []
        pending: list[str] = []
        deadline = trio.current_time() + timeout
        while True:
            if answer and not reader.in_reply:
                got = await self.lines_within(QUIET)
            else:
                # The first line, or the rest of a reply begun (a view's rows): a server
                # writing a byte at a time on a loaded machine may pause longer than QUIET.
                got = await self._some_lines(max(deadline - trio.current_time(), 0))
            if not got:
                if answer:
                    return answer
                if self._eof:
                    # Closed, not silent: no timeout was waited out (issue 39: "waited 5 s
                    # ... in vain" for a connection mbk closed at once).
                    raise ServerClosed(
                        f"{self.name}: the server closed the connection instead of {what}"
                    )
                self._silence(what, f"waited {timeout:g} s for {what}, in vain")
            for line in got:
                if line.startswith("RENDERHINT"):
                    # A drawing hint (ch739) is part of no answer: read past, set aside.
                    reader.feed(line, asking)
                    self.unasked.append(line)
                    continue
                pending.append(line)
                try:
                    reply: Reply | None = reader.feed(line, asking)
                except RemoteProtocolError:
                    reply = Unasked(line)  # no dialect reads it: an answer all the same
                if reply is None and reader.in_reply:
                    continue
                aside = reply is None or (
                    isinstance(reply, (Push, Blank)) and not isinstance(reply, Unasked)
                )
                if aside and not answer:
                    # A server still talking is not silent: the timeout starts again.
                    deadline = trio.current_time() + timeout
                if aside and (not answer or self._declared is not None):
                    # mbk pushes its view after the answer it follows (MS), in the form of
                    # a LOOK answer: a push, never part of the answer.
                    self.unasked += pending
                    if reply is not None and not isinstance(reply, Blank):
                        self.pushed.append(reply)
                else:
                    answer += pending
                pending = []

    async def _some_lines(self, window: float) -> list[str]:
        """The first whole line within ``window`` seconds, then those that follow at once."""
        with trio.move_on_after(window):
            while b"\n" not in self._buffer and not self._eof:
                await self._fill("an answer")
        if b"\n" not in self._buffer and not self._eof:
            return []
        return await self.lines_within(0)

    # -- reading --------------------------------------------------------------

    async def _fill(self, what: str) -> None:
        try:
            data = await self.stream.receive_some(RECEIVE_SIZE)
        except (trio.BrokenResourceError, trio.ClosedResourceError) as error:
            raise ServerClosed(
                f"{self.name}: the connection broke while awaiting {what}: {error}"
            ) from error
        if not data:
            self._eof = True
            self._record(Event.CLOSED_BY_SERVER, b"")
        else:
            self.received_any = True
            self._buffer += data
            self._record(Event.RECEIVED, bytes(data))

    async def read_raw_line(self, what: str, timeout: float | None = None) -> bytes:
        """The next line's bytes without its ``LF`` (a ``CR`` before it is kept)."""
        limit = self.timeout if timeout is None else timeout
        with trio.move_on_after(limit):
            while b"\n" not in self._buffer and not self._eof:
                if len(self._buffer) > MAX_LINE:
                    raise BadReply(f"{self.name}: a line of more than {MAX_LINE} bytes in {what}")
                await self._fill(what)
        if b"\n" in self._buffer:
            line, _, rest = bytes(self._buffer).partition(b"\n")
            self._buffer = bytearray(rest)
            self._heard(line.rstrip(b"\r").decode("utf-8", "replace"))
            return line
        if self._eof:
            if self._buffer:
                # A last line without terminator still counts, as the framer counts it.
                line, self._buffer = bytes(self._buffer), bytearray()
                self._heard(line.rstrip(b"\r").decode("utf-8", "replace"))
                return line
            raise ServerClosed(f"{self.name}: the server closed the connection instead of {what}")
        partial = f" (partial line {bytes(self._buffer)!r})" if self._buffer else ""
        self._silence(what, f"waited {limit:g} s for {what}, in vain{partial}")

    async def read_line(self, what: str, timeout: float | None = None) -> str:
        """The next line as text, with tolerated drift (CRLF, trailing spaces) removed."""
        raw = await self.read_raw_line(what, timeout)
        if raw.endswith(b"\r"):
            self._drift("crlf-replies", f"{what} ends in CRLF")
            raw = raw.rstrip(b"\r")
        line = raw.decode("utf-8", "replace")
        stripped = line.rstrip(" \t")
        if stripped != line and self.dialect != "2013" and stripped in _SPACED:
            # The space is the dialect's own and says what follows: ``CHANGE `` heads a
            # pushed view (2016; bare ``CHANGE`` is 2015's "look again"), ``FAIL `` has
            # its reason on the next line. Stripped, a pushed view was read as the answer
            # to the LOOK sent after it, and every later reply one behind (issue 27).
            return line
        if stripped != line:
            self._drift("trailing-space", f"{what} has trailing spaces: {line!r}")
        return stripped

    async def read_reply(self, what: str) -> Reply:
        """The next whole reply (multi-line replies gathered), checked byte for byte."""
        if self.dialect != "2013":
            return await self._read_dialect_reply(what)
        lines: list[str] = []
        self.last_lines = lines
        while True:
            line = await self.read_line(what)
            if not line:
                self._drift("blank-lines", f"a blank line in {what}")
                continue
            try:
                reply = self._feed(line, lines, what)
            except RemoteProtocolError as error:
                self._parser = ReplyParser()
                raise BadReply(
                    f"{self.name}: {what}: {error}; received {describe(lines)}"
                ) from None
            if reply is not None:
                if reply.lines() != lines:
                    raise BadReply(
                        f"{self.name}: {what} is not byte for byte the 2013 form: "
                        f"received {describe(lines)}, expected {describe(reply.lines())}"
                    )
                return reply

    async def _read_dialect_reply(self, what: str) -> Reply:
        """The next reply in a 2015 or 2016 server's forms; its pushes go to ``pushed``.

        What follows a reply (``TREASUREMOD``, ``SERVERCHANGE``, a blank line,
        ``RENDERHINT`` lines) is not waited for: it is set aside before the next command
        (:meth:`send_command`) or while its reply is read."""
        lines: list[str] = []  # the reply's own lines: pushes read on the way are not
        self.last_lines = lines
        asking = _command(self.last_command)
        while True:
            line = await self.read_line(what)
            under_way = self._tolerant.in_reply
            try:
                reply = self._tolerant.feed(line, asking)
            except RemoteProtocolError as error:
                raise BadReply(
                    f"{self.name}: {what}: {error}; received {describe([*lines, line])}"
                ) from None
            if reply is None and not under_way and not self._tolerant.in_reply:
                self.unasked.append(line)  # read past: RENDERHINT, a blank line after a view
                continue
            lines.append(line)
            if reply is None:
                continue
            if isinstance(reply, (Push, Blank)):
                self.unasked += lines
                lines.clear()
                if not isinstance(reply, Blank):
                    self.pushed.append(reply)
                continue
            return reply

    async def _fence(self) -> None:
        """Before a ``LOOK`` in a dialect that pushes views in the form of its answer
        (mbk's ``L5`` rows): ``HELLO``, whose answer no view resembles (``H2``), and every
        view before that answer set aside as pushed. A view the server pushed before it
        read the ``LOOK`` (another player moved in sight, the one after ``MS``) comes
        before the ``HELLO``'s answer, which the server writes in order; so the view
        after ``LOOK`` is its answer, whatever was still in flight when it was sent."""
        assert self._declared is not None
        what = (
            "the reply to HELLO, sent before LOOK to tell the views pushed before it "
            "from its answer"
        )
        await self.send(b"HELLO\n")
        while True:
            line = await self.read_line(what)
            reply = self._declared.feed(line, Hello())
            if reply is not None and not isinstance(reply, Push):
                return
            self.unasked.append(line)
            if reply is not None:
                self.pushed.append(reply)

    async def _await_turn(self, refusal: str) -> str:
        """Wait for ``STARTTURN`` after ``refusal``; "" once it came, else why no turn came.
        A wait that already went unanswered in this run is given :data:`STALLED_TURN_WAIT`."""
        stalled = self.stalls.turn
        wait = min(self.turn_wait, STALLED_TURN_WAIT) if stalled else self.turn_wait
        if await self.wait_for_push(_turn_started, "STARTTURN", wait) is not None:
            return ""
        if not stalled:
            self.stalls.turn = f"{self.name}: {refusal}"
            return f"no STARTTURN came within {wait:g} s"
        return f"no STARTTURN came within {wait:g} s (nor, earlier in the run, after {stalled})"

    async def wait_for_push(
        self, wanted: Callable[[Reply], bool], what: str, timeout: float | None = None
    ) -> Reply | None:
        """The first push (already set aside, or arriving within ``timeout``, by default
        the session's) for which ``wanted`` holds, consumed; ``None`` if none came."""
        with trio.move_on_after(self.timeout if timeout is None else timeout):
            while True:
                self._take_pushes()
                for index, push in enumerate(self.pushed):
                    if wanted(push):
                        del self.pushed[index]
                        return push
                if b"\n" in self._buffer:
                    return None  # a line that is no push: something else is being said
                await self._fill(what)
        return None

    def _feed(self, line: str, lines: list[str], what: str) -> Reply | None:
        try:
            reply = self._parser.feed(line)
        except RemoteProtocolError:
            if self._parser.in_reply or lines:
                lines.append(line)
                raise
            fixed = line
            for tolerance, rewrite in _REWRITES:
                changed = rewrite(fixed)
                if changed != fixed:
                    self._drift(tolerance, f"{what} is {line!r}")
                    fixed = changed
            lines.append(fixed)
            if fixed == line:
                raise
            return self._parser.feed(fixed)
        lines.append(line)
        return reply

    async def ask(self, command: Command | str, what: str | None = None) -> Reply:
        """Send ``command`` and read its reply.

        A server that takes turns may refuse the command for want of a turn (``FAIL not
        your turn``): that says nothing about the command, so the session waits for its
        ``STARTTURN`` and sends it again. If no turn comes within the timeout, the check
        cannot be judged (:class:`NotJudged`, quoting the refusal)."""
        what = what or f"the reply to {_verb(command)}"
        while True:
            await self.send_command(command)
            reply = await self.read_reply(what)
            if not not_your_turn(reply):
                return reply
            refusal = f"{_verb(command)} was answered {describe(self.last_lines)}"
            if why := await self._await_turn(refusal):
                raise NotJudged(f"{self.name}: could not judge: {refusal}, and {why}")

    async def expect(self, command: Command | str, kind: type[R], what: str | None = None) -> R:
        """Send ``command``; fail unless its reply is a ``kind``."""
        what = what or f"the reply to {_verb(command)}"
        reply = await self.ask(command, what)
        if not isinstance(reply, kind):
            raise BadReply(
                f"{self.name}: {what}: expected {kind.__name__}, got {describe(self.last_lines)}"
            )
        return reply

    async def greet(self, line: str = "HELLO", ending: bytes = b"\n") -> list[str]:
        """Begin as a client of any dialect does: ``HELLO`` and whatever answers it.

        Only ``hello.gold`` judges the answer, so that one fault fails one check:
        here any answer will do. Where the bare ``HELLO`` is refused (a server that
        needs a name) it is sent again as ``HELLO conformance``, and as the shorter
        ``HELLO conform`` if that is refused too. Fails only when nothing answers.
        Judging a 2015 server, whose clients always give a name, the name is given at
        once.
        """
        if self.dialect == "2015" and (line, ending) == ("HELLO", b"\n"):
            return await self.name_myself()
        await self.send_command(line, ending)
        what = f"the reply to {line.strip()!r}"
        first = await self.read_line(what)
        if first.upper().startswith("GOLD") and self.dialect == "2013":
            return [first]
        lines = [first, *await self.lines_within(QUIET)]
        if line.strip().upper() == "HELLO" and _refused(first):
            lines += await self.name_myself()
        return lines

    async def name_myself(self) -> list[str]:
        """``HELLO <name>`` with the first of :data:`NAMES` the server takes; its answer."""
        lines: list[str] = []
        # One name per connection (a server may refuse a name in use); the suffix keeps
        # the shorter one within 8 characters.
        suffix = "" if self.name == "client" else self.name[:2]
        for name in NAMES:
            command = f"HELLO {name}{suffix}"
            await self.send_command(command)
            answer = [await self._naming_line(command)]
            answer += await self.lines_within(QUIET)
            answer += await self._rest_of_welcome(command, answer)
            lines += answer
            if not _refused(answer[0]):
                break
        return lines

    async def _rest_of_welcome(self, command: str, lines: list[str]) -> list[str]:
        """The rest of an answer to ``command`` (``HELLO <name>``) that has so far said
        only what a server of a known dialect says on the way (ch739: ``MESSAGE``,
        ``GOAL``, ``STARTTURN``, a view, then, after a pause while it starts its game,
        its echo): the lines up to the answer proper, each awaited up to the timeout.
        Lines no dialect explains alone (mbk's ``H2``) are an answer already."""
        if self.dialect == "2013" or self._declared is not None:
            return []  # a declared dialect's answer is its first line (mbk's H2)
        reader = TolerantReader()
        asking = _command(command)
        talking = False
        for line in lines:
            with contextlib.suppress(RemoteProtocolError):
                reply = reader.feed(line, asking)
                if reply is not None and not isinstance(reply, (Push, Blank)):
                    return []  # answered (an echo, GOLD, a refusal)
                talking |= isinstance(reply, Push) and not isinstance(reply, Unasked)
        if not talking:
            return []
        more: list[str] = []
        deadline = trio.current_time() + self.timeout
        while got := await self._some_lines(max(deadline - trio.current_time(), 0)):
            for line in got:
                more.append(line)
                with contextlib.suppress(RemoteProtocolError):
                    reply = reader.feed(line, asking)
                    if reply is not None and not isinstance(reply, (Push, Blank)):
                        return [*more, *await self.lines_within(QUIET)]
        return more

    async def hello_named(self, name: str) -> list[str]:
        """Send ``HELLO <name>``; the lines that answer it (set aside as :meth:`answer`
        does). Unanswered, the check cannot be judged, as :meth:`name_myself` says."""
        command = f"HELLO {name}"
        try:
            return await self.answer(
                f"{command}\n".encode(), f"the reply to {command!r}", self._naming_wait()
            )
        except (NoReply, _SilentAfterPushes) as silence:
            self._unnamed(command, silence)

    async def _naming_line(self, command: str) -> str:
        try:
            return await self.read_line(f"the reply to {command!r}", self._naming_wait())
        except (NoReply, _SilentAfterPushes) as silence:
            self._unnamed(command, silence)

    def _naming_wait(self) -> float:
        return min(self.timeout, STALLED_NAMING_WAIT) if self.stalls.naming else self.timeout

    def _unnamed(self, command: str, silence: CheckFailed | NotJudged) -> NoReturn:
        """A naming ``HELLO`` went unanswered: the server took no player for this
        connection, so nothing the check asks of a player can be judged. Said once in
        full; later connections of the run wait :data:`STALLED_NAMING_WAIT` and quote it."""
        self.unnamed = True
        earlier = self.stalls.naming
        if not earlier:
            self.stalls.naming = f"{self.name}: {command!r}"
            raise NotJudged(f"could not judge: the server took no player: {silence}") from None
        raise NotJudged(
            f"could not judge: the server took no player: {silence} (as, earlier in the run, "
            f"{earlier})"
        ) from None

    async def nothing_within(self, window: float) -> bytes:
        """Wait ``window`` seconds for bytes without consuming them; returns what came."""
        with trio.move_on_after(window):
            while not self._buffer and not self._eof:
                await self._fill("silence")
        return bytes(self._buffer)

    async def closed_within(self, what: str, timeout: float | None = None) -> list[str]:
        """Read to the end of the stream; the lines before it. Fails if it stays open."""
        limit = self.timeout if timeout is None else timeout
        with trio.move_on_after(limit) as scope:
            while not self._eof:
                if self._refused():
                    # A server that refused the command will not close for it: waiting
                    # out the whole timeout would only lengthen the run (issue 27).
                    scope.deadline = min(scope.deadline, trio.current_time() + REFUSED_CLOSE)
                await self._fill(what)
        if not self._eof:
            said = f", having answered {bytes(self._buffer)[:80]!r}" if self._buffer else ""
            waited = REFUSED_CLOSE if self._refused() and limit > REFUSED_CLOSE else limit
            raise NoReply(
                f"{self.name}: the connection was still open {waited:g} s after {what}{said}"
            )
        text = bytes(self._buffer).decode("utf-8", "replace")
        self._buffer.clear()
        return text.splitlines()

    def _refused(self) -> bool:
        """Whether a whole line has answered the command awaited to close the connection:
        a refusal, or the one final line allowed, after which the close is due at once."""
        return b"\n" in self._buffer

    async def leave(self) -> bool:
        """Send ``QUIT`` and wait for the close; False if the server kept the connection open.

        Waiting for the close makes sure the server has taken our player out of
        the game before the next check looks for players.
        """
        if self._eof:
            return True
        self._buffer.clear()  # leaving: what was left unread no longer matters
        try:
            await self.send_command("QUIT")
            await self.closed_within("QUIT")
        except CheckFailed:
            return False
        return True

    async def say_quit(self) -> None:
        """Send ``QUIT`` without waiting for anything; errors are ignored."""
        if not self._eof:
            with contextlib.suppress(CheckFailed):
                await self.send(b"QUIT\n")

    async def aclose(self) -> None:
        if not self._released and not self._eof:
            self._record(Event.CLOSED_BY_SUITE, b"")
        self._released = True
        with trio.move_on_after(self.timeout):
            await self.stream.aclose()


def _unrecorded(event: Event, data: bytes) -> None:
    return None


def _refused(first: str) -> bool:
    """Whether the first line answering a ``HELLO`` refuses it (``FAIL``, ldjb's ``null``)."""
    return first.startswith("FAIL") or first == "null"


def _turn_refusal(line: str) -> bool:
    return line.startswith("FAIL") and any(
        words in line for words in ("not your turn", "not users turn")
    )


def _turn_started(reply: Reply) -> bool:
    return isinstance(reply, TurnStarted)


def _command(line: str) -> Command | None:
    """The command a line sent was, as far as the reader needs it (``HELLO``, ``LOOK``)."""
    # A command sent with its line end in the liberal forms (CR NUL) is still that command.
    line = line.strip(" \t\r\n\x00")
    verb, _, rest = line.partition(" ")
    if verb.upper() == "LOOK":
        return Look()
    if verb.upper() == "HELLO":
        return Hello(rest or None)
    # MOVE and PICKUP: what mbk's MS and PF answer (a declared reader reads by them).
    try:
        return parse_command(line)
    except RemoteProtocolError:
        return None


def _verb(command: Command | str) -> str:
    return command.strip() if isinstance(command, str) else command.to_line()
