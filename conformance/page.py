"""A report as one self-contained HTML page, for people (a bug report to a server's author).

The page needs nothing beside itself (its style is inline, it runs no script): at the
top the server, the dialect judged (and the lines that showed it), the level, when the
run began and how long it took, the run's findings and its summary line; then a table,
one row per check, with its verdict, its id, title and clause, its time and its reason
(and warnings). Each row's exchange with the server, every byte shown, opens on demand
(an HTML ``<details>``): who connected, sent, received and closed, and when.
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape
from typing import Final

from .report import label, summary
from .results import CheckResult, Event, Exchanged, Outcome, Report

__all__ = ["to_html"]

_STYLE: Final = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; }
dl.run { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dl.run dt { font-weight: bold; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 0.3em 0.6em;
         border-bottom: 1px solid #ddd; }
td.verdict { font-family: monospace; font-weight: bold; }
tr.passed td.verdict { color: #176b2c; }
tr.warning td.verdict { color: #8a6100; }
tr.failed td.verdict, .finding { color: #b00020; }
tr.skipped td.verdict, tr.not-run td.verdict { color: #555; }
.clause { color: #666; font-size: 0.9em; }
pre.exchange { background: #f6f6f6; padding: 0.5em; overflow-x: auto; font-size: 0.85em; }
pre.exchange .sent { color: #0b4f9c; }
pre.exchange .received { color: #222; }
pre.exchange .closed, pre.exchange .connected, pre.exchange .left-out { color: #777; }
"""

_CLASS: Final = {
    Event.CONNECTED: "connected",
    Event.SENT: "sent",
    Event.RECEIVED: "received",
    Event.CLOSED_BY_SERVER: "closed",
    Event.CLOSED_BY_SUITE: "closed",
    Event.LEFT_OUT: "left-out",
}


def _exchange(entries: tuple[Exchanged, ...]) -> str:
    if not entries:
        return "<p>no exchange</p>"
    width = max(len(entry.connection) for entry in entries)
    lines = []
    for entry in entries:
        data = entry.data.decode() if entry.event is Event.LEFT_OUT else repr(entry.data)
        shown = f"  {data}" if entry.data or entry.event is Event.RECEIVED else ""
        text = f"{entry.at:7.3f} s  {entry.connection:<{width}}  {entry.event.value}{shown}"
        lines.append(f'<span class="{_CLASS[entry.event]}">{escape(text)}</span>')
    return '<pre class="exchange">' + "\n".join(lines) + "</pre>"


def _row(result: CheckResult) -> str:
    notes = [escape(result.reason)] if result.reason else []
    notes += [f"warning: {escape(warning)}" for warning in result.warnings]
    outcome = result.outcome.value.replace(" ", "-")
    return (
        f'<tr class="check {outcome}" id="{escape(result.check_id)}">'
        f'<td class="verdict">{label(result.outcome)}</td>'
        f'<td><code class="id">{escape(result.check_id)}</code><br>{escape(result.title)}'
        f'<br><span class="clause">{escape(result.clause)}</span></td>'
        f'<td class="time">{result.duration:.2f} s</td>'
        f'<td><div class="reason">{"<br>".join(notes)}</div>'
        f"<details><summary>exchange ({len(result.exchange)} events)</summary>"
        f"{_exchange(result.exchange)}</details></td></tr>"
    )


def to_html(report: Report) -> str:
    """The page of ``report`` (module docstring)."""
    began = datetime.fromtimestamp(report.started, UTC).isoformat(timespec="seconds")
    dialect = report.dialect
    if report.evidence:
        dialect += " (recognised from " + "; ".join(report.evidence) + ")"
    run = [
        ("server", report.target),
        ("dialect", dialect),
        ("level", report.level),
        ("began", f"{began} ({report.duration:.1f} s)"),
    ]
    findings = "".join(
        f'<p class="finding">FINDING: {escape(finding)}</p>' for finding in report.findings
    )
    counts = ", ".join(
        f"{report.count(outcome)} {outcome.value}"
        for outcome in Outcome
        if outcome is not Outcome.NOT_RUN or report.count(outcome)
    )
    title = f"dod-conformance: {report.target}"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        '<dl class="run">'
        + "".join(f'<dt>{name}</dt><dd class="{name}">{escape(value)}</dd>' for name, value in run)
        + f'<dt>checks</dt><dd class="counts">{escape(counts)}</dd></dl>'
        + (
            '<details class="recognition"><summary>the exchange that recognised the '
            f"dialect</summary>{_exchange(report.recognition)}</details>"
            if report.recognition
            else ""
        )
        + findings
        + f'<p class="summary">{escape(summary(report))}</p>'
        + "<table><thead><tr><th>verdict</th><th>check</th><th>time</th>"
        "<th>reason and exchange</th></tr></thead><tbody>"
        + "".join(_row(result) for result in report.results)
        + "</tbody></table></body></html>\n"
    )
