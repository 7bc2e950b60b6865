"""A report as JUnit XML, in the shape pytest's ``--junitxml`` writes, for CI systems.

Jenkins, GitLab and GitHub read it as they read pytest's: a ``<testsuites>`` holding one
``<testsuite>`` (the run: its counts, time, timestamp and host, and as ``<properties>``
the server, level, dialect, the lines that showed the dialect and the run's findings),
then one ``<testcase>`` per check (``classname`` the check's group, ``conformance.look``;
``name`` its id). A failed check holds a ``<failure>`` and a skipped one, or one not run,
a ``<skipped>``; each says its reason in ``message`` and, in its text, the check's clause
and the exchange that decided it, every byte shown. Warnings go to the testcase's
``<system-out>``. Each finding of the run (the server went away) is a testcase of its own
with an ``<error>``, as pytest writes an error outside any test. The document is valid
against the JUnit schema CI tools read (Jenkins' ``junit-10.xsd``; a test holds it so).
"""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ElementTree
from datetime import UTC, datetime

from .results import CheckResult, Outcome, Report
from .transcript import exchange_lines

__all__ = ["to_junit_xml"]

SUITE = "dod-conformance"

# Characters XML 1.0 cannot hold, even escaped: shown as Python escapes instead.
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(text: str) -> str:
    return _NOT_XML.sub(lambda match: repr(match[0])[1:-1], text)


def _detail(result: CheckResult) -> str:
    """What a failure or a skip holds in its text: the check, its reason, its bytes."""
    lines = [f"{result.check_id}: {result.title}", f"clause: {result.clause}", result.reason]
    if result.exchange:
        lines += ["", "exchange:", *exchange_lines(result.exchange)]
    return _text("\n".join(lines))


def to_junit_xml(report: Report) -> str:
    """The JUnit XML of ``report`` (module docstring)."""
    skipped = report.count(Outcome.SKIPPED) + report.count(Outcome.NOT_RUN)
    counts = {
        "tests": str(len(report.results) + len(report.findings)),
        "failures": str(report.count(Outcome.FAILED)),
        "errors": str(len(report.findings)),
        "skipped": str(skipped),
        "time": f"{report.duration:.3f}",
    }
    # The schema has no count of skips for <testsuites>, only for each <testsuite>.
    totals = {name: value for name, value in counts.items() if name != "skipped"}
    suites = ElementTree.Element("testsuites", {"name": SUITE, **totals})
    began = datetime.fromtimestamp(report.started, UTC).isoformat(timespec="seconds")
    suite = ElementTree.SubElement(
        suites,
        "testsuite",
        {
            "name": f"{SUITE} {report.target}",
            **counts,
            "timestamp": began,
            "hostname": socket.gethostname(),
        },
    )
    properties = ElementTree.SubElement(suite, "properties")
    for name, value in (
        ("target", report.target),
        ("level", report.level),
        ("dialect", report.dialect),
        *(("evidence", line) for line in report.evidence),
        *(("finding", finding) for finding in report.findings),
    ):
        ElementTree.SubElement(properties, "property", name=name, value=_text(value))
    for result in report.results:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=f"conformance.{result.check_id.split('.')[0]}",
            name=result.check_id,
            time=f"{result.duration:.3f}",
        )
        if result.outcome is Outcome.FAILED:
            failure = ElementTree.SubElement(case, "failure", message=_text(result.reason))
            failure.text = _detail(result)
        elif result.outcome in (Outcome.SKIPPED, Outcome.NOT_RUN):
            kind = "not run" if result.outcome is Outcome.NOT_RUN else "skipped"
            skip = ElementTree.SubElement(
                case, "skipped", type=f"{SUITE}.{kind}", message=_text(result.reason)
            )
            skip.text = _detail(result)
        if result.warnings:
            out = ElementTree.SubElement(case, "system-out")
            out.text = _text("\n".join(f"warning: {warning}" for warning in result.warnings))
    for number, finding in enumerate(report.findings, 1):
        case = ElementTree.SubElement(
            suite, "testcase", classname="conformance.run", name=f"finding {number}", time="0"
        )
        ElementTree.SubElement(case, "error", message=_text(finding)).text = _text(finding)
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
