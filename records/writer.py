"""The trio side of the store: finished games written in worker threads, never on the loop.

A :class:`RecordWriter` lives in a nursery of the server (:meth:`RecordWriter.run`).
What a caller may rely on:

* :meth:`RecordWriter.submit` is synchronous and never blocks: it appends the record
  to an in-memory queue and wakes the writer task.
* The writer task hands whatever is queued, as one batch, to
  :meth:`Store.record <records.store.Store.record>` in a worker thread
  (``trio.to_thread.run_sync``). While the store cannot be reached (not started yet,
  down, failing) the records stay queued and the writer retries with exponential
  back-off (``retry_min`` doubling to ``retry_max`` seconds); games go on meanwhile.
  A record is dropped from the queue only once the store has it, and writes are
  idempotent (:class:`~records.model.GameRecord.id`), so a retry never counts twice.
* :meth:`RecordWriter.close` asks for a clean end: :meth:`run` writes what is queued
  (trying for at most ``flush_timeout`` seconds) and returns. Anything still unwritten
  then is logged, one ``record not written`` event per game with the whole record.
* Reads that the protocol serves (``LEADERBOARD``, claimed names) go through
  :meth:`RecordWriter.call`, which runs a store method in a worker thread too.
"""

from __future__ import annotations

import dataclasses
import json
from collections import deque
from collections.abc import Callable
from typing import Any, Final, TypeVar

import structlog
import trio

from .model import GameRecord
from .store import Store, safe_url

__all__ = ["RecordWriter", "StoreUnavailable"]

T = TypeVar("T")
log = structlog.get_logger("records")


READY_WAIT: Final = 5.0
"""Seconds a read waits for a store not reached yet before it is answered "not available"."""


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
        open_store: Callable[[str], Store] = Store,
    ) -> None:
        self.url = url
        self.server = server
        self.retry_min = retry_min
        self.retry_max = retry_max
        self.flush_timeout = flush_timeout
        self._open_store = open_store
        self.store: Store | None = None
        """The open, migrated store; ``None`` until it was first reached."""
        self.pending: deque[GameRecord] = deque()
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
        self._limiter = trio.CapacityLimiter(1)  # one thread at a time uses the store
        self._log = log.bind(db=safe_url(url))

    # -- from the game ---------------------------------------------------------------

    def submit(self, record: GameRecord) -> None:
        """Queue ``record`` for the store; never blocks, never raises."""
        if self.server and not record.server:
            record = dataclasses.replace(record, server=self.server)
        self.pending.append(record)
        self._idle = trio.Event() if self._idle.is_set() else self._idle
        self._wakeup.set()

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

    def close(self) -> None:
        """Write what is queued, then let :meth:`run` return."""
        self._closing = True
        self._closed.set()
        self._wakeup.set()

    # -- the writer task ---------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Write queued records until :meth:`close` (or cancellation, which also flushes)."""
        task_status.started()
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
                    await trio.to_thread.run_sync(store.close, limiter=self._limiter)

    async def _reach(self) -> bool:
        """Open and migrate the store, once; False (logged) if it cannot be reached now."""
        if self.store is not None:
            return True
        try:
            store = await trio.to_thread.run_sync(self._open, limiter=self._limiter)
        except Exception as error:
            self.failures += 1
            self._log.warning("store unreachable", error=_brief(error), queued=len(self.pending))
            return False
        self.store = store
        self._ready.set()
        self._log.info("store ready", revision=await self.call(Store.revision))
        return True

    def _open(self) -> Store:
        store = self._open_store(self.url)
        try:
            store.migrate()
        except BaseException:
            store.close()
            raise
        return store

    async def _write_batch(self) -> bool:
        """Write everything queued now; True when the store took it all."""
        if not await self._reach():
            return False
        batch = list(self.pending)
        store = self.store
        assert store is not None
        try:
            new = await trio.to_thread.run_sync(store.record, batch, limiter=self._limiter)
        except Exception as error:
            self.failures += 1
            self._log.warning("store write failed", error=_brief(error), queued=len(batch))
            return False
        for _ in batch:
            self.pending.popleft()
        self.written += new
        self._progress.set()
        self._progress = trio.Event()
        self._log.info("games recorded", games=len(batch), new=new)
        if not self.pending:
            self._idle.set()
        return True

    async def _flush(self) -> None:
        """A clean end: try for ``flush_timeout`` seconds to write what is queued."""
        if not self.pending:
            return
        delay = self.retry_min
        with trio.move_on_after(self.flush_timeout):
            while self.pending and not await self._write_batch():
                await trio.sleep(delay)
                delay = min(delay * 2, self.retry_max)
        for record in self.pending:
            self._log.error("record not written", record=json.dumps(_as_json(record)))

    # -- reads for the protocol -------------------------------------------------------

    async def call(self, method: Callable[..., T], *args: Any) -> T:
        """``method(store, *args)`` in a worker thread; :class:`StoreUnavailable` if the
        store is not reached within :data:`READY_WAIT` seconds (a server just started is
        still opening it) or fails."""
        if self.store is None:
            with trio.move_on_after(READY_WAIT):
                await self._ready.wait()
        store = self.store
        if store is None:
            raise StoreUnavailable("the records are not available now; try again later")
        try:
            return await trio.to_thread.run_sync(
                lambda: method(store, *args), limiter=self._limiter
            )
        except Exception as error:
            self.failures += 1
            self._log.warning("store read failed", error=_brief(error))
            raise StoreUnavailable("the records are not available now; try again later") from error


def _brief(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


def _as_json(record: GameRecord) -> dict[str, Any]:
    data = dataclasses.asdict(record)
    data["started"] = record.started.isoformat()
    data["ended"] = record.ended.isoformat()
    return data
