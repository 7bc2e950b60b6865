"""A token bucket: at most ``burst`` things at once, ``rate`` a second on average.

The bucket reads trio's clock, so tests with an autojumping clock see the same
arithmetic as a real server. What a caller may rely on: :meth:`TokenBucket.take`
never blocks; it says yes (and spends a token) or no (and spends nothing).
"""

from __future__ import annotations

import trio


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` a second; see the module docstring."""

    __slots__ = ("_last", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._last: float | None = None  # made outside trio (a server's settings): no clock yet

    def full(self) -> bool:
        """Whether the bucket has refilled to ``burst``: forgetting it now changes nothing."""
        if self._last is None:
            return True
        elapsed = trio.current_time() - self._last
        return self._tokens + elapsed * self.rate >= self.burst

    def take(self) -> bool:
        """Spend one token if there is one; ``False`` (nothing spent) if the bucket is empty."""
        now = trio.current_time()
        if self._last is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def give_back(self) -> None:
        """Return a token :meth:`take` spent on something that was then not done."""
        self._tokens = min(self.burst, self._tokens + 1)
