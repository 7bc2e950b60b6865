"""What keeps ``REGISTER`` and ``LOGIN`` within bounds (:mod:`server.lobby.ladder`'s limits).

What a caller may rely on:

* A :class:`HashGate` runs argon2 in threads of its own, ``hash_threads`` at once and
  ``max_hash_queue`` more waiting; past that a hash is refused with :class:`HashBusy`
  before anything is hashed, so hashing's memory is bounded.
* :class:`Allowances` hold a token bucket per client address; the buckets kept are
  bounded by the addresses active lately (:data:`FORGET_ADDRESSES_PAST`), not by every
  address ever seen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar, TypeVarTuple

import trio

from ..ratelimit import TokenBucket

__all__ = ["FORGET_ADDRESSES_PAST", "Allowances", "HashBusy", "HashGate"]

FORGET_ADDRESSES_PAST: Final = 1024
"""Addresses whose allowances are kept before those that refilled are forgotten."""


class HashBusy(Exception):
    """Every hashing thread is busy and ``max_hash_queue`` commands wait already."""


_Args = TypeVarTuple("_Args")
_Result = TypeVar("_Result")


class HashGate:
    """The threads argon2 runs in: ``threads`` at once, ``queue`` more waiting, the rest
    refused with :class:`HashBusy` (before anything is hashed)."""

    def __init__(self, threads: int, queue: int) -> None:
        self.limiter = trio.CapacityLimiter(threads)
        self.most = threads + queue
        self.pending = 0
        """Hashes running or waiting for a thread."""

    def check(self) -> None:
        """Raise :class:`HashBusy` if a hash asked for now would be refused."""
        if self.pending >= self.most:
            raise HashBusy

    async def run(self, work: Callable[[*_Args], _Result], *args: *_Args) -> _Result:
        """``work(*args)`` in a hashing thread, once one is free; raises :class:`HashBusy`
        at once if ``queue`` calls wait already."""
        self.check()
        self.pending += 1
        try:
            return await trio.to_thread.run_sync(work, *args, limiter=self.limiter)
        finally:
            self.pending -= 1


class Allowances:
    """A token bucket per client address, forgotten once it has refilled."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, TokenBucket] = {}

    def take(self, address: str) -> bool:
        """Spend one of ``address``'s tokens if it has one."""
        buckets = self._buckets
        bucket = buckets.get(address)
        if bucket is None:
            if len(buckets) >= FORGET_ADDRESSES_PAST:
                # Bounded by the addresses active lately, not by every address ever seen.
                for known in [a for a, b in buckets.items() if b.full()]:
                    del buckets[known]
            bucket = buckets[address] = TokenBucket(self.rate, self.burst)
        return bucket.take()

    def give_back(self, address: str) -> None:
        """Return a token :meth:`take` spent for ``address`` on something then refused."""
        bucket = self._buckets.get(address)
        if bucket is not None:
            bucket.give_back()
