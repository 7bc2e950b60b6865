"""What to do with one client's bytes, decided without doing any I/O (h11's style).

A :class:`TransportPolicy` owns one client's output queue, its limits and its time
limits, and is fed events: bytes queued (:meth:`~TransportPolicy.write`), bytes
written (:meth:`~TransportPolicy.wrote`), a command heard, time passed
(:meth:`~TransportPolicy.tick`), the reader or writer blocked and unblocked, the peer
gone. It answers with data: what to write (:attr:`~TransportPolicy.pending`), whether
to stop handling input (:attr:`~TransportPolicy.backlogged`), whether and why the
connection ends (:attr:`~TransportPolicy.reason`, the limit :meth:`tick` enforced),
and how long to linger for the last bytes (:attr:`~TransportPolicy.linger`). It never
reads a clock (the caller passes ``now``), a socket or a task.

Its drivers (:class:`server.session.transport.Transport`, whose fd direct path, trio stream
path and :class:`server.session.poller.Poller` moves the bytes) extend it rather than hold
it: a session then calls the policy's own :meth:`~TransportPolicy.write` and reads
its :attr:`~TransportPolicy.reason`, so a command costs no call or attribute hop more
than when the policy was written inside the transport. Two notifications reach the
driver, through callables it passes in or the methods it overrides (``_wake_writer``,
``_interrupt``: no callable kept per client): *wake the writer* (output was queued
from outside a batch of input) and *interrupt the reader* (the connection ends, or a
time limit expired, while the reader waits).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Final, Protocol

CUT_OFF: Final = "cut off: not reading its replies"
IDLE: Final = "idle timeout"
LOST: Final = "connection lost"


class TransportLimits(Protocol):
    """The settings a transport reads (a :class:`~server.setup.config.ServerConfig` has them).

    Read when they apply, not copied: a limit changed on the settings object holds
    from the next decision on."""

    @property
    def idle_timeout(self) -> float | None: ...
    @property
    def send_timeout(self) -> float: ...
    @property
    def max_pending_output(self) -> int: ...
    @property
    def linger(self) -> float: ...


class Phase(enum.Enum):
    """What the reader is doing: which time limit runs (see :data:`TIME_LIMIT`)."""

    READING = enum.auto()
    """Waiting for or handling input: the idle limit runs."""
    REPLYING = enum.auto()
    """Waiting for the client to take its replies: the send limit runs."""
    WAITING = enum.auto()
    """Waiting for something the session named (a round): no limit here (the round has its own)."""


TIME_LIMIT: Final[dict[Phase, str | None]] = {
    Phase.READING: IDLE,
    Phase.REPLYING: CUT_OFF,
    Phase.WAITING: None,
}
"""Which limit :meth:`TransportPolicy.tick` enforces in each phase (``None``: none)."""


def _nothing() -> None:
    pass


class TransportPolicy:
    """One client's output queue and limits; see the module docstring.

    ``wake_writer`` is called when output is queued outside a batch of input (or the
    connection starts to end) and a writer should write it; ``interrupt`` when the
    reader must stop waiting (the connection ends from elsewhere, a limit expired).
    """

    # Per-connection state on every command's path: one compact object, no __dict__
    # (issue 31: at 1,000 connections the cache, not the work, sets the cost). A driver
    # that extends it declares its own __slots__, or it gets a __dict__ again.
    __slots__ = (
        "_heard",
        "_on_interrupt",
        "_on_wake_writer",
        "_replying_since",
        "expired",
        "got_command",
        "high_mark",
        "in_batch",
        "limits",
        "pending",
        "phase",
        "reason",
    )

    def __init__(
        self,
        limits: TransportLimits,
        now: float,
        wake_writer: Callable[[], object] = _nothing,
        interrupt: Callable[[], object] = _nothing,
    ) -> None:
        self.limits = limits
        self.reason: str | None = None
        """Why the connection is ending, once it is; ``None`` while it is served."""
        self.high_mark = max(1024, limits.max_pending_output // 4)
        """Queued bytes past which the session should pause (:attr:`backlogged`)."""
        self.pending = bytearray()
        """What to write next, oldest first; a driver writes from it and calls :meth:`wrote`
        (or takes it whole with :meth:`take_output`)."""
        self.in_batch = False
        """Set by the driver while a session handles a batch of input: the writes made
        meanwhile are written after the batch, so they wake no writer."""
        self.phase = Phase.READING
        self.expired: str | None = None
        """Which time limit :meth:`tick` enforced, once one did (:data:`CUT_OFF`, :data:`IDLE`)."""
        self._on_wake_writer = wake_writer
        self._on_interrupt = interrupt
        self.got_command = False
        """A whole command came since the last :meth:`tick` (:meth:`heard` sets it; a
        session's fast path, :mod:`server.session.fast_path`, sets it itself)."""
        self._heard = now  # the tick that last saw a command
        self._replying_since = 0.0

    def _wake_writer(self) -> None:
        """Output was queued outside a batch of input, or the connection ends: a driver
        may override this rather than pass ``wake_writer`` (no callable kept per client)."""
        self._on_wake_writer()

    def _interrupt(self) -> None:
        """The reader must stop waiting; a driver may override this rather than pass
        ``interrupt``."""
        self._on_interrupt()

    # -- what a session tells it ----------------------------------------------------

    def write(self, data: bytes) -> None:
        """Queue ``data``; cuts the client off if its backlog is too long.

        The limit judges the backlog ``data`` joins, not ``data``: one large reply (the
        ``MAP`` of a big board) to a client that reads is always sent, while a client
        that leaves more than ``max_pending_output`` bytes unread is cut off at the next
        line queued for it, so memory stays within the limit plus one reply.
        """
        if self.reason is not None:
            return
        if len(self.pending) > self.limits.max_pending_output:
            self.pending.clear()
            self.close(CUT_OFF)
            return
        self.pending += data
        if not self.in_batch:
            self._wake_writer()

    def write_first(self, data: bytes) -> None:
        """Queue ``data`` ahead of everything queued (telnet answers)."""
        if self.reason is None:
            self.pending[:0] = data

    @property
    def backlogged(self) -> bool:
        """Whether the queue is past the high mark: handle no more input for now."""
        return len(self.pending) > self.high_mark

    def heard(self) -> None:
        """The client sent a whole command: it is not idle (noted at the next :meth:`tick`)."""
        self.got_command = True

    def close(self, reason: str) -> None:
        """End the connection once what is queued is written (within :attr:`linger`)."""
        if self.reason is not None:
            return
        self.reason = reason
        if not self.in_batch:
            self._interrupt()  # from outside the reader: it winds up
        self._wake_writer()

    # -- what the driver tells it ---------------------------------------------------

    def wrote(self, sent: int) -> None:
        """The first ``sent`` bytes of :attr:`pending` are written."""
        del self.pending[:sent]

    def take_output(self) -> bytearray:
        """All of :attr:`pending`, to write; the queue starts empty again. Bytes the
        driver could not write go back with :meth:`unsent`."""
        data, self.pending = self.pending, bytearray()
        return data

    def unsent(self, data: bytearray) -> None:
        """``data`` (from :meth:`take_output`) was not written: it goes first again."""
        self.pending[:0] = data

    def replying(self, now: float) -> None:
        """The reader waits, from ``now``, for the client to take its replies."""
        self._replying_since = now
        self.phase = Phase.REPLYING

    def replied(self) -> None:
        """The client has taken its replies: the reader is back at input."""
        self.phase = Phase.READING

    def waiting(self) -> None:
        """The reader waits for something the session named (a round)."""
        self.phase = Phase.WAITING

    def reading(self, now: float) -> None:
        """The reader is back at input; after a wait, idleness counts from ``now``."""
        if self.phase is Phase.WAITING:
            self.got_command = False
            self._heard = now
        self.phase = Phase.READING

    def lost(self) -> None:
        """The peer is gone (a read or write failed): nothing more can be written."""
        self.pending.clear()
        self.reason = self.reason or LOST

    def send_timed_out(self) -> None:
        """A write waited ``send_timeout`` seconds: the client is cut off."""
        self.pending.clear()
        self.close(CUT_OFF)

    def tick(self, now: float) -> str | None:
        """Time is ``now``: the time limit that expires (and interrupts the reader), if one does."""
        if self.reason is not None or self.expired is not None:
            return None
        if self.got_command:  # a command came since the last tick
            self.got_command = False
            self._heard = now
        limit = TIME_LIMIT[self.phase]
        if limit is CUT_OFF:
            if now - self._replying_since < self.limits.send_timeout:
                return None
        elif limit is IDLE:
            idle = self.limits.idle_timeout
            if idle is None or now - self._heard < idle:
                return None
        else:
            return None
        self.expired = limit
        self._interrupt()
        return limit

    def input_over(self) -> bool:
        """The reader has stopped; whether because of the idle limit (the session then
        says goodbye). A client cut off loses what was queued for it."""
        if self.expired == CUT_OFF:
            self.pending.clear()
            self.reason = self.reason or CUT_OFF
        return self.reason is None and self.expired == IDLE

    def session_over(self) -> None:
        """The session has said its last: the connection ends, its queue still to write."""
        if self.reason is None:
            self.reason = LOST
        self._wake_writer()

    @property
    def linger(self) -> float:
        """How long the driver may still write the queue, and close, once the connection ends."""
        return self.limits.linger
