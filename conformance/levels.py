"""Levels of strictness, and the tolerances a user may allow.

A *tolerance* names one way real servers are known to drift from the 2013
replies (or from the liberal input docs/protocol.md asks for). At the ``strict`` level
every drift is a failure; at ``tolerant`` every tolerance is allowed and a
drift is reported as a warning; ``extended`` is ``strict`` plus the checks of
our own extensions, which run only when the server offers them. Single
tolerances may be allowed at any level with :attr:`Strictness.allowed`.

Callers may rely on the names in :data:`TOLERANCES` staying stable: they appear
on the command line (``--allow``) and in reports.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Final

__all__ = ["TOLERANCES", "Level", "Strictness"]


class Level(enum.Enum):
    STRICT = "strict"
    TOLERANT = "tolerant"
    EXTENDED = "extended"


TOLERANCES: Final[dict[str, str]] = {
    "gold-colon": "HELLO answered 'GOLD: <n>' instead of 'GOLD <n>'",
    "blank-lines": "blank lines inside or between replies (e.g. after LOOKREPLY)",
    "trailing-space": "reply lines end in spaces or tabs",
    "crlf-replies": "reply lines end in CRLF instead of LF",
    "reply-case": "reply keywords not in upper case (e.g. 'Success')",
    "case-sensitive-input": "verbs and directions understood only in upper case",
    "strict-spacing-input": "spaces around a command are not ignored",
    "cr-input": "a bare CR or CR NUL does not end a command line",
    "blank-line-answered": "a blank command line gets an answer instead of being ignored",
    "silent-telnet": "telnet option requests are ignored instead of refused",
}


@dataclass(frozen=True, slots=True)
class Strictness:
    """What the run checks: the level, plus tolerances allowed one by one."""

    level: Level = Level.STRICT
    allowed: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        unknown = sorted(self.allowed - TOLERANCES.keys())
        if unknown:
            raise ValueError(f"unknown tolerance(s): {', '.join(unknown)}")

    def allows(self, tolerance: str) -> bool:
        return self.level is Level.TOLERANT or tolerance in self.allowed

    @property
    def extensions(self) -> bool:
        """Whether extension checks run (each still only when the server offers it)."""
        return self.level is Level.EXTENDED
