"""docs/conformance.md's table of verdicts is what the runs' reports say (issue 39)."""

from __future__ import annotations

from pathlib import Path

from conformance import Outcome, Report, to_junit_xml
from conformance.results import CheckResult
from conformance.verdict_table import ORDER, read_run, read_runs, table, written

from ..helpers import REPO

RUNS = REPO / "docs" / "conformance-runs"
PAGE = REPO / "docs" / "conformance.md"


def test_the_page_shows_what_the_reports_say() -> None:
    page = PAGE.read_text(encoding="utf-8")
    made = table(read_runs(RUNS, ORDER))
    # Run `python -m conformance.verdict_table docs/conformance-runs --write
    # docs/conformance.md` after adding or replacing a report.
    assert written(page, made) == page
    servers = {path.stem.rpartition("-")[0] for path in RUNS.glob("*.xml")}
    assert servers == set(ORDER), "a report of every server in the table, and no other"


def test_a_report_is_read_back_as_the_run_wrote_it(tmp_path: Path) -> None:
    results = [
        CheckResult("hello.gold", "§4.1", "hello", Outcome.PASSED, duration=0.5),
        CheckResult("look.shape", "§4.4", "shape", Outcome.WARNING, warnings=("blank-lines",)),
        CheckResult("move.wall", "§4.2", "wall", Outcome.FAILED, "MOVE N | answered 'SUCCESS'"),
        CheckResult("move.floor", "§4.2", "floor", Outcome.SKIPPED, "no floor"),
        CheckResult("pickup.gold", "§4.3", "gold", Outcome.NOT_RUN, "not run: gone"),
    ]
    report = Report(
        "example:1", "strict", results, duration=12.34, dialect="2015", findings=["gone"]
    )
    path = tmp_path / "example-strict.xml"
    path.write_text(to_junit_xml(report), encoding="utf-8")
    run = read_run(path)
    assert (run.server, run.level, run.dialect, run.findings) == (
        "example",
        "strict",
        "2015",
        ("gone",),
    )
    assert run.outcomes == {result.check_id: result.outcome.value for result in results}
    row = table([run]).splitlines()[-1]
    assert row.startswith("| example | 2015 | 1 / 1 / 1 / 1, 12.3 s (1 warning) | not run |")
    assert "`move.wall`: MOVE N \\| answered 'SUCCESS'<br>finding (strict): gone" in row
