"""One client's bytes: read from any trio stream, replies queued and written, time limits.

A :class:`Transport` knows nothing of commands or games. It hands what the client
sends to its :class:`Session` (the server's is :class:`~server.session.client.Connection`)
and writes what the session queues with :meth:`Transport.write`. It runs on any
:class:`trio.abc.Stream`: a TCP :class:`trio.SocketStream` (whose socket it uses
directly, the direct path below), a WebSocket adapter, or
``trio.testing.memory_stream_pair`` in tests.

The direct path (a :class:`trio.SocketStream` on a POSIX system): the transport reads
and writes the socket's file descriptor itself (``os.read``/``os.write``, which a
non-blocking socket answers at once), where trio's socket methods add a scheduler
round trip to each receive and each send (a checkpoint each) and a receive that finds
nothing before every wait: together more than the game's own work on a ``LOOK``.
While the client waits for input, the server's :class:`~server.session.poller.Poller` holds
it: one task reads, handles and answers every client that has sent something, so a
batch of clients costs one wake-up and no ``epoll_ctl`` per command (the transport
is its :class:`~server.session.poller.Polled`). The transport's own task takes over when the
client must wait for something else (a round, a full socket, the end), and serves
it alone where there is no poller (another system, or the poller has stopped),
parking once per batch of input in :func:`trio.lowlevel.wait_readable`. Either way
a client that keeps its socket full is read once per round and served in turn with
the others, and cancelling the transport's task reaches it wherever it waits.

What a session may rely on (decided by the transport's pure
:class:`~server.session.transport_policy.TransportPolicy`, which this class extends and
drives: the queue, its limit, back-pressure and the time limits; this class moves
the bytes and reads the clock):

* :meth:`~Transport.write` never blocks. Replies to a batch of input are written
  after it (and after :meth:`Session.settle`: the replay first); a writer task writes
  what other tasks queue meanwhile. It runs only while such output waits to be
  written (an idle client has no task but its reader): started when some is queued,
  in the nursery the transport was given (a TCP socket's: the server's
  :attr:`~server.app.Server.writers`) or else in one :meth:`~Transport.run` opens
  (any other stream's), and ending once the queue is empty. It
  never outlives :meth:`~Transport.run`, which ends it before closing the stream.
* **Back-pressure**: a session stops handling input once the queue passes
  :attr:`~Transport.high_mark` (:attr:`~Transport.backlogged`) and returns
  ``Input.PAUSED``; the transport then writes the queue out (down to the low
  mark, the empty queue) before the session handles more, and reads no new input
  meanwhile. A client that pipelines many commands and reads its replies is
  served at the pace it reads.
* A client that leaves its replies unread is cut off (``CUT_OFF``): at once when a
  line is queued behind more than ``max_pending_output`` unwritten bytes, and when
  a write has waited ``send_timeout`` seconds.
* While the session holds a command (:meth:`Session.handle_input` returned an event),
  the client is still read, for :meth:`Session.read_ahead` (a ``QUIT`` or the client's
  end is acted on at once), as long as the session wants more.
* A client that sends no whole command (the session calls :meth:`~Transport.heard`)
  for ``idle_timeout`` seconds is idle: :meth:`Session.input_ended` is told so, to
  say goodbye. Blank lines, half lines and telnet chatter do not count.

Time limits are enforced by the server's watchdog (:meth:`Transport.check_time`,
called about every ``tick`` seconds), not by a deadline moved on every command:
moving a trio deadline costs more than the whole world's work on a ``MOVE``, and
even reading the clock per command is left to the watchdog, which notes at each
tick whether a command came since the last. So a silent client is told ``BYE``
after between ``idle_timeout`` and ``idle_timeout`` + 2 ``tick`` seconds, and one
that leaves its replies unread is cut off after between ``send_timeout`` and
``send_timeout`` + ``tick``.
"""

from __future__ import annotations

import contextlib
import enum
import os
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Final, Protocol, cast

import trio

from .poller import Poller
from .transport_policy import CUT_OFF, IDLE, LOST, TransportLimits, TransportPolicy

__all__ = ["CUT_OFF", "GONE", "IDLE", "Input", "Session", "Transport"]

RECEIVE_SIZE: Final = 16384
GONE: Final = (OSError, trio.BrokenResourceError, trio.ClosedResourceError)
"""What reading or writing a stream raises once the peer or our side has closed it."""
DIRECT_IO: Final = sys.platform != "win32"
"""Whether a socket's descriptor can be read and written with ``os.read``/``os.write``
(the direct path; Windows sockets are not file descriptors)."""


class Input(enum.Enum):
    """What a session's :meth:`~Session.handle_input` leaves the transport to do."""

    WANT_DATA = enum.auto()
    """Every complete command is handled: read more."""
    ENDED = enum.auto()
    """The input is over (end of input, a fatal error, ``QUIT``): read no more."""
    PAUSED = enum.auto()
    """Replies pass the high mark: write them out, then call again without reading."""


WANT_DATA: Final = Input.WANT_DATA
"""``Input.WANT_DATA`` for the hot path: a member looked up on its class goes through
``EnumType.__getattr__``'s slot, about 850 instructions a time in Python 3.11."""


class Session(Protocol):
    """The other half of a connection: what the transport's bytes mean."""

    def data_received(self, data: bytes) -> None:
        """Bytes from the client; ``b""`` when it closed its side."""

    def handle_input(self) -> Input | trio.Event:
        """Handle what was received; an event means *call again once it is set*."""

    def settle(self) -> None:
        """Make lasting what handling the input changed (the replay): called after
        :meth:`handle_input` and before any of the replies it queued is written."""

    def input_ended(self, idle: bool) -> None:
        """No more input will be handled; ``idle``: because of the idle time-out."""

    def read_ahead(self) -> bool:
        """While the event :meth:`handle_input` returned is not set (a command is held):
        look at what was received since (:meth:`data_received`) for what may not wait
        for it, the client's end or its ``QUIT``, and act on it now (it ends the
        connection); the rest waits for :meth:`handle_input`, in order. Whether more may
        be received (``False``: the connection ends, or enough input waits)."""


class _Unserved:
    """The session of a transport :meth:`Transport.run` does not serve yet: nothing."""

    def data_received(self, data: bytes) -> None:
        pass

    def handle_input(self) -> Input | trio.Event:
        return Input.ENDED

    def settle(self) -> None:
        pass

    def input_ended(self, idle: bool) -> None:
        pass

    def read_ahead(self) -> bool:
        return False


_UNSERVED: Final = _Unserved()


class Transport(TransportPolicy):
    """Moves one client's bytes; :meth:`run` serves the stream to its end and closes it.

    What it queues, when it pauses and when it cuts off are its
    :class:`~server.session.transport_policy.TransportPolicy`'s; this class only drives it.
    """

    # Per-connection state on every command's path: one compact object, no __dict__
    # (issue 31); the policy's own attributes are its __slots__.
    __slots__ = (
        "_address",
        "_drained",
        "_fd",
        "_poller",
        "_read_scope",
        "_receive",
        "_result",
        "_send",
        "_sending",
        "_spawn_in",
        "_writer",
        "_writer_done",
        "_writers",
        "session",
        "stream",
    )

    def __init__(
        self,
        stream: trio.abc.Stream,
        limits: TransportLimits,
        poller: Poller | None = None,
        writers: trio.Nursery | None = None,
    ) -> None:
        self._read_scope = trio.CancelScope()
        super().__init__(limits, trio.current_time())
        self.stream = stream
        self._receive: Callable[[int], Awaitable[bytes]]
        self._send: Callable[[bytearray], Awaitable[int]]
        self._fd = -1
        """The socket's file descriptor on the direct path (module docstring); else -1."""
        self._address: str | None = None
        """The client's IP address on the direct path: the poller's share is per address."""
        if isinstance(stream, trio.SocketStream) and DIRECT_IO:
            # The read loop reads the descriptor itself (no receive coroutine per batch).
            self._fd = stream.socket.fileno()
            with contextlib.suppress(OSError):  # gone already: its reads will say so
                self._address = str(stream.socket.getpeername()[0])
            self._receive = cast(Callable[[int], Awaitable[bytes]], stream.receive_some)
            self._send = self._send_fd
        elif isinstance(stream, trio.SocketStream):
            # Bytes move through the stream's trio socket itself: the stream's layers (a
            # conflict detector, error translation) cost a fifth of a reply's time, and
            # this class already keeps one reader and one writer at a time.
            self._receive = stream.socket.recv
            self._send = stream.socket.send
        else:
            # Any stream's chunks are bytes-like; the session's framer takes them as bytes.
            self._receive = cast(Callable[[int], Awaitable[bytes]], stream.receive_some)
            self._send = self._send_all
        self._poller = poller if self._fd >= 0 else None
        """Serves this client while it waits for input, on the direct path (the poller)."""
        self.session: Session = _UNSERVED
        """What the client's bytes mean (:meth:`run` serves one; none before): the poller
        settles it (:class:`server.session.poller.Polled`)."""
        self._result: Input | trio.Event = Input.WANT_DATA
        """What handling the last batch left to do, when the poller handled it."""
        self._sending = False
        # Only a socket's transport (which the server runs inside ``writers``) uses it: a
        # WebSocket session is the web face's task and may end after the server's run.
        self._spawn_in = writers if isinstance(stream, trio.SocketStream) else None
        """Where :meth:`run` starts writer tasks; ``None``: a nursery of its own."""
        self._writers: trio.Nursery | None = None
        """Where writer tasks start, while :meth:`run` runs."""
        self._writer: trio.CancelScope | None = None
        """The running writer task's scope, while one runs."""
        # Made when first needed: an idle client never waits on them.
        self._writer_done: trio.Event | None = None
        self._drained: trio.lowlevel.ParkingLot | None = None

    async def _send_all(self, data: bytearray) -> int:
        await self.stream.send_all(data)
        return len(data)

    async def _send_fd(self, data: bytearray) -> int:
        """Write what the socket takes now; wait until it takes something if nothing."""
        fd = self._fd
        while True:
            try:
                return os.write(fd, data)
            except BlockingIOError:
                await trio.lowlevel.wait_writable(fd)

    def check_time(self, now: float) -> None:
        """Enforce the idle and send time limits at ``now``; the server's watchdog calls it."""
        self.tick(now)  # an expired limit interrupts the reader, which winds up

    # -- the connection's life ------------------------------------------------------

    def run(self, session: Session) -> Coroutine[object, None, None]:
        """Serve the stream until the connection ends, then close it: a coroutine to
        await (this is not itself a coroutine function so that an idle client's task
        waits one coroutine frame less deep: issue 31 counts every byte of it)."""
        if self._spawn_in is None:
            return self._serve_with_writers(session)
        return self._serve(session, self._spawn_in)

    async def _serve_with_writers(self, session: Session) -> None:
        async with trio.open_nursery() as writers:
            await self._serve(session, writers)

    async def _serve(self, session: Session, writers: trio.Nursery) -> None:
        """The reader: serves the connection to its end; the writer tasks it starts in
        ``writers`` end with it, before the stream is closed."""
        self.session = session
        self._writers = writers
        try:
            if self.pending:  # queued before run (a greeting): a writer writes it meanwhile
                self._start_writer()
            with self._read_scope:  # the read loop, inline: one coroutine frame less
                receive = self._receive
                fd = self._fd
                poller = self._poller
                wait_readable, read = trio.lowlevel.wait_readable, os.read
                wait_task_rescheduled = trio.lowlevel.wait_task_rescheduled
                result: Input | trio.Event
                while True:  # here the session wants data
                    try:
                        if poller is not None:
                            # The poller reads, handles and answers until something needs
                            # this task (a round, a full socket, the end); then it goes on
                            # below. A read that failed there is raised here (and ends the
                            # connection). Awaited here, not in a method of the poller's: one
                            # coroutine frame less for every idle client.
                            abort = poller.admit(self, fd, self._address)
                            if abort is None or not await wait_task_rescheduled(abort):
                                poller = None  # the poller has stopped: serve ourselves
                                continue
                            result = self._result
                        else:
                            if fd >= 0:  # the direct path: no coroutine per batch
                                await wait_readable(fd)
                                try:
                                    data = read(fd, RECEIVE_SIZE)
                                except BlockingIOError:
                                    continue
                            else:
                                data = await receive(RECEIVE_SIZE)
                            session.data_received(data)
                            result = self._handle(session)
                    except GONE:
                        self.lost()
                        break
                    # The replies to what was handled, and what handling it left to do.
                    while True:
                        if self.pending:
                            # Written here rather than by a writer task to save a task
                            # switch per reply; a client that leaves them unread is cut
                            # off in time.
                            try:
                                if self._fd < 0 or not self.write_out():
                                    self.replying(trio.current_time())
                                    await self._drain()
                                    self.replied()
                            except GONE:
                                self.lost()
                                result = Input.ENDED
                        if result is Input.ENDED or self.reason is not None:
                            break
                        if result is Input.WANT_DATA:
                            break
                        if result is not Input.PAUSED:
                            # The round has its own time limit; idleness counts from its end.
                            self.waiting()
                            await self._hold(session, result)
                            self.reading(trio.current_time())
                        result = self._handle(session)
                    if result is not Input.WANT_DATA or self.reason is not None:
                        break
            session.input_ended(idle=self.input_over())
            self.session_over()  # a writer task writes what is left, if anything is
            with trio.move_on_after(self.linger):
                while self._writer is not None and self._writer_done is not None:
                    await self._writer_done.wait()
        finally:
            with trio.move_on_after(self.linger) as cleanup:
                cleanup.shield = True
                # A writer task still running (time ran out, or this task was cancelled)
                # ends before the stream closes: no write may reach a reused descriptor.
                if self._writer is not None and self._writer_done is not None:
                    self._writer.cancel()
                    await self._writer_done.wait()
                self._writers = None
                await self.stream.aclose()

    async def _hold(self, session: Session, done: trio.Event) -> None:
        """Wait until ``done`` is set (a command of the client's is held), reading on
        meanwhile (:meth:`_read_ahead`); a session that ends the connection ends the wait."""
        async with trio.open_nursery() as reader:
            reader.start_soon(self._read_ahead, session, done)
            await done.wait()
            reader.cancel_scope.cancel()

    async def _read_ahead(self, session: Session, done: trio.Event) -> None:
        """What :meth:`_hold` runs beside its wait: what the client sends is handed to
        the session (:meth:`Session.read_ahead`) until the session wants no more or the
        hold ends; the one reader of the stream meanwhile."""
        fd = self._fd
        try:
            while not done.is_set() and session.read_ahead():
                if fd >= 0:
                    await trio.lowlevel.wait_readable(fd)
                    try:
                        data = os.read(fd, RECEIVE_SIZE)
                    except BlockingIOError:
                        continue
                else:
                    data = await self._receive(RECEIVE_SIZE)
                session.data_received(data)
        except GONE:
            self.lost()
            self._interrupt()

    def _handle(self, session: Session) -> Input | trio.Event:
        """Handle what the session has received, and settle it (its replies are queued)."""
        result = self._handle_input(session)
        session.settle()
        return result

    def _handle_input(self, session: Session) -> Input | trio.Event:
        # Writes the session makes meanwhile are this batch's: no writer wake-up for them.
        self.in_batch = True
        try:
            return session.handle_input()
        finally:
            self.in_batch = False

    # -- what the poller calls (server.session.poller.Polled) --------------------------------

    def take_input(self) -> bool:
        """Read and handle one batch; whether the poller may go on holding this client."""
        self._result = WANT_DATA  # nothing handled yet (a wake-up with nothing to read)
        try:
            data = os.read(self._fd, RECEIVE_SIZE)
        except BlockingIOError:
            return True
        session = self.session
        session.data_received(data)
        result = self._result = self._handle_input(session)
        return result is WANT_DATA and self.reason is None

    def write_out(self) -> bool:
        """Write the queue without waiting, unless a writer task is writing it; whether
        it is all written (the descriptor's transports only).

        Most replies fit in the socket's buffer at once: writing them here spares the
        reader a coroutine and a scheduler round trip per batch.
        """
        pending = self.pending
        if not pending:
            return True
        if self._sending:
            return False
        try:
            sent = os.write(self._fd, pending)
        except BlockingIOError:
            return False
        if sent == len(pending):
            pending.clear()
            return True
        del pending[:sent]
        return False

    async def _drain(self) -> None:
        """Write the queue out, or wait for the writer task to, until it is empty."""
        while self.pending:
            if self._sending:
                if self._drained is None:
                    self._drained = trio.lowlevel.ParkingLot()
                await self._drained.park()
            else:
                await self._flush()

    async def _flush(self) -> None:
        self._sending = True
        send = self._send
        try:
            while self.pending:
                data = self.take_output()
                try:
                    sent = await send(data)
                    while sent < len(data):
                        del data[:sent]
                        sent = await send(data)
                except BaseException:
                    # Unsent, say because the reader was cancelled as the connection ends
                    # (a world failed during a round): the writer's last flush sends it.
                    self.unsent(data)
                    raise
        finally:
            self._sending = False
            if self._drained is not None:
                self._drained.unpark_all()

    # -- the writer task: runs while output queued from elsewhere waits -------------

    def _interrupt(self) -> None:
        self._read_scope.cancel()

    def _wake_writer(self) -> None:
        """Output was queued outside a batch of input, or the connection ends: a writer
        task writes it, started now unless one runs or a flush under way will (none
        runs while nothing waits to be written, so an idle client has no task but its
        reader). Before :meth:`run` has started none is: :meth:`run` starts one for what
        was queued meanwhile (a greeting)."""
        if self._writer is None and self.pending and not self._sending:
            self._start_writer()

    def _start_writer(self) -> None:
        if self._writers is None:
            return
        self._writer = trio.CancelScope()
        self._writer_done = trio.Event()
        self._writers.start_soon(self._write_loop, self._writer, self._writer_done)

    async def _write_loop(self, scope: trio.CancelScope, done: trio.Event) -> None:
        """Write the queue until it is empty (and nothing more comes in the meantime)."""
        try:
            with scope:
                while True:
                    if self._sending:  # the reader writes: see what is left once it is done
                        if self._drained is None:
                            self._drained = trio.lowlevel.ParkingLot()
                        await self._drained.park()
                    elif self.pending:
                        with trio.move_on_after(self.limits.send_timeout) as timer:
                            await self._flush()
                        if timer.cancelled_caught:
                            self.send_timed_out()
                            return
                    else:
                        return
        except GONE:
            self.pending.clear()
            if self.reason is None:
                self.close(LOST)
        finally:
            self._writer = None
            done.set()
