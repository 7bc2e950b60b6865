"""A report as a readable table and as JSON.

The table has one row per check (status, id, clause, and the reason for any
failure or skip, with each warning on a line of its own below) and a summary
line. The JSON form carries the same fields, and each check's exchange with the
server. (JUnit XML is :mod:`conformance.junit`'s, the page :mod:`conformance.html`'s.)
"""

from __future__ import annotations

import json
import textwrap
from typing import Final

from .results import Exchanged, Outcome, Report

__all__ = ["heading", "label", "summary", "to_json", "to_table"]

_LABEL: Final = {
    Outcome.PASSED: "PASS",
    Outcome.WARNING: "WARN",
    Outcome.FAILED: "FAIL",
    Outcome.SKIPPED: "SKIP",
    Outcome.NOT_RUN: "----",
}
REASON_WIDTH: Final = 100


def label(outcome: Outcome) -> str:
    """The four letters the table shows for ``outcome`` (``PASS``, ``FAIL``...)."""
    return _LABEL[outcome]


def heading(report: Report) -> list[str]:
    """The lines before the checks: the dialect judged (and why), and the run's findings."""
    lines = [f"dialect {report.dialect}"]
    if report.evidence:
        lines[0] += " (recognised from " + "; ".join(report.evidence) + ")"
    lines += [f"FINDING: {finding}" for finding in report.findings]
    return lines


def summary(report: Report) -> str:
    counts = ", ".join(
        f"{report.count(outcome)} {outcome.value}"
        for outcome in Outcome
        if outcome is not Outcome.NOT_RUN or report.count(outcome)
    )
    if report.interrupted:
        verdict = "was not judged (INTERRUPTED)"
    else:
        verdict = "conforms" if report.ok else "DOES NOT CONFORM"
    return f"{report.target} {verdict} at level {report.level}: {counts} ({report.duration:.1f} s)"


def to_table(report: Report) -> str:
    id_width = max((len(result.check_id) for result in report.results), default=5)
    clause_width = max((len(result.clause) for result in report.results), default=6)
    lines = [*heading(report), "", f"{'':4}  {'check':<{id_width}}  {'clause':<{clause_width}}", ""]
    indent = " " * (6 + id_width + 2)
    for result in report.results:
        lines.append(
            f"{_LABEL[result.outcome]}  {result.check_id:<{id_width}}  "
            f"{result.clause:<{clause_width}}"
        )
        notes = [result.reason] if result.reason else []
        notes += [f"warning: {warning}" for warning in result.warnings]
        for note in notes:
            lines += textwrap.wrap(
                note, REASON_WIDTH, initial_indent=indent, subsequent_indent=indent + "  "
            )
    lines += ["", summary(report)]
    return "\n".join(line.rstrip() for line in lines)


def to_json(report: Report) -> str:
    return json.dumps(
        {
            "target": report.target,
            "level": report.level,
            "dialect": report.dialect,
            "evidence": list(report.evidence),
            "recognition": _exchange(report.recognition),
            "findings": list(report.findings),
            "ok": report.ok,
            "interrupted": report.interrupted,
            "duration": round(report.duration, 3),
            "counts": {outcome.value: report.count(outcome) for outcome in Outcome},
            "checks": [
                {
                    "id": result.check_id,
                    "clause": result.clause,
                    "title": result.title,
                    "outcome": result.outcome.value,
                    "reason": result.reason,
                    "warnings": list(result.warnings),
                    "duration": round(result.duration, 3),
                    "exchange": _exchange(result.exchange),
                }
                for result in report.results
            ],
        },
        indent=2,
    )


def _exchange(entries: tuple[Exchanged, ...]) -> list[dict[str, object]]:
    return [
        {
            "at": entry.at,
            "connection": entry.connection,
            "event": entry.event.value,
            "data": repr(entry.data),
        }
        for entry in entries
    ]
