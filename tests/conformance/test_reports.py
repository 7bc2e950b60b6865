"""The reports of a run as CI tools and people read them (issue 39).

``--junitxml`` is validated against the JUnit schema Jenkins reads (``data/junit-10.xsd``,
vendored with its source named), and ``--html`` is opened in a real Chromium: one row
per check, and the exchange that decided a check shown only on demand.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
import xmlschema

from conformance import Report, SuiteConfig, run_suite, to_html, to_junit_xml
from conformance.results import Event, Exchanged, Outcome
from conformance.transcript import HEAD, TAIL, Transcript

from ..peers import start_peer
from ..web.conftest import browser, page

__all__ = ["browser", "page"]  # the fixtures of a real Chromium (tests/web)

SCHEMA = Path(__file__).parent / "data" / "junit-10.xsd"
CHECKS = ("hello.gold", "connect.greeting", "quit.closes", "input.telnet", "players.see")


def _judged(peer: str = "zss") -> Report:
    """A run on a double: zss's QUIT and telnet failures, a pass, a skip of its turns."""

    async def run() -> Report:
        async with trio.open_nursery() as nursery:
            server = await start_peer(nursery, peer)
            config = SuiteConfig(timeout=1.0, check_timeout=20.0, dialect="2015")
            with trio.fail_after(60):
                report = await run_suite(
                    lambda: trio.open_tcp_stream("127.0.0.1", server.port),
                    config,
                    target=f"{peer} double",
                    only=CHECKS,
                )
            nursery.cancel_scope.cancel()
        return report

    return trio.run(run)


@pytest.fixture(scope="module")
def report() -> Report:
    judged = _judged()
    assert judged.get("quit.closes").outcome is Outcome.FAILED
    return judged


def test_the_junit_xml_is_valid_against_the_schema_jenkins_reads(report: Report) -> None:
    text = to_junit_xml(report)
    xmlschema.XMLSchema(SCHEMA).validate(text)  # raises, quoting the element, if invalid
    root = ElementTree.fromstring(text)
    assert root.tag == "testsuites"  # as pytest writes it
    (suite,) = root.findall("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert list(cases) == list(CHECKS)  # one testcase per check, in order
    assert suite.get("tests") == str(len(CHECKS))
    assert suite.get("failures") == str(report.count(Outcome.FAILED))
    properties = {prop.get("name"): prop.get("value") for prop in suite.iter("property")}
    assert properties["dialect"] == "2015" and properties["target"] == "zss double"
    failure = cases["quit.closes"].find("failure")
    assert failure is not None
    assert failure.get("message") == report.get("quit.closes").reason
    # The bytes that decided it: the QUIT sent, zss's refusal received.
    assert "sent  b'QUIT\\n'" in (failure.text or "")
    assert "received  b'FAIL invalid command\\n'" in (failure.text or "")
    assert cases["hello.gold"].find("failure") is None
    assert cases["hello.gold"].find("skipped") is None


def test_a_skip_and_a_finding_keep_their_reason_and_bytes() -> None:
    exchange = (
        Exchanged(0.0, "client", Event.CONNECTED),
        Exchanged(0.001, "client", Event.SENT, b"LOOK\r\x00"),
        Exchanged(0.002, "client", Event.RECEIVED, b"\x00\x1b[2J\xff"),
    )
    report = Report(
        target="example:1",
        level="strict",
        results=[
            _result("move.wall", Outcome.SKIPPED, "no wall within 3 moves", exchange),
            _result("move.floor", Outcome.NOT_RUN, "not run: the server went away"),
        ],
        findings=["the server went away after check move.wall"],
    )
    text = to_junit_xml(report)
    xmlschema.XMLSchema(SCHEMA).validate(text)
    suite = ElementTree.fromstring(text).find("testsuite")
    assert suite is not None
    assert (suite.get("skipped"), suite.get("errors"), suite.get("tests")) == ("2", "1", "3")
    skipped = suite.find("testcase[@name='move.wall']/skipped")
    assert skipped is not None and skipped.get("message") == "no wall within 3 moves"
    # Bytes XML cannot hold are shown as Python writes them, never dropped.
    assert "b'LOOK\\r\\x00'" in (skipped.text or "")
    assert "b'\\x00\\x1b[2J\\xff'" in (skipped.text or "")
    error = suite.find("testcase[@name='finding 1']/error")
    assert error is not None and error.get("message") == report.findings[0]


def _result(check: str, outcome: Outcome, reason: str, exchange: tuple[Exchanged, ...] = ()) -> Any:
    from conformance.results import CheckResult

    return CheckResult(check, "§4.2 MOVE", check, outcome, reason, exchange=exchange)


def test_a_long_exchange_keeps_its_beginning_and_its_end() -> None:
    clock = iter(range(10_000))
    transcript = Transcript(lambda: float(next(clock)))
    for number in range(2000):
        transcript.record("A", Event.RECEIVED, f"{number:05d}\n".encode() * 10)
    kept = transcript.entries()
    data = [entry for entry in kept if entry.event is Event.RECEIVED]
    assert data[0].data.startswith(b"00000\n") and data[-1].data.startswith(b"01999\n")
    assert sum(len(entry.data) for entry in data) <= HEAD + TAIL
    (gap,) = [entry for entry in kept if entry.event is Event.LEFT_OUT]
    assert gap.data == f"{2000 * 60 - sum(len(entry.data) for entry in data)} bytes".encode()


def test_the_command_writes_both_reports(tmp_path: Path) -> None:
    # Against nothing that listens: one failed check, the others skipped; both files.
    junit, page_path = tmp_path / "run.xml", tmp_path / "run.html"
    command = [sys.executable, "-m", "conformance", "127.0.0.1:9", "--timeout", "1"]
    only = ["--only", "hello.gold", "--only", "look.shape"]
    done = subprocess.run(
        [*command, *only, "--junitxml", str(junit), "--html", str(page_path)],
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    xmlschema.XMLSchema(SCHEMA).validate(junit.read_text())
    assert "could not connect" in page_path.read_text()


@pytest.fixture
def report_page(report: Report, tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "report.html"
    path.write_text(to_html(report), encoding="utf-8")
    yield path


def test_the_page_shows_each_check_and_its_exchange_on_demand(
    page: Any, report: Report, report_page: Path
) -> None:
    from playwright.sync_api import expect

    page.goto(report_page.as_uri())
    expect(page).to_have_title("dod-conformance: zss double")
    expect(page.locator("dd.dialect")).to_have_text("2015")
    expect(page.locator("dd.level")).to_have_text("strict")
    expect(page.locator("dd.began")).to_contain_text(" s)")
    rows = page.locator("tr.check")
    expect(rows).to_have_count(len(CHECKS))
    row = page.locator("tr#quit\\.closes")
    expect(row.locator("td.verdict")).to_have_text("FAIL")
    expect(row.locator(".reason")).to_contain_text("b'FAIL invalid command\\n'")
    expect(row.locator("td.time")).to_have_text(f"{report.get('quit.closes').duration:.2f} s")
    exchange = row.locator("pre.exchange")
    expect(exchange).to_be_hidden()  # on demand only
    row.locator("summary").click()
    expect(exchange).to_be_visible()
    expect(exchange.locator(".sent").last).to_contain_text("b'QUIT\\n'")
    expect(exchange).to_contain_text("received  b'FAIL invalid command\\n'")
    passed = page.locator("tr#hello\\.gold td.verdict")
    expect(passed).to_have_text("PASS")
