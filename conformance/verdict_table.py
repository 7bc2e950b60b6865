"""The table of every judged server's verdicts, made from the runs' JUnit reports.

``docs/conformance.md`` shows how each public server fared; that table is written by
this module from the reports the runs wrote (``dod-conformance --junitxml``), kept
beside it in ``docs/conformance-runs/``, one file per server and level, named
``<server>-<level>.xml``. So the page cannot say what the suite did not::

    python -m conformance.verdict_table docs/conformance-runs              # print it
    python -m conformance.verdict_table docs/conformance-runs --write docs/conformance.md

``--write`` replaces what lies between the page's markers (:data:`BEGIN`, :data:`END`);
a test holds the page equal to what this writes from the reports.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["BEGIN", "END", "Run", "main", "read_run", "table", "written"]

BEGIN: Final = "<!-- verdict table: written by python -m conformance.verdict_table -->"
END: Final = "<!-- end of verdict table -->"
LEVELS: Final = ("strict", "tolerant")


@dataclass(frozen=True, slots=True)
class Run:
    """One report, as the table needs it."""

    server: str
    level: str
    dialect: str
    time: float
    outcomes: dict[str, str]
    """Each check's verdict: ``passed``, ``warning``, ``failed``, ``skipped``, ``not run``."""
    reasons: dict[str, str]
    """Why each check that did not pass did not."""
    findings: tuple[str, ...]

    def count(self, outcome: str) -> int:
        return sum(verdict == outcome for verdict in self.outcomes.values())


def read_run(path: Path) -> Run:
    """The run a JUnit report of ``dod-conformance`` (:mod:`conformance.junit`) tells of;
    the file's name says the server and the level (``zss-strict.xml``)."""
    server, _, level = path.stem.rpartition("-")
    suite = ElementTree.parse(path).getroot().find("testsuite")
    if suite is None or level not in LEVELS:
        raise ValueError(f"{path}: not a report named <server>-<level>.xml")
    properties = {prop.get("name"): prop.get("value", "") for prop in suite.iter("property")}
    outcomes: dict[str, str] = {}
    reasons: dict[str, str] = {}
    for case in suite.findall("testcase"):
        name = case.get("name", "")
        if case.get("classname") == "conformance.run":
            continue  # a finding, not a check
        failure, skipped = case.find("failure"), case.find("skipped")
        if failure is not None:
            outcomes[name], reasons[name] = "failed", failure.get("message", "")
        elif skipped is not None:
            not_run = skipped.get("type", "").endswith("not run")
            outcomes[name] = "not run" if not_run else "skipped"
            reasons[name] = skipped.get("message", "")
        elif (case.findtext("system-out") or "").startswith("warning:"):
            outcomes[name], reasons[name] = "warning", case.findtext("system-out") or ""
        else:
            outcomes[name] = "passed"
    findings = tuple(
        value
        for prop in suite.iter("property")
        if (value := prop.get("value")) is not None
        if prop.get("name") == "finding"
    )
    return Run(
        server=server,
        level=level,
        dialect=properties.get("dialect", ""),
        time=float(suite.get("time", "0")),
        outcomes=outcomes,
        reasons=reasons,
        findings=findings,
    )


def _cell(run: Run | None) -> str:
    if run is None:
        return "not run"
    counts = " / ".join(
        str(run.count(outcome)) for outcome in ("passed", "failed", "skipped", "not run")
    )
    warned = run.count("warning")
    warnings = f" ({warned} warning{'s' * (warned != 1)})" if warned else ""
    return f"{counts}, {run.time:.1f} s{warnings}"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _faults(strict: Run | None, tolerant: Run | None) -> str:
    """The failures at strict, those only at tolerant, and the runs' findings."""
    notes = []
    for run in (strict, tolerant):
        if run is None:
            continue
        said = run is tolerant and strict is not None
        for check, verdict in run.outcomes.items():
            if verdict != "failed" or (said and strict and strict.outcomes.get(check) == "failed"):
                continue
            where = " (tolerant)" if run is tolerant else ""
            notes.append(f"`{check}`{where}: {_escape(run.reasons[check])}")
        for finding in run.findings:
            notes.append(f"finding ({run.level}): {_escape(finding)}")
    return "<br>".join(dict.fromkeys(notes)) or "—"


def table(runs: Sequence[Run]) -> str:
    """The Markdown table: a row per server (in the order given), strict and tolerant
    counts (passed / failed / skipped / not run, the run's time), and the failures."""
    by_server: dict[str, dict[str, Run]] = {}
    for run in runs:
        by_server.setdefault(run.server, {})[run.level] = run
    lines = [
        "| server | dialect judged | strict | tolerant | failures (strict unless said), "
        "with their reasons |",
        "|---|---|---|---|---|",
    ]
    for server, levels in by_server.items():
        strict, tolerant = levels.get("strict"), levels.get("tolerant")
        first = strict or tolerant
        dialect = first.dialect if first is not None else ""
        if strict and tolerant and strict.dialect != tolerant.dialect:
            dialect = f"{strict.dialect} (tolerant: {tolerant.dialect})"
        lines.append(
            f"| {server} | {dialect} | {_cell(strict)} | {_cell(tolerant)} | "
            f"{_faults(strict, tolerant)} |"
        )
    return "\n".join(lines)


def read_runs(directory: Path, order: Sequence[str] = ()) -> list[Run]:
    """Every report in ``directory``; servers named in ``order`` first, in that order."""
    runs = [read_run(path) for path in sorted(directory.glob("*.xml"))]
    rank = {server: index for index, server in enumerate(order)}
    return sorted(runs, key=lambda run: (rank.get(run.server, len(rank)), run.server))


ORDER: Final = (
    *("ours-2013", "ours-2015", "ours-2016", "ours-2016ch", "ours-2016mbk"),
    *("zss", "mbk", "lib", "ldjb2", "ldjb3", "ch"),
)
"""The rows of docs/conformance.md: our ports, then the public servers."""


def written(page: str, made: str) -> str:
    """``page`` with the table between its markers replaced by ``made``."""
    before, begin, rest = page.partition(BEGIN)
    _, end, after = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"the page has no {BEGIN!r} ... {END!r} markers")
    return f"{before}{BEGIN}\n{made}\n{END}{after}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m conformance.verdict_table",
        description="The table of verdicts of docs/conformance.md, from the runs' reports.",
    )
    parser.add_argument("reports", type=Path, help="folder of <server>-<level>.xml reports")
    parser.add_argument("--write", type=Path, metavar="PAGE", help="write it into PAGE")
    args = parser.parse_args(argv)
    made = table(read_runs(args.reports, ORDER))
    if args.write is None:
        print(made)
        return 0
    page = args.write.read_text(encoding="utf-8")
    args.write.write_text(written(page, made), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
