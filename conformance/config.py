"""The settings of a run. Every wait the suite makes is bounded by one of them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

import trio

from .dialects import JUDGED
from .levels import Strictness

__all__ = ["CLASSIC_GLYPHS", "DIALECTS", "Connector", "SuiteConfig"]

DIALECTS: Final = ("auto", *JUDGED)
"""``--dialect`` values: the dialect whose replies are the exact ones (``auto``: recognise it)."""

Connector = Callable[[], Awaitable[trio.abc.Stream]]
"""Opens a new connection to the server under test (like ``trio.open_tcp_stream``)."""

CLASSIC_GLYPHS: Final = frozenset(".#GEPB" + "LSAH")
"""Glyphs a classic ``LOOK`` may show outside its corners (docs/protocol.md, LOOK; 2015 items)."""


@dataclass(frozen=True, slots=True)
class SuiteConfig:
    strictness: Strictness = field(default_factory=Strictness)
    timeout: float = 5.0
    """Seconds to wait for any one reply, connection or close."""
    check_timeout: float = 60.0
    """Seconds one check may take in all, exploration included."""
    max_steps: int = 200
    """Moves a check may make while exploring for its precondition."""
    extra_glyphs: str = ""
    """Glyphs a ``LOOK`` may show besides the classic ones (for other worlds)."""
    dialect: str = "2013"
    """Whose replies are exact: ``2013`` (ours), ``2015``, ``2016``, ``2016ch``, ``2016mbk``,
    or ``auto``."""
    greeting_wait: float = 0.3
    """Seconds the first connection waits for a greeting before its first command."""
    turn_wait: float = 2.0
    """Seconds a command refused for want of a turn waits for ``STARTTURN`` before its
    check is not judged. A turn passes when its holder acts; the suite's own idle
    connections never do, so a longer wait would only lengthen the run (issue 27)."""
    probe: bool = True
    """Whether to ask a server that offers it to keep the suite's games out of its records
    and replay lists (``EXTEND probe``, on every connection after the first check; asked
    once, on a connection of its own, only of a 2013 server still there after it)."""

    def __post_init__(self) -> None:
        if self.dialect not in DIALECTS:
            raise ValueError(f"unknown dialect {self.dialect!r}; choose from {', '.join(DIALECTS)}")
        if self.timeout <= 0 or self.check_timeout <= 0 or self.turn_wait <= 0:
            raise ValueError("timeouts must be positive")
        if self.max_steps < 0:
            raise ValueError("max_steps cannot be negative")

    @property
    def glyphs(self) -> frozenset[str]:
        return CLASSIC_GLYPHS | set(self.extra_glyphs)
