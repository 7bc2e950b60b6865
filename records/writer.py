"""The trio side of the store: finished games written in worker threads, never on the loop.

A :class:`RecordWriter` lives in a nursery of the server (:meth:`RecordWriter.run`).
What a caller may rely on:

* :meth:`RecordWriter.submit` is synchronous and never blocks: it appends the record
  to the journal (:mod:`records.journal`, one small ``write``; when the writer has one)
  and to an in-memory queue, and wakes the writer task. A game calls it before any
  reply about the game's end is written, so a process killed right after its players
  were told the game ended still has the record on disk; the next start writes it.
* The queue is bounded: while ``max_unwritten`` games wait for the store,
  :meth:`RecordWriter.refusal` says why a new game may not begin (the server refuses
  it with that line), so the backlog, and what a crash could lose, stays bounded. It
  holds at most ``max_unwritten`` plus the games already under way.
* The writer task hands up to :data:`MAX_BATCH` queued records at a time to
  :meth:`Store.record <records.store.Store.record>` in a worker thread
  (``trio.to_thread.run_sync``). While the store cannot be reached (not started yet,
  down, locked by another program, failing) the records stay queued and the writer
  retries with exponential back-off (``retry_min`` doubling to ``retry_max`` seconds);
  games go on meanwhile. A record leaves the queue (and the journal) only once the
  store has it, and writes are idempotent (:class:`~records.model.GameRecord.id`), so
  a retry never counts twice. The store's own waits for a lock are short
  (``busy_timeout``), so no call holds the store's thread for long.
* :meth:`RecordWriter.close` asks for a clean end: :meth:`run` writes what is queued
  (trying for at most ``flush_timeout`` seconds, a thread stuck in the database is
  abandoned at that bound) and returns. Anything still unwritten then is logged:
  one ``records kept for the next start`` event when the journal has them, else one
  ``record not written`` event per game with the whole record.
* Reads that the protocol serves (``LEADERBOARD``, claimed names) go through
  :meth:`RecordWriter.call`, which runs a store method in a worker thread too and
  answers within ``read_timeout`` seconds, or raises :class:`StoreUnavailable`.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

import structlog
import trio

from .journal import Journal, Segment, to_json
from .model import GameRecord
from .urls import safe_url

if TYPE_CHECKING:
    from .store import Store

__all__ = ["RecordWriter", "StoreUnavailable"]

T = TypeVar("T")
log = structlog.get_logger("records")


READY_WAIT: Final = 5.0
"""Seconds a read waits for a store not reached yet before it is answered "not available"."""
MAX_BATCH: Final = 100
"""Records one write hands to the store at most, so that a read waits for one short
batch, never for a whole backlog."""
NOT_AVAILABLE: Final = "the records are not available now; try again later"
BUSY: Final = "the records are busy (the database is locked); try again later"


class StoreUnavailable(Exception):
    """The store cannot answer now (not reached yet, or failing)."""


class RecordWriter:
    """Queues finished games and writes them to the store; see the module docstring."""

    def __init__(
        self,
        url: str,
        *,
        server: str = "",
        retry_min: float = 0.5,
        retry_max: float = 30.0,
        flush_timeout: float = 10.0,
        open_store: Callable[[str], Store] | None = None,
        journal: Path | None = None,
        max_unwritten: int | None = 1000,
        busy_timeout: float = 1.0,
        read_timeout: float = 5.0,
        open_when_told: bool = False,
    ) -> None:
        self.url = url
        self.server = server
        self.retry_min = retry_min
        self.retry_max = retry_max
        self.flush_timeout = flush_timeout
        self.busy_timeout = busy_timeout
        self.read_timeout = read_timeout
        self.max_unwritten = max_unwritten
        self._open_store = open_store or self._open_default
        self.store: Store | None = None
        """The open, migrated store; ``None`` until it was first reached."""
        self.journal = None if journal is None else Journal(journal)
        self.pending: deque[tuple[GameRecord, Segment | None]] = deque()
        """Records the store does not have yet, oldest first, with their journal segment."""
        self._refusing = False
        self._wrote_last = True  # whether the last write reached the store
        self._unreached: str | None = None  # why the store could not be opened, if it failed
        self.written = 0
        """Games the store took from this writer (new ones; repeats are not counted)."""
        self.failures = 0
        """Failed attempts to reach or write the store, since the start."""
        self._wakeup = trio.Event()
        self._closing = False
        self._closed = trio.Event()
        self._idle = trio.Event()
        self._idle.set()
        self._progress = trio.Event()
        self._ready = trio.Event()
        self._may_open = trio.Event()
        if not open_when_told:
            self._may_open.set()
        self._limiter = trio.CapacityLimiter(1)  # one thread at a time uses the store
        self._log = log.bind(db=safe_url(url))

    # -- from the game ---------------------------------------------------------------

    def submit(self, record: GameRecord) -> None:
        """Journal ``record`` and queue it for the store; never blocks, never raises
        (a journal that fails is logged, and the record is still queued)."""
        if self.server and not record.server:
            record = dataclasses.replace(record, server=self.server)
        segment = self.journal.append(record) if self.journal is not None else None
        self.pending.append((record, segment))
        self._idle = trio.Event() if self._idle.is_set() else self._idle
        self._wakeup.set()

    def refusal(self) -> str | None:
        """Why a new game may not begin now (``None``: it may): too many finished games
        wait for the store. Logged once each time the backlog fills and clears."""
        limit = self.max_unwritten
        if limit is None or len(self.pending) < limit:
            return None
        if not self._refusing:
            self._refusing = True
            self._log.warning("new games refused", reason="records backlog", queued=limit)
        return (
            f"the server cannot begin a game now: {len(self.pending)} finished games wait "
            "to be recorded; try again later"
        )

    def _backlog_shrank(self) -> None:
        limit = self.max_unwritten
        if self._refusing and (limit is None or len(self.pending) < limit):
            self._refusing = False
            self._log.info("new games accepted again", queued=len(self.pending))

    async def drained(self) -> None:
        """Wait until every record submitted so far is in the store (for tests and tools)."""
        while self.pending:
            await self._idle.wait()

    async def ready(self) -> None:
        """Wait until the store was reached (opened and migrated)."""
        await self._ready.wait()

    async def wait_written(self, count: int) -> None:
        """Wait until the store took ``count`` new games from this writer."""
        while self.written < count:
            await self._progress.wait()

    def may_open(self) -> None:
        """Let :meth:`run` open the store now, if it was made with ``open_when_told``
        (a server opens it once it listens: the store's libraries take longer to load
        than the rest of the server, and a client need not wait for them)."""
        self._may_open.set()

    def close(self) -> None:
        """Write what is queued, then let :meth:`run` return."""
        self._may_open.set()
        self._closing = True
        self._closed.set()
        self._wakeup.set()

    # -- the writer task ---------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Write queued records until :meth:`close` (or cancellation, which also flushes).
        Games a server that is gone left in the journal are queued first."""
        if self.journal is not None:
            await self._take_over(self.journal)
        task_status.started()
        await self._may_open.wait()
        delay = self.retry_min
        try:
            while True:
                if self.pending or self.store is None:
                    # The store is opened early, so that reads work before any game ends.
                    done = await (self._write_batch() if self.pending else self._reach())
                    if done:
                        delay = self.retry_min
                    elif self._closing:
                        break
                    else:
                        with trio.move_on_after(delay):
                            await self._closed.wait()
                        delay = min(delay * 2, self.retry_max)
                        continue
                if self._closing and not self.pending:
                    break
                if not self.pending and self.store is not None:
                    self._wakeup = trio.Event()
                    await self._wakeup.wait()
        finally:
            with trio.CancelScope(shield=True):
                await self._flush()
                if self.store is not None:
                    store = self.store
                    # A thread abandoned in the database holds the limiter until it
                    # returns (within the busy timeout); closing waits for it, no longer.
                    with trio.move_on_after(self.busy_timeout * 2 + 1):
                        await trio.to_thread.run_sync(
                            store.close, limiter=self._limiter, abandon_on_cancel=True
                        )
                if self.journal is not None:
                    self.journal.close()

    async def _take_over(self, journal: Journal) -> None:
        try:
            found = await trio.to_thread.run_sync(journal.take_over)
        except OSError as error:
            self._log.error("journal not read", journal=str(journal.folder), error=_brief(error))
            return
        if found:
            self.pending.extendleft(reversed(found))
            self._idle = trio.Event() if self._idle.is_set() else self._idle

    async def _reach(self) -> bool:
        """Open and migrate the store, once; False (logged) if it cannot be reached now."""
        if self.store is not None:
            return True
        try:
            store = await trio.to_thread.run_sync(self._open, limiter=self._limiter)
        except Exception as error:
            self.failures += 1
            self._unreached = BUSY if _locked(error) else NOT_AVAILABLE
            self._log.warning("store unreachable", error=_brief(error), queued=len(self.pending))
            return False
        self.store = store
        self._ready.set()
        self._log.info("store ready", revision=await self.call(type(store).revision))
        return True

    def _open_default(self, url: str) -> Store:
        # Imported here, in the writer's thread: the store's libraries (SQLAlchemy,
        # Alembic) load once the server is serving, not before it listens.
        from .store import Store

        return Store(url, busy_timeout=self.busy_timeout, application="dod-server records")

    def _open(self) -> Store:
        store = self._open_store(self.url)
        try:
            store.migrate()
        except BaseException:
            store.close()
            raise
        return store

    async def _write_batch(self) -> bool:
        """Write the oldest queued records (up to :data:`MAX_BATCH`); True when the store
        took them all."""
        if not await self._reach():
            return False
        batch = list(itertools.islice(self.pending, MAX_BATCH))
        if self.journal is not None and self._wrote_last:
            # Games ending meanwhile go to a fresh segment, so that this one can go once
            # written. Not while writes fail: then one segment (one descriptor) takes
            # every game until the store is back.
            self.journal.seal()
        store = self.store
        assert store is not None
        records = [record for record, _ in batch]
        try:
            new = await trio.to_thread.run_sync(
                store.record, records, limiter=self._limiter, abandon_on_cancel=True
            )
        except Exception as error:
            self.failures += 1
            self._wrote_last = False
            self._log.warning("store write failed", error=_brief(error), queued=len(self.pending))
            return False
        self._wrote_last = True
        for _ in batch:
            _, segment = self.pending.popleft()
            if segment is not None and self.journal is not None:
                self.journal.written(segment)
        self.written += new
        self._progress.set()
        self._progress = trio.Event()
        self._log.info("games recorded", games=len(batch), new=new)
        self._backlog_shrank()
        if not self.pending:
            if self.journal is not None:
                self.journal.seal()  # everything is written: no file is left behind
            self._idle.set()
        return True

    async def _flush(self) -> None:
        """A clean end: try for ``flush_timeout`` seconds to write what is queued, then
        say what is left and where it is kept."""
        if not self.pending:
            return
        delay = self.retry_min
        with trio.move_on_after(self.flush_timeout):
            while self.pending and not await self._write_batch():
                await trio.sleep(delay)
                delay = min(delay * 2, self.retry_max)
        kept = [record.id for record, segment in self.pending if segment is not None]
        if kept:
            assert self.journal is not None
            self._log.warning(
                "records kept for the next start",
                games=len(kept),
                journal=str(self.journal.folder),
                ids=kept,
            )
        for record, segment in self.pending:
            if segment is None:
                self._log.error("record not written", record=json.dumps(to_json(record)))

    # -- reads for the protocol -------------------------------------------------------

    async def call(self, method: Callable[..., T], *args: Any, write: bool = False) -> T:
        """``method(store, *args)`` in a worker thread, answered within ``read_timeout``
        seconds; :class:`StoreUnavailable` if the store is not reached within
        :data:`READY_WAIT` seconds (a server just started is still opening it; at once
        once an attempt to open it failed), is
        busy (locked by another program) or fails. A write (``write=True``, or the
        store's own :meth:`~records.store.Store.claim` and ``logged_in``) is never
        abandoned once it began, so that its answer is never lost: it may take up to
        the store's busy timeout longer."""
        if self.store is None and self._unreached is None:  # still opening: wait for it
            with trio.move_on_after(READY_WAIT):
                await self._ready.wait()
        store = self.store
        if store is None:
            raise StoreUnavailable(self._unreached or NOT_AVAILABLE)
        abandon = not write and getattr(method, "__qualname__", None) not in _WRITES
        with trio.move_on_after(self.read_timeout) as waited:
            try:
                return await trio.to_thread.run_sync(
                    lambda: method(store, *args),
                    limiter=self._limiter,
                    abandon_on_cancel=abandon,
                )
            except Exception as error:
                self.failures += 1
                self._log.warning("store read failed", error=_brief(error))
                raise StoreUnavailable(BUSY if _locked(error) else NOT_AVAILABLE) from error
        assert waited.cancelled_caught
        self._log.warning("store read timed out", seconds=self.read_timeout)
        raise StoreUnavailable(BUSY)


_WRITES: Final = frozenset({"Store.claim", "Store.logged_in"})
"""The store's methods :meth:`RecordWriter.call` knows change it, by name (the store's
module is not imported here: it loads with the store, in the writer's thread)."""


def _locked(error: BaseException) -> bool:
    """Whether ``error`` is the database's "locked, try later" (SQLite's busy timeout,
    PostgreSQL's ``lock_timeout``)."""
    text = str(error)
    return "database is locked" in text or "lock timeout" in text


def _brief(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"
