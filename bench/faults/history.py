"""What the campaign saw: every client's commands and answers, the faults, and the
directory's own record of who held which name when.

Times are seconds since the campaign began (:func:`clock`), on this process's
monotonic clock, which every part of the campaign reads.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

_BEGAN: Final = time.monotonic()

OK: Final = "ok"
"""Answered with what the command asked for (not an ``ERROR``)."""
ERROR: Final = "error"
"""Answered ``ERROR ...``: a clear refusal."""
FINAL: Final = "final"
"""Answered (or ended) by a final line: ``WIN``, ``LOSE`` or ``BYE``."""
SILENT: Final = "silent"
"""Not answered within the bound (:data:`bench.faults.workload.ANSWER_BOUND`)."""
EOF: Final = "eof"
"""The connection ended with no final line while the command waited."""
REFUSED: Final = "refused"
"""The connection could not be made."""
UNASKED: Final = "unasked"
"""A line that answers nothing the client sent."""
MALFORMED: Final = "malformed"
"""An answer of the wrong shape for its command."""


def clock() -> float:
    """Seconds since the campaign began."""
    return time.monotonic() - _BEGAN


@dataclass(slots=True)
class Op:
    """One command of one client and what came back (or a line nobody asked for)."""

    client: int
    session: int
    system: str
    """``cluster`` or ``workers``."""
    node: str
    """The node the client is connected to (``W`` for the workers server)."""
    command: str
    sent: float
    done: float | None = None
    outcome: str = ""
    lines: list[str] = field(default_factory=list)
    name: str | None = None
    """The name the session went by when it sent the command (``HELLO``'s answered)."""
    game: tuple[str, int] | None = None
    """The game the session played in or watched when answered: its name and seed (the
    seed tells two games of one name apart)."""

    def line(self) -> str:
        shown = " | ".join(self.lines[:3]) + (" | ..." if len(self.lines) > 3 else "")
        done = "" if self.done is None else f"..{self.done:8.3f}"
        who = f"c{self.client}/s{self.session}@{self.node}"
        named = f" as {self.name}" if self.name else ""
        return f"[{self.sent:8.3f}{done}] {who}{named}: {self.command!r} -> {self.outcome} {shown}"


@dataclass(slots=True)
class Fault:
    """One fault of the schedule, as injected."""

    number: int
    kind: str
    target: str
    began: float
    healed: float | None = None
    detail: str = ""
    converged: float | None = None
    """Seconds from healing until every node's ``GAMES`` listed the same games."""

    def line(self) -> str:
        healed = "" if self.healed is None else f" healed at {self.healed:.3f}"
        what = f"{self.kind} {self.target} {self.detail}".strip()
        return f"fault {self.number}: {what} at {self.began:.3f}{healed}"


@dataclass(slots=True)
class Tenure:
    """A directory row held by one node: a game's name or a lookalike key of a player's
    name, from its claim to its end, as the directory announced them."""

    kind: str
    """``game`` or ``name``."""
    key: str
    node: str
    """The node's directory id."""
    began: float
    ended: float | None = None


@dataclass
class History:
    """Everything seen, in the order it was seen."""

    ops: list[Op] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    tenures: list[Tenure] = field(default_factory=list)
    node_ids: dict[str, str] = field(default_factory=dict)
    """Each directory id seen, and which node (``A``, ``B``, ``C``) it was."""
    told_wins: list[Op] = field(default_factory=list)

    def around(
        self, moment: float, *, clients: set[int] | None = None, span: float = 3.0
    ) -> list[str]:
        """The history within ``span`` seconds of ``moment`` (of ``clients`` only, if
        given), faults included, as lines."""
        lines = [
            (fault.began, fault.line())
            for fault in self.faults
            if fault.began - span <= moment <= (fault.healed or fault.began) + span
        ]
        lines += [
            (op.sent, op.line())
            for op in self.ops
            if abs(op.sent - moment) <= span and (clients is None or op.client in clients)
        ]
        return [text for _, text in sorted(lines)]

    def save(self, path: Path) -> None:
        """Write everything seen to ``path``, one JSON object a line (``record`` says which)."""
        with path.open("w", encoding="utf-8") as out:
            for kind, items in (("fault", self.faults), ("tenure", self.tenures), ("op", self.ops)):
                for item in items:
                    out.write(json.dumps({"record": kind, **dataclasses.asdict(item)}) + "\n")
            out.write(json.dumps({"record": "nodes", "ids": self.node_ids}) + "\n")
