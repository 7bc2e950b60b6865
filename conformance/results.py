"""What a check ends with, and the report of a whole run.

A check passes by returning. It ends early by raising :class:`CheckFailed`
(the server broke the clause the check names) or :class:`CheckSkipped` (the
check's precondition was never met, e.g. no gold in reach, or an extension the
server does not offer). Drift that the chosen level tolerates turns a pass into
:attr:`Outcome.WARNING`, which is not a failure.

:class:`Report` is plain data: it is what the table, JSON and JUnit writers
render, and what :meth:`Report.ok` decides the exit status with.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

__all__ = [
    "CheckFailed",
    "CheckResult",
    "CheckSkipped",
    "Exchanged",
    "NotJudged",
    "Outcome",
    "Report",
]


class CheckFailed(Exception):
    """The server does not do what the check's clause says; ``str()`` is the reason."""


class CheckSkipped(Exception):
    """The check could not be made; ``str()`` says which precondition was missing."""


class NotJudged(CheckSkipped):
    """The server refused for a reason that is not the check's subject (not our turn, one
    connection per address...) and the suite could not get past it; ``str()`` says so,
    quoting the refusal. Never a pass or a failure."""


class Outcome(enum.Enum):
    PASSED = "passed"
    WARNING = "warning"
    FAILED = "failed"
    SKIPPED = "skipped"
    NOT_RUN = "not run"
    """The server was gone before the check could be made (see the report's findings)."""


class Event(enum.Enum):
    """What happened on one of a check's connections."""

    CONNECTED = "connected"
    SENT = "sent"
    RECEIVED = "received"
    CLOSED_BY_SERVER = "closed by the server"
    CLOSED_BY_SUITE = "closed by the suite"
    LEFT_OUT = "left out"
    """Bytes of a long exchange not kept (see :class:`~conformance.transcript.Transcript`)."""


@dataclass(frozen=True, slots=True)
class Exchanged:
    """One event of the exchange a check had with the server, as the reports show it."""

    at: float
    """Seconds since the check began."""
    connection: str
    """The check's name for the connection (``client``, ``A``, ``B``)."""
    event: Event
    data: bytes = b""
    """The bytes sent or received (``LEFT_OUT``: how many were left out, as text)."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's outcome. ``reason`` is empty for a clean pass."""

    check_id: str
    clause: str
    title: str
    outcome: Outcome
    reason: str = ""
    warnings: tuple[str, ...] = ()
    duration: float = 0.0
    exchange: tuple[Exchanged, ...] = ()
    """The bytes each way that decided it, in order (long exchanges keep their beginning
    and their end)."""


@dataclass(slots=True)
class Report:
    """The results of one run against ``target``, in the order the checks ran."""

    target: str
    level: str
    results: list[CheckResult] = field(default_factory=list)
    duration: float = 0.0
    dialect: str = "2013"
    """The dialect whose replies the checks took as exact."""
    evidence: list[str] = field(default_factory=list)
    """With ``--dialect auto``: what the server said that showed its dialect."""
    recognition: tuple[Exchanged, ...] = ()
    """With ``--dialect auto``: the exchange of the connection that recognised it."""
    started: float = 0.0
    """When the run began, in seconds since the epoch (``time.time()``)."""
    findings: list[str] = field(default_factory=list)
    """Faults of the whole run rather than of one check (the server went away); each
    makes the run fail."""
    interrupted: bool = False
    """The run was stopped (``Ctrl-C``) before its end: the checks that ran are shown,
    and it gives no verdict."""

    def count(self, outcome: Outcome) -> int:
        return sum(result.outcome is outcome for result in self.results)

    @property
    def ok(self) -> bool:
        """True when no check failed and the run has no finding (warnings and skips are
        not failures)."""
        return not self.count(Outcome.FAILED) and not self.findings

    def get(self, check_id: str) -> CheckResult:
        """The result of the check ``check_id``; ``KeyError`` if it did not run."""
        for result in self.results:
            if result.check_id == check_id:
                return result
        raise KeyError(check_id)
