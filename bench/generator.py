"""The load generator: many bot connections in one process, cheap enough never to be the bottleneck.

A generator process runs an asyncio event loop (uvloop when it is installed) with one
:class:`asyncio.Protocol` per connection. A protocol counts the newlines it receives
and never builds a line, a task or a future per reply: in a closed loop it sends the
next command from ``data_received`` itself the moment the reply is complete, and in
an open loop a timer handle sends each command when it is due. That costs a few
microseconds per reply, against the 30-45 µs the trio generator it replaces spent,
so one process drives a server at full speed at well under a core; the figures still
print each process's CPU, and :func:`overloaded` names any above the warning mark.

Times are read from :func:`time.perf_counter` (uvloop's own clock counts whole
milliseconds). In an open loop a send is due at its time and sent by a timer of the
event loop, which fires up to about a millisecond late; that slack is counted in the
latency, which is measured from when the command was due.

The parent talks to a worker through :class:`multiprocessing` shared values only
(``connected``, ``go``, a running count of replies and the slowest reply of the
current second), and collects a :class:`WorkerResult` from a queue at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event as EventType
from time import perf_counter
from typing import Protocol, TypeVar, cast

T = TypeVar("T")


class Shared(Protocol[T]):
    """A number shared with the parent process (a ``multiprocessing`` Value)."""

    value: T


CLOSE_GRACE = 2.0
"""Seconds bots stay connected after the measured seconds, so that closing 10,000
connections is not counted in the server's CPU time or profile."""
CPU_WARNING = 0.70
"""A generator process above this share of a core may be what limits the figures."""
MIXES: dict[str, tuple[bytes, ...]] = {
    "look": (b"LOOK\n",),
    "move": (b"MOVE N\n", b"MOVE S\n", b"MOVE E\n", b"MOVE W\n"),
    # A bot's day: look, then a few moves (a third LOOK, as the earlier benchmark).
    "mix": (b"LOOK\n", b"MOVE N\n", b"MOVE S\n", b"MOVE E\n", b"MOVE W\n", b"LOOK\n"),
}


def reply_lines(command: bytes, *, shaped: bool) -> int:
    """How many lines answer ``command``: six for a shaped ``LOOK`` (game or bare), else one."""
    return 6 if shaped and command == b"LOOK\n" else 1


@dataclass
class WorkerResult:
    completed: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    cpu_seconds: float = 0.0
    """CPU time of the worker process during the measured seconds."""
    send_lags: list[float] = field(default_factory=list)
    """Open loop: how late each measured command left this process after its timer was
    due: when the command was due, or when the reply before it came if that was later (a
    bot sends its next command only once answered). The generator's own delay, which the
    latency from when the command was due includes; a slow server does not add to it."""


@dataclass(frozen=True)
class Plan:
    """What one generator process does; picklable, so a spawned worker gets it whole."""

    port: int
    connections: int
    duration: float
    warmup: float
    pipeline: int
    interval: float | None
    shaped: bool
    """Whether ``LOOK`` is answered with six lines (the game, or the bare server's shaped mode)."""
    commands: tuple[bytes, ...]
    seed: int
    cpus: tuple[int, ...] | None = None
    """The CPUs this process may run on (``None``: any)."""


class _Clock:
    """The measured window, shared by every bot of a worker once ``go`` is given."""

    __slots__ = ("measure_from", "stop_at")

    def __init__(self) -> None:
        self.measure_from = float("inf")
        self.stop_at = float("inf")


class Bot(asyncio.Protocol):
    """One connection: sends commands, counts reply lines, records latency when measured."""

    __slots__ = (
        "clock",
        "commands",
        "done",
        "due",
        "expect",
        "fire_at",
        "fixed",
        "interval",
        "lines_of",
        "loop",
        "pipeline",
        "rng",
        "sent_at",
        "slowest",
        "started",
        "stats",
        "transport",
    )

    def __init__(
        self,
        plan: Plan,
        index: int,
        clock: _Clock,
        stats: WorkerResult,
        slowest: list[float],
        done: asyncio.Future[None],
    ) -> None:
        self.rng = random.Random(plan.seed * 100_003 + index)
        self.commands = plan.commands
        self.pipeline = plan.pipeline
        self.interval = plan.interval
        shaped = plan.shaped
        self.lines_of: Callable[[bytes], int] = lambda command: reply_lines(command, shaped=shaped)
        self.fixed: tuple[bytes, int] | None = None
        """A batch that is always the same (one command): built once, not per batch, so
        that a deep pipeline costs the generator one write and one count per batch."""
        if len(set(plan.commands)) == 1:
            batch = plan.commands[0] * plan.pipeline
            self.fixed = (batch, self.lines_of(plan.commands[0]) * plan.pipeline)
        self.clock = clock
        self.stats = stats
        self.slowest = slowest
        self.done = done
        self.transport: asyncio.Transport | None = None
        self.loop = asyncio.get_running_loop()
        self.expect = 1  # the HELLO's reply
        self.sent_at = 0.0
        self.due = 0.0
        self.fire_at = 0.0
        self.started = False
        """False until the ``HELLO`` is answered; then the bot waits for ``go``."""

    # -- asyncio callbacks -------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it.
        stream = cast(asyncio.Transport, transport)  # create_connection makes stream transports
        self.transport = stream
        stream.write(b"HELLO\n")

    def data_received(self, data: bytes) -> None:
        self.expect -= data.count(b"\n")
        if self.expect > 0:
            return
        # Lines beyond those asked for would belong to a push; none come in these worlds.
        now = perf_counter()
        since = self.sent_at if self.interval is None else self.due
        if self.clock.measure_from <= since < self.clock.stop_at:
            latency = now - since
            stats = self.stats
            stats.completed += self.pipeline if self.interval is None else 1
            stats.latencies.append(latency)
            if latency > self.slowest[0]:
                self.slowest[0] = latency
        if not self.started:
            self.started = True
            if not self.done.done():
                self.done.set_result(None)
            return
        if self.interval is None:
            self.send_batch(now)
        else:
            self.due += self.interval
            if self.due < self.clock.stop_at:
                self.fire_at = max(self.due, now)
                self.loop.call_later(self.fire_at - now, self.send_one)

    def connection_lost(self, exc: Exception | None) -> None:
        if perf_counter() < self.clock.stop_at:
            self.stats.errors += 1
        if not self.done.done():
            self.done.set_result(None)

    # -- sending -----------------------------------------------------------------------

    def begin(self, start: float) -> None:
        """Start sending at ``start``: at once, or spread over one interval."""
        if self.transport is None or self.transport.is_closing():
            return
        if self.interval is None:
            self.send_batch(perf_counter())
        else:
            self.due = start + self.rng.random() * self.interval
            now = perf_counter()
            self.fire_at = max(self.due, now)
            self.loop.call_later(self.fire_at - now, self.send_one)

    def send_batch(self, now: float) -> None:
        if now >= self.clock.stop_at or self.transport is None:
            return
        self.sent_at = now
        if self.fixed is not None:
            self.expect = self.fixed[1]
            self.transport.write(self.fixed[0])
            return
        choice = self.rng.choice
        batch = [choice(self.commands) for _ in range(self.pipeline)]
        self.expect = sum(map(self.lines_of, batch))
        self.transport.write(b"".join(batch))

    def send_one(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        due = self.due
        if self.clock.measure_from <= due < self.clock.stop_at:
            self.stats.send_lags.append(perf_counter() - self.fire_at)
        command = self.rng.choice(self.commands)
        self.expect = self.lines_of(command)
        self.transport.write(command)


async def _run(
    plan: Plan,
    connected: Shared[int],
    go: EventType,
    counter: Shared[int],
    slowest_shared: Shared[float],
) -> WorkerResult:
    loop = asyncio.get_running_loop()
    stats = WorkerResult()
    clock = _Clock()
    slowest = [0.0]
    bots: list[Bot] = []
    ready: list[asyncio.Future[None]] = []
    for index in range(plan.connections):
        done: asyncio.Future[None] = loop.create_future()
        ready.append(done)
        try:
            _, bot = await loop.create_connection(
                partial(Bot, plan, index, clock, stats, slowest, done),
                "127.0.0.1",
                plan.port,
            )
        except OSError:
            stats.errors += 1
            done.set_result(None)
            continue
        bots.append(bot)
    await asyncio.gather(*ready)
    connected.value = sum(1 for bot in bots if bot.started)
    await loop.run_in_executor(None, go.wait)
    # A garbage collection stalls every bot of this process for milliseconds, and the
    # stall would be counted as the server's latency. Little is allocated per reply
    # (and freed at once), so collecting nothing until the end costs a few megabytes.
    gc.collect()
    gc.freeze()
    gc.disable()
    start = perf_counter()
    clock.measure_from = start + plan.warmup
    clock.stop_at = clock.measure_from + plan.duration
    for bot in bots:
        bot.begin(start)

    async def report_progress() -> None:
        # The parent prints a line a second from these; updating them per reply would
        # cost a lock per reply.
        while True:
            await asyncio.sleep(0.2)
            counter.value = stats.completed
            if slowest[0] > slowest_shared.value:
                slowest_shared.value = slowest[0]
            slowest[0] = 0.0

    progress = asyncio.ensure_future(report_progress())
    await asyncio.sleep(max(0.0, clock.measure_from - perf_counter()))
    before = time.process_time()
    await asyncio.sleep(max(0.0, clock.stop_at - perf_counter()))
    stats.cpu_seconds = time.process_time() - before
    await asyncio.sleep(CLOSE_GRACE)
    progress.cancel()
    counter.value = stats.completed
    for bot in bots:
        if bot.transport is not None:
            bot.transport.close()
    gc.enable()
    return stats


def _raise_file_limit() -> None:
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop's loop when it is installed (``pip install -e '.[bench]'``), else asyncio's."""
    try:
        # uvloop is the optional [bench] extra; without it this import is what fails.
        import uvloop  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return asyncio.new_event_loop()
    loop: asyncio.AbstractEventLoop = uvloop.new_event_loop()
    return loop


def worker(
    plan: Plan,
    connected: Shared[int],
    go: EventType,
    counter: Shared[int],
    slowest: Shared[float],
    results: Queue[dict[str, object]],
) -> None:
    """A generator process's body: run the plan, put the result dict on ``results``."""
    _raise_file_limit()
    if plan.cpus is not None:
        with contextlib.suppress(OSError):
            import os

            os.sched_setaffinity(0, plan.cpus)
    loop = new_event_loop()
    try:
        result = loop.run_until_complete(_run(plan, connected, go, counter, slowest))
    finally:
        loop.close()
    results.put(asdict(result))


def overloaded(shares: Sequence[float]) -> list[int]:
    """Indexes of generator processes whose CPU share passed :data:`CPU_WARNING`."""
    return [i for i, share in enumerate(shares) if share > CPU_WARNING]
